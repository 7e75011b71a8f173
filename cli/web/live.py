"""Live rooms: play a friend by link, over a WebSocket or the HTTP API.

``LiveRooms`` is the server's side of a room. It keeps each room's state (a
``referee.RoomState``) in a cache rebuilt from the store when needed, decides each
action with the referee, appends the event to the store, and delivers what the store
fans out to the connections it holds. Every connection has a queue of outgoing
messages and remembers the last version it was sent, so a client gets each event once
and in order, or the whole state where it has fallen behind.

The protocol (docs/live.md): the client's first message is
``{"type": "hello", "version": N, "token": SEAT_TOKEN}`` (no token: a watcher); the
server answers ``welcome`` (who you are), then the events after ``N`` with the state
after them, or the whole state when ``N`` is too far behind. A move is
``{"type": "move", "move": "d6-d5xa1", "id": "..."}``; its answer is ``ack`` (with the
event's version) or ``refused`` (one line), and every connection of the room gets the
``event`` with the new state. A move is applied once per game, seat and ``id``.

Memory stays bounded whatever clients do: the room cache, the per-address creation
buckets and the room locks are each capped (``Limits``), least recently used first out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from morris_solver.drawrules import DEFAULT_LIMIT
from morris_solver.game import Game
from morris_solver.variants import VARIANTS, get_variant

from . import params
from .params import BadRequest
from .referee import ACTIONS, Refused, RoomRecord, RoomState, replay
from .roomstore import RoomStore, same_secret, token_hash

ROOM_ID = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16): 128 bits
MAX_REPLAY = 200  # events a reconnecting client is sent one by one; further behind: the state
HELLO_SECONDS = 15  # a connection that says nothing this long is closed
OUTBOX = 512  # messages queued for one slow connection before it is dropped (it resyncs)
SEAT_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,200}")  # a guest's own seat secret (join retries)

log = logging.getLogger("morris.live")


def now_ms() -> int:
    return int(time.time() * 1000)


class TokenBucket:
    """At most ``rate`` per second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()

    def full(self) -> bool:
        """Whether it has refilled to its burst: nothing left worth remembering."""
        return self.tokens + (time.monotonic() - self.stamp) * self.rate >= self.burst

    def take(self) -> bool:
        moment = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (moment - self.stamp) * self.rate)
        self.stamp = moment
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass
class Limits:
    """What clients may send, and how much this process remembers.

    Per client: messages per second on one connection (refusals beyond
    ``max_refusals`` close it with 1008), rooms created per minute from one address.
    All clients together: rooms created per minute (``all_rooms_per_minute``, by default
    10x one address's, burst likewise), answered 429 beyond it. Memory: at most
    ``cached_rooms`` rooms in the cache (a room with a connection is never evicted, so
    the cache can exceed the cap by those), ``creator_addresses`` per-address buckets
    and ``room_locks`` locks (one held is never evicted), least recently used first out.
    A cached Nine Men's Morris room of one 84-ply game measured 114 kB (events and
    game), so about 115 MB at the default cap; a room grows with the games it plays.
    """

    messages_per_second: float = 10.0
    message_burst: int = 40
    max_refusals: int = 200
    rooms_per_minute: float = 10.0
    room_burst: int = 20
    all_rooms_per_minute: float | None = None  # None: 10 x rooms_per_minute
    all_room_burst: int | None = None  # None: 10 x room_burst
    cached_rooms: int = 1000
    creator_addresses: int = 10_000
    room_locks: int = 4000

    def __post_init__(self) -> None:
        if self.all_rooms_per_minute is None:
            self.all_rooms_per_minute = 10 * self.rooms_per_minute
        if self.all_room_burst is None:
            self.all_room_burst = 10 * self.room_burst


def _trim(cache: OrderedDict, cap: int, keep: Callable[[str, object], bool]) -> None:
    """Evict the least recently used entries of ``cache`` beyond ``cap`` that ``keep``
    does not hold on to."""
    excess = len(cache) - cap
    for key in list(cache):
        if excess <= 0:
            return
        if not keep(key, cache[key]):
            del cache[key]
            excess -= 1


