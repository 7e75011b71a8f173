"""Perfect play from the empty board with the moving-phase tables alone: a placement
position whose table the file lacks is answered by search (``Tablebase``'s fallback to
``search.PlacementSearch``), and every answer equals the placement tables' result, on
Six Men's Morris whole and on Nine Men's Morris positions whose search stays in small
sectors; through the API, the command line and the web API, each saying it searched."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import replace
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.play.engine import Engine
from morris_solver.play.review import review_game
from morris_solver.query.probe import MissingSectorError, Tablebase
from morris_solver.query.probe_results import Searched
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position
from morris_solver.rules.rules import phase, play, successors, terminal
from morris_solver.rules.sectors import is_moving, parse_sector_key
from morris_solver.rules.values import Result
from morris_solver.rules.variants import Variant
from morris_solver.search.search import PlacementSearch, search_value
from morris_solver.solving.generate import solve
from morris_solver.tables.storage import SECTORS, TableError, TableFile

QUIET = {"show_progress": False, "log": lambda s: None}
# placement sectors of Nine Men's Morris whose searches reach few and small sectors
NINE_SECTORS = [(2, 3, 2, 1), (3, 3, 1, 1), (2, 3, 1, 1), (3, 4, 1, 0), (3, 3, 1, 0)]


@pytest.fixture(scope="module")
def six_moving_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("six-moving") / "six.h5"
    solve("six", path, phase="moving", **QUIET)
    return path


@pytest.fixture(scope="module")
def six_whole(six_whole_path) -> Tablebase:
    return Tablebase.open(six_whole_path)


def _games(variant: str, games: int, seed: int) -> list[list[Position]]:
    """The positions of random games from the start, placement plies and a few after."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        pos, line = Position.start(variant), []
        while terminal(pos) is None and len(line) < 2 * Position.start(variant).mover_hand + 2:
            line.append(pos)
            pos = rng.choice(successors(pos))[1]
        found.append(line)
    return found


def _results(moves) -> dict[str, Result]:
    return {mv.text: mv.value.result for mv in moves}


def test_six_from_the_empty_board_equals_the_placement_tables(six_moving_path, six_whole):
    searched = Tablebase.open(six_moving_path)
    seen = set()
    for line in _games("six", 6, seed=61):  # one Tablebase: its table grows over games
        for pos in line:
            found = searched.evaluate(pos)
            assert found.value.result == six_whole.probe(pos).result, pos
            assert _results(found.moves) == _results(six_whole.moves(pos)), pos
            best = searched.best_move(pos)
            assert six_whole.probe(play(pos, best)).result is found.value.result.flipped()
            if phase(pos) == "placement":
                assert found.searched is not None and found.searched.positions >= 1
                assert found.value.plies is None or found.value.result is Result.DRAW
                seen.add(found.value.result)
            else:  # the moving phase: read from the tables, with the distance
                assert found.searched is None and found.value == six_whole.probe(pos)
    assert seen == set(Result)
    # the moves that reach the moving phase keep their distances from the tables
    last = next(pos for pos in _games("six", 1, seed=5)[0]
                if pos.mover_hand + pos.other_hand == 1)
    assert all(mv.value.plies is not None or mv.value.result is Result.DRAW
               for mv in searched.moves(last))


def test_a_session_reuses_what_it_learnt(six_moving_path):
    session = PlacementSearch(Tablebase.open(six_moving_path))
    start = Position.start("six")
    first = session.search(start)
    assert first.load_seconds > 0 and first.nodes > 100
    again = session.search(start)
    assert again.value == first.value and again.nodes < first.nodes / 10
    assert again.load_seconds == 0  # loaded once
    # a later position of a game: its subtree was part of the first search
    assert session.search(play(start, successors(start)[0][0])).nodes < first.nodes
    assert session.tt_entries >= first.tt_entries
    session.clear()  # as if new, its sectors still loaded
    fresh = session.search(start)
    assert (fresh.nodes, fresh.tt_entries, fresh.load_seconds) == (first.nodes,
                                                                   first.tt_entries, 0)


