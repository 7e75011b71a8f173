"""Game-theoretic values with the semantics of the stored tables.

A ``Value`` is the result for the side to move and the distance in plies to the end of
the game under optimal play (the winner hurries, the loser delays). Wins are at an odd
distance and losses at an even one; draws have no distance.

On disk and in the kernels a value is one ``uint16`` code: ``0`` is a draw (or, while
solving, undecided), ``plies + 1`` otherwise, and ``PAD`` marks index slots that hold
no canonical position.

Values are ordered one way everywhere, by an integer score (smaller is better for the
side to move): a win in p plies scores p, a draw ``DRAW_SCORE``, a loss in p plies
``LOSS_SCORE - p``. The shortest win comes first, then draws, then the longest loss.
The probe, the verifier and ``Value.sort_key`` rank moves by it (``move_score``); the
search's negamax form of the same order is ``negamax_of_code``. The functions on codes
are plain integer arithmetic, so the kernels compile them as they are.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

DRAW_CODE = 0
PAD = 0xFFFF
MAX_PLIES = 0xFFFD  # the largest distance a code can hold; beyond it the solver fails loudly
DRAW_SCORE = 1 << 17  # above every win's score (a distance)
LOSS_SCORE = 1 << 18  # loss scores lie between DRAW_SCORE and this
BIG = 1 << 20  # negamax scores: a win in p is BIG - p, a loss in p is p - BIG, a draw 0


def move_score(code: int) -> int:
    """The score, for the side that plays it, of a move to a successor whose code is
    ``code``: a successor lost in c - 1 plies (odd code c) makes the move a win in c,
    one won in c - 1 (even c) a loss in c."""
    return DRAW_SCORE if code == 0 else code if code & 1 else LOSS_SCORE - code


def code_of_score(score: int) -> int:
    """The code of a position whose best move scores ``score`` (``move_score``)."""
    if score == DRAW_SCORE:
        return DRAW_CODE
    return (score if score < DRAW_SCORE else LOSS_SCORE - score) + 1


def negamax_of_code(code: int) -> int:
    """The negamax score (larger is better, negated across a move) of a position whose
    code is ``code``, for its side to move: ``BIG - p`` for a win in p plies (even code
    p + 1), ``p - BIG`` for a loss, 0 for a draw."""
    if code == DRAW_CODE:
        return 0
    return code - 1 - BIG if code & 1 else BIG - (code - 1)


class Result(enum.Enum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    def flipped(self) -> Result:
        return {Result.WIN: Result.LOSS, Result.LOSS: Result.WIN, Result.DRAW: Result.DRAW}[self]


@dataclass(frozen=True, order=False)
class Value:
    """The value of a position for the side to move."""

    result: Result
    plies: int | None = None  # None for a draw

    @classmethod
    def from_code(cls, code: int) -> Value:
        code = int(code)
        if code == PAD:
            raise ValueError("padding slot has no value")
        if code == DRAW_CODE:
            return cls(Result.DRAW, None)
        plies = code - 1
        return cls(Result.WIN if plies % 2 == 1 else Result.LOSS, plies)

    def to_code(self) -> int:
        if self.result is Result.DRAW:
            return DRAW_CODE
        if self.plies is None:
            raise ValueError(f"a {self.result.value} needs its distance in plies")
        return self.plies + 1

    def after_move(self) -> Value:
        """The value of a position one ply earlier whose move led here (side flipped)."""
        if self.result is Result.DRAW:
            return self
        return Value(self.result.flipped(), None if self.plies is None else self.plies + 1)

    def sort_key(self) -> int:
        """The value's score: smaller is better for the side to move (``move_score``). A
        win or loss without its distance (a search's) scores next to the draws: after
        every win of known length, before every loss of known length."""
        if self.result is Result.DRAW:
            return DRAW_SCORE
        if self.plies is None:
            return DRAW_SCORE - 1 if self.result is Result.WIN else DRAW_SCORE + 1
        return self.plies if self.result is Result.WIN else LOSS_SCORE - self.plies

    @classmethod
    def from_score(cls, score: int) -> Value:
        """The value whose ``sort_key`` is ``score``."""
        return cls.from_code(code_of_score(score))

    def as_dict(self) -> dict:
        """The value as JSON output gives it: ``{"result": "win", "plies": 7}``."""
        return {"result": self.result.value, "plies": self.plies}

    def __str__(self) -> str:
        if self.result is Result.DRAW or self.plies is None:
            return self.result.value
        return f"{self.result.value} in {self.plies} plies"
