"""Named rule variants: a board plus the rule flags that make each game of the family."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from ..core.errors import MorrisError, quoted
from .board import BOARDS, Board


class UnknownVariantError(MorrisError):
    pass


@dataclass(frozen=True)
class Variant:
    """A game of the Mill family: a board and its rule flags. Frozen and hashable."""

    name: str
    board_name: str
    stones: int  # stones per side
    flying: bool = True  # a side with exactly 3 stones (none in hand) may fly
    placement_captures: bool = True  # a mill closed while placing removes a stone
    double_mill_removes: int = 1  # stones removed when a move closes two mills at once
    line_wins: bool = False  # Three Men's Morris: a line of three wins at once, no removals
    full_board_draw: bool = False  # a full board with nobody able to move is a draw, not a loss

    @property
    def board(self) -> Board:
        return BOARDS[self.board_name]

    @property
    def removes(self) -> bool:
        """Whether closing a mill removes stones at all."""
        return not self.line_wins

    def rules(self) -> dict:
        """The rule flags as a plain dict (stored in table files)."""
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.rules(), sort_keys=True)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("nine", "nine", 9),
        Variant("nine-noflying", "nine", 9, flying=False),
        Variant("nine-nocapture-placement", "nine", 9, placement_captures=False),
        Variant("nine-doublemill", "nine", 9, double_mill_removes=2),
        Variant("nine-diagonal", "nine-diagonal", 9),
        Variant("twelve", "nine-diagonal", 12, full_board_draw=True),
        Variant("six", "six", 6),
        Variant("three", "three", 3, flying=False, line_wins=True),
        # Nine Holes: three stones each, so a stone always flies (moves to any empty
        # point); rows and columns are the lines
        Variant("three-holes", "three-orthogonal", 3, flying=True, line_wins=True),
    )
}


def get_variant(name: str | Variant) -> Variant:
    """The variant of that name; ``UnknownVariantError`` names the known ones."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(f"unknown variant {quoted(name)} (known: {known})") from None
