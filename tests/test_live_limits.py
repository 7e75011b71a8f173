"""Live rooms (``morris_cli.web.live``) under failure and load: a room gone from the store
during a resync, a sweep that fails, the memory caps and the global creation limit, and
the WebSocket close codes (1013 a client that reads nothing, 4408 no hello, 1008 too
many refusals)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from morris_cli.web import live_connection, live_protocol  # noqa: E402
from morris_cli.web.app import create_app  # noqa: E402
from morris_cli.web.live import LiveRooms  # noqa: E402
from morris_cli.web.live_limits import Limits  # noqa: E402
from morris_cli.web.room_errors import TooMany, http_status  # noqa: E402
from morris_cli.web.roomstore_sqlite import SQLiteRoomStore  # noqa: E402


async def no_review(game) -> dict:
    return {}


def rooms_over(store, limits: Limits | None = None) -> LiveRooms:
    return LiveRooms(store, no_review, limits)


def closed_with(ws, limit: int = 50) -> int:
    """The close code, after reading whatever comes before it."""
    with pytest.raises(WebSocketDisconnect) as e:
        for _ in range(limit):
            ws.receive_json()
    return e.value.code


@pytest.fixture
def app(tmp_path):
    return create_app({}, rooms=tmp_path / "rooms.sqlite")


def new_room(client) -> dict:
    host = client.post("/api/rooms", json={"variant": "three", "color": "white"}).json()
    assert client.post(f"/api/rooms/{host['room']}/join",
                       json={"invite": host["invite_code"]}).status_code == 200
    return host


def hello(ws, host: dict) -> None:
    ws.send_json({"type": "hello", "version": 0, "token": host["token"]})
    while ws.receive_json()["type"] != "welcome":
        pass


def test_a_resync_closes_the_connections_of_a_room_gone_and_resyncs_the_others(
        app, tmp_path):
    with TestClient(app) as client:
        live = app.state.live
        gone, kept = new_room(client), new_room(client)
        with client.websocket_connect(f"/ws/rooms/{gone['room']}") as lost, \
                client.websocket_connect(f"/ws/rooms/{kept['room']}") as alive:
            hello(lost, gone)
            hello(alive, kept)
            with sqlite3.connect(tmp_path / "rooms.sqlite") as db:  # expired elsewhere
                db.execute("DELETE FROM rooms WHERE id = ?", (gone["room"],))
            client.portal.call(live._on_message, "*", {"type": "resync"})
            error = None
            with pytest.raises(WebSocketDisconnect) as e:
                while True:
                    message = lost.receive_json()
                    error = message if message["type"] == "error" else error
            assert e.value.code == 4404 and error["status"] == 404
            assert gone["room"] not in live._connections and gone["room"] not in live._rooms
            assert kept["room"] in live._rooms  # reloaded from the store
            alive.send_json({"type": "ping"})
            while alive.receive_json()["type"] != "pong":
                pass
            # an event that shows the cache behind, for a room gone: the same
            with sqlite3.connect(tmp_path / "rooms.sqlite") as db:
                db.execute("DELETE FROM rooms WHERE id = ?", (kept["room"],))
            client.portal.call(live._on_message, kept["room"],
                               {"type": "event", "event": {"kind": "resign", "v": 9}})
            assert closed_with(alive) == 4404 and kept["room"] not in live._connections


class FailingOnce(SQLiteRoomStore):
    def __init__(self) -> None:
        super().__init__(":memory:")
        self.sweeps = 0

    async def remove_idle(self, before_ms: int) -> int:
        self.sweeps += 1
        if self.sweeps == 1:
            raise OSError("disk went away")
        return await super().remove_idle(before_ms)


def test_a_failed_sweep_is_logged_and_the_next_one_runs(caplog):
    store = FailingOnce()
    live = rooms_over(store)
    live.sweep_seconds = 0.01

    async def run() -> None:
        sweeper = asyncio.create_task(live.sweep_forever())
        for _ in range(200):
            await asyncio.sleep(0.01)
            if store.sweeps >= 3:
                break
        assert not sweeper.done()
        sweeper.cancel()

    with caplog.at_level(logging.ERROR, logger="morris.live"):
        asyncio.run(run())
    assert store.sweeps >= 3
    failed = [r for r in caplog.records if r.name == "morris.live"]
    assert len(failed) == 1 and "disk went away" in failed[0].exc_text
    asyncio.run(store.close())


def test_the_caches_stay_within_their_caps():
    limits = Limits(cached_rooms=5, creator_addresses=7, room_locks=4)
    store = SQLiteRoomStore(":memory:")
    live = rooms_over(store, limits)

    async def run() -> None:
        records = []
        for number in range(30):
            record, token, invite = await live.create("three", "white", True, 100,
                                                      f"10.0.0.{number}")
            records.append((record, token, invite))
            await live.join(record.id, invite)
            await live.act(record.id, "host", "move", "b2")
            assert len(live._rooms) <= 5 and len(live._locks) <= 4
            assert len(live.creation.addresses) <= 7
            if number == 2:  # a room with a connection is never evicted
                live._connections[record.id] = {object()}
        assert records[2][0].id in live._rooms
        # an evicted room comes back from the store as it was
        first = await live.room(records[0][0].id)
        assert first.state.moves() == ["b2"] and first.state.guest_joined

    asyncio.run(run())
    asyncio.run(store.close())


def test_room_creation_is_limited_over_all_addresses():
    limits = Limits(all_rooms_per_minute=0.001, all_room_burst=4)
    store = SQLiteRoomStore(":memory:")
    live = rooms_over(store, limits)

    async def run() -> None:
        for number in range(4):
            await live.create("three", "white", True, 100, f"10.0.0.{number}")
        with pytest.raises(TooMany) as e:
            await live.create("three", "white", True, 100, "10.0.1.1")
        assert http_status(e.value) == 429 and "too many rooms" in str(e.value)

    asyncio.run(run())
    asyncio.run(store.close())
    derived = Limits(rooms_per_minute=3, room_burst=2)  # an operator's rate, scaled
    assert (derived.all_rooms_per_minute, derived.all_room_burst) == (30, 20)


def test_a_client_that_reads_nothing_is_closed_with_1013(app, monkeypatch):
    monkeypatch.setattr(live_connection, "OUTBOX", 2)  # the hello's answers alone overflow it
    with TestClient(app) as client:
        host = new_room(client)
        with client.websocket_connect(f"/ws/rooms/{host['room']}") as ws:
            ws.send_json({"type": "hello", "version": 0, "token": host["token"]})
            assert closed_with(ws) == 1013


def test_no_hello_in_time_is_closed_with_4408(app, monkeypatch):
    monkeypatch.setattr(live_protocol, "HELLO_SECONDS", 0.05)
    with TestClient(app) as client:
        host = new_room(client)
        with client.websocket_connect(f"/ws/rooms/{host['room']}") as ws:
            assert closed_with(ws) == 4408


def test_too_many_refusals_are_closed_with_1008(tmp_path):
    limits = Limits(messages_per_second=0.001, message_burst=1, max_refusals=3)
    app = create_app({}, rooms=tmp_path / "rooms.sqlite", limits=limits)
    with TestClient(app) as client:
        host = new_room(client)
        with client.websocket_connect(f"/ws/rooms/{host['room']}") as ws:
            for _ in range(5):
                ws.send_json({"type": "ping"})
            assert closed_with(ws) == 1008
