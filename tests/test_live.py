"""Live rooms (``morris_cli.web.live``) through Starlette's test client: a whole game between two
WebSocket clients, a reconnect that receives exactly what it missed, a move sent twice
applied once, every refusal, draw offers, resignation, a rematch with colours swapped,
a new server over the same SQLite file, the review against ``Tablebase.probe``, expiry
and the rate limits."""

from __future__ import annotations

import random
import sqlite3

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

from morris_cli.web.app import create_app  # noqa: E402
from morris_cli.web.live_limits import Limits  # noqa: E402
from morris_solver.query.probe import Tablebase  # noqa: E402
from morris_solver.rules.game import Game  # noqa: E402


@pytest.fixture
def rooms_file(tmp_path):
    return tmp_path / "rooms.sqlite"


@pytest.fixture
def client(table_paths, rooms_file):
    with TestClient(create_app({"three": table_paths["three"]}, rooms=rooms_file)) as c:
        yield c


def new_room(client, variant="three", color="white", draw_rules=True) -> tuple[dict, dict]:
    """A room with both seats taken: the host's and the guest's answers."""
    host = client.post("/api/rooms", json={"variant": variant, "color": color,
                                           "draw_rules": draw_rules})
    assert host.status_code == 201, host.text
    host = host.json()
    guest = client.post(f"/api/rooms/{host['room']}/join", json={"invite": host["invite_code"]})
    assert guest.status_code == 200, guest.text
    return host, guest.json()


def bearer(seat: dict) -> dict:
    return {"Authorization": f"Bearer {seat['token']}"}


def receive_until(ws, kind: str, limit: int = 20) -> dict:
    """The next message of type ``kind`` (presence messages and others skipped)."""
    for _ in range(limit):
        message = ws.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


def hello(ws, version: int, seat: dict | None = None) -> tuple[dict, dict]:
    token = {"token": seat["token"]} if seat else {}
    ws.send_json({"type": "hello", "version": version, **token})
    welcome = receive_until(ws, "welcome")
    sync = ws.receive_json()
    assert sync["type"] in ("events", "state")
    return welcome, sync


def test_a_whole_game_between_two_websocket_clients(client, table_paths):
    host, guest = new_room(client, color="random")
    room = host["room"]
    seats = {host["color"]: host, guest["color"]: guest}
    assert {host["color"], guest["color"]} == {"white", "black"}
    rng = random.Random(5)
    with client.websocket_connect(f"/ws/rooms/{room}") as white, \
            client.websocket_connect(f"/ws/rooms/{room}") as black:
        sockets = {"white": white, "black": black}
        for color, ws in sockets.items():
            welcome, sync = hello(ws, 0, seats[color])
            assert welcome["color"] == color
            state = sync["state"]
        number = 0
        while state["over"] is None:
            mover = state["to_move"]
            move = rng.choice(state["legal"])["move"]
            number += 1
            sockets[mover].send_json({"type": "move", "move": move, "id": f"m{number}"})
            seen = {}
            for color, ws in sockets.items():
                message = receive_until(ws, "events")
                assert [e["move"] for e in message["events"]] == [move]
                seen[color] = message["state"]
            assert receive_until(sockets[mover], "ack")["version"] == seen[mover]["version"]
            assert seen["white"] == seen["black"] or (
                {k: v for k, v in seen["white"].items() if k != "server_time"}
                == {k: v for k, v in seen["black"].items() if k != "server_time"})
            state = seen["white"]
    # the rules' own end, as Game says it
    game = Game("three", draw_rules=True)
    for move in state["moves"]:
        game.play(move)
    assert state["over"]["reason"] == game.outcome().reason
    # the review's values are the tables'
    review = client.get(f"/api/rooms/{room}/review").json()
    tb = Tablebase.open(table_paths["three"])
    replayed = Game("three")
    for ply in review["plies"]:
        assert ply["before"] == tb.probe(replayed.position).as_dict()
        replayed.play(ply["move"])
    assert [p["move"] for p in review["plies"]] == state["moves"]


