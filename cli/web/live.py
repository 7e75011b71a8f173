"""Live rooms: play a friend by link (docs/live.md). ``LiveRooms`` is the server's side
of every room: it keeps each room's state (a ``referee.RoomState``) in a cache rebuilt
from the store when needed, decides each action with the referee, appends the event to
the store, and delivers what the store fans out to the connections it holds, each event
once and in order (``live_connection``). Its methods raise ``room_errors``, never an
HTTP status.

The other parts, one concern each: ``live_limits`` (rates and the caches' caps),
``live_connection`` (one WebSocket's outgoing queue), ``live_protocol`` (the WebSocket's
messages), ``live_routes`` (the HTTP API, and the errors as HTTP answers).

Memory stays bounded whatever clients do: the room cache, the per-address creation
buckets and the room locks are each capped (``Limits``), least recently used first out.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from morris_solver.rules.game import Game
from morris_solver.rules.variants import get_variant

from .live_connection import Connection, catch_up
from .live_limits import Limits, RoomCreation, evict_beyond
from .referee import RoomRecord, RoomState, replay
from .room_errors import Busy, Invalid, NoSuchRoom, NotAllowed, NotNow
from .roomstore import RoomStore, same_secret, token_hash

ROOM_ID = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16): 128 bits
SEAT_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,200}")  # a guest's own seat secret (join retries)

log = logging.getLogger("morris.live")


def now_ms() -> int:
    return int(time.time() * 1000)


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
        """The seat ``token`` opens, None without one; ``NotAllowed`` for a wrong one."""
        if not token:
            return None
        if same_secret(token, self.host_hash):
            return "host"
        if same_secret(token, self.guest_hash):
            return "guest"
        raise NotAllowed("wrong seat token")


class LiveRooms:
    """Every room of this server process over one store."""

    def __init__(self, store: RoomStore, review: Callable[[Game], Awaitable[dict]],
                 limits: Limits | None = None, ttl_seconds: float = 30 * 86400) -> None:
        self.store = store
        self.review_game = review
        self.limits = limits or Limits()
        self.ttl_seconds = ttl_seconds
        self.creation = RoomCreation(self.limits)
        self._rooms: OrderedDict[str, Loaded] = OrderedDict()
        self._locks: OrderedDict[str, asyncio.Lock] = OrderedDict()
        self._connections: dict[str, set[Connection]] = {}
        self.sweep_seconds = max(1.0, min(ttl_seconds / 4, 3600.0))
        store.subscribe(self._on_message)

    # -- rooms ------------------------------------------------------------------------

    async def room(self, room_id: str) -> Loaded:
        """The room, from the cache or the store; ``NoSuchRoom`` if there is none."""
        entry = self._rooms.get(room_id)
        if entry is not None:
            self._rooms.move_to_end(room_id)
            return entry
        if not ROOM_ID.fullmatch(room_id):
            raise NoSuchRoom("no such room")
        stored = await self.store.load(room_id)
        if stored is None:
            raise NoSuchRoom("no such room (rooms untouched for a while are removed)")
        entry = self._rooms.get(room_id)  # another request loaded it meanwhile
        if entry is None:
            entry = Loaded(replay(stored.record, stored.events), stored.events,
                           stored.host_hash, stored.guest_hash, stored.invite_hash)
            entry.connected = {seat: bool(v) for seat, v in
                               (await self.store.presence(room_id)).items()}
            self._rooms.setdefault(room_id, entry)
        entry = self._rooms[room_id]
        self._rooms.move_to_end(room_id)
        evict_beyond(self._rooms, self.limits.cached_rooms,
                     lambda held, loaded: bool(self._connections.get(held)) or held == room_id
                     or self._locks.get(held) is not None and self._locks[held].locked())
        return entry

    def _lock(self, room_id: str) -> asyncio.Lock:
        lock = self._locks.setdefault(room_id, asyncio.Lock())
        self._locks.move_to_end(room_id)
        evict_beyond(self._locks, self.limits.room_locks,
                     lambda held, other: held == room_id or other.locked())
        return lock

    async def create(self, variant: str, color: str, draw_rules: bool, move_limit: int,
                     address: str) -> tuple[RoomRecord, str, str]:
        """A new room; answers its record, the host's seat token and the invite code.
        ``TooMany`` past the rate of rooms created (``Limits``)."""
        self.creation.take(address)
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
            raise Invalid("'token' must be 22 to 200 characters of A-Z a-z 0-9 _ -")
        for _ in range(3):
            entry = await self.room(room_id)
            if not same_secret(invite, entry.invite_hash):
                raise NotAllowed("wrong invite code")
            if token is not None and same_secret(token, entry.host_hash):
                raise NotNow("that token is the host's: choose another")
            if entry.state.guest_joined and entry.guest_hash is None:  # seated elsewhere
                stored = await self.store.load(room_id)
                entry.guest_hash = stored.guest_hash if stored else None
            if entry.state.guest_joined or entry.guest_hash is not None:
                if token is not None and same_secret(token, entry.guest_hash):
                    return entry, token  # the first answer was lost: the same again
                raise NotNow("the seat is taken: this link now shows the game")
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
        raise Busy("the room is busy; try again")

    async def act(self, room_id: str, seat: str | None, action: str, move: str | None = None,
                  move_id: str | None = None) -> tuple[Loaded, int]:
        """Play ``action`` for ``seat``; answers the room and the event's version (for a
        move already applied under ``move_id``, that move's version). The referee's
        refusals come through as they are."""
        for _ in range(5):
            entry = await self.room(room_id)
            async with self._lock(room_id):
                decided = entry.state.decide(seat, action, move, move_id, now_ms())
                if isinstance(decided, int):
                    return entry, decided
                if await self.store.append(room_id, decided):
                    entry.apply(decided)  # unless the fan-out already did
                    return entry, decided["v"]
            self._rooms.pop(room_id, None)  # another process wrote first: reload, decide again
        raise Busy("the room is busy; try again")

    async def review(self, room_id: str, number: int | None) -> dict:
        """The review of a finished game of the room (default: the last one)."""
        state = (await self.room(room_id)).state
        games = {g.number: (g.moves, g.over) for g in state.finished}
        if state.over is not None:
            games[state.number] = (state.moves(), state.over)
        if number is None:
            if not games:
                raise NotNow("no game of this room is over yet: the review comes after it")
            number = max(games)
        if number not in games:
            raise NotNow(f"game {number} of this room is not over (or never was)")
        game = Game(get_variant(state.record.variant), draw_rules=state.record.draw_rules,
                    move_limit=state.record.move_limit)
        moves, over = games[number]
        for move in moves:
            game.play(move)
        # how the game ended (a resignation or an agreed draw is not in its moves)
        return {"room": room_id, "game": number, "ended": over, **await self.review_game(game)}

    # -- connections ------------------------------------------------------------------

    def attach(self, conn: Connection) -> None:
        """Hold ``conn`` among its room's connections: it gets the room's fan-out."""
        self._connections.setdefault(conn.room_id, set()).add(conn)

    async def detach(self, conn: Connection) -> None:
        """Forget ``conn``, and count its seat out of the room's presence."""
        held = self._connections.get(conn.room_id)  # None once the room is gone
        if held is not None:
            held.discard(conn)
            if not held:
                del self._connections[conn.room_id]
        await self.set_presence(conn.room_id, conn.seat, False)

    async def set_presence(self, room_id: str, seat: str | None, present: bool) -> None:
        """Count one connection of ``seat`` in or out, and tell every process."""
        if seat is None:
            return
        seats = await self.store.set_presence(room_id, seat, present)
        await self.store.publish(room_id, {"type": "presence", "seats": seats})

    def deliver(self, room_id: str, entry: Loaded) -> None:
        """Bring every synced connection of the room up to the room's version."""
        version = entry.state.version
        state = None
        for conn in self._connections.get(room_id, ()):
            if conn.sent is None or conn.sent >= version:
                continue
            state = state or entry.state_json()
            conn.send(catch_up(entry.events, conn.sent, state))
            conn.sent = version

    def send_presence(self, room_id: str, entry: Loaded, only: Connection | None = None) -> None:
        """Tell the room's synced connections (or ``only`` that one) which colours are
        connected."""
        connected = {color: entry.connected[entry.state.seat_of(color)]
                     for color in ("white", "black")}
        for conn in [only] if only else self._connections.get(room_id, ()):
            if conn.sent is not None:
                conn.send({"type": "presence", "connected": connected})

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
        except NoSuchRoom as e:
            self._rooms.pop(room_id, None)
            self._locks.pop(room_id, None)
            for conn in self._connections.pop(room_id, ()):
                conn.send({"type": "error", "error": str(e), "status": 404})
                conn.finish(4404)
        except Exception:
            log.exception("room %s: a fan-out message failed", room_id)

    async def _resync(self, room_id: str) -> None:
        self.deliver(room_id, await self.room(room_id))

    async def _on_room_message(self, room_id: str, message: dict) -> None:
        entry = self._rooms.get(room_id)
        if message.get("type") == "presence":
            if entry is not None:
                entry.connected = {seat: bool(message["seats"].get(seat))
                                   for seat in ("host", "guest")}
                self.send_presence(room_id, entry)
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
        self.deliver(room_id, entry)

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
        self.creation.forget_refilled()
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
