"""Rooms in Redis, shared by several server processes (``morris serve --redis URL``).

A room is a hash (its record, the secrets' hashes, its version) and a list of its events,
both expiring after the time to live since the last write. One Lua script appends an
event only at the expected version and publishes it on one channel in the same step,
so every process receives every room's events in version order. Pub/sub drops what a
process misses while its connection is down; after a reconnect the process is told to
resync (``{"type": "resync"}``), and its clients are sent the state from the store,
never from the channel.

Presence: each process writes, per seat it holds a connection of, a field that expires
unless refreshed; a seat is connected while any process's field is fresh. A process
killed with ``kill -9`` refreshes nothing, and no one would tell the clients on the other
processes that its seats are gone: so every process's refresher also removes the lapsed
fields of every room, and whichever process removed one fans out the room's new presence.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
import uuid
from collections import Counter
from typing import cast

from morris_solver.core.errors import MorrisError

from .referee import RoomRecord
from .roomstore import RoomStore, StoredRoom

PREFIX = "morris:"
CHANNEL = PREFIX + "fanout"
PRESENCE_SECONDS = 30  # a process that stops refreshing its seats is gone after this long
log = logging.getLogger("morris.rooms")

_APPEND = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return -1 end
if tonumber(version) ~= tonumber(ARGV[1]) then return -2 end
if ARGV[3] ~= '' then
  if redis.call('HEXISTS', KEYS[1], 'guest_hash') == 1 then return -3 end
  redis.call('HSET', KEYS[1], 'guest_hash', ARGV[3])
end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'version', tonumber(ARGV[1]) + 1, 'touched', ARGV[7])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return tonumber(ARGV[1]) + 1
"""

# remove the presence fields whose deadline (ARGV[1]) has passed; answer how many
_PRUNE = """
local fields = redis.call('HGETALL', KEYS[1])
local removed = 0
for i = 1, #fields, 2 do
  if tonumber(fields[i + 1]) <= tonumber(ARGV[1]) then
    removed = removed + redis.call('HDEL', KEYS[1], fields[i])
  end
end
return removed
"""


