"""What clients of the live rooms may send, and how much a server process remembers:
the token buckets that rate a connection's messages and the rooms created, and the cap
that keeps each of the rooms' caches bounded whatever clients do (docs/live.md)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .room_errors import TooMany

V = TypeVar("V")


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

    Per client: messages per second on one connection (a message past the rate is
    refused; past ``max_refusals`` such refusals the connection is closed with 1008),
    rooms created per minute from one address. All clients together: rooms created per
    minute (``all_rooms_per_minute``, by default 10x one address's, burst likewise),
    answered 429 beyond it. Memory: at most ``cached_rooms`` rooms in the cache (a room
    with a connection is never evicted, so the cache can exceed the cap by those),
    ``creator_addresses`` per-address buckets and ``room_locks`` locks (one held is
    never evicted), least recently used first out. A cached Nine Men's Morris room of
    one 84-ply game measured 114 kB (events and game), so about 115 MB at the default
    cap; a room grows with the games it plays.
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


class MessageRate:
    """One connection's allowance of messages, and the refusals it has earned by
    sending faster (other refusals, of unreadable or illegal messages, do not count)."""

    def __init__(self, limits: Limits) -> None:
        self.bucket = TokenBucket(limits.messages_per_second, limits.message_burst)
        self.max_refusals = limits.max_refusals
        self.refusals = 0

    def take(self) -> bool:
        """Whether one more message may be read; if not, one more refusal is counted."""
        if self.bucket.take():
            return True
        self.refusals += 1
        return False

    def exhausted(self) -> bool:
        """Whether more than ``max_refusals`` messages were refused for the rate."""
        return self.refusals > self.max_refusals


class RoomCreation:
    """Rooms created, rated per address and over all addresses together; the
    per-address buckets capped at ``creator_addresses``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.addresses: OrderedDict[str, TokenBucket] = OrderedDict()
        rate, burst = limits.all_rooms_per_minute, limits.all_room_burst
        assert rate is not None and burst is not None  # set by Limits.__post_init__
        self.overall = TokenBucket(rate / 60, burst)

    def take(self, address: str) -> None:
        """Count one room created from ``address``; ``TooMany`` past either rate."""
        bucket = self.addresses.setdefault(
            address, TokenBucket(self.limits.rooms_per_minute / 60, self.limits.room_burst))
        self.addresses.move_to_end(address)
        evict_beyond(self.addresses, self.limits.creator_addresses,
                     lambda held, _: held == address)
        if not bucket.take():
            raise TooMany("too many rooms created from this address; wait a minute")
        if not self.overall.take():
            raise TooMany("too many rooms are being created; try again in a minute")

    def forget_refilled(self) -> None:
        """Drop the addresses whose bucket is full again: they are as if never seen."""
        for address, bucket in list(self.addresses.items()):
            if bucket.full():
                del self.addresses[address]


def evict_beyond(cache: OrderedDict[str, V], cap: int, keep: Callable[[str, V], bool]) -> None:
    """Evict the least recently used entries of ``cache`` beyond ``cap`` that ``keep``
    does not hold on to."""
    excess = len(cache) - cap
    for key in list(cache):
        if excess <= 0:
            return
        if not keep(key, cache[key]):
            del cache[key]
            excess -= 1
