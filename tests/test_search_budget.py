"""A placement search within limits (``PlacementSearch.search``'s deadline and cancel
flag, ``Tablebase.search_limits``): it stops soon after told, raises rather than answer
a guess, and the searches after it stay exact; the web server runs searches on their own
thread, so plain reads never wait behind one, answers a search out of time with a 503,
and takes a client that leaves mid-request quietly."""

from __future__ import annotations

import asyncio
import logging
import random
import re
import threading
import time
from pathlib import Path

import pytest

from morris_solver.query.probe import Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.rules import successors, terminal
from morris_solver.rules.values import Result
from morris_solver.search.search import PlacementSearch
from morris_solver.search.search_limits import SearchCancelled, SearchStopped, SearchTimeout
from morris_solver.solving.generate import solve

# With 10 entries in its transposition table the Six start's search takes 883,957 nodes
# (about a minute on 2 shared cores): long enough to be stopped in the middle
SLOW_TT = 10
# Nodes a stopped kernel may search after its limit is seen (it stops within a node
# of the flag; 63 were measured from a 0.1 s deadline): far fewer than the whole search
STOP_SLACK = 100_000


@pytest.fixture(scope="module")
def six_moving_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("six-moving") / "six.h5"
    solve("six", path, phase="moving", show_progress=False, log=lambda s: None)
    return path


@pytest.fixture(scope="module")
def six_whole(six_whole_path) -> Tablebase:
    return Tablebase.open(six_whole_path)


def _assert_cut(stopped: SearchStopped, session: PlacementSearch) -> None:
    """The search was stopped by its limit, not run to its end: the kernel, told to stop
    when the limit was seen (after the nodes the message gives), searched at most
    ``STOP_SLACK`` nodes more. Checked by the nodes, not the clock, which a loaded machine
    slows: a kernel that ignored the stop would run on to the whole search's nodes."""
    seen = int(re.search(r"after ([0-9,]+) nodes", str(stopped))[1].replace(",", ""))
    assert seen <= session.nodes <= seen + STOP_SLACK, (seen, session.nodes)


