"""The WebSocket of a live room (``/ws/rooms/ID``, docs/live.md): the messages a client
sends and what the server answers.

The client's first message is ``{"type": "hello", "version": N, "token": SEAT_TOKEN}``
(no token: a watcher); the server answers ``welcome`` (who you are), then the events
after ``N`` with the state after them, or the whole state when ``N`` is too far behind.
A move is ``{"type": "move", "move": "d6-d5xa1", "id": "..."}``; its answer is ``ack``
(with the event's version) or ``refused`` (one line, and the HTTP status the same
refusal would have), and every connection of the room gets the ``events`` with the new
state. A move is applied once per game, seat and ``id``. Messages past the connection's
rate are refused, and past ``Limits.max_refusals`` of those the connection is closed
with 1008.
"""

from __future__ import annotations

import asyncio
import contextlib

from starlette.websockets import WebSocket, WebSocketDisconnect

from . import params
from .live import LiveRooms, now_ms
from .live_connection import Connection, catch_up
from .params import BadRequest
from .referee import ACTIONS
from .room_errors import RoomError, TooMany, http_status

HELLO_SECONDS = 15  # a connection that says nothing this long is closed


async def converse(rooms: LiveRooms, ws: WebSocket) -> None:
    """Serve one WebSocket of a room until either side closes it: 4404 for a room that
    does not exist, 4408 for no hello in time, 1008 for too many messages past the rate,
    1013 for a client that reads nothing."""
    room_id = ws.path_params["room"]
    await ws.accept()
    conn = Connection(ws, room_id, rooms.limits)
    writer = asyncio.create_task(conn.write())
    registered = False
    try:
        try:
            await rooms.room(room_id)
        except RoomError as e:
            conn.send({"type": "error", "error": str(e), "status": http_status(e)})
            conn.finish(4000 + http_status(e))
            await writer
            return
        rooms.attach(conn)
        registered = True
        while True:
            message = await _receive(conn)
            if message is not None:
                await _handle(rooms, conn, message)
    except TimeoutError:  # no hello in time
        conn.finish(4408)
    except WebSocketDisconnect as e:  # the client left, or sent too much (1008)
        conn.finish(e.code)
    finally:
        if registered:
            await rooms.detach(conn)
        with contextlib.suppress(Exception):  # a client gone cannot be written to
            await asyncio.wait_for(writer, 5)
        writer.cancel()


async def _receive(conn: Connection) -> dict | None:
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
        if not conn.rate.take():  # every frame counts, readable or not
            if conn.rate.exhausted():
                raise WebSocketDisconnect(1008)
            raise TooMany("too many messages: slow down")
        if unreadable is not None:
            raise unreadable
        params.choice(message, "type", ("hello", "ping", *ACTIONS))
        return message
    except (BadRequest, RoomError) as e:  # answered with the message's id where readable
        move_id = message.get("id")
        _refuse(conn, move_id if isinstance(move_id, str) else None, e)
        return None


async def _handle(rooms: LiveRooms, conn: Connection, message: dict) -> None:
    kind = message["type"]
    move_id = None
    try:
        if kind == "hello":
            await _hello(rooms, conn, message)
            return
        if kind == "ping":
            conn.send({"type": "pong", "server_time": now_ms()})
            return
        if "id" in message:
            move_id = params.text(message, "id", max_length=100)
        if conn.sent is None:
            raise BadRequest("say hello first: {\"type\": \"hello\", \"version\": 0}")
        move = params.text(message, "move", max_length=100) if kind == "move" else None
        entry, version = await rooms.act(conn.room_id, conn.seat, kind, move, move_id)
        rooms.deliver(conn.room_id, entry)
        conn.send({"type": "ack", "id": move_id, "version": version})
    except (BadRequest, RoomError) as e:
        _refuse(conn, move_id, e)


async def _hello(rooms: LiveRooms, conn: Connection, message: dict) -> None:
    version = params.whole_number(message, "version", 0, highest=10**9)
    token = params.text(message, "token", "", max_length=200) or None
    entry = await rooms.room(conn.room_id)
    try:
        seat = entry.seat_of_token(token)
    except RoomError as e:  # a wrong token: told so, and connected as a watcher
        _refuse(conn, None, e)
        seat = None
    if seat != conn.seat:
        await rooms.set_presence(conn.room_id, conn.seat, False)
        conn.seat = seat
        await rooms.set_presence(conn.room_id, seat, True)
    entry = await rooms.room(conn.room_id)
    state = entry.state
    conn.send({"type": "welcome", "seat": seat,
               "color": state.color_of(seat) if seat else None,
               "version": state.version})
    conn.send(catch_up(entry.events, version, entry.state_json()))
    conn.sent = state.version
    rooms.send_presence(conn.room_id, entry, only=conn)


def _refuse(conn: Connection, move_id: str | None, error: BadRequest | RoomError) -> None:
    """Answer a message with ``refused``: the reason, and the HTTP status the same
    refusal would have."""
    status = error.status if isinstance(error, BadRequest) else http_status(error)
    conn.send({"type": "refused", "id": move_id, "error": str(error), "status": status})
