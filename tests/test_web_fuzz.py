"""Nothing a client sends breaks the server: Hypothesis sends random text, Unicode digits,
huge numbers, empty values and raw bytes to every endpoint and parameter, bodies and
headers to the live rooms' API, and frames to their WebSocket. Every answer is JSON; an
error is one line with a client-error status, never a 500."""

from __future__ import annotations

import json
from urllib.parse import quote_from_bytes

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from morris_cli.web.app import create_app  # noqa: E402
from morris_cli.web.live_limits import Limits  # noqa: E402

CLIENT_ERRORS = {400, 403, 404, 405, 409, 413, 429}
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

odd_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "²", "١٢", "٣", "𝟙", "-1", "1e9", "0x10", "9" * 40, "NaN",
                     "true", "null", "\x00", "W: B: w h:3,3", "b2", "a1 b2", "three", "six",
                     "nine", "perfect", "1", "0", "\ud800"]),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)


def _encodable(text: str) -> bool:
    """Whether an HTTP client can send it in a URL (a lone surrogate it cannot; the raw
    bytes test sends every byte instead)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


query_text = odd_text.filter(_encodable)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False) | odd_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8,
)
GET_ENDPOINTS = {
    "/api/probe": ["variant", "position", "draw_rules", "counter", "move_limit"],
    "/api/game": ["variant", "start", "moves", "draw_rules", "move_limit"],
    "/api/review": ["variant", "start", "moves", "draw_rules", "move_limit"],
    "/api/engine": ["variant", "start", "moves", "draw_rules", "move_limit", "strength", "seed",
                    "against"],
    "/api/variants": [],
}


@pytest.fixture(scope="module")
def client(table_paths, tmp_path_factory):
    rooms = tmp_path_factory.mktemp("fuzz") / "rooms.sqlite"
    limits = Limits(messages_per_second=1e6, message_burst=10**6, rooms_per_minute=1e6,
                    room_burst=10**6)
    app = create_app({"three": table_paths["three"]}, rooms=rooms, limits=limits)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def room(client) -> dict:
    host = client.post("/api/rooms", json={"variant": "three", "color": "white"}).json()
    guest = client.post(f"/api/rooms/{host['room']}/join", json={"invite": host["invite_code"]})
    return {"id": host["room"], "host": host["token"], "guest": guest.json()["token"]}


def check(response) -> None:
    """JSON always; an error is one line with a client-error status."""
    assert response.status_code != 500, response.text
    body = response.json()
    if response.status_code >= 400:
        assert response.status_code in CLIENT_ERRORS, (response.status_code, body)
        assert isinstance(body["error"], str) and body["error"]
        assert "\n" not in body["error"]


@FUZZ
@given(path=st.sampled_from(sorted(GET_ENDPOINTS)), data=st.data())
def test_every_get_parameter(client, path, data):
    names = GET_ENDPOINTS[path]
    chosen = data.draw(st.dictionaries(st.sampled_from(names + ["extra"]), query_text, max_size=5)
                       if names else st.just({}))
    check(client.get(path, params=chosen))


@FUZZ
@given(path=st.sampled_from(sorted(GET_ENDPOINTS)), raw=st.binary(max_size=60))
def test_raw_bytes_in_the_query(client, path, raw):
    for name in GET_ENDPOINTS[path][:3] or ["x"]:
        check(client.get(f"{path}?variant=three&{name}={quote_from_bytes(raw)}"))


@FUZZ
@given(body=st.one_of(st.dictionaries(st.sampled_from(["variant", "color", "draw_rules",
                                                      "move_limit", "x"]), JSON_VALUES,
                                      max_size=5),
                      JSON_VALUES))
def test_room_creation_bodies(client, body):
    check(client.post("/api/rooms", content=json.dumps(body)))


@FUZZ
@given(raw=st.binary(max_size=200))
def test_raw_bodies_everywhere(client, room, raw):
    for path in ("/api/rooms", f"/api/rooms/{room['id']}/join", f"/api/rooms/{room['id']}/move",
                 f"/api/rooms/{room['id']}/action"):
        check(client.post(path, content=raw, headers={"Authorization": f"Bearer {room['host']}"}))


@FUZZ
@given(action=st.sampled_from(["join", "move", "action"]),
       body=st.dictionaries(st.sampled_from(["invite", "move", "id", "action", "x"]), JSON_VALUES,
                            max_size=4),
       token=st.one_of(st.sampled_from(["host", "guest"]), odd_text),
       scheme=st.sampled_from(["Bearer ", "bearer ", "Basic ", "", "Bearer  "]))
def test_room_bodies_and_tokens(client, room, action, body, token, scheme):
    token = room.get(token, token)
    value = (scheme + token).encode("utf-8", "surrogatepass")
    headers = {"Authorization": bytes(b for b in value if b >= 32 and b != 127)}
    check(client.post(f"/api/rooms/{room['id']}/{action}", content=json.dumps(body),
                      headers=headers))


@FUZZ
@given(room_id=odd_text, tail=st.sampled_from(["", "/events", "/review"]),
       query=st.dictionaries(st.sampled_from(["since", "game"]), query_text, max_size=2))
def test_room_reads(client, room, room_id, tail, query):
    check(client.get(f"/api/rooms/{quote_from_bytes(room_id.encode('utf-8', 'replace'))}{tail}",
                     params=query))
    check(client.get(f"/api/rooms/{room['id']}{tail}", params=query))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(frames=st.lists(st.one_of(
    st.binary(max_size=50),
    st.text(max_size=50),
    st.dictionaries(st.sampled_from(["type", "version", "token", "move", "id"]), JSON_VALUES,
                    max_size=5).map(json.dumps),
    st.sampled_from(["hello", "ping", "move", "resign", "offer_draw", "accept_draw",
                     "decline_draw", "rematch"]).map(lambda t: json.dumps({"type": t})),
), min_size=1, max_size=6))
def test_websocket_frames(client, room, frames):
    with client.websocket_connect(f"/ws/rooms/{room['id']}") as ws:
        for frame in frames:
            if isinstance(frame, bytes):
                ws.send_bytes(frame)
            else:
                ws.send_text(frame)
        ws.send_json({"type": "ping"})
        while True:  # every frame got its answer, and the connection still answers
            message = ws.receive_json()
            if message["type"] == "refused":
                assert message["status"] in CLIENT_ERRORS and "\n" not in message["error"]
            if message["type"] == "pong":
                break
    check(client.get(f"/api/rooms/{room['id']}"))