def test_nine_placement_positions(tmp_path):
    whole = tmp_path / "nine.h5"
    solve("nine", whole, sector=NINE_SECTORS[0], **QUIET)
    moving = tmp_path / "nine-moving.h5"
    shutil.copy(whole, moving)
    with h5py.File(moving, "a") as f:  # the same file without its placement sectors
        for key in [k for k in f[SECTORS] if not is_moving(parse_sector_key(k))]:
            del f[SECTORS][key]
    tables, searched = Tablebase.open(whole), Tablebase.open(moving)
    assert all(is_moving(s) for s in searched._table.sector_set())
    rng = random.Random(43)
    results = set()
    for W, B, WF, BF in NINE_SECTORS:
        for _ in range(8):
            points = rng.sample(range(24), W + B)
            pos = Position.from_sides("nine", sum(1 << p for p in points[:W]),
                                      sum(1 << p for p in points[W:]), WF, BF, WF == BF)
            found = searched.evaluate(pos)
            assert found.value.result == tables.probe(pos).result, pos
            assert _results(found.moves) == _results(tables.moves(pos)), pos
            assert found.searched is not None
            results.add(found.value.result)
    assert results == set(Result)


def test_without_the_moving_phase_the_error_names_the_whole_solve(table_paths):
    nine = Tablebase.open(table_paths["nine"])  # 3 against 3 only
    with pytest.raises(MissingSectorError, match=r"sector 0-0-9-9 .* --phase all"):
        nine.evaluate(Position.start("nine"))
    assert nine.search_totals == (0, 0, 0.0, 0.0, 0)


def test_warm_up_loads_the_search_and_searches_the_start(six_moving_path):
    tb = Tablebase.open(six_moving_path)
    tb.warm_up()
    assert tb.placement_search.tt_entries > 0
    positions, nodes, _, _, _ = tb.search_totals
    assert positions == 1 and nodes > 0
    before = tb.search_totals
    tb.probe(Position.start("six"))  # from the table the warm-up filled
    assert tb.searched_since(before).nodes < nodes / 10


def test_command_line_says_it_searched(six_moving_path, six_whole):
    runner = CliRunner()
    start = Position.start("six")
    result = runner.invoke(main, ["probe", "six", "a1 a3", "--db", str(six_moving_path)])
    assert result.exit_code == 0, result.output
    assert "searched over the moving-phase tables" in result.output and "nodes" in result.output
    result = runner.invoke(main, ["probe", "six", "a1 a3", "--db", str(six_moving_path),
                                  "--json"])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    searched = facts["searched"]
    assert searched["nodes"] > 0 and searched["seconds"] >= searched["load_seconds"] > 0
    assert facts["result"] == six_whole.probe(Position.parse("a1 a3", "six")).result.value
    result = runner.invoke(main, ["bestmove", "six", "", "--db", str(six_moving_path)])
    assert result.exit_code == 0, result.output
    move = result.stdout.strip()
    assert len(result.stdout.splitlines()) == 1 and "searched" in result.stderr
    after = Position.parse(move, "six")
    assert six_whole.probe(after).result is six_whole.probe(start).result.flipped()
    # the same position from a file holding both phases: read, not searched
    result = runner.invoke(main, ["probe", "six", "a1 a3", "--json", "--db",
                                  str(Path(six_whole.path))])
    assert "searched" not in json.loads(result.stdout)


def test_web_api_says_it_searched(six_moving_path, six_whole):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from morris_cli.web.app import create_app

    with TestClient(create_app({"six": six_moving_path})) as client:
        body = client.get("/api/probe", params={"variant": "six", "position": "a1 a3"}).json()
        # the position and each move's successor searched, each from its root at least
        searched = body["searched"]
        assert searched["positions"] == 1 + len(body["moves"]) > 1
        assert searched["nodes"] >= searched["positions"]
        expected = six_whole.probe(Position.parse("a1 a3", "six"))
        assert body["result"] == expected.result.value
        game = client.get("/api/game", params={"variant": "six", "moves": "a1 a3"}).json()
        assert game["value"]["result"] == expected.result.value and "searched" in game