@dataclass
class Loaded:
    """A room as this process holds it."""

    state: RoomState
    events: list[dict]
    host_hash: str
    guest_hash: str | None
    invite_hash: str
    connected: dict[str, bool] = field(default_factory=lambda: {"host": False, "guest": False})

    def apply(self, event: dict) -> bool:
        """Fold in the next event; False if it is not the next one."""
        if event["v"] != self.state.version + 1:
            return False
        self.state.apply(event)
        self.events.append(event)
        return True

    def state_json(self) -> dict:
        return self.state.as_json(self.connected, now_ms())

    def seat_of_token(self, token: str | None) -> str | None:
        if not token:
            return None
        if same_secret(token, self.host_hash):
            return "host"
        if same_secret(token, self.guest_hash):
            return "guest"
        raise BadRequest("wrong seat token", status=403)


class Connection:
    """One WebSocket: its seat, the last version it was sent, and its outgoing queue."""

    def __init__(self, ws: WebSocket, room_id: str, limits: Limits) -> None:
        self.ws, self.room_id = ws, room_id
        self.seat: str | None = None
        self.sent: int | None = None  # None until the hello is answered
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX)
        self.bucket = TokenBucket(limits.messages_per_second, limits.message_burst)
        self.refusals = 0
        self.close_code = 1000

    def send(self, message: dict) -> None:
        try:
            self.outbox.put_nowait(json.dumps(message))
        except asyncio.QueueFull:  # a client that reads nothing: drop it, it resyncs later
            self.finish(1013)

    def finish(self, code: int) -> None:
        """Close after what is queued (at once if the queue is full)."""
        self.close_code = code
        if self.outbox.full():
            self.outbox = asyncio.Queue(1)
        self.outbox.put_nowait(None)

    async def write(self) -> None:
        while (text := await self.outbox.get()) is not None:
            await self.ws.send_text(text)
        await self.ws.close(self.close_code)