def test_a_reconnect_gets_exactly_the_missed_events(client):
    host, guest = new_room(client)
    room = host["room"]
    for move, seat in (("b2", host), ("a1", guest), ("c3", host), ("a3", guest)):
        assert client.post(f"/api/rooms/{room}/move", json={"move": move},
                           headers=bearer(seat)).status_code == 200
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        _, sync = hello(ws, 2, host)  # had the join and b2
        assert sync["type"] == "events"
        assert [e["v"] for e in sync["events"]] == [3, 4, 5]
        assert [e["move"] for e in sync["events"]] == ["a1", "c3", "a3"]
        assert sync["state"]["version"] == 5
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        _, sync = hello(ws, 5, guest)  # up to date: nothing missed
        assert sync["events"] == [] and sync["state"]["moves"] == ["b2", "a1", "c3", "a3"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        _, sync = hello(ws, 99)  # ahead of the room: the whole state
        assert sync["type"] == "state" and sync["state"]["version"] == 5


def test_a_move_sent_twice_is_applied_once(client):
    host, guest = new_room(client)
    room = host["room"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        hello(ws, 1, host)
        ws.send_json({"type": "move", "move": "b2", "id": "first"})
        first = receive_until(ws, "ack")
        ws.send_json({"type": "move", "move": "b2", "id": "first"})  # a retry after a drop
        again = receive_until(ws, "ack")
        assert again["version"] == first["version"] == 2
    # the same over HTTP with an id
    once = client.post(f"/api/rooms/{room}/move", json={"move": "a1", "id": "x"},
                       headers=bearer(guest))
    twice = client.post(f"/api/rooms/{room}/move", json={"move": "a1", "id": "x"},
                        headers=bearer(guest))
    assert once.status_code == twice.status_code == 200
    assert twice.json()["moves"] == ["b2", "a1"] and twice.json()["version"] == 3


def test_refusals_are_one_line_with_their_status(client):
    host, guest = new_room(client)
    room = host["room"]
    url = f"/api/rooms/{room}/move"
    cases = [
        (guest, {"move": "a1"}, 409, "not your turn"),
        ({"token": "not-a-seat"}, {"move": "b2"}, 403, "wrong seat token"),
        (host, {"move": "z9"}, 400, "unknown point"),
        (host, {"move": "b2-b3"}, 400, "illegal move"),
        (host, {}, 400, "missing 'move'"),
        (host, {"move": 7}, 400, "must be text"),
    ]
    for seat, body, status, words in cases:
        answer = client.post(url, json=body, headers=bearer(seat))
        assert answer.status_code == status, (body, answer.text)
        error = answer.json()["error"]
        assert words in error and "\n" not in error
    assert client.post(url, json={"move": "b2"}).status_code == 403  # no token at all
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:  # a watcher
        hello(ws, 0)
        ws.send_json({"type": "move", "move": "b2", "id": "w"})
        refused = receive_until(ws, "refused")
        assert refused["status"] == 403 and refused["id"] == "w"
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:  # a wrong token: a watcher
        ws.send_json({"type": "hello", "version": 0, "token": "guess"})
        assert receive_until(ws, "refused")["error"] == "wrong seat token"
        assert receive_until(ws, "welcome")["seat"] is None
    # the game over: no more moves
    client.post(f"/api/rooms/{room}/action", json={"action": "resign"}, headers=bearer(host))
    late = client.post(url, json={"move": "b2"}, headers=bearer(host))
    assert late.status_code == 409 and "over" in late.json()["error"]


def test_the_invite_seats_one_guest_then_shows_the_game(client):
    host = client.post("/api/rooms", json={"variant": "three"}).json()
    room = host["room"]
    assert client.post(f"/api/rooms/{room}/join", json={"invite": "wrong"}).status_code == 403
    early = client.post(f"/api/rooms/{room}/move", json={"move": "b2"}, headers=bearer(host))
    assert early.status_code == 409 and "not joined" in early.json()["error"]
    assert client.get(f"/api/rooms/{room}").json()["status"] == "waiting"
    first = client.post(f"/api/rooms/{room}/join", json={"invite": host["invite_code"]})
    second = client.post(f"/api/rooms/{room}/join", json={"invite": host["invite_code"]})
    assert first.status_code == 200 and second.status_code == 409
    state = client.get(f"/api/rooms/{room}").json()
    assert state["status"] == "playing" and state["seats"][first.json()["color"]]["taken"]
    # no secret in anything a watcher can read
    shown = client.get(f"/api/rooms/{room}").text + client.get(
        f"/api/rooms/{room}/events").text + host["watch"]
    for secret in (host["token"], host["invite_code"], first.json()["token"]):
        assert secret not in shown
    assert len(host["room"]) == 22 and len(host["token"]) >= 22  # 128 bits and more


def test_draw_offers_resignation_and_a_rematch_with_colours_swapped(client):
    host, guest = new_room(client, color="white")
    room = host["room"]

    def act(seat, action):
        return client.post(f"/api/rooms/{room}/action", json={"action": action},
                           headers=bearer(seat))

    assert act(host, "offer_draw").json()["draw_offer"] == "white"
    assert act(host, "accept_draw").status_code == 409  # not offered to the host
    assert act(guest, "decline_draw").json()["draw_offer"] is None
    offered = act(guest, "offer_draw")
    assert offered.status_code == 200 and offered.json()["draw_offer"] == "black"
    # a move answers an offer by playing on
    client.post(f"/api/rooms/{room}/move", json={"move": "b2"}, headers=bearer(host))
    assert client.get(f"/api/rooms/{room}").json()["draw_offer"] is None
    act(host, "offer_draw")
    over = act(guest, "accept_draw").json()["over"]
    assert over == {"winner": None, "reason": "draw agreed", "result": "draw"}
    assert act(host, "rematch").json()["rematch_offer"] == "host"
    assert act(host, "rematch").status_code == 409
    state = act(guest, "rematch").json()
    assert state["game"] == 2 and state["over"] is None and state["moves"] == []
    assert state["seats"]["white"]["seat"] == "guest"  # colours swapped
    assert state["finished"][0]["over"]["reason"] == "draw agreed"
    assert client.post(f"/api/rooms/{room}/move", json={"move": "b2"},
                       headers=bearer(guest)).status_code == 200
    state = act(guest, "resign").json()
    assert state["over"]["winner"] == "black" and "white resigned" == state["over"]["reason"]
    # both games can be reviewed; the one in play could not have been
    first = client.get(f"/api/rooms/{room}/review?game=1").json()
    assert first["moves"] == ["b2"] and first["ended"]["reason"] == "draw agreed"
    assert client.get(f"/api/rooms/{room}/review?game=2").json()["moves"] == ["b2"]
    assert client.get(f"/api/rooms/{room}/review?game=3").status_code == 409


def test_a_new_server_over_the_same_file_continues_every_room(table_paths, rooms_file):
    tables = {"three": table_paths["three"]}
    with TestClient(create_app(tables, rooms=rooms_file)) as first:
        rooms = [new_room(first) for _ in range(3)]
        for (host, guest), moves in zip(rooms, (["b2"], ["b2", "a1"], []), strict=True):
            for move, seat in zip(moves, (host, guest), strict=False):
                first.post(f"/api/rooms/{host['room']}/move", json={"move": move},
                           headers=bearer(seat))
        before = [first.get(f"/api/rooms/{h['room']}").json() for h, _ in rooms]
    with TestClient(create_app(tables, rooms=rooms_file)) as second:
        after = [second.get(f"/api/rooms/{h['room']}").json() for h, _ in rooms]
        for old, new in zip(before, after, strict=True):
            assert {k: v for k, v in old.items() if k != "server_time"} == \
                {k: v for k, v in new.items() if k != "server_time"}
        host, guest = rooms[1]
        with second.websocket_connect(f"/ws/rooms/{host['room']}") as ws:
            _, sync = hello(ws, 3, host)
            assert sync["events"] == [] and sync["state"]["to_move"] == "white"
            ws.send_json({"type": "move", "move": "c3", "id": "after-restart"})
            assert receive_until(ws, "ack")["version"] == 4


def test_the_review_marks_a_thrown_win_and_names_the_move_that_kept_it(client, table_paths):
    tb = Tablebase.open(table_paths["three"])
    host, guest = new_room(client, color="white")
    room = host["room"]
    game, seats = Game("three", draw_rules=True), {"white": host, "black": guest}
    # the first move that loses value is played, then the best moves to the end
    thrown = None
    while game.outcome() is None:
        before = tb.probe(game.position)
        moves = tb.moves(game.position)
        worse = [m for m in moves if m.value.result != before.result]
        mover = "white" if game.position.white_to_move else "black"
        move = worse[0] if worse and thrown is None else moves[0]
        if move is not moves[0]:
            thrown = (len(game.history) + 1, before.result.value, moves[0].text)
        client.post(f"/api/rooms/{room}/move", json={"move": move.text}, headers=bearer(
            seats[mover]))
        game.play(move.text)
    assert thrown is not None
    review = client.get(f"/api/rooms/{room}/review").json()
    ply = review["plies"][thrown[0] - 1]
    assert ply["before"]["result"] == thrown[1] and thrown[0] in review["turning_points"]
    assert ply["best"] == thrown[2] and ply["best_value"]["result"] == thrown[1]
    assert review["moves"] == [move for _, move in (
        (p, m.text(game.position.board)) for p, m in game.history)]


def test_a_room_of_a_variant_without_tables_plays_and_reviews_with_reasons(client):
    host, guest = new_room(client, variant="six")
    room = host["room"]
    assert client.post(f"/api/rooms/{room}/move", json={"move": "c4"},
                       headers=bearer(host)).status_code == 200
    client.post(f"/api/rooms/{room}/action", json={"action": "resign"}, headers=bearer(guest))
    review = client.get(f"/api/rooms/{room}/review").json()
    assert review["plies"][0]["missing"] == "no tables of six are served"


def test_idle_rooms_are_removed(table_paths, rooms_file):
    app = create_app({"three": table_paths["three"]}, rooms=rooms_file, room_ttl_days=1e-6)
    with TestClient(app) as client:
        host, _ = new_room(client)
        import time

        time.sleep(0.2)  # 1e-6 days is 86 ms
        client.portal.call(app.state.live.sweep)
        gone = client.get(f"/api/rooms/{host['room']}")
        assert gone.status_code == 404 and "no such room" in gone.json()["error"]


def test_rate_limits(table_paths, rooms_file):
    limits = Limits(messages_per_second=1, message_burst=3, rooms_per_minute=1, room_burst=2)
    app = create_app({"three": table_paths["three"]}, rooms=rooms_file, limits=limits)
    with TestClient(app) as client:
        made = [client.post("/api/rooms", json={"variant": "three"}) for _ in range(3)]
        assert [m.status_code for m in made] == [201, 201, 429]
        assert "too many rooms" in made[2].json()["error"]
        room = made[0].json()["room"]
        with client.websocket_connect(f"/ws/rooms/{room}") as ws:
            for number in range(6):
                ws.send_json({"type": "move", "move": "b2", "id": f"m{number}"})
            answers = [ws.receive_json() for _ in range(6)]
            limited = [a for a in answers if a["type"] == "refused" and a["status"] == 429]
            assert limited and all(a["id"].startswith("m") for a in limited)  # which move


def test_malformed_frames_get_one_line_and_the_connection_lives(client):
    host, _ = new_room(client)
    room = host["room"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        for frame in ("not json", "[1, 2]", '{"type": "dance"}', '{"no": "type"}',
                      '{"type": "hello", "version": "²"}', "x" * 20_000):
            ws.send_text(frame)
            refused = receive_until(ws, "refused")
            assert refused["status"] in (400, 413) and "\n" not in refused["error"]
        ws.send_bytes(b"\x00\xff")
        assert "binary" in receive_until(ws, "refused")["error"]
        welcome, _ = hello(ws, 0, host)
        assert welcome["seat"] == "host"
    with client.websocket_connect("/ws/rooms/nosuchroomnosuchroom12") as ws:
        assert ws.receive_json()["status"] == 404


def test_a_move_id_reused_in_the_next_game_is_played_and_another_move_is_refused(client):
    host, guest = new_room(client, color="white")
    room = host["room"]
    url = f"/api/rooms/{room}/move"
    first = client.post(url, json={"move": "b2", "id": "g1-1"}, headers=bearer(host))
    assert first.status_code == 200 and first.json()["event_version"] == 2
    other = client.post(url, json={"move": "c3", "id": "g1-1"}, headers=bearer(host))
    assert other.status_code == 409
    assert other.json()["error"] == "move id 'g1-1' was already used for b2 in this game"
    for seat in (host, guest, host):  # a resignation, then both ask for a rematch
        action = "resign" if seat is host and client.get(
            f"/api/rooms/{room}").json()["over"] is None else "rematch"
        assert client.post(f"/api/rooms/{room}/action", json={"action": action},
                           headers=bearer(seat)).status_code == 200
    assert client.get(f"/api/rooms/{room}").json()["game"] == 2
    # game 2: the guest is White and numbers its moves per game, like a bot
    again = client.post(url, json={"move": "a1", "id": "g1-1"}, headers=bearer(guest))
    assert again.status_code == 200 and again.json()["moves"] == ["a1"]
    assert again.json()["event_version"] == again.json()["version"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:  # the same over the socket
        hello(ws, 0, host)
        ws.send_json({"type": "move", "move": "b2", "id": "g1-1"})
        ack = receive_until(ws, "ack")
        assert ack["version"] == again.json()["version"] + 1
        ws.send_json({"type": "move", "move": "b2", "id": "g1-1"})  # a retry: the same
        assert receive_until(ws, "ack")["version"] == ack["version"]
    with client.websocket_connect(f"/ws/rooms/{room}") as ws:
        hello(ws, 0, guest)
        ws.send_json({"type": "move", "move": "c3", "id": "g1-1"})
        refused = receive_until(ws, "refused")
        assert refused["status"] == 409 and "already used for a1" in refused["error"]
    assert client.get(f"/api/rooms/{room}").json()["moves"] == ["a1", "b2"]


def test_a_join_with_the_guests_own_token_is_safe_to_retry(client):
    host = client.post("/api/rooms", json={"variant": "three", "color": "white"}).json()
    room, invite = host["room"], host["invite_code"]
    url = f"/api/rooms/{room}/join"
    token = "guest-secret_0123456789AB"
    for bad in ("short", "x" * 201, "has space in it 0123456789", 12345, ["a" * 30]):
        answer = client.post(url, json={"invite": invite, "token": bad})
        assert answer.status_code == 400 and "'token' must be" in answer.json()["error"]
    assert client.post(url, json={"invite": invite, "token": host["token"]}).status_code == 409
    first = client.post(url, json={"invite": invite, "token": token})
    assert first.status_code == 200 and first.json()["token"] == token
    # the answer was lost: the same request again answers the same, with no new event
    again = client.post(url, json={"invite": invite, "token": token})
    assert again.status_code == 200
    strip = ("server_time",)
    assert {k: v for k, v in again.json().items() if k != "state"} == \
        {k: v for k, v in first.json().items() if k != "state"}
    assert {k: v for k, v in again.json()["state"].items() if k not in strip} == \
        {k: v for k, v in first.json()["state"].items() if k not in strip}
    assert client.get(f"/api/rooms/{room}/events").json()["version"] == 1
    assert client.post(url, json={"invite": "wrong", "token": token}).status_code == 403
    assert client.post(url, json={"invite": invite, "token": "another-secret_0123456789"}
                       ).status_code == 409
    assert client.post(url, json={"invite": invite}).status_code == 409
    # the chosen token seats the guest
    assert client.post(f"/api/rooms/{room}/move", json={"move": "a1"},
                       headers={"Authorization": f"Bearer {token}"}).status_code == 409
    client.post(f"/api/rooms/{room}/move", json={"move": "b2"}, headers=bearer(host))
    assert client.post(f"/api/rooms/{room}/move", json={"move": "a1"},
                       headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_a_refused_room_is_not_stored(client, rooms_file):
    def stored() -> int:
        with sqlite3.connect(rooms_file) as db:
            return db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]

    before = stored()
    for limit in (0, 128, 500, 10_000):
        answer = client.post("/api/rooms", json={"variant": "three", "move_limit": limit})
        assert answer.status_code == 400, answer.text
        assert "between 1 and 127" in answer.json()["error"]
    assert stored() == before
    made = client.post("/api/rooms", json={"variant": "three", "move_limit": 127})
    assert made.status_code == 201, made.text
    assert stored() == before + 1


def test_draw_rules_as_json_numbers_1_and_0(client):
    for given, kept in ((1, True), (0, False), (True, True), ("no", False)):
        made = client.post("/api/rooms", json={"variant": "three", "draw_rules": given})
        assert made.status_code == 201, made.text
        assert made.json()["state"]["draw_rules"] is kept
    for wrong in (2, -1, 1.5, [1]):
        answer = client.post("/api/rooms", json={"variant": "three", "draw_rules": wrong})
        assert answer.status_code == 400, answer.text
        assert "draw_rules must be 1 or 0" in answer.json()["error"]