class RedisRoomStore(RoomStore):
    """Rooms in the Redis server at ``url``, kept ``ttl_seconds`` after their last write;
    a seat's connection on a process that stopped refreshing it (killed) is forgotten
    ``presence_seconds`` later, and its room's presence fanned out within a third more."""

    def __init__(self, url: str, ttl_seconds: float,
                 presence_seconds: float = PRESENCE_SECONDS) -> None:
        super().__init__()
        try:
            import redis.asyncio as redis
        except ModuleNotFoundError:
            raise MorrisError("--redis needs redis-py: pip install 'morris-tablebase[redis]'"
                              ) from None
        try:
            self._client = redis.Redis.from_url(url, decode_responses=True)
        except ValueError as e:
            raise MorrisError(f"bad Redis URL {url!r}: {e}") from None
        self.url = url
        self.ttl = max(1, int(ttl_seconds))
        self.presence_seconds = presence_seconds
        self.process = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._append = self._client.register_script(_APPEND)
        self._prune = self._client.register_script(_PRUNE)
        self._local: Counter[tuple[str, str]] = Counter()
        self._tasks: list[asyncio.Task] = []
        self._subscribed = asyncio.Event()

    def check(self) -> None:
        """Fail with one line now, before a server starts, if Redis cannot be reached."""
        import redis

        try:
            with redis.Redis.from_url(self.url, socket_connect_timeout=5) as client:
                client.ping()
        except redis.RedisError as e:
            raise MorrisError(f"cannot reach Redis at {self.url}: {e}") from None

    async def start(self) -> None:
        try:
            await self._client.ping()
        except Exception as e:  # redis.ConnectionError and its kin: one line
            raise MorrisError(f"cannot reach Redis at {self.url}: {e}") from None
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._refresh())]
        await asyncio.wait_for(self._subscribed.wait(), 10)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self._client.aclose()

    async def _listen(self) -> None:
        """Deliver every fanned-out message; after a lost connection, tell the rooms to
        resync from the store. A handler that fails is logged: the connection is fine."""
        import redis

        first = True
        while True:
            try:
                async with self._client.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    self._subscribed.set()
                    if not first:
                        await self._deliver_logged("*", {"type": "resync"})
                    first = False
                    async for item in pubsub.listen():
                        if item.get("type") == "message":
                            await self._deliver_item(item["data"])
            except Exception as e:  # Redis went away: try again, then resync
                if not isinstance(e, (redis.RedisError, OSError)):
                    log.exception("the Redis listener failed; subscribing again")
                await asyncio.sleep(0.5)

    async def _deliver_item(self, data: str) -> None:
        try:
            fanned = json.loads(data)
            room_id, message = fanned["room"], fanned["message"]
            if not isinstance(message, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            log.error("ignored a malformed message on %s: %.200r", CHANNEL, data)
            return
        await self._deliver_logged(room_id, message)

    async def _deliver_logged(self, room_id: str, message: dict) -> None:
        try:
            await self._deliver(room_id, message)
        except Exception:
            log.exception("a handler failed on a %s message of room %s",
                          message.get("type"), room_id)

    # -- rooms ------------------------------------------------------------------------

    def _keys(self, room_id: str) -> tuple[str, str, str]:
        return (f"{PREFIX}room:{room_id}", f"{PREFIX}events:{room_id}",
                f"{PREFIX}presence:{room_id}")

    async def create(self, record: RoomRecord, host_hash: str, invite_hash: str) -> None:
        room, _, _ = self._keys(record.id)
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.hset(room, mapping={"record": json.dumps(record.as_json()),
                                     "host_hash": host_hash, "invite_hash": invite_hash,
                                     "version": 0, "touched": record.created})
            pipe.expire(room, self.ttl)
            await pipe.execute()

    async def load(self, room_id: str) -> StoredRoom | None:
        room, events, _ = self._keys(room_id)
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.hgetall(room)
            pipe.lrange(events, 0, -1)
            fields, bodies = await pipe.execute()
        if not fields:
            return None
        version = int(fields["version"])
        return StoredRoom(RoomRecord.from_json(json.loads(fields["record"])),
                          [json.loads(b) for b in bodies[:version]], fields["host_hash"],
                          fields.get("guest_hash"), fields["invite_hash"])

    async def append(self, room_id: str, event: dict, guest_hash: str | None = None) -> bool:
        room, events, _ = self._keys(room_id)
        fanout = json.dumps({"room": room_id, "message": {"type": "event", "event": event}})
        answer = await self._append(keys=[room, events], args=[
            event["v"] - 1, json.dumps(event), guest_hash or "", self.ttl, CHANNEL, fanout,
            event["at"]])
        return int(answer) > 0

    async def publish(self, room_id: str, message: dict) -> None:
        await self._client.publish(CHANNEL, json.dumps({"room": room_id, "message": message}))

    async def remove_idle(self, before_ms: int) -> int:
        return 0  # the keys expire by themselves

    # -- presence ---------------------------------------------------------------------

    async def set_presence(self, room_id: str, seat: str, present: bool) -> dict[str, bool]:
        key = (room_id, seat)
        self._local[key] += 1 if present else -1
        field = f"{seat}|{self.process}"
        presence = self._keys(room_id)[2]
        if self._local[key] > 0:
            await self._client.hset(presence, field, self._deadline())
            await self._client.expire(presence, self._presence_ttl())
        else:
            del self._local[key]
            await self._client.hdel(presence, field)
        return await self.presence(room_id)

    async def presence(self, room_id: str) -> dict[str, bool]:
        # str, not bytes: the client decodes its replies (decode_responses=True), which
        # redis-py's hints cannot express
        fields = cast(dict[str, str], await self._client.hgetall(self._keys(room_id)[2]))
        now = time.time()
        fresh = {name.split("|", 1)[0] for name, until in fields.items() if float(until) > now}
        return {seat: seat in fresh for seat in ("host", "guest")}

    async def _refresh(self) -> None:
        """Keep this process's seats fresh; forget the lapsed ones of every process."""
        while True:
            await asyncio.sleep(self.presence_seconds / 3)
            try:
                for room_id, seat in list(self._local):
                    presence = self._keys(room_id)[2]
                    await self._client.hset(presence, f"{seat}|{self.process}", self._deadline())
                    await self._client.expire(presence, self._presence_ttl())
                await self._prune_lapsed()
            except Exception:  # Redis is down: the listener resyncs once it is back
                log.warning("could not refresh presence in Redis at %s", self.url, exc_info=True)

    async def _prune_lapsed(self) -> None:
        """Remove the presence fields of processes that stopped refreshing them, and fan
        out the new presence of each room that lost one (only the process whose HDEL
        removed the field does: one message per lapse)."""
        now = time.time()
        async for key in self._client.scan_iter(match=f"{PREFIX}presence:*", count=500):
            if int(await self._prune(keys=[key], args=[now])) > 0:
                room_id = key[len(f"{PREFIX}presence:"):]
                await self.publish(room_id, {"type": "presence",
                                             "seats": await self.presence(room_id)})

    def _deadline(self) -> float:
        return time.time() + self.presence_seconds

    def _presence_ttl(self) -> int:
        return max(1, int(self.presence_seconds * 2))
