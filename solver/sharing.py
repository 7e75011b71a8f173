"""Sectors that two variants share: where their rules coincide on a sector, its values
are the same, so one table file holds it and the other links to it (an HDF5 external
link, docs/format.md). Nothing is computed or stored twice: ``nine-nocapture-placement``
differs from ``nine`` only while placing, so every moving-phase sector of ``nine`` is
one of its own; ``twelve`` shares the moving sectors of ``nine-diagonal`` with at most
9 stones a side.

Which rules a sector's values depend on is decided here, and compared whenever a link
is made or followed, never assumed from variant names.
"""

from __future__ import annotations

from .sectors import Sector, is_moving
from .variants import Variant


def sector_rules(variant: Variant, sector: Sector) -> dict | None:
    """The rules the values of ``sector`` of ``variant`` depend on, or None for a
    placement sector (they depend on every rule and on the stones in hand, and are not
    shared). A moving-phase sector's values depend on its board and the moving rules of
    it and of the sectors its captures lead to (all with fewer stones), and on the
    full-board rule only if the board is full in it; not on the stones a side starts with
    (its index is the same: ``index_format``) nor on the placement rules."""
    if not is_moving(sector):
        return None
    full = sector[0] + sector[1] == variant.board.n
    return {
        "board": variant.board_name,
        "flying": variant.flying,
        "double_mill_removes": variant.double_mill_removes,
        "line_wins": variant.line_wins,
        "full_board_draw": variant.full_board_draw if full else None,
    }


def shared(variant: Variant, other: Variant, sector: Sector) -> bool:
    """Whether ``sector`` of ``variant`` has the same values as in ``other``."""
    rules = sector_rules(variant, sector)
    return rules is not None and rules == sector_rules(other, sector)