def test_engine_play_and_review_with_the_moving_phase_alone(six_moving_path, six_whole):
    tb = Tablebase.open(six_moving_path)
    for strength in ("perfect", "strong"):
        engine, game = Engine(tb, strength, random.Random(3)), Game("six")
        while game.position.mover_hand and game.outcome() is None:
            before = six_whole.probe(game.position).result
            game.play(engine.choose(game))  # the tables' result kept, ply by ply
            assert six_whole.probe(game.position).result is before.flipped(), strength
    # a game with mistakes while placing: the review finds the same turning points
    rng, game = random.Random(8), Game("six")
    while game.position.mover_hand and game.outcome() is None:
        game.play(rng.choice(game.legal_moves()))
    searched, read = review_game(tb, game), review_game(six_whole, game)
    assert searched.turning_points == read.turning_points != []
    assert [p.before.result for p in searched.plies] == [p.before.result for p in read.plies]
    # the terminal: the engine playing White from the empty board
    result = CliRunner().invoke(main, ["play", "six", "--db", str(six_moving_path),
                                       "--color", "black"], input="?\nquit\n")
    assert result.exit_code == 0, result.output
    assert "Engine (White) plays" in result.output
    # its move searched, the values shown after it known from that search
    assert "no placement table: known from" in result.output


@pytest.mark.parametrize("variant", [
    # the house rules the search values from the moving phase, on the 3x3 board with 5
    # stones a side (whole games solve in seconds there): a double mill while placing
    # removes two stones; no flying; and both
    Variant("t-double", "three", 5, double_mill_removes=2),
    Variant("t-noflying", "three", 5, flying=False),
    Variant("t-double-noflying", "three", 5, flying=False, double_mill_removes=2),
], ids=lambda v: v.name)
def test_house_rules_searched_as_solved(tmp_path, variant):
    whole = tmp_path / "whole.h5"
    solve(variant, whole, **QUIET)
    moving = tmp_path / "moving.h5"
    shutil.copy(whole, moving)
    with h5py.File(moving, "a") as f:
        for key in [k for k in f[SECTORS] if not is_moving(parse_sector_key(k))]:
            del f[SECTORS][key]
    tables, searched = Tablebase.open(whole), Tablebase.open(moving)
    start = Position.start(variant)
    assert search_value(searched, start).value.result is tables.probe(start).result
    results = set()
    for line in _games(variant, 12, seed=len(variant.name)):
        for pos in line:
            found = searched.evaluate(pos)
            assert found.value.result is tables.probe(pos).result, pos
            assert _results(found.moves) == _results(tables.moves(pos)), pos
            results.add(found.value.result)
    assert len(results) >= 2


def test_a_sector_no_game_reaches_is_not_searched(six_moving_path):
    position = Position.parse("W:a1,a3,c5,e5 B:c1,e1 w h:1,1", "six")  # 4-2-1-1
    with pytest.raises(MissingSectorError, match="no game of six reaches sector 4-2-1-1"):
        Tablebase.open(six_moving_path).probe(position)


@pytest.fixture(scope="module")
def six_book_path(six_moving_path, tmp_path_factory) -> Path:
    """Six's moving phase with the search book of the start's first 6 plies, written by
    the command a user runs."""
    path = tmp_path_factory.mktemp("six-book") / "six.h5"
    shutil.copy(six_moving_path, path)
    result = CliRunner().invoke(main, ["value", "six", "--db", str(path), "--search",
                                       "--win-first", "--book", "6"])
    assert result.exit_code == 0, result.output
    assert "six: draw" in result.output and "as its search book" in result.output
    return path


