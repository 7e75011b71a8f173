"""The review of a played game (``morris_solver.review``) against the tables' own answers."""

from __future__ import annotations

import json
import random

import pytest

from morris_solver.game import Game
from morris_solver.position import Position
from morris_solver.probe import Tablebase
from morris_solver.review import (
    DRAW_TURNED_INTO_LOSS,
    QUICKER_LOSS,
    SLOWER_WIN,
    TURNING_MARKS,
    WIN_GIVEN_AWAY,
    WIN_TURNED_INTO_LOSS,
    Review,
    mark_of,
    review_game,
)
from morris_solver.values import Result, Value

PLY_KEYS = {"ply", "mover", "move", "position", "before", "after", "best", "best_value",
            "mark", "missing"}


@pytest.fixture(scope="module")
def three(table_paths) -> Tablebase:
    return Tablebase.open(table_paths["three"])


def random_game(variant: str, seed: int, max_plies: int) -> Game:
    game = Game(variant)
    rng = random.Random(seed)
    while not game.outcome() and len(game.history) < max_plies:
        game.play(rng.choice(game.legal_moves()))
    return game


def positions(game: Game) -> list[Position]:
    """The positions at ply index 0..n."""
    return [before for before, _ in game.history] + [game.position]


def check_against_probe(tb: Tablebase, game: Game, review: Review) -> None:
    """Every value of the review is the one the tables give, probed afresh."""
    seen = positions(game)
    assert [p.ply for p in review.plies] == list(range(1, len(game.history) + 1))
    for ply, (before, move), after in zip(review.plies, game.history, seen[1:], strict=True):
        assert ply.missing is None
        assert ply.position == str(before)
        assert ply.move == move.text(before.board)
        assert ply.mover == ("white" if before.white_to_move else "black")
        assert ply.before == tb.probe(before)
        assert ply.after == tb.probe(after).after_move()  # the opponent's value, one ply on
        best = tb.moves(before)[0]
        if ply.after == ply.before:
            assert ply.best is None and ply.best_value is None and ply.mark is None
        else:
            assert ply.after.sort_key() > ply.before.sort_key()
            assert (ply.best, ply.best_value) == (best.text, best.value)
            assert ply.best_value == ply.before
            assert ply.mark == mark_of(ply.before, ply.after) is not None
    chart = review.as_json()["chart"]
    assert [c["ply"] for c in chart] == list(range(len(seen)))
    for point, position in zip(chart, seen, strict=True):
        value = tb.probe(position)
        sign = {Result.WIN: 1, Result.DRAW: 0, Result.LOSS: -1}[value.result]
        assert point["white"] == (sign if position.white_to_move else -sign)
        assert point["plies"] == value.plies
    assert review.final.value == tb.probe(game.position)
    assert review.final.over == game.outcome()


def test_mark_of_each_case():
    win, draw, loss = Result.WIN, Result.DRAW, Result.LOSS
    assert mark_of(Value(win, 3), Value(win, 3)) is None
    assert mark_of(Value(win, 3), Value(win, 5)) == SLOWER_WIN
    assert mark_of(Value(win, 3), Value(draw)) == WIN_GIVEN_AWAY
    assert mark_of(Value(win, 3), Value(loss, 8)) == WIN_TURNED_INTO_LOSS
    assert mark_of(Value(draw), Value(draw)) is None
    assert mark_of(Value(draw), Value(loss, 2)) == DRAW_TURNED_INTO_LOSS
    assert mark_of(Value(loss, 6), Value(loss, 6)) is None
    assert mark_of(Value(loss, 6), Value(loss, 2)) == QUICKER_LOSS
    assert set(TURNING_MARKS) == {WIN_GIVEN_AWAY, WIN_TURNED_INTO_LOSS, DRAW_TURNED_INTO_LOSS}


@pytest.mark.parametrize("seed", range(6))
def test_random_games_agree_with_probe(three, seed):
    game = random_game("three", seed, 24)
    review = review_game(three, game)
    check_against_probe(three, game, review)
    data = json.loads(json.dumps(review.as_json()))
    assert data["variant"] == "three" and data["start"] == str(Position.start("three"))
    assert data["moves"] == [p.move for p in review.plies]
    assert all(set(p) == PLY_KEYS for p in data["plies"])
    assert set(data["final"]) == {"position", "value", "missing", "over"}
    assert data["turning_points"] == [p["ply"] for p in data["plies"]
                                      if p["mark"] in TURNING_MARKS]


