"""The analysis board's server (``morris serve``): one HTML page and a JSON API over the
tables.

Every endpoint is a GET with query parameters, so a URL names a result. Bad input (an
unknown variant, position text that does not parse, an illegal move) is a 400 and a
position whose sector no table file holds a 404, each as ``{"error": "one line"}``;
nothing a client sends makes a 500. The endpoints are ``async``: they run one at a time
on the event loop, which the ``Tablebase`` needs (it reuses buffers between calls) and
which costs nothing, since a warm probe takes microseconds.

``/api/probe``    what ``morris probe --json`` prints: the value and every move's value
                  (with ``draw_rules=1`` and ``counter``: ``morris probe --draw-rules``'s).
``/api/game``     a game from ``start`` through ``moves``: the position as the page draws
                  it, whether and why the game is over, its value and every legal move
                  with its value (values are null where no table holds the sector).
``/api/engine``   the engine's move (``morris play``'s strengths) in that game.
``/api/variants`` the variants served, with their boards' geometry.
"""

from __future__ import annotations

import random
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from solver.drawrules import DEFAULT_LIMIT
from solver.engine import STRENGTHS, Engine
from solver.errors import MorrisError
from solver.game import Game
from solver.position import Position
from solver.probe import MissingSectorError, Tablebase, evaluation_json, rule_evaluation_json
from solver.rules import Move, phase
from solver.storage import TableError
from solver.values import Result
from solver.variants import Variant, get_variant

STATIC = resources.files(__package__) / "static"


