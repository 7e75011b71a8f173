"""The placement phase from the tables: captures while placing, and sides reduced
below three stones, as a user sees them through the query API."""

from __future__ import annotations

import pytest

from morris_solver.query.probe import MissingSectorError, Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.rules import play
from morris_solver.rules.values import Result, Value


@pytest.fixture(scope="module")
def six(six_whole_path):
    return Tablebase.open(six_whole_path)


def test_a_placement_closing_a_mill_removes_a_stone_and_is_valued_with_it(six):
    position = Position.parse("W:a1,a3 B:c1,e1 w h:4,4", "six")
    moves = {mv.text: mv for mv in six.moves(position)}
    assert {"a5xc1", "a5xe1"} <= set(moves)
    assert "a5" not in moves  # closing the mill always removes a stone
    for text in ("a5xc1", "a5xe1"):
        after = play(position, moves[text].move)
        assert after.black.bit_count() == 1 and after.black_hand == 4
        assert moves[text].value == six.probe(after).after_move()


def test_fewer_than_three_stones_in_total_loses_for_the_side_to_move(six):
    position = Position.parse("W:a1,a3,a5,c5 B:c1 b h:0,1", "six")
    assert six.probe(position) == Value(Result.LOSS, 0)
    assert six.moves(position) == []


def test_a_capture_that_leaves_two_stones_wins_at_once(six):
    # Black has 2 on board and 1 in hand: losing one more stone ends the game
    position = Position.parse("W:a1,a3,e5,e3,d2 B:c1,e1 w h:1,1", "six")
    best = six.moves(position)[0]
    assert best.text in ("a5xc1", "a5xe1")
    assert best.value == Value(Result.WIN, 1)
    assert six.probe(position) == Value(Result.WIN, 1)


def test_the_start_value_comes_from_the_same_tables(six):
    start = Position.start("six")
    assert str(start) == "W: B: w h:6,6"
    value = six.probe(start)
    assert value.result is Result.DRAW
    # a draw from the start: the best first move keeps it, and no first move wins
    assert all(mv.value.result is not Result.WIN for mv in six.moves(start))


def test_a_position_no_game_reaches_is_named_as_such(six):
    position = Position.parse("W:a1,a3,c5,e5 B:c1,e1 w h:1,1", "six")
    with pytest.raises(MissingSectorError, match="no game of six reaches sector 4-2-1-1"):
        six.probe(position)
