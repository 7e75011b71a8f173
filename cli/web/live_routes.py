"""The live rooms' HTTP API (docs/live.md) and where the WebSocket is served: each
request read and checked (``params``), handed to ``LiveRooms``, and the rooms' errors
translated into HTTP answers, ``{"error": "one line"}`` with the status of
``room_errors.http_status``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from morris_solver.rules.drawrules import DEFAULT_LIMIT, MAX_LIMIT
from morris_solver.rules.variants import VARIANTS

from . import params
from .live import LiveRooms
from .live_protocol import converse
from .params import BadRequest
from .referee import ACTIONS
from .room_errors import RoomError, http_status

Endpoint = Callable[[Request], Awaitable[JSONResponse]]


def routes(rooms: LiveRooms) -> list[BaseRoute]:
    """The rooms' HTTP endpoints and their WebSocket, over ``rooms``."""
    api = RoomsApi(rooms)

    async def websocket(ws: WebSocket) -> None:
        await converse(rooms, ws)

    return [
        Route("/api/rooms", _answering(api.create), methods=["POST"]),
        Route("/api/rooms/{room}", _answering(api.state), methods=["GET"]),
        Route("/api/rooms/{room}/join", _answering(api.join), methods=["POST"]),
        Route("/api/rooms/{room}/move", _answering(api.move), methods=["POST"]),
        Route("/api/rooms/{room}/action", _answering(api.action), methods=["POST"]),
        Route("/api/rooms/{room}/events", _answering(api.events), methods=["GET"]),
        Route("/api/rooms/{room}/review", _answering(api.review), methods=["GET"]),
        WebSocketRoute("/ws/rooms/{room}", websocket),
    ]


def _answering(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` with a room's refusal answered as ``{"error": "one line"}`` and its
    HTTP status (the request's own faults, ``BadRequest``, are the app's to answer)."""
    @functools.wraps(endpoint)
    async def answer(request: Request) -> JSONResponse:
        try:
            return await endpoint(request)
        except RoomError as e:
            return JSONResponse({"error": " ".join(str(e).split())},
                                status_code=http_status(e))
    return answer


class RoomsApi:
    """The endpoints, each a request in and a JSON answer out."""

    def __init__(self, rooms: LiveRooms) -> None:
        self.rooms = rooms

    async def create(self, request: Request) -> JSONResponse:
        body = await params.body_object(request)
        variant = params.choice(body, "variant", tuple(VARIANTS))
        color = params.choice(body, "color", ("white", "black", "random"), "random")
        draw_rules = params.flag(body, "draw_rules", True)
        move_limit = params.whole_number(body, "move_limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        address = request.client.host if request.client else "unknown"
        record, token, invite = await self.rooms.create(variant, color, draw_rules,
                                                        move_limit, address)
        entry = await self.rooms.room(record.id)
        watch = _watch_link(request, record.id)
        return JSONResponse({
            "room": record.id, "color": record.host_color, "seat": "host", "token": token,
            "invite": f"{watch}#invite={invite}", "invite_code": invite,
            "watch": watch, "player": f"{watch}#seat={token}",
            "state": entry.state_json(),
        }, status_code=201)

    async def join(self, request: Request) -> JSONResponse:
        """Take the guest seat. A body with the guest's own ``token`` may be sent again
        after a lost answer and gets the same answer; without one it cannot."""
        body = await params.body_object(request)
        invite = params.text(body, "invite", max_length=200)
        token = body.get("token")
        if token is not None and not isinstance(token, str):
            raise BadRequest("'token' must be 22 to 200 characters of A-Z a-z 0-9 _ -")
        entry, token = await self.rooms.join(request.path_params["room"], invite, token)
        watch = _watch_link(request, entry.state.record.id)
        return JSONResponse({"room": entry.state.record.id, "seat": "guest",
                             "color": entry.state.color_of("guest"), "token": token,
                             "player": f"{watch}#seat={token}", "state": entry.state_json()})

    async def state(self, request: Request) -> JSONResponse:
        return JSONResponse((await self.rooms.room(request.path_params["room"])).state_json())

    async def move(self, request: Request) -> JSONResponse:
        room_id = request.path_params["room"]
        seat = await self._seat(request)
        body = await params.body_object(request)
        move = params.text(body, "move", max_length=100)
        move_id = params.text(body, "id", "", max_length=100) or None
        entry, version = await self.rooms.act(room_id, seat, "move", move, move_id)
        self.rooms.deliver(room_id, entry)
        return JSONResponse({**entry.state_json(), "event_version": version})

    async def action(self, request: Request) -> JSONResponse:
        room_id = request.path_params["room"]
        seat = await self._seat(request)
        body = await params.body_object(request)
        action = params.choice(body, "action", tuple(a for a in ACTIONS if a != "move"))
        entry, version = await self.rooms.act(room_id, seat, action)
        self.rooms.deliver(room_id, entry)
        return JSONResponse({**entry.state_json(), "event_version": version})

    async def events(self, request: Request) -> JSONResponse:
        entry = await self.rooms.room(request.path_params["room"])
        since = params.whole_number(request.query_params, "since", 0)
        return JSONResponse({"version": entry.state.version,
                             "events": [e for e in entry.events if e["v"] > since]})

    async def review(self, request: Request) -> JSONResponse:
        number = request.query_params.get("game")
        game = None if number is None else params.whole_number(request.query_params, "game",
                                                                 1, 1)
        return JSONResponse(await self.rooms.review(request.path_params["room"], game))

    async def _seat(self, request: Request) -> str | None:
        """The seat the request's bearer token opens."""
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise BadRequest("missing seat token: send 'Authorization: Bearer TOKEN'", 403)
        return (await self.rooms.room(request.path_params["room"])).seat_of_token(token.strip())


def _watch_link(request: Request, room_id: str) -> str:
    """The room's page, as an absolute link on the address the request came to."""
    return f"{str(request.base_url).rstrip('/')}/room/{room_id}"
