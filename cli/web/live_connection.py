"""One WebSocket of a live room, as the rooms' fan-out and the protocol both see it: its
seat, the last version it was sent, its rate of messages, and a bounded queue of what
goes out to it, so that a client gets each event once and in order, or the whole state
where it has fallen behind (``catch_up``)."""

from __future__ import annotations

import asyncio
import json

from starlette.websockets import WebSocket

from .live_limits import Limits, MessageRate

MAX_REPLAY = 200  # events a reconnecting client is sent one by one; further behind: the state
OUTBOX = 512  # messages queued for one slow connection before it is dropped (it resyncs)


class Connection:
    """One WebSocket: its seat, the last version it was sent, and its outgoing queue."""

    def __init__(self, ws: WebSocket, room_id: str, limits: Limits) -> None:
        self.ws, self.room_id = ws, room_id
        self.seat: str | None = None
        self.sent: int | None = None  # None until the hello is answered
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX)
        self.rate = MessageRate(limits)
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


def catch_up(events: list[dict], since: int, state: dict) -> dict:
    """The message that brings a client at version ``since`` to the room's ``state``
    after ``events``: the events it lacks, or the whole state when it is more than
    ``MAX_REPLAY`` behind (or ahead of a room that was recreated)."""
    behind = state["version"] - since
    if 0 <= behind <= min(MAX_REPLAY, len(events)):
        return {"type": "events", "events": events[len(events) - behind:], "state": state}
    return {"type": "state", "state": state}