def _placement_positions(count: int, seed: int) -> list[Position]:
    """Placement positions of random games from the start, none of them over."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        pos = Position.start("six")
        while pos.mover_hand + pos.other_hand > 0 and terminal(pos) is None:
            found.append(pos)
            pos = rng.choice(successors(pos))[1]
    return found[:count]


def test_a_search_past_its_deadline_raises_soon(six_moving_path, six_whole):
    start = Position.start("six")
    quick = PlacementSearch(Tablebase.open(six_moving_path))  # (compiles the kernel)
    found = quick.search(start, deadline=time.monotonic() + 60)  # a normal budget
    assert found.value.result is six_whole.probe(start).result and found.nodes > 0
    session = PlacementSearch(Tablebase.open(six_moving_path), max_tt_entries=SLOW_TT)
    session.load(start)
    with pytest.raises(SearchTimeout, match="ran out of time after") as timeout:
        session.search(start, deadline=time.monotonic() + 0.1)
    _assert_cut(timeout.value, session)
    late = [pos for pos in _placement_positions(60, seed=4) if pos.mover_hand < 2]
    for pos in late:  # the same session, a normal budget: small searches, exact
        after = session.search(pos, deadline=time.monotonic() + 60)
        assert after.value.result is six_whole.probe(pos).result and after.nodes > 0, pos
    assert late


def test_setting_the_cancel_flag_stops_the_search(six_moving_path):
    session = PlacementSearch(Tablebase.open(six_moving_path), max_tt_entries=SLOW_TT)
    start = Position.start("six")
    session.load(start)
    late = next(pos for pos in _placement_positions(20, seed=4) if pos.mover_hand < 2)
    session.search(late, cancel=threading.Event())  # (compiles the kernel)
    cancel = threading.Event()
    threading.Timer(0.05, cancel.set).start()
    with pytest.raises(SearchCancelled, match="cancelled after") as cancelled:
        session.search(start, cancel=cancel)
    _assert_cut(cancelled.value, session)


def test_a_stopped_search_leaves_the_table_exact(six_moving_path, six_whole):
    """Stopped in the middle (here by its progress callback raising, as Ctrl-C does),
    the nodes under way store nothing: the same session's later searches, using what
    the table holds, still give the placement tables' results. The root is a win (12,044
    nodes): scores a stopped node made up, stored, would make it a draw."""
    root = Position.parse("W:a3,a5 B:c4,d2 w h:4,4", "six")
    assert six_whole.probe(root).result is Result.WIN

    def stop_midway(nodes: int, entries: int) -> None:
        if nodes >= 1000:
            raise KeyboardInterrupt

    for _ in range(5):  # a loaded machine may let the search end before it is stopped
        session = PlacementSearch(Tablebase.open(six_moving_path))
        session.load(root)
        try:
            session.search(root, progress=stop_midway, progress_seconds=0.0)
        except KeyboardInterrupt:
            break
    else:
        pytest.fail("the search was never stopped")
    assert session.tt_entries > 0  # it had learnt something, which is kept
    for pos in [root, *_placement_positions(40, seed=5)]:
        assert session.search(pos).value.result is six_whole.probe(pos).result, pos


def test_the_tablebase_says_how_to_get_the_answer_at_once(six_moving_path, six_whole):
    tb = Tablebase.open(six_moving_path)
    start = Position.start("six")
    with tb.search_limits(0.0), pytest.raises(SearchTimeout) as timeout:
        tb.probe(start)
    message = str(timeout.value)
    assert "longer than 0 s" in message and "--phase placement" in message
    assert "\n" not in message
    with tb.search_limits(60.0):
        assert tb.probe(start).result is six_whole.probe(start).result


# ---------------------------------------------------------------- the web server

def _client(tables: dict, **options):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from morris_cli.web.app import create_app

    return TestClient(create_app(tables, **options), raise_server_exceptions=False)


MOVING = "W:a1,c1,e1 B:a5,c5,e5 w h:0,0"  # read from the tables, never searched


def test_a_search_does_not_hold_up_plain_reads(six_moving_path, six_whole, monkeypatch):
    searching, release, waited_out = threading.Event(), threading.Event(), threading.Event()
    original = PlacementSearch.search

    def slow_search(self, position, **options):
        searching.set()
        if not release.wait(30):  # a plain read that waits behind the search ends only now
            waited_out.set()
        return original(self, position, **options)

    with _client({"six": six_moving_path}) as client:
        monkeypatch.setattr(PlacementSearch, "search", slow_search)
        answers = {}
        slow = threading.Thread(target=lambda: answers.setdefault("search", client.get(
            "/api/probe", params={"variant": "six", "position": "a1 a3"})))
        slow.start()
        try:
            assert searching.wait(10)
            plain = client.get("/api/probe", params={"variant": "six", "position": MOVING})
            # answered while the search was still held: it did not wait behind it
            assert not waited_out.is_set() and slow.is_alive()
        finally:
            release.set()
            slow.join(30)
        moving = Position.parse(MOVING, "six")
        assert plain.status_code == 200
        assert plain.json()["result"] == six_whole.probe(moving).result.value
        expected = six_whole.probe(Position.parse("a1 a3", "six")).result.value
        assert answers["search"].status_code == 200
        assert answers["search"].json()["result"] == expected


def test_a_search_out_of_time_is_a_503_in_one_line(six_moving_path, six_whole):
    with _client({"six": six_moving_path}, search_seconds=0.0) as client:
        for path in ("/api/probe", "/api/engine"):
            answer = client.get(path, params={"variant": "six", "position": "a1 a3",
                                              "moves": "a1 a3"})
            assert answer.status_code == 503, path
            error = answer.json()["error"]
            assert "took longer than 0 s" in error and "--phase placement" in error
        # the board's game: the position and its legal moves still, without values
        answer = client.get("/api/game", params={"variant": "six", "moves": "a1 a3"})
        assert answer.status_code == 200
        game = answer.json()
        assert "took longer than 0 s" in game["value_error"] and game["value"] is None
        assert game["values_timed_out"] is True
        assert game["moves"] and all(move["value"] is None for move in game["moves"])
        plain = client.get("/api/probe", params={"variant": "six", "position": MOVING})
        moving = Position.parse(MOVING, "six")
        assert plain.json()["result"] == six_whole.probe(moving).result.value


def test_a_search_is_cancelled_when_its_client_leaves():
    pytest.importorskip("starlette")
    from morris_cli.web.app import _cancel_when_gone

    class Leaving:
        """A request whose client is gone at the third look."""

        looks = 0

        async def is_disconnected(self) -> bool:
            self.looks += 1
            return self.looks >= 3

    cancel = threading.Event()
    asyncio.run(asyncio.wait_for(_cancel_when_gone(Leaving(), cancel), 5))
    assert cancel.is_set()


def test_a_client_leaving_mid_body_is_no_server_error(table_paths, caplog):
    pytest.importorskip("starlette")
    from morris_cli.web.app import create_app

    app = create_app({"three": table_paths["three"]})
    messages = [{"type": "http.request", "body": b'{"variant": ', "more_body": True},
                {"type": "http.disconnect"}]
    sent = []

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/api/rooms", "raw_path": b"/api/rooms",
             "query_string": b"", "root_path": "", "headers": [(b"content-type",
                                                                 b"application/json")],
             "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}
    with caplog.at_level(logging.WARNING):
        asyncio.run(app(scope, receive, send))
    assert not messages  # the body was read up to the disconnect
    statuses = [m["status"] for m in sent if m["type"] == "http.response.start"]
    assert all(400 <= status < 500 for status in statuses)
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
