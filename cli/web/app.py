"""The analysis board's server (``morris serve``): the board page, live rooms to play a
friend by link (``morris_cli.web.live``), and a JSON API over the tables.

Every query parameter and body goes through ``morris_cli.web.params``: bad input (an unknown
variant, position text that does not parse, an illegal move, a number that is not one)
is a 400 and a position whose sector no table file holds a 404, each as
``{"error": "one line"}``; nothing a client sends makes a 500. Table reads run on one
thread of their own (a ``Tablebase`` serves one thread at a time, and a cold read of a
large sector takes 0.4 s), so a slow probe never stalls the event loop that carries the
live rooms. Where a file lacks placement tables, queries about placement positions are
answered by search (``Tablebase``): those run on a second thread with a Tablebase of
their own, one at a time, each within ``search_seconds`` (past it a 503 saying how to get
exact answers at once) and stopped when its client leaves, so plain reads never wait
behind a search.

``/api/probe``    what ``morris probe --json`` prints: the value and every move's value
                  (with ``draw_rules=1`` and ``counter``: ``morris probe --draw-rules``'s).
``/api/game``     a game from ``start`` through ``moves``: the position as the page draws
                  it, whether and why the game is over, its value and every legal move
                  with its value (values are null where no table holds the sector).
``/api/review``   that game reviewed move by move with the tables' values.
``/api/engine``   the engine's move (``morris play``'s strengths; ``against=noisy:E``, the
                  opponent ultra plays for) in that game, and which engine chose it: the
                  tables', or where none are served the table-free search
                  (``engine.SearchEngine``, not perfect), with the note that says so.
``/api/variants`` the variants served, with their boards' geometry.
``/api/rooms...`` live rooms (docs/live.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import sys
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TypeVar

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from morris_solver.core.errors import MorrisError
from morris_solver.play.engine import STRENGTHS, Engine, SearchEngine
from morris_solver.play.opponent_model import DEFAULT_MODEL_ERROR, model_error_of
from morris_solver.play.review import review_game
from morris_solver.query.probe import MissingSectorError, Tablebase
from morris_solver.query.probe_results import rule_evaluation_json
from morris_solver.rules.drawrules import DEFAULT_LIMIT
from morris_solver.rules.game import Game
from morris_solver.rules.outcome import outcome_json
from morris_solver.rules.position import Position
from morris_solver.rules.variants import VARIANTS, Variant, get_variant
from morris_solver.search.search_limits import SearchCancelled, SearchTimeout
from morris_solver.tables.storage import TableError

from . import params
from .game_json import game_json, move_json
from .live import LiveRooms
from .live_limits import Limits
from .live_routes import routes as room_routes
from .params import BadRequest
from .roomstore import RoomStore

STATIC = resources.files(__package__) / "static"
ROOM_TTL_DAYS = 30.0
SEARCH_SECONDS = 20.0  # a query's placement searches in all, then a 503
DISCONNECT_POLL_SECONDS = 0.2  # how often a search's client is checked for having left
T = TypeVar("T")
log = logging.getLogger("morris.web")


def open_room_store(rooms: str | Path | None, redis: str | None,
                    ttl_seconds: float) -> RoomStore:
    """The rooms' store: Redis at ``redis`` (shared by several processes), else the
    SQLite file ``rooms`` (``None``: in memory, gone with the process)."""
    if redis:
        from .roomstore_redis import RedisRoomStore

        return RedisRoomStore(redis, ttl_seconds)
    from .roomstore_sqlite import SQLiteRoomStore

    return SQLiteRoomStore(":memory:" if rooms is None else rooms)


def create_app(tables: dict[str, Path], rooms: str | Path | None = None,
               redis: str | None = None, room_ttl_days: float = ROOM_TTL_DAYS,
               limits: Limits | None = None,
               search_seconds: float = SEARCH_SECONDS) -> Starlette:
    """The app serving the table files ``tables`` (by variant name), with live rooms kept
    in the SQLite file ``rooms`` or in Redis at ``redis``. Variants without a table can
    still be played on the page and in rooms, without values. A query that searches
    (a file without placement tables) is stopped after ``search_seconds``."""
    bases = {name: Tablebase.open(path) for name, path in tables.items()}
    for name, tb in bases.items():
        if tb.variant.name != name:
            raise MorrisError(f"{tb.path} holds tables of {tb.variant.name}, not of {name}")
    # files that search: a Tablebase of their own for the search thread; the plain one
    # never searches (a query routed wrongly gets a 404, not a search on the wrong thread)
    searching = {name: Tablebase.open(tables[name]) for name, tb in bases.items()
                 if tb.may_search()}
    for name, tb in searching.items():
        tb.search_load_progress = _loading_log(name)
        bases[name].search = False
    table_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tables")
    # the table-free engine's searches (up to a second or so each): not in the way of reads
    engine_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engine")
    search_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="search")
    # one search at a time: a lock per event loop (a test client may run several)
    search_turns: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    async def on_tables(work: Callable[[], T]) -> T:
        """Run a table read on the tables' thread, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(table_thread, work)

    async def on_search(tb: Tablebase, work: Callable[[], T], request: Request | None) -> T:
        """Run ``work``, which may search, on the search thread: one at a time (a query
        that waits ``search_seconds`` for its turn is told the server is busy), its
        searches within ``search_seconds`` and cancelled when ``request``'s client
        leaves."""
        turn = search_turns.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        try:  # not through wait_for when free: a budget of 0 must still get its turn
            await (asyncio.wait_for(turn.acquire(), search_seconds) if turn.locked()
                   else turn.acquire())
        except TimeoutError:
            raise BadRequest("the server is busy searching for another query: try again "
                             "in a moment", status=503) from None
        cancel = threading.Event()

        def limited() -> T:
            with tb.search_limits(search_seconds, cancel):
                return work()

        watch = asyncio.create_task(_cancel_when_gone(request, cancel)) if request else None
        try:
            return await asyncio.get_running_loop().run_in_executor(search_thread, limited)
        finally:
            cancel.set()  # the query is answered, or abandoned: stop what still runs
            if watch is not None:
                watch.cancel()
            turn.release()

    async def on_tables_of(variant: Variant, placing: bool,
                           work: Callable[[Tablebase | None], T],
                           request: Request | None = None) -> T:
        """``work`` with ``variant``'s Tablebase (None: no tables of it are served): on
        the search thread when it involves placement positions (``placing``) the file
        lacks, else on the tables' thread."""
        tb = searching.get(variant.name) if placing else None
        if tb is not None:
            return await on_search(tb, lambda: work(tb), request)
        tb = bases.get(variant.name)
        return await on_tables(lambda: work(tb))

    def tablebase(variant: Variant) -> Tablebase:
        tb = bases.get(variant.name)
        if tb is None:
            raise BadRequest(f"no tables of {variant.name} are served", status=404)
        return tb

    async def review_of(played: Game, request: Request | None = None) -> dict:
        return await on_tables_of(played.variant, _placing(_first(played)),
                                  lambda tb: review_game(tb, played).as_json(), request)

    store = open_room_store(rooms, redis, room_ttl_days * 86400)
    store.check()
    live = LiveRooms(store, review_of, limits, ttl_seconds=room_ttl_days * 86400)

    async def variants(request: Request) -> JSONResponse:
        served = [_variant_json(tb.variant) for tb in bases.values()]
        playable = [_variant_json(get_variant(name)) for name in VARIANTS]
        return JSONResponse({"variants": served, "playable": playable})

    async def probe(request: Request) -> JSONResponse:
        query = request.query_params
        variant = _variant(query)
        position = _position(variant, params.text(query, "position"))
        tb = tablebase(variant)
        if params.flag(query, "draw_rules"):
            count = params.whole_number(query, "counter", 0)
            limit = params.whole_number(query, "move_limit", DEFAULT_LIMIT, 1, 10_000)
            return JSONResponse(await on_tables(lambda: rule_evaluation_json(
                tb.rule_probe(position, count, limit), tb.rule_moves(position, count, limit))))
        return JSONResponse(await on_tables_of(
            variant, _placing(position), lambda tb: _served(tb).evaluate(position).as_json(),
            request))

    async def game(request: Request) -> JSONResponse:
        variant = _variant(request.query_params)
        played = _game(request.query_params, variant)
        return JSONResponse(await on_tables_of(
            variant, _placing(played.position), lambda tb: _game_json(played, tb), request))

    async def review(request: Request) -> JSONResponse:
        variant = _variant(request.query_params)
        return JSONResponse(await review_of(_game(request.query_params, variant), request))

    async def engine(request: Request) -> JSONResponse:
        query = request.query_params
        variant = _variant(query)
        played = _game(query, variant)
        strength = params.choice(query, "strength", tuple(STRENGTHS), "ultra")
        against = params.text(query, "against", f"noisy:{DEFAULT_MODEL_ERROR:g}", 20)
        try:
            model_error = model_error_of(against)
        except MorrisError as e:
            raise BadRequest(f"against: {e}") from None
        end = played.outcome()
        if end is not None:
            raise BadRequest(f"the game is over ({end.reason})")
        seed = params.whole_number(query, "seed", -1)
        rng = random.Random(seed if seed >= 0 else None)
        if variant.name not in bases:  # no tables: the table-free engine, and it says so
            searcher = SearchEngine(variant, strength, rng)
            move = await asyncio.get_running_loop().run_in_executor(
                engine_thread, lambda: searcher.choose(played))
            return JSONResponse({"move": move.text(variant.board), "engine": {
                "tables": False, "depth": searcher.depth,
                "searched_depth": searcher.searched_depth, "note": searcher.note()}})
        move = await on_tables_of(variant, _placing(played.position),
                                  lambda tb: Engine(_served(tb), strength, rng,
                                                    model_error=model_error).choose(played),
                                  request)
        return JSONResponse({"move": move.text(variant.board),
                             "engine": {"tables": True, "depth": None,
                                        "searched_depth": None, "note": None}})

    async def page(request: Request) -> FileResponse:
        return FileResponse(str(STATIC / "index.html"))

    async def room_page(request: Request) -> FileResponse:
        return FileResponse(str(STATIC / "room.html"))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        for tb in bases.values():  # before anyone is served (Tablebase.warm_up)
            await on_tables(tb.warm_up)
        for tb in searching.values():  # the search's tables, and the start searched
            await asyncio.get_running_loop().run_in_executor(search_thread, tb.warm_up)
        await store.start()
        await live.sweep()
        sweeper = asyncio.create_task(live.sweep_forever())
        try:
            yield
        finally:
            sweeper.cancel()
            await store.close()
            table_thread.shutdown(wait=False)
            search_thread.shutdown(wait=False)
            engine_thread.shutdown(wait=False)

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/room/{room}", room_page),
            Route("/api/variants", variants),
            Route("/api/probe", probe),
            Route("/api/game", game),
            Route("/api/review", review),
            Route("/api/engine", engine),
            *room_routes(live),
            # the strict editable install serves the files as links into the repository
            Mount("/static", StaticFiles(directory=str(STATIC), follow_symlink=True),
                  name="static"),
        ],
        exception_handlers={BadRequest: _bad_request, MorrisError: _bad_request,
                            MissingSectorError: _missing, TableError: _table_error,
                            SearchTimeout: _table_error, SearchCancelled: _client_gone,
                            ClientDisconnect: _client_gone,
                            404: _not_found, 405: _not_allowed, Exception: _server_error},
        lifespan=lifespan,
    )
    app.state.live = live
    return app