class BadRequest(Exception):
    """A request that names something that does not exist or is not legal."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def create_app(tables: dict[str, Path]) -> Starlette:
    """The app serving the table files ``tables`` (by variant name). Variants without a
    table can still be played by two people on the page, without values."""
    bases = {name: Tablebase.open(path) for name, path in tables.items()}
    for name, tb in bases.items():
        if tb.variant.name != name:
            raise MorrisError(f"{tb.path} holds tables of {tb.variant.name}, not of {name}")

    def tablebase(variant: Variant) -> Tablebase:
        tb = bases.get(variant.name)
        if tb is None:
            raise BadRequest(f"no tables of {variant.name} are served", status=404)
        return tb

    async def variants(request: Request) -> JSONResponse:
        return JSONResponse({"variants": [_variant_json(tb.variant) for tb in bases.values()]})

    async def probe(request: Request) -> JSONResponse:
        variant = _variant(request)
        position = _position(variant, _param(request, "position"))
        tb = tablebase(variant)
        try:
            if _flag(request, "draw_rules"):
                count = _int(request, "counter", 0)
                limit = _int(request, "move_limit", DEFAULT_LIMIT)
                return JSONResponse(rule_evaluation_json(tb.rule_probe(position, count, limit),
                                              tb.rule_moves(position, count, limit)))
            return JSONResponse(evaluation_json(tb.probe(position), tb.moves(position)))
        except MissingSectorError as e:
            raise BadRequest(str(e), status=404) from None

    async def game(request: Request) -> JSONResponse:
        variant = _variant(request)
        played = _game(request, variant)
        return JSONResponse(_game_json(played, bases.get(variant.name)))

    async def engine(request: Request) -> JSONResponse:
        variant = _variant(request)
        played = _game(request, variant)
        strength = request.query_params.get("strength", "perfect")
        if strength not in STRENGTHS:
            raise BadRequest(f"unknown strength {strength!r}; choose from {', '.join(STRENGTHS)}")
        if played.outcome() is not None:
            raise BadRequest(f"the game is over ({played.outcome().reason})")
        seed = request.query_params.get("seed")
        rng = random.Random(int(seed) if seed and seed.isdigit() else None)
        try:
            move = Engine(tablebase(variant), strength, rng).choose(played)
        except MissingSectorError as e:
            raise BadRequest(str(e), status=404) from None
        return JSONResponse({"move": move.text(variant.board)})

    async def page(request: Request) -> FileResponse:
        return FileResponse(str(STATIC / "index.html"))

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/variants", variants),
            Route("/api/probe", probe),
            Route("/api/game", game),
            Route("/api/engine", engine),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        exception_handlers={BadRequest: _bad_request, MorrisError: _bad_request,
                            TableError: _table_error},
    )


async def _bad_request(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": str(exc)}, status_code=getattr(exc, "status", 400))


async def _table_error(request: Request, exc: Exception) -> JSONResponse:
    """A damaged or foreign table file: the server's fault, not the request's."""
    return JSONResponse({"error": str(exc)}, status_code=503)


def _param(request: Request, name: str, default: str | None = None) -> str:
    value = request.query_params.get(name, default)
    if value is None:
        raise BadRequest(f"missing query parameter {name!r}")
    return value


def _flag(request: Request, name: str) -> bool:
    return request.query_params.get(name, "0") in ("1", "true", "on")


def _int(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit():
        raise BadRequest(f"{name} must be a whole number, not {text!r}")
    return int(text)


def _variant(request: Request) -> Variant:
    return get_variant(_param(request, "variant"))


def _position(variant: Variant, text: str) -> Position:
    """Position text, or a move list from the start; empty text is the start."""
    if not text.strip():
        return Position.start(variant)
    try:
        return Position.parse(text, variant)
    except MorrisError as e:
        raise BadRequest(f"bad position {text!r}: {e}") from None


def _game(request: Request, variant: Variant) -> Game:
    """The game from ``start`` (default the empty board) through ``moves`` (notation,
    separated by spaces), with the house draw rules if ``draw_rules`` is 1 (the move
    limit ``move_limit``, default 100)."""
    start = _position(variant, request.query_params.get("start", ""))
    try:
        played = Game(variant, start, draw_rules=_flag(request, "draw_rules"),
                      move_limit=_int(request, "move_limit", DEFAULT_LIMIT))
    except MorrisError as e:
        raise BadRequest(str(e)) from None
    for number, text in enumerate(request.query_params.get("moves", "").split(), 1):
        try:
            played.play(text)
        except MorrisError as e:
            raise BadRequest(f"move {number}: {e}") from None
    return played


def _variant_json(variant: Variant) -> dict:
    board = variant.board
    return {
        "name": variant.name,
        "stones": variant.stones,
        "rules": variant.rules(),
        "board": {
            "name": board.name,
            "points": list(board.points),
            "coords": [list(c) for c in board.coords],
            "edges": [list(e) for e in board.edges],
            "mills": [list(m) for m in board.mills],
        },
    }


def _move_json(move: Move, names: tuple[str, ...]) -> dict:
    return {
        "origin": names[move.origin] if move.origin is not None else None,
        "target": names[move.target],
        "removed": [names[p] for p in move.removed],
    }


def _game_json(played: Game, tb: Tablebase | None) -> dict:
    """What the page shows of a game: the position, the end, and the values (null where
    no table holds them, with the reason in ``value_error``)."""
    pos = played.position
    board = pos.board
    end = played.outcome()
    facts = {
        "variant": pos.variant.name,
        "position": str(pos),
        "moves_played": [move.text(board) for _, move in played.history],
        "white": board.names(pos.white),
        "black": board.names(pos.black),
        "to_move": "white" if pos.white_to_move else "black",
        "hands": {"white": pos.white_hand, "black": pos.black_hand},
        "phase": phase(pos),
        "over": None,
        "quiet_plies": played.quiet_moving_plies(),
        "quiet_plies_limit": played.move_limit if played.draw_rules else None,
        "value": None,
        "value_error": None,
        "moves": [],
    }
    if end is not None:
        other = "black" if pos.white_to_move else "white"
        winner = {Result.WIN: facts["to_move"], Result.LOSS: other}.get(end.result)
        facts["over"] = {"result": end.result.value, "reason": end.reason, "winner": winner}
    legal = {move.text(board): move for move in played.legal_moves()}
    valued: dict[str, dict] = {}
    if tb is None:
        facts["value_error"] = f"no tables of {pos.variant.name} are served"
    else:
        try:
            value, moves = tb.probe(pos), tb.moves(pos)
            facts["value"] = value.as_dict()
            valued = {mv.text: mv.value.as_dict() for mv in moves}
        except MissingSectorError as e:
            facts["value_error"] = str(e)
    # under the move limit: the values of the rule at the game's count, where the file
    # holds them; the moves then come in the rule's order
    rules = {}
    limit = played.move_limit
    if played.draw_rules and tb is not None and limit in tb.rule_limits():
        count = min(played.quiet_moving_plies(), limit)
        try:
            rule = tb.rule_probe(pos, count, limit)
            facts["rule_value"] = {"result": rule.result.value, "class": rule.rule_class,
                                   "plies_to_capture": rule.plies_to_capture}
            rule_moves = tb.rule_moves(pos, count, limit)
            rules = {mv.text: {"result": mv.result.value,
                               "plies_to_capture": mv.plies_to_capture} for mv in rule_moves}
            valued = {text: valued.get(text) for text in rules}  # the rule's order
        except MissingSectorError as e:
            facts["value_error"] = str(e)
    order = list(valued) + [text for text in legal if text not in valued]  # best first
    facts["moves"] = [
        {"move": text, **_move_json(legal[text], board.points),
         "value": valued.get(text), **({"rule": rules[text]} if text in rules else {})}
        for text in order if text in legal
    ]
    return facts
