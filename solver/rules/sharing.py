"""Sectors that two variants share: where their rules coincide on a sector, its values
are the same, so one table file holds it and the other links to it (an HDF5 external
link, docs/format.md). Nothing is computed or stored twice: ``nine-nocapture-placement``
differs from ``nine`` only while placing, so every moving-phase sector of ``nine`` is
one of its own, and so is every one of ``nine-doublemill`` (no move of the moving phase
closes two mills on that board: ``sector_rules``); ``twelve`` shares the moving
sectors of ``nine-diagonal`` with at most 9 stones a side.

Which rules a sector's values depend on is decided here, and compared whenever a link
is made or followed, never assumed from variant names.
"""

from __future__ import annotations

from functools import cache

from .board import Board
from .sectors import Sector, is_moving
from .variants import Variant


def sector_rules(variant: Variant, sector: Sector) -> dict | None:
    """The rules the values of ``sector`` of ``variant`` depend on, or None for a
    placement sector (they depend on every rule and on the stones in hand, and are not
    shared). A moving-phase sector's values depend on its board and the moving rules of
    it and of the sectors its captures lead to (all with fewer stones), and on the
    full-board rule only if the board is full in it; not on the stones a side starts with
    (its index is the same: ``index_format``) nor on the placement rules.

    The stones a double mill removes matter only where one move can close two mills
    against at least 4 stones (3 stones lose with one capture as with two). Closing two
    mills takes 5 of the mover's stones, the moved one and two pairs, so never a flight
    (only 3 stones fly); and a slide closes two only on a board where it can reach a
    point on two lines that both miss the point it came from: not on the standard board,
    where each point is on two lines and every slide runs along one of them. The twin's
    sides must then be that strong, or the sectors its captures lead to are not either."""
    if not is_moving(sector):
        return None
    full = sector[0] + sector[1] == variant.board.n
    double_mills = (slides_close_two_mills(variant.board)
                    and max(sector[:2]) >= 5 and min(sector[:2]) >= 4)
    return {
        "board": variant.board_name,
        "flying": variant.flying,
        "double_mill_removes": variant.double_mill_removes if double_mills else None,
        "line_wins": variant.line_wins,
        "full_board_draw": variant.full_board_draw if full else None,
    }


@cache
def slides_close_two_mills(board: Board) -> bool:
    """Whether a slide on ``board`` can close two mills at once: some point has two
    lines through it that both miss one of its neighbours."""
    t = board.plain
    return any(
        sum(not line >> q & 1 for line in t.point_mills[p]) >= 2
        for p in range(board.n) for q in range(board.n) if t.adjacency[p] >> q & 1
    )


def shared(variant: Variant, other: Variant, sector: Sector) -> bool:
    """Whether ``sector`` of ``variant`` has the same values as in ``other``."""
    rules = sector_rules(variant, sector)
    return rules is not None and rules == sector_rules(other, sector)