async def _bad_request(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(exc).split())},
                        status_code=getattr(exc, "status", 400))


async def _missing(request: Request, exc: Exception) -> JSONResponse:
    """A position whose sector no table holds: not found, said in one line."""
    return JSONResponse({"error": " ".join(str(exc).split())}, status_code=404)


async def _table_error(request: Request, exc: Exception) -> JSONResponse:
    """A damaged or foreign table file: the server's fault, not the request's."""
    return JSONResponse({"error": " ".join(str(exc).split())}, status_code=503)


async def _client_gone(request: Request, exc: Exception) -> Response:
    """A client that left mid-request (its body cut off, or its search cancelled): no
    one reads the answer, and it is no error of ours to log."""
    return Response(status_code=400)


async def _cancel_when_gone(request: Request, cancel: threading.Event) -> None:
    """Set ``cancel`` once ``request``'s client has disconnected."""
    while not await request.is_disconnected():
        await asyncio.sleep(DISCONNECT_POLL_SECONDS)
    cancel.set()


def _served(tb: Tablebase | None) -> Tablebase:
    """The Tablebase of a query whose variant ``tablebase`` has already found served."""
    assert tb is not None, "a query without tables is answered 404 before it is read"
    return tb


def _placing(position: Position) -> bool:
    """Whether stones are still in hand: a position the search may have to answer."""
    return position.mover_hand + position.other_hand > 0


