"""Who won a game that has ended, said once for every caller: the review, the analysis
API and the live rooms' referee. An ``Outcome`` is for the side to move (``terminal``,
``Game.outcome``); a winner is a colour, which the pages and the JSON show."""

from __future__ import annotations

from .rules import Outcome
from .values import Result


def winner(end: Outcome, white_to_move: bool) -> str | None:
    """The colour that won the game ``end`` ended, for a position where White is to move
    if ``white_to_move``; None for a draw."""
    if end.result is Result.DRAW:
        return None
    return "white" if (end.result is Result.WIN) == white_to_move else "black"


def outcome_json(end: Outcome, white_to_move: bool) -> dict:
    """The end as the analysis API and the review show it: the result for the side to
    move, the rule that ended the game and the winning colour."""
    return {"result": end.result.value, "reason": end.reason,
            "winner": winner(end, white_to_move)}
