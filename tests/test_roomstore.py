"""Both room stores against the promises of ``RoomStore``: an append only at the expected
version (one winner of two), the guest seat taken once, loads, presence, removal of idle
rooms; the SQLite store's recovery from a failed removal; the Redis store's resync after
a dropped pub/sub connection, its listener surviving a failing handler, and its presence
of a process that died (Redis tests need Debian's ``redis-server``: skipped with the
reason where there is none, a failure under ``CI=true``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import pytest
from test_live_server import redis_url  # noqa: F401  (the fixture)

from morris_cli.web.referee import RoomRecord
from morris_cli.web.roomstore import RoomStore, token_hash
from morris_cli.web.roomstore_sqlite import SQLiteRoomStore

ROOM = "r" * 22


def record(room_id: str = ROOM, created: int = 1000) -> RoomRecord:
    return RoomRecord(room_id, "three", False, 200, "white", created)


def event(v: int, at: int = 2000) -> dict:
    return {"kind": "move", "v": v, "at": at, "move": f"m{v}"}


async def eventually(condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.02)


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request, tmp_path):
    """A factory of started stores of one kind (in an event loop), closed afterwards."""
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None

    @contextlib.asynccontextmanager
    async def make(**options):
        if url:
            from morris_cli.web.roomstore_redis import RedisRoomStore

            store: RoomStore = RedisRoomStore(url, 3600, **options)
        else:
            store = SQLiteRoomStore(tmp_path / "rooms.sqlite")
        await store.start()
        try:
            yield store
        finally:
            await store.close()

    return make


def test_append_at_the_expected_version_only(make_store):
    async def body():
        async with make_store() as store:
            seen = []

            async def handler(room_id, message):
                seen.append((room_id, message))

            store.subscribe(handler)
            await store.create(record(), token_hash("host"), token_hash("invite"))
            assert await store.append(ROOM, event(1))
            assert not await store.append(ROOM, event(1))  # version 1 is written
            assert not await store.append(ROOM, event(3))  # version 2 comes first
            assert not await store.append("x" * 22, event(1))  # no such room
            assert await store.append(ROOM, event(2))
            await eventually(lambda: len(seen) >= 2)
            await asyncio.sleep(0.1)  # nothing else comes
            assert seen == [(ROOM, {"type": "event", "event": event(1)}),
                            (ROOM, {"type": "event", "event": event(2)})]
            loaded = await store.load(ROOM)
            assert loaded.events == [event(1), event(2)]
            assert loaded.record == record()
            assert loaded.host_hash == token_hash("host")
            assert loaded.invite_hash == token_hash("invite")
            assert loaded.guest_hash is None
            assert await store.load("x" * 22) is None

    asyncio.run(body())


def test_two_concurrent_appends_one_wins(make_store):
    async def body():
        async with make_store() as store:
            await store.create(record(), "h", "i")
            for v in range(1, 6):
                first, second = {**event(v), "move": "a"}, {**event(v), "move": "b"}
                won = await asyncio.gather(store.append(ROOM, first), store.append(ROOM, second))
                assert sorted(won) == [False, True]
                stored = (await store.load(ROOM)).events
                assert len(stored) == v and stored[-1] == (first if won[0] else second)

    asyncio.run(body())


def test_the_guest_seat_is_taken_once(make_store):
    async def body():
        async with make_store() as store:
            await store.create(record(), "h", "i")
            join = {"kind": "join", "v": 1, "at": 2000, "seat": "guest"}
            assert await store.append(ROOM, join, guest_hash="first")
            again = {**join, "v": 2}
            assert not await store.append(ROOM, again, guest_hash="second")
            loaded = await store.load(ROOM)
            assert loaded.guest_hash == "first" and loaded.events == [join]
            assert await store.append(ROOM, event(2))  # without a guest hash: as usual

    asyncio.run(body())


def test_presence_counts_connections(make_store):
    async def body():
        async with make_store() as store:
            await store.create(record(), "h", "i")
            none = {"host": False, "guest": False}
            assert await store.presence(ROOM) == none
            assert await store.set_presence(ROOM, "host", True) == {"host": True, "guest": False}
            assert await store.set_presence(ROOM, "host", True) == {"host": True, "guest": False}
            assert await store.set_presence(ROOM, "guest", True) == {"host": True, "guest": True}
            assert await store.set_presence(ROOM, "host", False) == {"host": True, "guest": True}
            assert await store.set_presence(ROOM, "host", False) == {"host": False, "guest": True}
            assert await store.set_presence(ROOM, "guest", False) == none
            assert await store.presence(ROOM) == none

    asyncio.run(body())


def test_remove_idle(make_store):
    async def body():
        async with make_store() as store:
            await store.create(record("a" * 22, created=1000), "h", "i")
            await store.create(record("b" * 22, created=1000), "h", "i")
            assert await store.append("b" * 22, event(1, at=5000))
            removed = await store.remove_idle(3000)
            if isinstance(store, SQLiteRoomStore):
                assert removed == 1
                assert await store.load("a" * 22) is None
            else:
                assert removed == 0  # Redis keys expire by themselves
            assert (await store.load("b" * 22)).events == [event(1, at=5000)]

    asyncio.run(body())


def test_sqlite_a_failed_removal_leaves_no_transaction_open(tmp_path):
    """A DELETE that fails once (a trigger here; a full disk in life) must not leave
    the connection inside a transaction: every later write would fail."""
    async def body():
        store = SQLiteRoomStore(tmp_path / "rooms.sqlite")
        try:
            await store.create(record(), "h", "i")
            await store._run(store._db.execute, "CREATE TEMP TRIGGER refuse BEFORE DELETE ON "
                             "main.events BEGIN SELECT RAISE(ABORT, 'refused'); END")
            await store.append(ROOM, event(1, at=1000))
            with pytest.raises(Exception, match="refused"):
                await store.remove_idle(10_000)
            await store._run(store._db.execute, "DROP TRIGGER refuse")
            assert await store.append(ROOM, event(2, at=1000))
            assert len((await store.load(ROOM)).events) == 2
            assert await store.remove_idle(10_000) == 1
        finally:
            await store.close()

    asyncio.run(body())


def redis_store(url: str, **options):
    from morris_cli.web.roomstore_redis import RedisRoomStore

    return RedisRoomStore(url, 3600, **options)


def test_redis_resync_after_the_connection_drops(redis_url):  # noqa: F811
    async def body():
        import redis.asyncio as redis

        store = redis_store(redis_url)
        seen = []

        async def handler(room_id, message):
            seen.append((room_id, message))

        store.subscribe(handler)
        await store.start()
        try:
            async with redis.Redis.from_url(redis_url) as admin:
                assert await admin.client_kill_filter(_type="pubsub") >= 1
            await eventually(lambda: ("*", {"type": "resync"}) in seen)
            await store.create(record(), "h", "i")  # and the fan-out works again
            assert await store.append(ROOM, event(1))
            await eventually(lambda: (ROOM, {"type": "event", "event": event(1)}) in seen)
        finally:
            await store.close()

    asyncio.run(body())


def test_redis_a_failing_handler_is_logged_and_the_listener_goes_on(redis_url,  # noqa: F811
                                                                     caplog):
    async def body():
        store = redis_store(redis_url)
        seen = []

        async def handler(room_id, message):
            seen.append(message)
            if message.get("n") == 1:
                raise RuntimeError("a handler's bug")

        store.subscribe(handler)
        await store.start()
        try:
            for n in (1, 2, 3):
                await store.publish(ROOM, {"type": "note", "n": n})
            await eventually(lambda: len(seen) >= 3)
            await asyncio.sleep(0.7)  # a resubscription would come within this
            assert seen == [{"type": "note", "n": n} for n in (1, 2, 3)]  # no resync
        finally:
            await store.close()

    with caplog.at_level(logging.ERROR, logger="morris.rooms"):
        asyncio.run(body())
    failures = [r for r in caplog.records if r.name == "morris.rooms"]
    assert len(failures) == 1 and "a handler's bug" in str(failures[0].exc_info[1])


def test_redis_a_dead_process_seats_go_offline_and_are_fanned_out(redis_url):  # noqa: F811
    """A process killed with ``kill -9`` neither refreshes nor removes its seats: another
    process notices the lapse and tells its own clients."""
    async def body():
        dead, alive = redis_store(redis_url, presence_seconds=1), \
            redis_store(redis_url, presence_seconds=1)
        seen = []

        async def handler(room_id, message):
            seen.append((room_id, message))

        alive.subscribe(handler)
        await dead.start()
        await alive.start()
        try:
            await alive.create(record(), "h", "i")
            assert await dead.set_presence(ROOM, "guest", True) == {"host": False, "guest": True}
            assert await alive.set_presence(ROOM, "host", True) == {"host": True, "guest": True}
            for task in dead._tasks:  # killed: its refresher stops, its fields stay
                task.cancel()
            start = time.monotonic()
            gone = (ROOM, {"type": "presence", "seats": {"host": True, "guest": False}})
            await eventually(lambda: gone in seen, seconds=4)
            assert time.monotonic() - start < 2  # 1 s, then a refresh (1/3 s) notices
            assert await alive.presence(ROOM) == {"host": True, "guest": False}
            await asyncio.sleep(0.8)  # the live process's own seat stays
            assert await alive.presence(ROOM) == {"host": True, "guest": False}
            assert seen.count(gone) == 1
        finally:
            await dead.close()
            await alive.close()

    asyncio.run(body())
