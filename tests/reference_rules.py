"""A brute-force reference for the draw rule of a move limit, for differential tests of
``morris_solver.rules.drawrules``: the count is part of the state, ``(position, count)`` explicitly,
and values come from plain minimax over the rules' own move generator (no symmetry, no
index, no Numba, nothing of the rule tables' retrograde).

The rule as docs/draw_rules.md states it: moving plies without a capture are counted,
placement plies are not and a capture resets the count to 0; a ply that captures
nothing and brings the count to the limit draws the game unless the opponent cannot
move after it (so a game that goes on at the limit is drawn). Every capture-free run
of the moving phase raises the count, every capture removes a stone and every placement
empties a hand, so the states form no cycle and a memoized depth-first search ends.
"""

from __future__ import annotations

import sys
from functools import cache

from morris_solver.rules.position import Position
from morris_solver.rules.rules import successors, terminal
from morris_solver.rules.values import Result


def _better(a: Result, b: Result) -> Result:
    order = {Result.WIN: 0, Result.DRAW: 1, Result.LOSS: 2}
    return a if order[a] <= order[b] else b


def rule_result(position: Position, count: int, limit: int) -> Result:
    """The result for the side to move of ``position`` at ``count`` under the rule."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    return _value(position, count, limit)


@cache
def _value(position: Position, count: int, limit: int) -> Result:
    end = terminal(position)
    if end is not None:
        return end.result
    if count >= limit:  # the ply that brought the count here drew the game
        return Result.DRAW
    placing = position.mover_hand > 0 or position.other_hand > 0
    best = Result.LOSS
    for move, after in successors(position):
        resets = placing or bool(move.removed)
        after_count = 0 if resets else count + 1
        after_end = terminal(after)
        if after_end is not None:
            result = after_end.result.flipped()  # ending the game comes before the limit
        elif after_count >= limit:
            result = Result.DRAW
        else:
            result = _value(after, after_count, limit).flipped()
        best = _better(best, result)
        if best is Result.WIN:
            break
    return best


def clear() -> None:
    """Forget the memoized values (between tests: they hold many positions)."""
    _value.cache_clear()
