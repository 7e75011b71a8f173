"""Where live rooms are kept, and how their events reach every server process: one small
interface, with a SQLite module for one process (``roomstore_sqlite``) and a Redis
module for several (``roomstore_redis``). The referee and the hub do not know which.

A room is its record, the hashes of its seat tokens and invite code, and its events in
version order. ``append`` is the only write during a game: it stores the event if the
room is still at the version the event follows (so two processes cannot both write
version 7), and then fans it out to every process's ``subscribe``d handler. An event is
acknowledged to a player only after ``append`` returns, so what a player saw
acknowledged is on disk (SQLite) or in Redis.

Presence (which seats have a connection open) is not an event: it is fanned out as a
message, and each store keeps its own count.
"""

from __future__ import annotations

import hashlib
import hmac
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .referee import RoomRecord

Handler = Callable[[str, dict], Awaitable[None]]


def token_hash(token: str) -> str:
    """What the store keeps of a secret: its SHA-256 (a stolen rooms file seats no one)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_secret(token: str, stored_hash: str | None) -> bool:
    return stored_hash is not None and hmac.compare_digest(token_hash(token), stored_hash)


@dataclass
class StoredRoom:
    record: RoomRecord
    events: list[dict]
    host_hash: str
    guest_hash: str | None
    invite_hash: str


class RoomStore(ABC):
    """Rooms and their events, and the fan-out of both to every server process."""

    def __init__(self) -> None:
        self._handlers: list[Handler] = []

    def subscribe(self, handler: Handler) -> None:
        """Call ``handler(room_id, message)`` for every event appended and every message
        published, by this process or (for a shared store) any other."""
        self._handlers.append(handler)

    async def _deliver(self, room_id: str, message: dict) -> None:
        for handler in self._handlers:
            await handler(room_id, message)

    @abstractmethod
    def check(self) -> None:
        """Fail with one line, before a server starts, if the store cannot be used."""

    @abstractmethod
    async def start(self) -> None:
        """Start what runs in the background (a shared store's listener)."""

    @abstractmethod
    async def close(self) -> None:
        """Stop the background work and release the store."""

    @abstractmethod
    async def create(self, record: RoomRecord, host_hash: str, invite_hash: str) -> None:
        """Store a new room (its id is new: ids are 128-bit random)."""

    @abstractmethod
    async def load(self, room_id: str) -> StoredRoom | None:
        """The room with all its events, or None if there is none (or it expired)."""

    @abstractmethod
    async def append(self, room_id: str, event: dict, guest_hash: str | None = None) -> bool:
        """Store ``event`` (version ``event["v"]``) if the room is at version
        ``event["v"] - 1`` (and, with ``guest_hash``, the guest seat is still free: the
        hash is set with it), then fan it out as ``{"type": "event", "event": event}``.
        False, with nothing stored, if another writer came first."""

    @abstractmethod
    async def publish(self, room_id: str, message: dict) -> None:
        """Fan out a message that is not stored (presence)."""

    @abstractmethod
    async def set_presence(self, room_id: str, seat: str, present: bool) -> dict[str, bool]:
        """Count one connection of ``seat`` in (``present``) or out; answer which seats
        have at least one connection, over every process."""

    @abstractmethod
    async def presence(self, room_id: str) -> dict[str, bool]:
        """Which seats have at least one connection, over every process."""

    @abstractmethod
    async def remove_idle(self, before_ms: int) -> int:
        """Remove the rooms untouched since ``before_ms``; answer how many."""