def _first(played: Game) -> Position:
    """The game's first position (stones in hand then, if ever)."""
    return played.history[0][0] if played.history else played.position


async def _not_found(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": f"no such page or endpoint: {request.url.path}"}, 404)


async def _not_allowed(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": f"{request.method} is not allowed here"}, 405)


async def _server_error(request: Request, exc: Exception) -> JSONResponse:
    """A bug of ours: logged with its traceback, answered in one line."""
    log.exception("error answering %s", request.url.path)
    return JSONResponse({"error": f"internal error ({type(exc).__name__})"}, 500)


def _variant(query) -> Variant:
    return get_variant(params.text(query, "variant", max_length=100))


def _position(variant: Variant, text: str) -> Position:
    """Position text, or a move list from the start; empty text is the start."""
    if not text.strip():
        return Position.start(variant)
    try:
        return Position.parse(text, variant)
    except MorrisError as e:
        raise BadRequest(f"bad position {text[:80]!r}: {e}") from None


def _game(query, variant: Variant) -> Game:
    """The game from ``start`` (default the empty board) through ``moves`` (notation,
    separated by spaces), with the house draw rules if ``draw_rules`` is 1 (the move
    limit ``move_limit``, default 100)."""
    start = _position(variant, params.text(query, "start", ""))
    try:
        played = Game(variant, start, draw_rules=params.flag(query, "draw_rules"),
                      move_limit=params.whole_number(query, "move_limit", DEFAULT_LIMIT,
                                                     1, 10_000))
    except MorrisError as e:
        raise BadRequest(str(e)) from None
    for number, text in enumerate(params.text(query, "moves", "").split(), 1):
        try:
            played.play(text)
        except MorrisError as e:
            raise BadRequest(f"move {number}: {e}") from None
    return played


def _loading_log(name: str) -> Callable[[int, int], None]:
    """Say on stderr when loading ``name``'s moving phase for the search starts and ends
    (a table file without the placement phase, at start-up: minutes for Nine Men's
    Morris, before the server answers)."""
    def progress(done: int, total: int) -> None:
        if done in (1, total):
            state = "loading" if done == 1 and total > 1 else "loaded"
            print(f"{name}: {state} the {total} moving-phase sectors the placement search "
                  "reads (the file has no placement tables)", file=sys.stderr, flush=True)
    return progress


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


def _game_json(played: Game, tb: Tablebase | None) -> dict:
    """What the page shows of a game: the position, the end, and the values (null where
    no table holds them, with the reason in ``value_error``)."""
    pos = played.position
    board = pos.board
    end = played.outcome()
    facts = {
        "variant": pos.variant.name,
        **game_json(played, played_key="moves_played"),
        "over": None if end is None else outcome_json(end, pos.white_to_move),
        "quiet_plies_limit": played.move_limit if played.draw_rules else None,
        "value": None,
        "value_error": None,
        "values_timed_out": False,  # the search ran out of its budget: values left out
        "moves": [],
    }
    legal = {move.text(board): move for move in played.legal_moves()}
    valued: dict[str, dict | None] = {}
    if tb is None:
        facts["value_error"] = f"no tables of {pos.variant.name} are served"
    else:
        try:
            found = tb.evaluate(pos)
            facts["value"] = found.value.as_dict()
            if found.searched is not None:
                facts["searched"] = found.searched.as_dict()
            valued = {mv.text: mv.value.as_dict() for mv in found.moves}
        except MissingSectorError as e:
            facts["value_error"] = str(e)
        except SearchTimeout as e:  # the position still shows, and can be played from
            facts["value_error"], facts["values_timed_out"] = str(e), True
            try:  # its value alone, where the search book or earlier searches settle it
                facts["value"] = tb.probe(pos).as_dict()
            except SearchTimeout:
                pass
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
        {"move": text, **move_json(legal[text], board.points),
         "value": valued.get(text), **({"rule": rules[text]} if text in rules else {})}
        for text in order if text in legal
    ]
    return facts
