"""Move and un-move generation on stone masks, as Numba kernels driven by board tables.

Positions are normalized to the side to move: ``mover`` and ``other`` masks, with the
number of stones in hand of the mover (``WF``). Every successor is emitted already
role-swapped (its mover is our ``other``) together with a *kind*: the number of stones
removed (0, 1, 2), or ``WIN_NOW`` for a move that ends the game at once (a line of three
in Three Men's Morris). One kernel serves every variant: the rules enter only as tables
and flags in ``RuleTables``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..core.bits import popcount, trailing_zeros
from ..rules.variants import Variant
from .index_format import IndexTables, index_tables

WIN_NOW = 3
MAX_MOVES = 16384  # bound on emitted successors: 24 targets x 3 origins x 132 removal pairs
MAX_UNMOVES = 512

RuleTables = namedtuple(
    "RuleTables",
    [
        "n",
        "full",  # mask of all points
        "adjacency",  # adjacency[p]: mask of neighbours
        "point_mills",  # point_mills[p, j]: masks of the mills through p (0-padded)
        "mill_masks",
        "flying",  # 0/1 flags and counts as int64 so the kernels see one signature
        "placement_captures",
        "double_removes",
        "line_wins",
        "full_board_draw",
    ],
)

_RULE_FIELDS = len(RuleTables._fields)


def rule_tables(variant: Variant) -> RuleTables:
    b = variant.board
    return RuleTables(
        b.n,
        b.full_mask,
        b.adjacency,
        b.point_mills,
        b.mill_masks,
        int(variant.flying),
        int(variant.placement_captures),
        variant.double_mill_removes,
        int(variant.line_wins),
        int(variant.full_board_draw),
    )


def kernel_tables(variant: Variant) -> tuple:
    """The rule and index tables of ``variant`` as one flat tuple, for kernels called
    once per query from Python: they take it as trailing ``*tables`` and rebuild the
    named tuples with ``split_tables``. (Numba types a named-tuple argument slowly on
    every call from Python, 6-10 µs; separate array arguments are typed fast.)"""
    return (*rule_tables(variant), *index_tables(variant.board, variant.stones))


@njit(cache=True, inline="always")
def split_tables(tables):
    """``(RuleTables, IndexTables)`` from the flat tuple of ``kernel_tables``."""
    return RuleTables(*tables[:_RULE_FIELDS]), IndexTables(*tables[_RULE_FIELDS:])


@njit(cache=True, inline="always")
def mills_closed_at(R, stones, t):
    """Number of complete mills of ``stones`` through point ``t``."""
    k = 0
    for j in range(R.point_mills.shape[1]):
        mm = R.point_mills[t, j]
        if mm != 0 and (stones & mm) == mm:
            k += 1
    return k


@njit(cache=True, inline="always")
def mill_points(R, stones):
    """Points of ``stones`` that stand in a complete mill (no branch per mill)."""
    in_mills = 0
    for mm in R.mill_masks:
        in_mills |= mm if (stones & mm) == mm else 0
    return in_mills


@njit(cache=True, inline="always")
def has_mill(R, stones):
    return mill_points(R, stones) != 0


@njit(cache=True, inline="always")
def removable(R, stones):
    """Stones that may be removed: those outside complete mills, or all if none is."""
    free = stones & ~mill_points(R, stones)
    return free if free else stones


@njit(cache=True, inline="always")
def _land(R, moved, other, capturable, t, placing, out_mover, out_other, out_kind, count):
    """Emit the successors once the mover's stone has landed on ``t`` (``moved`` is the
    mover's new set): the quiet one, or one per choice of removed stones
    (``capturable``: ``removable(R, other)``, found once per position)."""
    k = mills_closed_at(R, moved, t)
    if R.line_wins or k == 0 or other == 0 or (placing and not R.placement_captures):
        out_mover[count] = other
        out_other[count] = moved
        out_kind[count] = WIN_NOW if (R.line_wins and k > 0) else 0
        return count + 1
    twice = R.double_removes == 2 and k >= 2
    first = capturable
    while first:
        x = first & -first
        first ^= x
        rest = other ^ x
        if twice and rest != 0:
            second = removable(R, rest)
            while second:
                y = second & -second
                second ^= y
                out_mover[count] = rest ^ y
                out_other[count] = moved
                out_kind[count] = 2
                count += 1
        else:
            out_mover[count] = rest
            out_other[count] = moved
            out_kind[count] = 1
            count += 1
    return count


@njit(cache=True, inline="always")
def closing_points(R, mover, empty):
    """Empty points that complete a mill whose other points ``mover`` holds: the only
    points where a moving stone can close a mill (if it is not itself in that mill)."""
    points = 0
    for mm in R.mill_masks:
        missing = mm & ~mover
        if missing & empty and missing & (missing - 1) == 0:
            points |= missing
    return points


@njit(cache=True, inline="always")
def gen_moves(R, mover, other, W, WF, out_mover, out_other, out_kind):
    """All successors of a non-terminal position; returns how many were written."""
    return gen_successors(R, mover, other, W, WF, False, out_mover, out_other, out_kind)[0]


@njit(cache=True, inline="always")
def gen_successors(R, mover, other, W, WF, count_quiet, out_mover, out_other, out_kind):
    """Successors of a non-terminal position: returns ``(written, counted)``.

    With ``count_quiet``, a moving-phase move that closes no mill is only counted, not
    written. The retrograde init pass needs no more than that whenever those successors'
    indices cannot collide, and a flying side has dozens of such moves (3 stones x up to
    18 empty points) against at most a few that close a mill; only moves landing on a
    ``closing_points`` point are tried one by one."""
    empty = R.full & ~(mover | other)
    capturable = removable(R, other)
    count = 0
    if WF > 0:
        targets = empty
        while targets:
            t = trailing_zeros(targets)
            targets &= targets - 1
            placed = mover | (np.int64(1) << t)
            count = _land(
                R, placed, other, capturable, t, True, out_mover, out_other, out_kind, count
            )
        return count, 0
    fly = R.flying != 0 and W == 3
    tried = closing_points(R, mover, empty) if count_quiet else R.full
    quiet = 0
    stones = mover
    while stones:
        sb = stones & -stones
        stones ^= sb
        s = trailing_zeros(sb)
        targets = empty if fly else R.adjacency[s] & empty
        landings = targets & tried
        quiet += popcount(targets ^ landings)
        while landings:
            t = trailing_zeros(landings)
            landings &= landings - 1
            moved = mover ^ sb | (np.int64(1) << t)
            if count_quiet and mills_closed_at(R, moved, t) == 0:
                quiet += 1
            else:
                count = _land(
                    R, moved, other, capturable, t, False, out_mover, out_other, out_kind, count
                )
    return count, quiet


@njit(cache=True, inline="always")
def gen_unmoves(R, mover, other, B, out_mover, out_other):
    """Predecessors of a moving-phase position through a quiet move of ``other`` (which
    has ``B`` stones): the stone that moved last must not stand in a mill (closing one
    would have removed a stone or won), and the predecessor must not be terminal."""
    if R.line_wins and has_mill(R, mover):
        return 0
    empty = R.full & ~(mover | other)
    fly = R.flying != 0 and B == 3
    count = 0
    # the mills are looked up once for all stones, not stone by stone with a branch the
    # CPU cannot predict (a scratch micro-benchmark: 114 -> 74 ns a random 6-6 position;
    # bench_index.py's interleaved runs could not tell the two apart)
    stones = other & ~mill_points(R, other)
    while stones:
        tb = stones & -stones
        stones ^= tb
        sources = empty if fly else R.adjacency[trailing_zeros(tb)] & empty
        moved_from = other ^ tb
        while sources:
            sb = sources & -sources
            sources ^= sb
            out_mover[count] = moved_from | sb
            out_other[count] = mover
            count += 1
    return count