class LiveRooms:
    """Every room of this server process over one store."""

    def __init__(self, store: RoomStore, review: Callable[[Game], Awaitable[dict]],
                 limits: Limits | None = None, ttl_seconds: float = 30 * 86400) -> None:
        self.store = store
        self.review_game = review
        self.limits = limits or Limits()
        self.ttl_seconds = ttl_seconds
        self._rooms: OrderedDict[str, Loaded] = OrderedDict()
        self._locks: OrderedDict[str, asyncio.Lock] = OrderedDict()
        self._connections: dict[str, set[Connection]] = {}
        self._creators: OrderedDict[str, TokenBucket] = OrderedDict()
        self._all_creators = TokenBucket(self.limits.all_rooms_per_minute / 60,
                                         self.limits.all_room_burst)
        self.sweep_seconds = max(1.0, min(ttl_seconds / 4, 3600.0))
        store.subscribe(self._on_message)

    # -- rooms ------------------------------------------------------------------------

    async def room(self, room_id: str) -> Loaded:
        """The room, from the cache or the store; 404 if there is none."""
        entry = self._rooms.get(room_id)
        if entry is not None:
            self._rooms.move_to_end(room_id)
            return entry
        if not ROOM_ID.fullmatch(room_id):
            raise BadRequest("no such room", status=404)
        stored = await self.store.load(room_id)
        if stored is None:
            raise BadRequest("no such room (rooms untouched for a while are removed)", status=404)
        entry = self._rooms.get(room_id)  # another request loaded it meanwhile
        if entry is None:
            entry = Loaded(replay(stored.record, stored.events), stored.events,
                           stored.host_hash, stored.guest_hash, stored.invite_hash)
            entry.connected = {seat: bool(v) for seat, v in
                               (await self.store.presence(room_id)).items()}
            self._rooms.setdefault(room_id, entry)
        entry = self._rooms[room_id]
        self._rooms.move_to_end(room_id)
        _trim(self._rooms, self.limits.cached_rooms,
              lambda held, loaded: bool(self._connections.get(held)) or held == room_id
              or self._locks.get(held) is not None and self._locks[held].locked())
        return entry

    def _lock(self, room_id: str) -> asyncio.Lock:
        lock = self._locks.setdefault(room_id, asyncio.Lock())
        self._locks.move_to_end(room_id)
        _trim(self._locks, self.limits.room_locks,
              lambda held, other: held == room_id or other.locked())
        return lock

    async def create(self, variant: str, color: str, draw_rules: bool, move_limit: int,
                     address: str) -> tuple[RoomRecord, str, str]:
        """A new room; answers its record, the host's seat token and the invite code."""
        bucket = self._creators.setdefault(
            address, TokenBucket(self.limits.rooms_per_minute / 60, self.limits.room_burst))
        self._creators.move_to_end(address)
        _trim(self._creators, self.limits.creator_addresses, lambda held, _: held == address)
        if not bucket.take():
            raise BadRequest("too many rooms created from this address; wait a minute", 429)
        if not self._all_creators.take():
            raise BadRequest("too many rooms are being created; try again in a minute", 429)
        if color == "random":
            color = secrets.choice(("white", "black"))
        record = RoomRecord(secrets.token_urlsafe(16), get_variant(variant).name, draw_rules,
                            move_limit, color, now_ms())
        token, invite = secrets.token_urlsafe(24), secrets.token_urlsafe(16)
        await self.store.create(record, token_hash(token), token_hash(invite))
        return record, token, invite

    async def join(self, room_id: str, invite: str,
                   token: str | None = None) -> tuple[Loaded, str]:
        """Take the guest seat with the invite code; answers the room and the seat token.

        With ``token`` (the guest's own secret) the join is safe to retry: a seat taken
        with the same token answers as the first join did, with no new event."""
        if token is not None and not SEAT_TOKEN.fullmatch(token):
            raise BadRequest("'token' must be 22 to 200 characters of A-Z a-z 0-9 _ -")
        for _ in range(3):
            entry = await self.room(room_id)
            if not same_secret(invite, entry.invite_hash):
                raise BadRequest("wrong invite code", status=403)
            if token is not None and same_secret(token, entry.host_hash):
                raise BadRequest("that token is the host's: choose another", status=409)
            if entry.state.guest_joined and entry.guest_hash is None:  # seated elsewhere
                stored = await self.store.load(room_id)
                entry.guest_hash = stored.guest_hash if stored else None
            if entry.state.guest_joined or entry.guest_hash is not None:
                if token is not None and same_secret(token, entry.guest_hash):
                    return entry, token  # the first answer was lost: the same again
                raise BadRequest("the seat is taken: this link now shows the game", status=409)
            async with self._lock(room_id):
                token = token or secrets.token_urlsafe(24)
                event = {"kind": "join", "v": entry.state.version + 1, "at": now_ms(),
                         "seat": "guest"}
                if await self.store.append(room_id, event, guest_hash=token_hash(token)):
                    entry = await self.room(room_id)
                    entry.guest_hash = token_hash(token)
                    entry.apply(event)
                    return entry, token
            self._rooms.pop(room_id, None)  # someone else wrote first: look again
        raise BadRequest("the room is busy; try again", status=503)

    async def act(self, room_id: str, seat: str | None, action: str, move: str | None = None,
                  move_id: str | None = None) -> tuple[Loaded, int]:
        """Play ``action`` for ``seat``; answers the room and the event's version (for a
        move already applied under ``move_id``, that move's version)."""
        for _ in range(5):
            entry = await self.room(room_id)
            async with self._lock(room_id):
                try:
                    decided = entry.state.decide(seat, action, move, move_id, now_ms())
                except Refused as e:
                    raise BadRequest(str(e), status=e.status) from None
                if isinstance(decided, int):
                    return entry, decided
                if await self.store.append(room_id, decided):
                    entry.apply(decided)  # unless the fan-out already did
                    return entry, decided["v"]
            self._rooms.pop(room_id, None)  # another process wrote first: reload, decide again
        raise BadRequest("the room is busy; try again", status=503)

    async def review(self, room_id: str, number: int | None) -> dict:
        """The review of a finished game of the room (default: the last one)."""
        state = (await self.room(room_id)).state
        games = {g.number: (g.moves, g.over) for g in state.finished}
        if state.over is not None:
            games[state.number] = (state.moves(), state.over)
        if number is None:
            if not games:
                raise BadRequest("no game of this room is over yet: the review comes after it",
                                 status=409)
            number = max(games)
        if number not in games:
            raise BadRequest(f"game {number} of this room is not over (or never was)", 409)
        game = Game(get_variant(state.record.variant), draw_rules=state.record.draw_rules,
                    move_limit=state.record.move_limit)
        moves, over = games[number]
        for move in moves:
            game.play(move)
        # how the game ended (a resignation or an agreed draw is not in its moves)
        return {"room": room_id, "game": number, "ended": over, **await self.review_game(game)}

    # -- fan-out ----------------------------------------------------------------------

    async def _on_message(self, room_id: str, message: dict) -> None:
        """What the store fans out (from this process or another): an event, or who is
        connected. Rooms this process holds no connection of are only kept current."""
        if message.get("type") == "resync":  # the fan-out lost messages: trust the store
            for held in list(self._connections):
                self._rooms.pop(held, None)
                await self._guarded(held, self._resync, held)
            return
        await self._guarded(room_id, self._on_room_message, room_id, message)

    async def _guarded(self, room_id: str, handle: Callable[..., Awaitable[None]],
                       *args: object) -> None:
        """Run one room's part of a fan-out message, so that one bad room never raises
        into the store's listener: a room gone from the store has its connections told
        and closed (4404); anything else is logged."""
        try:
            await handle(*args)
        except BadRequest as e:
            if e.status != 404:
                log.warning("room %s: fan-out message refused: %s", room_id, e)
                return
            self._rooms.pop(room_id, None)
            self._locks.pop(room_id, None)
            for conn in self._connections.pop(room_id, ()):
                conn.send({"type": "error", "error": str(e), "status": 404})
                conn.finish(4404)
        except Exception:
            log.exception("room %s: a fan-out message failed", room_id)

    async def _resync(self, room_id: str) -> None:
        self._deliver(room_id, await self.room(room_id))

    async def _on_room_message(self, room_id: str, message: dict) -> None:
        entry = self._rooms.get(room_id)
        if message.get("type") == "presence":
            if entry is not None:
                entry.connected = {seat: bool(message["seats"].get(seat))
                                   for seat in ("host", "guest")}
                self._send_presence(room_id, entry)
            return
        event = message["event"]
        if entry is not None and event["v"] > entry.state.version + 1:
            self._rooms.pop(room_id, None)  # missed some: the store has them all
            entry = None
        if entry is None:
            if not self._connections.get(room_id):
                return
            entry = await self.room(room_id)
        if event["kind"] == "join" and entry.guest_hash is None:
            stored = await self.store.load(room_id)
            entry.guest_hash = stored.guest_hash if stored else None
        entry.apply(event)
        self._deliver(room_id, entry)

    def _deliver(self, room_id: str, entry: Loaded) -> None:
        """Bring every synced connection of the room up to the room's version."""
        version = entry.state.version
        state = None
        for conn in self._connections.get(room_id, ()):
            if conn.sent is None or conn.sent >= version:
                continue
            state = state or entry.state_json()
            missed = version - conn.sent
            if missed <= MAX_REPLAY and len(entry.events) >= missed:
                conn.send({"type": "events", "events": entry.events[-missed:], "state": state})
            else:
                conn.send({"type": "state", "state": state})
            conn.sent = version

    def _send_presence(self, room_id: str, entry: Loaded, only: Connection | None = None) -> None:
        connected = {color: entry.connected[entry.state.seat_of(color)]
                     for color in ("white", "black")}
        for conn in [only] if only else self._connections.get(room_id, ()):
            if conn.sent is not None:
                conn.send({"type": "presence", "connected": connected})

    async def _presence(self, room_id: str, seat: str | None, present: bool) -> None:
        if seat is None:
            return
        seats = await self.store.set_presence(room_id, seat, present)
        await self.store.publish(room_id, {"type": "presence", "seats": seats})

    # -- upkeep -----------------------------------------------------------------------

    async def sweep(self) -> int:
        """Remove the rooms untouched for the time to live; forget what no one uses."""
        removed = await self.store.remove_idle(now_ms() - int(self.ttl_seconds * 1000))
        for room_id in list(self._rooms):
            if not self._connections.get(room_id):
                del self._rooms[room_id]
                lock = self._locks.get(room_id)
                if lock is not None and not lock.locked():
                    del self._locks[room_id]
        for address, bucket in list(self._creators.items()):
            if bucket.full():
                del self._creators[address]
        return removed

    async def sweep_forever(self) -> None:
        """Sweep every ``sweep_seconds``; a failed sweep is logged and the next one runs
        (one error must not end expiry for good)."""
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                await self.sweep()
            except Exception:
                log.exception("sweeping idle rooms failed; trying again in %.0f s",
                              self.sweep_seconds)

    # -- the WebSocket ----------------------------------------------------------------

    async def websocket(self, ws: WebSocket) -> None:
        room_id = ws.path_params["room"]
        await ws.accept()
        conn = Connection(ws, room_id, self.limits)
        writer = asyncio.create_task(conn.write())
        registered = False
        try:
            try:
                await self.room(room_id)
            except BadRequest as e:
                conn.send({"type": "error", "error": str(e), "status": e.status})
                conn.finish(4000 + e.status)
                await writer
                return
            self._connections.setdefault(room_id, set()).add(conn)
            registered = True
            while True:
                message = await self._receive(conn)
                if message is not None:
                    await self._handle(conn, message)
        except TimeoutError:  # no hello in time
            conn.finish(4408)
        except WebSocketDisconnect as e:  # the client left, or sent too much (1008)
            conn.finish(e.code)
        finally:
            held = self._connections.get(room_id)  # None once the room is gone
            if registered and held is not None:
                held.discard(conn)
                if not held:
                    del self._connections[room_id]
            if registered:
                await self._presence(room_id, conn.seat, False)
            with contextlib.suppress(Exception):  # a client gone cannot be written to
                await asyncio.wait_for(writer, 5)
            writer.cancel()

    async def _receive(self, conn: Connection) -> dict | None:
        """The next message as a checked object, or None after refusing it."""
        timeout = HELLO_SECONDS if conn.sent is None else None
        frame = await asyncio.wait_for(conn.ws.receive(), timeout)
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        raw = frame.get("text")
        message: dict = {}
        unreadable = None
        try:
            if raw is None:
                raise BadRequest("binary frames are not read: send JSON text")
            message = params.json_object(raw, "message")
        except BadRequest as e:
            unreadable = e
        try:
            if not conn.bucket.take():  # every frame counts, readable or not
                conn.refusals += 1
                if conn.refusals > self.limits.max_refusals:
                    raise WebSocketDisconnect(1008)
                raise BadRequest("too many messages: slow down", status=429)
            if unreadable is not None:
                raise unreadable
            params.choice(message, "type", ("hello", "ping", *ACTIONS))
            return message
        except BadRequest as e:  # answered with the message's id where it has a readable one
            move_id = message.get("id")
            conn.send({"type": "refused", "id": move_id if isinstance(move_id, str) else None,
                       "error": str(e), "status": e.status})
            return None

    async def _handle(self, conn: Connection, message: dict) -> None:
        kind = message["type"]
        move_id = None
        try:
            if kind == "hello":
                await self._hello(conn, message)
                return
            if kind == "ping":
                conn.send({"type": "pong", "server_time": now_ms()})
                return
            if "id" in message:
                move_id = params.text(message, "id", max_length=100)
            if conn.sent is None:
                raise BadRequest("say hello first: {\"type\": \"hello\", \"version\": 0}")
            move = params.text(message, "move", max_length=100) if kind == "move" else None
            entry, version = await self.act(conn.room_id, conn.seat, kind, move, move_id)
            self._deliver(conn.room_id, entry)
            conn.send({"type": "ack", "id": move_id, "version": version})
        except BadRequest as e:
            conn.send({"type": "refused", "id": move_id, "error": str(e), "status": e.status})

    async def _hello(self, conn: Connection, message: dict) -> None:
        version = params.whole_number(message, "version", 0, highest=10**9)
        token = params.text(message, "token", "", max_length=200) or None
        entry = await self.room(conn.room_id)
        try:
            seat = entry.seat_of_token(token)
        except BadRequest as e:  # a wrong token: told so, and connected as a watcher
            conn.send({"type": "refused", "id": None, "error": str(e), "status": e.status})
            seat = None
        if seat != conn.seat:
            await self._presence(conn.room_id, conn.seat, False)
            conn.seat = seat
            await self._presence(conn.room_id, seat, True)
        entry = await self.room(conn.room_id)
        state = entry.state
        conn.send({"type": "welcome", "seat": seat,
                   "color": state.color_of(seat) if seat else None,
                   "version": state.version})
        behind = state.version - version
        if 0 <= behind <= min(MAX_REPLAY, len(entry.events)):
            conn.send({"type": "events", "events": entry.events[len(entry.events) - behind:],
                       "state": entry.state_json()})
        else:  # too far behind, or ahead of a room that was recreated: the whole state
            conn.send({"type": "state", "state": entry.state_json()})
        conn.sent = state.version
        self._send_presence(conn.room_id, entry, only=conn)

    # -- HTTP -------------------------------------------------------------------------

    def routes(self) -> list:
        return [
            Route("/api/rooms", self.http_create, methods=["POST"]),
            Route("/api/rooms/{room}", self.http_state, methods=["GET"]),
            Route("/api/rooms/{room}/join", self.http_join, methods=["POST"]),
            Route("/api/rooms/{room}/move", self.http_move, methods=["POST"]),
            Route("/api/rooms/{room}/action", self.http_action, methods=["POST"]),
            Route("/api/rooms/{room}/events", self.http_events, methods=["GET"]),
            Route("/api/rooms/{room}/review", self.http_review, methods=["GET"]),
            WebSocketRoute("/ws/rooms/{room}", self.websocket),
        ]

    async def http_create(self, request: Request) -> JSONResponse:
        body = await params.body_object(request)
        variant = params.choice(body, "variant", tuple(VARIANTS))
        color = params.choice(body, "color", ("white", "black", "random"), "random")
        draw_rules = params.flag(body, "draw_rules", True)
        move_limit = params.whole_number(body, "move_limit", DEFAULT_LIMIT, 1, 10_000)
        address = request.client.host if request.client else "unknown"
        record, token, invite = await self.create(variant, color, draw_rules, move_limit,
                                                  address)
        entry = await self.room(record.id)
        links = _links(request, record.id)
        return JSONResponse({
            "room": record.id, "color": record.host_color, "seat": "host", "token": token,
            "invite": f"{links['watch']}#invite={invite}", "invite_code": invite,
            "watch": links["watch"], "player": f"{links['watch']}#seat={token}",
            "state": entry.state_json(),
        }, status_code=201)

    async def http_join(self, request: Request) -> JSONResponse:
        """Take the guest seat. A body with the guest's own ``token`` may be sent again
        after a lost answer and gets the same answer; without one it cannot."""
        body = await params.body_object(request)
        invite = params.text(body, "invite", max_length=200)
        token = body.get("token")
        if token is not None and not isinstance(token, str):
            raise BadRequest("'token' must be 22 to 200 characters of A-Z a-z 0-9 _ -")
        entry, token = await self.join(request.path_params["room"], invite, token)
        watch = _links(request, entry.state.record.id)["watch"]
        return JSONResponse({"room": entry.state.record.id, "seat": "guest",
                             "color": entry.state.color_of("guest"), "token": token,
                             "player": f"{watch}#seat={token}", "state": entry.state_json()})

    async def http_state(self, request: Request) -> JSONResponse:
        return JSONResponse((await self.room(request.path_params["room"])).state_json())

    async def _seat(self, request: Request) -> str:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise BadRequest("missing seat token: send 'Authorization: Bearer TOKEN'", 403)
        seat = (await self.room(request.path_params["room"])).seat_of_token(token.strip())
        return seat

    async def http_move(self, request: Request) -> JSONResponse:
        room_id = request.path_params["room"]
        seat = await self._seat(request)
        body = await params.body_object(request)
        move = params.text(body, "move", max_length=100)
        move_id = params.text(body, "id", "", max_length=100) or None
        entry, version = await self.act(room_id, seat, "move", move, move_id)
        self._deliver(room_id, entry)
        return JSONResponse({**entry.state_json(), "event_version": version})

    async def http_action(self, request: Request) -> JSONResponse:
        room_id = request.path_params["room"]
        seat = await self._seat(request)
        body = await params.body_object(request)
        action = params.choice(body, "action", tuple(a for a in ACTIONS if a != "move"))
        entry, version = await self.act(room_id, seat, action)
        self._deliver(room_id, entry)
        return JSONResponse({**entry.state_json(), "event_version": version})

    async def http_events(self, request: Request) -> JSONResponse:
        entry = await self.room(request.path_params["room"])
        since = params.whole_number(request.query_params, "since", 0)
        return JSONResponse({"version": entry.state.version,
                             "events": [e for e in entry.events if e["v"] > since]})

    async def http_review(self, request: Request) -> JSONResponse:
        number = request.query_params.get("game")
        game = None if number is None else params.whole_number(request.query_params, "game",
                                                                 1, 1)
        return JSONResponse(await self.review(request.path_params["room"], game))


def _links(request: Request, room_id: str) -> dict[str, str]:
    base = str(request.base_url).rstrip("/")
    return {"watch": f"{base}/room/{room_id}"}