def test_a_win_thrown_away_is_marked_and_best_keeps_it(three):
    found = None
    for seed in range(50):
        game = random_game("three", seed, 24)
        for ply in review_game(three, game).plies:
            if ply.mark in (WIN_GIVEN_AWAY, WIN_TURNED_INTO_LOSS):
                found = game.history[: ply.ply], ply.mark
                break
        if found:
            break
    assert found, "no random game throws a win away"
    history, mark = found
    game = Game("three")  # the game up to the blunder, replayed by notation
    for before, move in history:
        game.play(move.text(before.board))
    review = review_game(three, game)
    last = review.plies[-1]
    assert last.mark == mark and last.before.result is Result.WIN
    assert last.after.result is not Result.WIN
    assert last.best_value.result is last.before.result
    assert last.best_value == last.before
    best = {mv.text: mv.value for mv in three.moves(game.history[-1][0])}
    assert best[last.best] == last.before
    assert last.ply in review.turning_points
    chart = review.chart()
    assert chart[-1]["white"] != chart[-2]["white"]


def test_a_perfect_game_has_no_marks(three):
    game = Game("three")
    while not game.outcome() and len(game.history) < 30:
        game.play(three.best_move(game.position))
    review = review_game(three, game)
    check_against_probe(three, game, review)
    assert all(p.mark is None and p.best is None for p in review.plies)
    assert review.turning_points == []
    start = review.plies[0].before
    # the winner hurries: the distance drops by one each ply
    assert [p.before.plies for p in review.plies] == list(range(start.plies, 0, -1))
    final = review.as_json()["final"]
    assert final["value"] == {"result": "loss", "plies": 0}
    assert final["over"]["winner"] == ("white" if len(game.history) % 2 else "black")


def test_a_game_of_six_with_captures(six_whole_path):
    tb = Tablebase.open(six_whole_path)
    for seed in range(20):
        game = random_game("six", seed, 40)
        if any(move.removed for _, move in game.history):
            break
    else:
        pytest.fail("no random game of Six captures")
    review = review_game(tb, game)
    check_against_probe(tb, game, review)
    captures = [p for p in review.plies if "x" in p.move]
    assert captures and all(p.after is not None for p in captures)


def test_positions_outside_the_tables_are_missing(table_paths):
    tb = Tablebase.open(table_paths["six"])  # moving sectors up to 4 stones a side only
    game = random_game("six", 0, 6)
    review = review_game(tb, game)
    assert len(review.plies) == 6
    for ply in review.plies:
        assert ply.missing and "\n" not in ply.missing and "not in" in ply.missing
        assert (ply.before, ply.after, ply.best, ply.best_value, ply.mark) == (None,) * 5
    assert review.final.value is None and review.final.missing
    data = json.loads(json.dumps(review.as_json()))
    assert all(c["white"] is None and c["plies"] is None for c in data["chart"])
    assert data["turning_points"] == []


def test_a_game_inside_the_moving_tables(table_paths):
    tb = Tablebase.open(table_paths["six"])
    start = Position.parse("W:a1,a5,e1,d4 B:c5,e3,b3,c2 w", "six")
    game = Game("six", start)
    rng = random.Random(3)
    while not game.outcome() and len(game.history) < 16:
        game.play(rng.choice(game.legal_moves()))
    review = review_game(tb, game)
    check_against_probe(tb, game, review)
    assert review.as_json()["start"] == str(start)


def test_no_tables():
    game = random_game("three", 2, 10)
    review = review_game(None, game)
    assert all(p.missing == "no tables of three are served" for p in review.plies)
    assert all(p.before is None and p.after is None and p.mark is None for p in review.plies)
    assert [c["white"] for c in review.chart()[:-1]] == [None] * len(game.history)
    if game.outcome() is None:
        assert review.final.missing == "no tables of three are served"
    empty = review_game(None, Game("three"))
    assert empty.plies == [] and empty.as_json()["chart"] == [
        {"ply": 0, "white": None, "plies": None}]


def test_the_last_placement_is_valued_by_its_moves(table_paths):
    """Only the moving phase is solved: the last placement's own sector is missing, but
    every move leads into the tables, so its value is the best of theirs."""
    tb = Tablebase.open(table_paths["six"])
    start = Position.parse("W:a1,a5,e1,d4 B:c5,e3,b3 b h:0,1", "six")
    game = Game("six", start)
    game.play(game.legal_moves()[0])
    (ply,) = review_game(tb, game).plies
    assert ply.missing is None
    assert ply.before == tb.value_from_successors(start) == tb.moves(start)[0].value
    assert ply.after == tb.probe(game.position).after_move()
