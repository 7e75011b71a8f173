"""The review of a played game (``morris_solver.play.review``) against values it does not
read itself: the brute-force reference solver's (tests/reference_solver.py), with the
review's definitions (the value after a move, the best move, the marks, the chart)
restated here from those values; a hand-checked game of Three Men's Morris ply by ply."""

from __future__ import annotations

import json
import random

import pytest
from reference_solver import SectorValues, solve_reference
from test_draw_rules import random_moving_positions

from morris_solver.play.review import (
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
from morris_solver.query.probe import Tablebase
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position
from morris_solver.rules.rules import successors
from morris_solver.rules.values import Result, Value
from morris_solver.rules.variants import get_variant

PLY_KEYS = {"ply", "mover", "move", "position", "before", "after", "best", "best_value",
            "mark", "missing"}
WIN, DRAW, LOSS = Result.WIN, Result.DRAW, Result.LOSS
# the marks as the review's readers see them, spelled out rather than imported
MARKS = {(WIN, WIN): "slower win", (WIN, DRAW): "win given away",
         (WIN, LOSS): "win turned into loss", (DRAW, LOSS): "draw turned into loss",
         (LOSS, LOSS): "quicker loss"}
TURNING = {"win given away", "win turned into loss", "draw turned into loss"}
Reference = dict[tuple[int, int, int, int], SectorValues]


@pytest.fixture(scope="module")
def three(table_paths) -> Tablebase:
    return Tablebase.open(table_paths["three"])


@pytest.fixture(scope="module")
def reference_six4() -> Reference:
    """The reference values of Six Men's Morris' moving sectors up to 4 stones a side
    (a few seconds), the ones ``table_paths["six"]`` holds."""
    return solve_reference(get_variant("six"), [(4, 4, 0, 0)])


def win(plies: int) -> Value:
    return Value(WIN, plies)


def loss(plies: int) -> Value:
    return Value(LOSS, plies)


def ref_value(reference: Reference, position: Position) -> Value:
    """The reference's value of ``position`` for its side to move, decoded here: code 0
    a draw, else ``plies + 1``, won at an odd distance; a side left with fewer than 3
    stones has lost (the reference stores no such sector)."""
    if position.mover.bit_count() + position.mover_hand < 3:
        return loss(0)
    sector = (position.mover.bit_count(), position.other.bit_count(), position.mover_hand,
              position.other_hand)
    code = reference[sector].code_of(position.mover, position.other)
    if code == 0:
        return Value(DRAW)
    return Value(WIN if (code - 1) % 2 else LOSS, code - 1)


def earlier(value: Value) -> Value:
    """The value, for the side that moved, of the move into a position of ``value``."""
    if value.result is DRAW:
        return value
    return Value(WIN if value.result is LOSS else LOSS, value.plies + 1)


def rank(value: Value) -> tuple[int, int]:
    """Smaller is better for the side to move: the shortest win, a draw, the longest loss."""
    return {WIN: (0, value.plies), DRAW: (1, 0), LOSS: (2, -(value.plies or 0))}[value.result]


def sign(value: Value, white_to_move: bool) -> int:
    s = {WIN: 1, DRAW: 0, LOSS: -1}[value.result]
    return s if white_to_move else -s


def random_game(variant: str, seed: int, max_plies: int, start: Position | None = None) -> Game:
    game = Game(variant, start)
    rng = random.Random(seed)
    while not game.outcome() and len(game.history) < max_plies:
        game.play(rng.choice(game.legal_moves()))
    return game


def positions(game: Game) -> list[Position]:
    """The positions at ply index 0..n."""
    return [before for before, _ in game.history] + [game.position]


def check_against_reference(reference: Reference, game: Game, review: Review) -> list[str | None]:
    """Every ply of the review as the reference's values make it: the value before, the
    value of the move played (its successor's, one ply earlier), a best move exactly
    when the move played falls short, that move keeping the value, the mark by the
    result before and after; the chart, the final value and the turning points.
    Returns the marks, for the callers to see which occurred."""
    assert [p.ply for p in review.plies] == list(range(1, len(game.history) + 1))
    marks = []
    for ply, (before, move) in zip(review.plies, game.history, strict=True):
        text = move.text(before.board)
        assert (ply.position, ply.move, ply.missing) == (str(before), text, None)
        assert ply.mover == ("white" if before.white_to_move else "black")
        value = ref_value(reference, before)
        moves = {mv.text(before.board): earlier(ref_value(reference, after))
                 for mv, after in successors(before)}
        assert min(rank(v) for v in moves.values()) == rank(value)  # the reference's own
        assert (ply.before, ply.after) == (value, moves[text]), (str(before), text)
        if moves[text] == value:
            expected = None
            assert (ply.best, ply.best_value) == (None, None), str(before)
        else:
            expected = MARKS[value.result, moves[text].result]
            assert ply.best_value == value and moves[ply.best] == value, str(before)
        assert ply.mark == expected, (str(before), text)
        marks.append(expected)
    chart = review.chart()
    seen = positions(game)
    assert [c["ply"] for c in chart] == list(range(len(seen)))
    for point, position in zip(chart, seen, strict=True):
        value = ref_value(reference, position)
        assert (point["white"], point["plies"]) == (sign(value, position.white_to_move),
                                                    value.plies)
    assert review.final.value == ref_value(reference, game.position)
    assert review.final.over == game.outcome()
    assert review.turning_points == [i for i, m in enumerate(marks, 1) if m in TURNING]
    return marks


# Two short games of Three Men's Morris, each ply as (mover, move, value before, value
# of the move played, the moves that keep the value before when the one played does
# not, mark). The distances of the short lines are checked by hand (a line of three
# ends the game: c1 after a1, b1 wins in 1; a reply that leaves it open loses in 2;
# taking the centre first wins, a corner only draws); every value is also checked
# against the reference solver below.
OPEN_DRAWS = {"b1", "c1", "a2", "b2", "a3", "c3"}  # Black's drawing replies to 1. a1
HAND_CHECKED = {
    "every mark but one": (
        [("white", "a1", win(9), Value(DRAW), {"b2"}, "win given away"),
         ("black", "c2", Value(DRAW), loss(8), OPEN_DRAWS, "draw turned into loss"),
         ("white", "b1", win(7), win(9), {"b2"}, "slower win"),
         ("black", "a2", loss(8), loss(2), {"c1"}, "quicker loss"),  # c1 stays open
         ("white", "c1", win(1), win(1), None, None)],  # a1-b1-c1
        loss(0), [1, 2], "white"),
    "a win turned into a loss": (
        [("white", "a1", win(9), Value(DRAW), {"b2"}, "win given away"),
         ("black", "c2", Value(DRAW), loss(8), OPEN_DRAWS, "draw turned into loss"),
         ("white", "a2", win(7), loss(8), {"b2"}, "win turned into loss"),
         ("black", "a3", win(7), win(7), None, None)],  # the only block of a1-a2-a3
        loss(6), [1, 2, 3], None),
}


@pytest.mark.parametrize("name", HAND_CHECKED)
def test_a_hand_checked_game_of_three(three, reference_three, name):
    plies, final, turning, winner = HAND_CHECKED[name]
    game = Game("three")
    for _, move, *_ in plies:
        game.play(move)
    for (before, _), (_, move, value, after, keeping, _) in zip(game.history, plies,
                                                                 strict=True):
        moves = {m.text(before.board): earlier(ref_value(reference_three, a))
                 for m, a in successors(before)}
        assert (ref_value(reference_three, before), moves[move]) == (value, after)
        if keeping is not None:  # the table, checked against the reference
            assert keeping == {m for m, v in moves.items() if v == value}
    assert ref_value(reference_three, game.position) == final
    review = review_game(three, game)
    got = [(p.mover, p.move, p.before, p.after, p.mark) for p in review.plies]
    assert got == [(mover, move, value, after, mark)
                   for mover, move, value, after, _, mark in plies]
    for ply, (*_, keeping, _) in zip(review.plies, plies, strict=True):
        if keeping is None:
            assert (ply.best, ply.best_value) == (None, None)
        else:
            assert ply.best in keeping and ply.best_value == ply.before
    assert review.final.value == final and review.turning_points == turning
    white = [sign(p[2], p[0] == "white") for p in plies]
    white.append(sign(final, len(plies) % 2 == 0))
    assert [c["white"] for c in review.chart()] == white
    assert [c["plies"] for c in review.chart()] == [p[2].plies for p in plies] + [final.plies]
    over = review.as_json()["final"]["over"]
    assert (over and over["winner"]) == winner
    check_against_reference(reference_three, game, review)


def test_mark_of_each_case():
    assert mark_of(win(3), win(3)) is None
    assert mark_of(win(3), win(5)) == SLOWER_WIN
    assert mark_of(win(3), Value(DRAW)) == WIN_GIVEN_AWAY
    assert mark_of(win(3), loss(8)) == WIN_TURNED_INTO_LOSS
    assert mark_of(Value(DRAW), Value(DRAW)) is None
    assert mark_of(Value(DRAW), loss(2)) == DRAW_TURNED_INTO_LOSS
    assert mark_of(loss(6), loss(6)) is None
    assert mark_of(loss(6), loss(2)) == QUICKER_LOSS
    assert set(TURNING_MARKS) == {WIN_GIVEN_AWAY, WIN_TURNED_INTO_LOSS, DRAW_TURNED_INTO_LOSS}
    assert {SLOWER_WIN, QUICKER_LOSS, *TURNING_MARKS} == set(MARKS.values())


def test_random_games_of_three_agree_with_the_reference(three, reference_three):
    """Twelve seeded random games, every ply against the reference; between them they
    make every mark and keep the value at some plies."""
    marks = set()
    for seed in range(12):
        game = random_game("three", seed, 24)
        review = review_game(three, game)
        marks |= set(check_against_reference(reference_three, game, review))
        data = json.loads(json.dumps(review.as_json()))
        assert data["variant"] == "three" and data["start"] == str(Position.start("three"))
        assert data["moves"] == [p.move for p in review.plies]
        assert all(set(p) == PLY_KEYS for p in data["plies"])
        assert set(data["final"]) == {"position", "value", "missing", "over"}
    assert marks == {None, *MARKS.values()}


def test_a_perfect_game_has_no_marks(three, reference_three):
    game = Game("three")
    while not game.outcome() and len(game.history) < 30:
        game.play(three.best_move(game.position))
    review = review_game(three, game)
    assert set(check_against_reference(reference_three, game, review)) == {None}
    assert all(p.best is None for p in review.plies) and review.turning_points == []
    # the winner hurries: the distance drops by one each ply
    assert [p.before.plies for p in review.plies] == list(range(9, 0, -1))
    final = review.as_json()["final"]
    assert final["value"] == {"result": "loss", "plies": 0}
    assert final["over"]["winner"] == "white"


def test_games_of_six_with_captures_agree_with_the_reference(table_paths, reference_six4):
    """Random games of Six from random positions of 3 or 4 stones a side, inside the
    moving tables, against the reference; some capture (a capture that leaves 2 stones
    ends the game)."""
    tb = Tablebase.open(table_paths["six"])
    captures = 0
    for seed, start in enumerate(random_moving_positions("six", 6, 8, 4)):
        game = random_game("six", seed, 16, start)
        review = review_game(tb, game)
        check_against_reference(reference_six4, game, review)
        assert review.as_json()["start"] == str(start)
        captures += sum("x" in p.move for p in review.plies)
    assert captures


def test_the_last_placement_is_valued_by_its_moves(table_paths, reference_six4):
    """Only the moving phase is solved: the last placement's own sector is missing, but
    every move leads into the tables, so its value is the best of theirs."""
    tb = Tablebase.open(table_paths["six"])
    start = Position.parse("W:a1,a5,e1,d4 B:c5,e3,b3 b h:0,1", "six")
    game = Game("six", start)
    game.play(game.legal_moves()[0])
    (ply,) = review_game(tb, game).plies
    assert ply.missing is None
    after = {mv.text(start.board): earlier(ref_value(reference_six4, pos))
             for mv, pos in successors(start)}
    assert ply.before == min(after.values(), key=rank)
    assert ply.after == after[ply.move]


def test_a_game_of_six_whole_is_consistent(six_whole_path):
    """Six whole has no independent values here, so a game with captures through the
    placement phase is checked for what the review must hold whatever the values: the
    value of each move played is the next position's one ply earlier (read from the
    move list, the next value from a probe), a best move exactly where that falls short
    of the value before, the mark by the results, the chart by the values before."""
    tb = Tablebase.open(six_whole_path)
    for seed in range(20):
        game = random_game("six", seed, 40)
        if any(move.removed for _, move in game.history):
            break
    else:
        pytest.fail("no random game of Six captures")
    review = review_game(tb, game)
    values = [p.before for p in review.plies] + [review.final.value]
    for ply, following in zip(review.plies, values[1:], strict=True):
        assert ply.missing is None and ply.after == earlier(following)
        assert rank(ply.after) >= rank(ply.before)
        if ply.after == ply.before:
            assert (ply.best, ply.best_value, ply.mark) == (None, None, None)
        else:
            assert ply.best_value == ply.before and ply.best != ply.move
            assert ply.mark == MARKS[ply.before.result, ply.after.result]
    whites = [p.mover == "white" for p in review.plies] + [review.final.white_to_move]
    assert [c["white"] for c in review.chart()] == [
        sign(v, w) for v, w in zip(values, whites, strict=True)]
    assert any("x" in p.move for p in review.plies)


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