def test_the_search_book_answers_the_first_plies_without_loading(six_book_path, six_whole):
    book = TableFile.open(six_book_path).search_book()
    assert book is not None and len(book.keys) > 100
    assert book.about["root"] == str(Position.start("six")) and book.about["result"] == "draw"
    assert book.about["min_in_hand"] == 12 - 6 and book.about["draw_rule"] == 0
    known = 0
    for line in _games("six", 40, seed=67):
        tb = Tablebase.open(six_book_path)  # a fresh process's: nothing loaded
        for pos in line[:7]:
            value = tb.placement_search.known_value(pos)
            if value is not None:  # every bound the book holds is true
                known += 1
                assert value.result is six_whole.probe(pos).result, pos
    assert known >= 40  # the start, at least, in every line
    tb, start = Tablebase.open(six_book_path), Position.start("six")
    assert tb.probe(start).result is Result.DRAW
    move = tb.best_move(start)  # the drawing move the proof holds, and its successor's value
    assert six_whole.probe(play(start, move)).result is Result.DRAW
    used = tb.searched_since((0, 0, 0.0, 0.0, 0))
    assert used == Searched(used.positions, 0, 0.0, 0.0, used.positions) and used.known >= 2
    assert not tb.placement_search._loaded  # nothing read from the moving phase
    found = tb.evaluate(start)  # the moves the proof only bounds are searched
    assert found.searched is not None and 0 < found.searched.known < found.searched.positions
    assert _results(found.moves) == _results(six_whole.moves(start))


def test_the_search_book_on_the_command_line(six_book_path, six_whole):
    runner = CliRunner()
    result = runner.invoke(main, ["bestmove", "six", "", "--db", str(six_book_path)])
    assert result.exit_code == 0, result.output
    assert "known from the file's search book" in result.stderr
    assert "loading" not in result.stderr  # no table loaded
    after = Position.parse(result.stdout.strip(), "six")
    assert six_whole.probe(after).result is Result.DRAW
    result = runner.invoke(main, ["probe", "six", "", "--db", str(six_book_path), "--json"])
    searched = json.loads(result.stdout)["searched"]  # the moves the book only bounds searched
    assert 0 < searched["known"] < searched["positions"] and searched["nodes"] > 0
    result = runner.invoke(main, ["info", str(six_book_path)])
    assert result.exit_code == 0 and "search book:" in result.output, result.output


@pytest.mark.parametrize("args, complaint", [
    (["--book", "4"], "go with --search"),
    (["--search", "--distance", "--book", "4"], "without --distance"),
    (["--search", "--draw-rules", "--book", "4"], "not those under --draw-rules"),
    (["--search", "--book", "-1"], "-1"),
])
def test_a_book_needs_a_win_draw_loss_search(six_moving_path, args, complaint):
    result = CliRunner().invoke(main, ["value", "six", "--db", str(six_moving_path), *args])
    assert result.exit_code == 2 and complaint in result.output, result.output


def test_a_damaged_search_book_is_one_line(six_book_path, tmp_path):
    path = tmp_path / "six.h5"
    shutil.copy(six_book_path, path)
    with h5py.File(path, "a") as f:
        del f["search_book/lower"]
        f["search_book/lower"] = np.full(len(f["search_book/keys"]), 2, np.int8)
    with pytest.raises(TableError, match="damaged search book.*--book PLIES .*writes it afresh"):
        Tablebase.open(path).probe(Position.start("six"))
    result = CliRunner().invoke(main, ["probe", "six", "", "--db", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    # writing it afresh replaces it
    book = TableFile.open(six_book_path).search_book()
    assert book is not None
    TableFile.open(path).write_search_book(book)
    assert Tablebase.open(path).probe(Position.start("six")).result is Result.DRAW
    with pytest.raises(ValueError, match="needs"):
        TableFile.open(path).write_search_book(replace(book, about={}))
    # a crafted attribute of the wrong type: one line from 'morris info' too
    with h5py.File(path, "a") as f:
        f["search_book"].attrs["nodes"] = "many"
    result = CliRunner().invoke(main, ["info", str(path)])
    assert result.exit_code == 1 and "damaged search book" in result.output
    assert "Traceback" not in result.output


def test_the_engine_plays_the_books_moves_without_loading(six_book_path, six_whole):
    """``perfect`` (and ``ultra`` in a won position) take a move that keeps the result
    (``best_move``) where the search answers, rather than valuing every move: along the
    book's proof, with no table loaded."""
    tb = Tablebase.open(six_book_path)
    engine, game = Engine(tb, "perfect", random.Random(5)), Game("six")
    move = engine.choose(game)
    assert six_whole.probe(play(game.position, move)).result is Result.DRAW
    assert not tb.placement_search._loaded
