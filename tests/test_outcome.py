"""The one winner function (``morris_solver.rules.outcome``) that the review, the analysis API
and the live rooms' referee share: an outcome is for the side to move, a winner is a
colour; checked on every combination and on a real ending."""

from __future__ import annotations

import pytest

from morris_solver.rules.game import Game
from morris_solver.rules.outcome import outcome_json, winner
from morris_solver.rules.rules import Outcome
from morris_solver.rules.values import Result
from morris_solver.rules.variants import get_variant


@pytest.mark.parametrize("white_to_move", [True, False])
def test_a_win_is_the_side_to_move_s_a_loss_the_other_s_a_draw_no_one_s(white_to_move):
    mover, other = ("white", "black") if white_to_move else ("black", "white")
    assert winner(Outcome(Result.WIN, "r"), white_to_move) == mover
    assert winner(Outcome(Result.LOSS, "r"), white_to_move) == other
    assert winner(Outcome(Result.DRAW, "r"), white_to_move) is None


def test_a_line_of_three_is_won_by_the_side_that_made_it():
    game = Game(get_variant("three"))
    for move in ["a1", "a2", "b1", "b2", "c1"]:  # White's a1 b1 c1 is a line
        game.play(move)
    end = game.outcome()
    assert end is not None
    over = outcome_json(end, game.position.white_to_move)
    assert over == {"result": end.result.value, "reason": end.reason, "winner": "white"}
