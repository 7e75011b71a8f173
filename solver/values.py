"""Game-theoretic values with the semantics of the stored tables.

A ``Value`` is the result for the side to move and the distance in plies to the end of
the game under optimal play (the winner hurries, the loser delays). Wins are at an odd
distance and losses at an even one; draws have no distance.

On disk and in the kernels a value is one ``uint16`` code: ``0`` is a draw (or, while
solving, undecided), ``plies + 1`` otherwise, and ``PAD`` marks index slots that hold
no canonical position.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

DRAW_CODE = 0
PAD = 0xFFFF
MAX_PLIES = 0xFFFD  # the largest distance a code can hold; beyond it the solver fails loudly


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
        return DRAW_CODE if self.result is Result.DRAW else self.plies + 1

    def after_move(self) -> Value:
        """The value of a position one ply earlier whose move led here (side flipped)."""
        if self.result is Result.DRAW:
            return self
        return Value(self.result.flipped(), self.plies + 1)

    def sort_key(self) -> tuple:
        """Smaller is better for the side to move: shortest win, draw, longest loss."""
        if self.result is Result.WIN:
            return (0, self.plies)
        if self.result is Result.DRAW:
            return (1, 0)
        return (2, -self.plies)

    def __str__(self) -> str:
        if self.result is Result.DRAW:
            return "draw"
        return f"{self.result.value} in {self.plies} plies"
