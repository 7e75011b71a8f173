"""The value of a placement position by search (Gasser's route): alpha-beta over the
placement phase, the moving-phase tables at the leaves.

This needs only the moving-phase sectors, not the placement ones, and is an independent
check of the table route (docs/verification.md). Two metrics: ``"wdl"`` proves only win, draw or
loss (what the start position's value needs, and far cheaper), ``"dtm"`` also the
distance, which must equal the tables' (it checks the distances of late placement
positions).

Scores are integers, larger is better for the side to move. WDL: win 1, draw 0, loss -1,
and a move scores the negation of its successor. DTM: the order of ``Value.sort_key``
in negamax form (``values.negamax_of_code``), win in p -> ``BIG - p``, draw -> 0, loss
in p -> ``p - BIG``, and a move scores
``_back(successor)``: the negation, one ply further from the end. ``_back`` is strictly
decreasing on scores, so negamax with fail-soft alpha-beta stays exact; ``_forward``
turns the parent's window into the child's. Both metrics run the same kernel.

The root's window is (-1, 1): no score lies strictly between a draw and the nearest win
or loss, so this asks "draw, or better or worse?" and a drawing move found makes every
sibling a null-window test ("does this one win?"). WDL is done then; DTM searches again
with an open window for the distance when the result is not a draw, reusing the stored
bounds.

The whole search is one Numba kernel (a Python loop with a dict ran about 70,000 nodes
a second on Nine Men's Morris and its table took 125 bytes an entry). Nodes are keyed
in the transposition table by sector and ``canonical_index`` (one entry per symmetry
class) and hold ``(lower, upper)`` bounds on the score: an open-addressing table of two
int64 words a slot, grown by doubling up to ``max_tt_entries`` at three quarters full;
then a new position replaces one with fewer stones in hand near its probe's start.
Successors come from ``movegen.gen_moves`` (the solver's own move generator), ordered
for early cut-offs (``_rank``: mills, blocks, own two-stone mills, a history of
cut-offs, neighbour count). Nodes with stones enough in hand first look all their
successors up in the table (an enhanced transposition cut-off). The default order
(mills, then blocks, then neighbour count) takes the WDL search of Nine Men's Morris
from the start to 3,984,394 nodes, against 42,372,619 with every bit (the fewest on
Six Men's Morris, whose start needs only tens of thousands either way), and that of
its no-capture house rule to 1,991,936, where every bit had not finished at 99 million
(``benchmarks/search_report.md``, "Move order on Nine Men's Morris"). Every moving-phase
sector the search can reach is held in memory, whatever the probe cache's size: leaves
are everywhere. The WDL search holds each position's result in two bits
(``compact.pack_results``: Nine Men's Morris in 2.1 GiB, its start search's peak RSS
3.56 GiB), the DTM search its code in a byte (``compact.compact_codes``: 8.6 GiB).

The search reads the tables through ``MovingTables`` (a ``probe.Tablebase``) and does not
import the probe, which routes placement positions the file lacks here
(``search_route``). ``heuristic`` has a negamax kernel of its own, a guessing one over
any phase; its docstring says why the two are not one.
"""

from __future__ import annotations

import os
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
from numba import njit
from numba.typed import List

from ..core.bits import popcount, trailing_zeros
from ..core.errors import MorrisError
from ..index.indexing import canonical_index
from ..index.movegen import (
    MAX_MOVES,
    WIN_NOW,
    closing_points,
    gen_moves,
    kernel_tables,
    split_tables,
)
from ..rules.drawrules import result_bytes
from ..rules.position import Position
from ..rules.rules import terminal
from ..rules.sectors import Sector, is_moving, sector_name, successors
from ..rules.values import BIG, PAD, Result, Value, negamax_of_code
from ..rules.variants import Variant
from ..tables.compact import PACKED_DRAW, PACKED_PAD, PACKED_WIN, pack_results, widen_codes
from ..tables.probe_kernels import code_at, packed_result_at
from ..tables.solve_advice import missing_sector, solve_command
from ..tables.storage import (
    SECTORS,
    MissingSectorError,
    SearchBook,
    TableFile,
    check_variant,
    damaged_sector,
    rule_layer,
)
from .search_limits import check_limits

Metric = Literal["wdl", "dtm"]
_INF = BIG + 1  # beyond every score: the root's open window
WIN_IN_1 = BIG - 1  # the best DTM score a position not yet over can have
_WIN_NOW = -1  # key of a successor whose move ends the game: a win in 1 for its player
_SKIP = -2  # key of a successor the transposition table shows cannot raise alpha
DEFAULT_TT_ENTRIES = 100_000_000  # at most 2.1 GB: 16 bytes a slot, slots <= 4/3 entries
_MIN_TT_SLOTS = 1 << 12
# Slots a new position may replace in a full table: a few cache lines of probing.
_REPLACE_WINDOW = 8
# Slots of the int64 array the kernel and the Python side share while the search runs.
_NODES, _ENTRIES, _STOP, _DAMAGED, _MISSING = range(5)
# Rows of a ply's move buffer: the generator's output (0-2), the successors in search
# order (mover, other, stones removed or _WIN_NOW), their keys, scratch for the sort.
_GEN, _SUCC_MOVER, _SUCC_OTHER, _SUCC_KIND, _SUCC_KEY, _RANK, _PERM = 0, 3, 4, 5, 6, 7, 8
_MOVE_ROWS = 9
# The search's settings (``_rank``'s bits; the transposition cut-off from 2 stones in
# both hands): the fewest nodes of those tried on Nine Men's Morris from the start
# (benchmarks/search_report.md, "Move order on Nine Men's Morris").
DEFAULT_ORDER = 3
DEFAULT_ETC_PLIES = 2
# How often a search with a deadline or a cancel flag checks them (the kernel stops
# within a node once told): a stopped search's thread is free this soon after.
_LIMIT_POLL_SECONDS = 0.02


@dataclass(frozen=True)
class SearchResult:
    """What a search found and what it cost (the CLI reports nodes and seconds)."""

    value: Value  # for the side to move in the searched position; plies None for WDL
    nodes: int  # positions entered (table hits too), not the leaves a last placement reads
    seconds: float  # all of it, loading the tables included
    tt_entries: int  # canonical positions in the transposition table at the end
    load_seconds: float = 0.0  # the part spent loading the moving-phase tables


def score_of(value: Value) -> int:
    """The DTM score: the integer that orders like ``Value.sort_key`` (larger is better)."""
    return negamax_of_code(value.to_code())


def value_of(score: int) -> Value:
    """The ``Value`` that ``score_of`` maps to ``score``."""
    if score == 0:
        return Value(Result.DRAW)
    return Value(Result.WIN, BIG - score) if score > 0 else Value(Result.LOSS, score + BIG)


@njit(cache=True, inline="always")
def _back(score: int) -> int:
    """The DTM score for the mover of a move whose successor scores ``score`` for the
    opponent: ``score_of(value_of(score).after_move())``."""
    return 1 - score if score > 0 else -1 - score if score < 0 else 0


@njit(cache=True, inline="always")
def _forward(bound: int) -> int:
    """The child's bound matching a negated parent bound: for every score ``s``,
    ``s <= _forward(bound)`` exactly when ``-_back(s) <= bound``, and likewise with ``>=``
    (tested over all bounds near 0 and near the ends)."""
    return bound + 1 if bound > 0 else bound - 1 if bound < 0 else 0


@njit(cache=True, inline="always")
def _neg(score, wdl):
    """A move's score for its player from its successor's score."""
    return -score if wdl else _back(score)


@njit(cache=True, inline="always")
def _fwd(bound, wdl):
    """``_forward`` of the metric: the child's bound for a negated parent bound."""
    return bound if wdl else _forward(bound)


@njit(cache=True, inline="always")
def _pack(W, B, WF, BF, index):
    """A transposition-table key: sector and canonical index as one int (stone counts
    stay below 32)."""
    return index << 20 | W << 15 | B << 10 | WF << 5 | BF


@njit(cache=True)
def _canonical_key(W, B, WF, BF, mover, other, *tables):
    """The key of (mover, other) in sector (W, B, WF, BF) (``tables``: see
    ``movegen.kernel_tables``)."""
    _, T = split_tables(tables)
    return _pack(W, B, WF, BF, canonical_index(T, W, B, mover, other))


@njit(cache=True, inline="always")
def _in_two(R, stones, empty, p):
    """Whether a mill through point ``p`` holds two of ``stones`` (``p`` among them, or
    ``p`` itself empty) and an empty gap: the mill ``stones`` threatens to close."""
    for mm in R.point_mills[p]:
        gap = mm & ~stones
        if mm != 0 and gap & empty and gap & (gap - 1) == 0:
            return True
    return False


@njit(cache=True, inline="always")
def _rank(R, mover, other, empty, threats, succ_mover, succ_other, kind, order, history):
    """A successor's place in the search order, smaller first. Always first: moves that
    close a mill (or a line of three). ``order`` adds, as bits: 1 moves that fill the
    gap of an opponent's two-stone mill (``threats``) next; 4 then moves that make a
    two-stone mill of one's own first; 16 then points by ``history`` (cut-offs they
    caused, weighted by the stones left in hand); 2 then points by neighbour count;
    8 captures taking stones of the opponent's two-stone mills first, then by their
    neighbour count."""
    placed = succ_other & ~mover
    t = trailing_zeros(placed)
    category = 0
    if kind == 0:
        category = 1 if order & 1 and placed & threats else 2
    rank = np.int64(category) << 56
    if order & 4 and not _in_two(R, succ_other, empty & ~placed, t):
        rank += np.int64(1) << 52
    if order & 16:
        rank += ((np.int64(1) << 40) - 1 - min(history[t], (np.int64(1) << 40) - 1)) << 8
    if order & 2:
        rank += (15 - min(popcount(R.adjacency[t]), 15)) << 4
    if order & 8 and kind > 0:
        r = trailing_zeros(other & ~succ_mover)
        rank += (0 if _in_two(R, other, empty, r) else 8) + 7 - min(popcount(R.adjacency[r]), 7)
    return rank


@njit(cache=True)
def _expand(R, mover, other, W, WF, BF, moves, order, history):
    """Successors of a placement position (``WF > 0``, not over), side-swapped, in the
    search's order (``_rank``, ties in generator order) into the ``_SUCC_*`` rows of
    ``moves``: mover, other and stones removed, or ``_WIN_NOW`` there when the move
    ends the game. Their keys wait for ``_child_key``: after a cut-off most are never
    needed. Returns how many were written."""
    count = gen_moves(R, mover, other, W, WF, moves[_GEN], moves[_GEN + 1], moves[_GEN + 2])
    empty = R.full & ~(mover | other)
    threats = closing_points(R, other, empty)
    rank, perm = moves[_RANK], moves[_PERM]
    for j in range(count):  # insertion sort, stable: a few dozen moves at most, mostly
        r = _rank(R, mover, other, empty, threats, moves[_GEN, j], moves[_GEN + 1, j],
                  moves[_GEN + 2, j], order, history)
        i = j
        while i > 0 and rank[i - 1] > r:
            rank[i], perm[i] = rank[i - 1], perm[i - 1]
            i -= 1
        rank[i], perm[i] = r, j
    B = popcount(other)
    for i in range(count):
        j = perm[i]
        kind = moves[_GEN + 2, j]
        moves[_SUCC_MOVER, i] = moves[_GEN, j]
        moves[_SUCC_OTHER, i] = moves[_GEN + 1, j]
        moves[_SUCC_KIND, i] = _WIN_NOW if kind == WIN_NOW or B - kind + BF < 3 else kind
    return count


@njit(cache=True, inline="always")
def _child_key(T, moves, j, W, B, WF, BF):
    """The key of successor ``j`` of ``_expand`` (not a ``_WIN_NOW`` one)."""
    kind = moves[_SUCC_KIND, j]
    index = canonical_index(T, B - kind, W + 1, moves[_SUCC_MOVER, j], moves[_SUCC_OTHER, j])
    return _pack(B - kind, W + 1, BF, WF - 1, index)


# ---------------------------------------------------------------- transposition table
# Slot = [key + 1 (0: empty), lower << 32 | upper & 0xFFFFFFFF]; linear probing from a
# Fibonacci hash scaled to any number of slots (so the table can be sized to the cap).


@njit(cache=True, inline="always")
def _tt_find(tt, key):
    """The slot holding ``key``, or the empty slot where it would go."""
    slots = tt.shape[0]
    i = _tt_home(tt, key)
    while tt[i, 0] != 0 and tt[i, 0] != key + 1:
        i += 1
        if i == slots:
            i = 0
    return i


@njit(cache=True, inline="always")
def _tt_get(tt, key):
    """``(lower, upper)`` stored for ``key``, or the open bounds."""
    i = _tt_find(tt, key)
    if tt[i, 0] == 0:
        return -_INF, _INF
    packed = tt[i, 1]
    return packed >> 32, ((packed & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


@njit(cache=True)
def _tt_grow(tt, slots):
    """The entries of ``tt`` in a table of ``slots`` slots."""
    grown = np.zeros((slots, 2), np.int64)
    for i in range(tt.shape[0]):
        if tt[i, 0] != 0:
            j = _tt_find(grown, tt[i, 0] - 1)
            grown[j, 0] = tt[i, 0]
            grown[j, 1] = tt[i, 1]
    return grown


@njit(cache=True, inline="always")
def _stones_in_hand(key):
    """Stones left in both hands of the position ``key``: its subtree's depth."""
    return (key >> 5 & 31) + (key & 31)


@njit(cache=True)
def _tt_replace(tt, key, free):
    """The slot a new ``key`` takes in a full table (``free``: the empty slot its probe
    ended at), or -1: of the first ``_REPLACE_WINDOW`` slots of its probe sequence, the
    one whose position has the fewest stones in hand, if no more than ``key``'s. Every
    slot before ``free`` is taken, so ``key`` there is found by its probe, and no slot is
    emptied, so every other key's probe still finds it."""
    slots = tt.shape[0]
    i = _tt_home(tt, key)
    best, best_depth = -1, _stones_in_hand(key) + 1
    for _ in range(_REPLACE_WINDOW):
        if i == free:
            break
        depth = _stones_in_hand(tt[i, 0] - 1)
        if depth < best_depth:
            best, best_depth = i, depth
        i += 1
        if i == slots:
            i = 0
    return best


@njit(cache=True, inline="always")
def _tt_home(tt, key):
    """The slot ``key``'s probe starts at."""
    return (((key * np.int64(-7046029254386353131)) >> 32) & 0xFFFFFFFF) * tt.shape[0] >> 32


@njit(cache=True)
def _tt_evict(tt, key, free):
    """Make room for a new ``key`` in a full table whose probe ended at the empty slot
    ``free`` with nothing to replace before it (``_tt_replace``): the position with the
    fewest stones in hand, fewer than ``key``'s, among the ``_REPLACE_WINDOW`` slots
    after ``free`` is deleted, the entries behind it moved back so that every other
    key's probe still finds it (backward-shift deletion). Returns whether one was."""
    slots = tt.shape[0]
    victim, victim_depth = -1, _stones_in_hand(key)
    i = free
    for _ in range(_REPLACE_WINDOW):
        i += 1
        if i == slots:
            i = 0
        if tt[i, 0] != 0 and _stones_in_hand(tt[i, 0] - 1) < victim_depth:
            victim, victim_depth = i, _stones_in_hand(tt[i, 0] - 1)
    if victim < 0:
        return False
    hole, j = victim, victim
    while True:
        tt[hole, 0] = 0
        tt[hole, 1] = 0
        while True:
            j += 1
            if j == slots:
                j = 0
            if tt[j, 0] == 0:
                return True
            home = _tt_home(tt, tt[j, 0] - 1)
            # the entry at j may fill the hole unless its home lies cyclically in (hole, j]
            if not (hole < home <= j if hole <= j else home > hole or home <= j):
                break
        tt[hole, 0] = tt[j, 0]
        tt[hole, 1] = tt[j, 1]
        hole = j


@njit(cache=True)
def _tt_put(tt_holder, key, lower, upper, state, max_entries):
    """Store bounds for ``key``. A new key is added while fewer than ``max_entries``
    are stored; in a full table it replaces a shallower position near its probe's start
    (``_tt_replace``) or just after it (``_tt_evict``), so the table keeps the positions
    whose subtrees cost most to search again, or it is dropped (then it is searched
    again when met). Without the second, a position whose probe began at an empty slot
    was always dropped: in Morabaraba's start search, whose table fills long before the
    shallow positions are settled (they are stored last), the start's own result too."""
    tt = tt_holder[0]
    i = _tt_find(tt, key)
    if tt[i, 0] == 0:
        if state[_ENTRIES] >= max_entries:
            j = _tt_replace(tt, key, i)
            if j < 0:
                if not _tt_evict(tt, key, i):
                    return
                j = _tt_find(tt, key)
            tt[j, 0] = key + 1
            tt[j, 1] = lower << 32 | (upper & 0xFFFFFFFF)
            return
        state[_ENTRIES] += 1
        if state[_ENTRIES] * 4 > tt.shape[0] * 3:  # keep a quarter of the slots empty
            tt = _tt_grow(tt, min(2 * tt.shape[0], max_entries * 4 // 3 + 1))
            tt_holder[0] = tt
            i = _tt_find(tt, key)
        tt[i, 0] = key + 1
    tt[i, 1] = lower << 32 | (upper & 0xFFFFFFFF)


@njit(cache=True)
def _tt_bounds(tt, min_in_hand):
    """``PlacementSearch.bounds`` unsorted, in two passes over the table, so that only
    what is kept takes memory (Morabaraba's table: 4.3 GB; a copy of a column, another
    2 GB)."""
    count = 0
    for i in range(tt.shape[0]):
        if tt[i, 0] != 0 and _stones_in_hand(tt[i, 0] - 1) >= min_in_hand:
            count += 1
    keys = np.empty(count, np.int64)
    lower = np.empty(count, np.int8)
    upper = np.empty(count, np.int8)
    n = 0
    for i in range(tt.shape[0]):
        if tt[i, 0] == 0 or _stones_in_hand(tt[i, 0] - 1) < min_in_hand:
            continue
        packed = tt[i, 1]
        low = max(packed >> 32, -1)
        up = min(((packed & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000, 1)
        if low > -1 or up < 1:  # bounds something
            keys[n], lower[n], upper[n] = tt[i, 0] - 1, low, up
            n += 1
    return keys[:n], lower[:n], upper[:n]


@njit(cache=True)
def _tt_merge(tt_holder, keys, lower, upper, state, max_entries):
    """Add bounds from elsewhere (a file's search book), each narrowing what the table
    already holds on its key."""
    for i in range(keys.shape[0]):
        held_lower, held_upper = _tt_get(tt_holder[0], keys[i])
        _tt_put(tt_holder, keys[i], max(held_lower, lower[i]), min(held_upper, upper[i]),
                state, max_entries)


# ---------------------------------------------------------------- the search kernel


_negamax_of_code = njit(inline="always")(negamax_of_code)


@njit(cache=True, inline="always")
def _leaf(codes, width, key, state, wdl):
    """The score of the moving-phase position ``key`` (its side to move) from its table:
    its packed result (``compact.pack_results``) for ``wdl``, else its code."""
    W, B = (key >> 15) & 31, (key >> 10) & 31
    sector = codes[W * width + B]
    if sector.shape[0] == 0:
        state[_MISSING] = W * width + B + 1
        return 0
    if wdl:
        result = packed_result_at(sector, key >> 20)
        if result == PACKED_PAD:
            state[_DAMAGED] = W * width + B + 1
            return 0
        return 0 if result == PACKED_DRAW else 1 if result == PACKED_WIN else -1
    code = code_at(sector, key >> 20)
    if code == PAD:
        state[_DAMAGED] = W * width + B + 1
        return 0
    return _negamax_of_code(code)


# Columns of the search's frame stack, one row per ply below the root: the node's
# parameters, its narrowed window and stored bounds, the best score so far, the window
# for its children and the next child to visit. (Numba cannot cache a recursive function,
# numba issue #6061: loading one from the cache crashes, so the recursion is a loop.)
_KEY, _MOVER, _OTHER, _WF, _BF, _ALPHA, _BETA, _LOWER, _UPPER, _BEST, _CHILD_ALPHA, \
    _CHILD_BETA, _COUNT, _NEXT = range(14)


@njit(cache=True, inline="always")
def _enter(R, T, codes, width, tt_holder, moves, frames, d, state, max_entries,
           full_board_score, wdl, order, etc_plies, history):
    """Start node ``d`` (its parameters are in ``frames[d]``). Returns ``(score, True)``
    if its score is known at once, else ``(0, False)`` with its children expanded into
    ``moves[d]`` and its frame ready to visit them."""
    f = frames[d]
    key, mover, other, WF, BF = f[_KEY], f[_MOVER], f[_OTHER], f[_WF], f[_BF]
    alpha, beta = f[_ALPHA], f[_BETA]
    top = 1 if wdl else WIN_IN_1
    if state[_STOP] != 0:
        return 0, True
    if WF == 0:  # a moving-phase leaf: from its table, kept out of the table
        return _leaf(codes, width, key, state, wdl), True
    W, B = popcount(mover), popcount(other)
    buf = moves[d]
    tt = tt_holder[0]
    lower, upper = _tt_get(tt, key)
    if lower >= beta or lower == upper:
        return lower, True
    if upper <= alpha:
        return upper, True
    if WF == 1 and BF == 0:
        # the last placement: every successor is a leaf, so score them here, in the
        # order of _rank, and keep the leaves out of the table. This ply is stored,
        # for the transposition cut-offs of the ply above: on Six Men's Morris from
        # the start 13,760 nodes and 13,471 entries instead of 17,252 and 7,402
        alpha, beta = max(alpha, lower), min(beta, upper)
        count = _expand(R, mover, other, W, WF, BF, buf, order, history[(WF - BF) & 1])
        if count == 0:
            return full_board_score, True
        best = -_INF
        for j in range(count):
            if buf[_SUCC_KIND, j] == _WIN_NOW:
                best = top
                break
            leaf = _leaf(codes, width, _child_key(T, buf, j, W, B, WF, BF), state, wdl)
            best = max(best, _neg(leaf, wdl))
            if best >= beta or best == top:
                break
        _store(tt_holder, key, best, alpha, beta, lower, upper, wdl, state, max_entries)
        return best, True
    count = _expand(R, mover, other, W, WF, BF, buf, order, history[(WF - BF) & 1])
    if count == 0:  # a full board: nowhere to place
        return full_board_score, True
    alpha, beta = max(alpha, lower), min(beta, upper)
    best = -_INF
    if WF + BF >= etc_plies:
        # enhanced transposition cut-off: a successor already known to be bad enough for
        # the opponent settles this node before any subtree is searched; one known to
        # be good enough for the opponent (its score for us at most alpha) is skipped,
        # its bound taken as its score: visiting it would only return that bound from
        # the table (same search, a node less; Six Men's Morris 19,934 -> 17,252 nodes)
        for j in range(count):
            if buf[_SUCC_KIND, j] == _WIN_NOW:
                return top, True
            child = _child_key(T, buf, j, W, B, WF, BF)
            buf[_SUCC_KEY, j] = child
            child_lower, child_upper = _tt_get(tt, child)
            if child_upper != _INF and _neg(child_upper, wdl) >= beta:
                score = _neg(child_upper, wdl)
                _tt_put(tt_holder, key, score, upper, state, max_entries)
                return score, True
            if child_lower != -_INF and _neg(child_lower, wdl) <= alpha:
                best = max(best, _neg(child_lower, wdl))
                buf[_SUCC_KIND, j] = _SKIP
    f[_ALPHA], f[_BETA], f[_LOWER], f[_UPPER] = alpha, beta, lower, upper
    f[_BEST], f[_CHILD_ALPHA], f[_CHILD_BETA] = best, _fwd(-beta, wdl), _fwd(-alpha, wdl)
    f[_COUNT], f[_NEXT] = count, 0
    return 0, False


@njit(cache=True, inline="always")
def _store(tt_holder, key, best, alpha, beta, lower, upper, wdl, state, max_entries):
    """Record a node's fail-soft result ``best`` for the window (alpha, beta) it was
    searched with, tightening the bounds (lower, upper) it had."""
    if best == (1 if wdl else WIN_IN_1) or alpha < best < beta:
        _tt_put(tt_holder, key, best, best, state, max_entries)
    elif best <= alpha:
        _tt_put(tt_holder, key, lower, best, state, max_entries)
    else:
        _tt_put(tt_holder, key, best, upper, state, max_entries)


@njit(cache=True, inline="always")
def _consider(f, score, wdl):
    """Take a child's score (for node ``f``'s side); True when it cuts the rest off."""
    if score > f[_BEST]:
        f[_BEST] = score
        if score >= f[_BETA] or score == (1 if wdl else WIN_IN_1):
            return True
        if score > f[_ALPHA]:
            f[_CHILD_BETA] = _fwd(-score, wdl)
    return False


@njit(cache=True, nogil=True)
def _negamax(R, T, codes, width, tt_holder, moves, frames, state, max_entries,
             full_board_score, wdl, order, etc_plies, history):
    """Fail-soft negamax from the root in ``frames[0]`` (key, masks, hands, window): the
    exact score if it lies inside the window, else a bound on the side it fell out of."""
    d = 0
    entering = True
    returned = False  # whether ``score`` holds the result of node d's last child
    score = 0
    while True:
        if entering:
            entering = False
            state[_NODES] += 1
            score, known = _enter(R, T, codes, width, tt_holder, moves, frames, d, state,
                                  max_entries, full_board_score, wdl, order, etc_plies, history)
            if known:
                if d == 0:
                    return score
                d -= 1
                returned = True
                continue
        f = frames[d]
        cut = _consider(f, _neg(score, wdl), wdl) if returned else False
        if cut:  # the child just searched refuted the opponent's last move
            t = trailing_zeros(moves[d, _SUCC_OTHER, f[_NEXT] - 1] & ~f[_MOVER])
            history[(f[_WF] - f[_BF]) & 1, t] += np.int64(1) << (f[_WF] + f[_BF])
        returned = False
        while not cut and f[_NEXT] < f[_COUNT]:
            j = f[_NEXT]
            f[_NEXT] += 1
            if moves[d, _SUCC_KIND, j] == _WIN_NOW:
                cut = _consider(f, 1 if wdl else WIN_IN_1, wdl)
                continue
            if moves[d, _SUCC_KIND, j] == _SKIP:
                continue
            child = frames[d + 1]
            WF, BF = f[_WF], f[_BF]
            if WF + BF >= etc_plies:  # computed by the transposition cut-off's pass
                child[_KEY] = moves[d, _SUCC_KEY, j]
            else:
                W, B = popcount(f[_MOVER]), popcount(f[_OTHER])
                child[_KEY] = _child_key(T, moves[d], j, W, B, WF, BF)
            child[_MOVER], child[_OTHER] = moves[d, _SUCC_MOVER, j], moves[d, _SUCC_OTHER, j]
            child[_WF], child[_BF] = BF, WF - 1
            child[_ALPHA], child[_BETA] = f[_CHILD_ALPHA], f[_CHILD_BETA]
            entering = True
            break
        if entering:
            d += 1
            continue
        if state[_STOP] != 0:  # stopped: its children's scores are made up, store nothing
            return 0
        best = f[_BEST]
        _store(tt_holder, f[_KEY], best, f[_ALPHA], f[_BETA], f[_LOWER], f[_UPPER], wdl, state,
               max_entries)
        score = best
        if d == 0:
            return score
        d -= 1
        returned = True


@njit(cache=True, nogil=True)
def _search(codes, width, tt_holder, moves, frames, state, max_entries, full_board_score,
            wdl, order, etc_plies, history, win_first, *tables):
    """The root's score (root parameters in ``frames[0]``): first with the window
    (-1, 1), which settles WDL and a DTM draw; then, for a DTM win or loss, with an open
    window for the distance (the first pass's bounds stay in the table). With
    ``win_first`` (WDL) two null-window tests instead: "a win?" (0, 1), and if not,
    "a loss?" (-1, 0); a win needs only the first, which never tells draws from losses
    below the moves that do not win."""
    R, T = split_tables(tables)
    root = frames[0].copy()
    if wdl and win_first:
        frames[0, _ALPHA], frames[0, _BETA] = 0, 1
        score = _negamax(R, T, codes, width, tt_holder, moves, frames, state, max_entries,
                         full_board_score, wdl, order, etc_plies, history)
        if score == 0 and state[_STOP] == 0:  # at most a draw, not known to be a loss
            frames[0] = root
            frames[0, _ALPHA], frames[0, _BETA] = -1, 0
            score = _negamax(R, T, codes, width, tt_holder, moves, frames, state,
                             max_entries, full_board_score, wdl, order, etc_plies, history)
        return score
    frames[0, _ALPHA], frames[0, _BETA] = -1, 1
    score = _negamax(R, T, codes, width, tt_holder, moves, frames, state, max_entries,
                     full_board_score, wdl, order, etc_plies, history)
    if score != 0 and not wdl and state[_STOP] == 0:
        frames[0] = root
        frames[0, _ALPHA], frames[0, _BETA] = -_INF, _INF
        score = _negamax(R, T, codes, width, tt_holder, moves, frames, state, max_entries,
                         full_board_score, wdl, order, etc_plies, history)
    return score


# ---------------------------------------------------------------- the Python side


class MovingTables(Protocol):
    """The tables a search reads its leaves from: a ``probe.Tablebase``."""

    @property
    def variant(self) -> Variant: ...

    @property
    def path(self) -> Path: ...

    def sector_codes(self, sector: Sector) -> np.ndarray: ...


def needed_moving_sectors(tb: MovingTables, position: Position) -> set[Sector]:
    """The moving-phase sectors the search from ``position`` may reach."""
    start = (
        position.mover.bit_count(),
        position.other.bit_count(),
        position.mover_hand,
        position.other_hand,
    )
    seen, todo = {start}, [start]
    while todo:
        for nxt in successors(tb.variant, todo.pop()).values():
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return {s for s in seen if is_moving(s)}


def check_tables(tb: MovingTables, position: Position, draw_rules: int | None = None) -> None:
    """Refuse before searching, naming the command that generates what is missing (the
    game's moving-phase tables, or with ``draw_rules`` their values under that limit)."""
    layer = SECTORS if draw_rules is None else rule_layer(draw_rules)
    missing = needed_moving_sectors(tb, position) - TableFile.open(tb.path).sector_set(layer)
    if not missing:
        return
    first = min(missing)
    rule = [] if draw_rules is None else ["--draw-rules", "--move-limit", str(draw_rules)]
    command = solve_command(tb.variant, tb.path, "--phase", "moving", *rule)
    what = "tables" if draw_rules is None else f"values under the {draw_rules}-ply rule"
    raise MissingSectorError(
        f"the search needs the moving-phase {what} ({len(missing)} sectors missing from "
        f"{tb.path}, e.g. {sector_name(first)}): run '{command}'",
        first,
    )


class PlacementSearch:
    """Searches of one table file's placement positions that keep what they learn: the
    moving-phase sectors loaded once (``load``), and one transposition table and
    cut-off history for every search, so that the positions of one game, searched one
    after another, reuse the earlier searches' work. A table entry holds bounds on a
    position's own score, true whatever root it was found from; one metric a session.
    Not thread-safe (one search at a time)."""

    def __init__(self, tb: MovingTables, *, metric: Metric = "wdl",
                 max_tt_entries: int = DEFAULT_TT_ENTRIES, order: int = DEFAULT_ORDER,
                 etc_plies: int = DEFAULT_ETC_PLIES, draw_rules: int | None = None,
                 win_first: bool = False):
        if metric not in ("wdl", "dtm"):
            raise ValueError(f"metric must be 'wdl' or 'dtm', not {metric!r}")
        if draw_rules is not None and metric != "wdl":
            raise ValueError("under the draw rule the search proves win, draw or loss only")
        self.tb, self.metric, self.draw_rules = tb, metric, draw_rules
        self.max_tt_entries, self.order, self.etc_plies = max_tt_entries, order, etc_plies
        self.win_first = win_first  # WDL: "a win?" then "a loss?" (``_search``)
        variant = tb.variant
        self._width = variant.stones + 1
        self._loaded: dict[tuple[int, int], np.ndarray] = {}
        self._ready: set[Sector] = set()  # sectors whose searches have what they need
        self._codes: List | None = None
        self._tables = kernel_tables(variant)
        self._tt = List([np.zeros((1, 2), np.int64)])
        self._state = np.zeros(5, np.int64)
        self._history = np.zeros((2, 32), np.int64)  # cut-offs by point, a row a side
        self.clear()
        if variant.full_board_draw:
            self._full_board_score = 0
        else:
            self._full_board_score = -1 if metric == "wdl" else -BIG

    def _leaf_sector(self, slot: int) -> Sector:
        """The moving-phase sector the kernel reported in ``slot`` of its state."""
        w, b = divmod(int(self._state[slot]) - 1, self._width)
        return (w, b, 0, 0)

    @property
    def tt_entries(self) -> int:
        """Canonical positions in the transposition table."""
        return int(self._state[_ENTRIES])

    def clear(self) -> None:
        """Forget what the searches learnt (the transposition table and the cut-off
        history), keeping the loaded sectors: memory back, or a measurement afresh."""
        self._tt[0] = np.zeros((min(_MIN_TT_SLOTS, self.max_tt_entries * 4 // 3 + 1), 2),
                               np.int64)
        self._state[:] = 0
        self._history[:] = 0

    @property
    def nodes(self) -> int:
        """Nodes of the last search, or of the one running (a stopped one's too)."""
        return int(self._state[_NODES])

    def save(self, path: Path) -> None:
        """Write what the searches learnt (the transposition table and the cut-off
        history) to ``path``, whole or not at all, for ``restore`` in a later process:
        how a search longer than a session goes on. Only between searches: a search's
        table is written while it runs."""
        settings = {"variant": self.tb.variant.name, "metric": self.metric,
                    "draw_rules": self.draw_rules}
        partial = path.with_name(path.name + ".partial")
        with open(partial, "wb") as out:
            np.savez(out, tt=self._tt[0], history=self._history,
                     entries=np.int64(self._state[_ENTRIES]),
                     settings=np.frombuffer(repr(settings).encode(), np.uint8))
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)

    def restore(self, path: Path) -> None:
        """Take up what ``save`` wrote to ``path`` from a search of the same variant,
        metric and draw rule: its bounds hold whatever the root. Raises ``MorrisError``
        (one line) for a file of other settings or one that does not read back."""
        expected = repr({"variant": self.tb.variant.name, "metric": self.metric,
                         "draw_rules": self.draw_rules})
        try:
            with np.load(path) as saved:
                settings = saved["settings"].tobytes().decode()
                if settings != expected:
                    raise MorrisError(f"{path} holds a search of {settings}, not {expected}; "
                                      "delete it to start afresh")
                tt, history = saved["tt"], saved["history"]
                entries = int(saved["entries"])
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as e:
            if isinstance(e, MorrisError):
                raise
            raise MorrisError(f"{path} is not a saved search ({e}); delete it to start "
                              "afresh") from None
        if tt.ndim != 2 or tt.shape[1] != 2 or tt.dtype != np.int64 \
                or history.shape != self._history.shape or entries > tt.shape[0]:
            raise MorrisError(f"{path} is not a saved search (its arrays do not fit); "
                              "delete it to start afresh")
        self._tt[0] = tt
        self._history[:] = history
        self._state[:] = 0
        self._state[_ENTRIES] = entries

    def bounds(self, min_in_hand: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the table bounds of the win/draw/loss of positions with at least
        ``min_in_hand`` stones in both hands: their keys (sorted; ``_pack``:
        ``canonical_index << 20 | W << 15 | B << 10 | WF << 5 | BF``) and lower and upper
        bounds on the score (loss -1, draw 0, win 1) for their side to move, those that
        bound nothing left out. A search of the start leaves its proof there: the book a
        table file keeps (``TableFile.write_search_book``)."""
        if self.metric != "wdl":
            raise ValueError("a search book holds win/draw/loss bounds: search with metric 'wdl'")
        keys, lower, upper = _tt_bounds(self._tt[0], min_in_hand)
        order = np.argsort(keys, kind="stable")
        return keys[order], lower[order], upper[order]

    def add_bounds(self, keys: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        """Take up bounds that ``bounds`` gave (a file's search book): true whatever the
        root, so a later search is answered from them as far as they reach."""
        if self.metric != "wdl":
            raise ValueError("win/draw/loss bounds fit a search with metric 'wdl' only")
        _tt_merge(self._tt, keys.astype(np.int64), lower.astype(np.int64),
                  upper.astype(np.int64), self._state, self.max_tt_entries)

    def known_value(self, position: Position) -> Value | None:
        """``position``'s win, draw or loss where the table's bounds settle it (from an
        earlier search or the file's book), else None: no search, and no tables loaded."""
        if self.metric != "wdl":
            return None
        key = _canonical_key(position.mover.bit_count(), position.other.bit_count(),
                             position.mover_hand, position.other_hand, position.mover,
                             position.other, *self._tables)
        lower, upper = _tt_get(self._tt[0], key)
        if lower >= 1:
            return Value(Result.WIN)
        if upper <= -1:
            return Value(Result.LOSS)
        return Value(Result.DRAW) if lower >= 0 and upper <= 0 else None

    def stored_upper_bound(self, position: Position) -> int:
        """The upper bound the transposition table holds on ``position``'s score for its
        side to move (``_INF`` if it holds none): how a parent orders its moves to find
        one that keeps its value (``Tablebase.best_move``)."""
        key = _canonical_key(position.mover.bit_count(), position.other.bit_count(),
                             position.mover_hand, position.other_hand, position.mover,
                             position.other, *self._tables)
        return int(_tt_get(self._tt[0], key)[1])

    def load(self, position: Position,
             progress: Callable[[int, int], None] | None = None) -> float:
        """Check that the file holds every moving-phase sector a search from ``position``
        may reach (``MissingSectorError`` names the command otherwise) and load those not
        loaded yet, calling ``progress(sectors done, sectors to load)`` after each.
        Returns the seconds it took."""
        start = time.perf_counter()
        root = (position.mover.bit_count(), position.other.bit_count(), position.mover_hand,
                position.other_hand)
        if root in self._ready:
            return 0.0
        check_tables(self.tb, position, self.draw_rules)
        todo = [s for s in sorted(needed_moving_sectors(self.tb, position))
                if s[:2] not in self._loaded]
        if not todo:
            self._ready.add(root)
            return 0.0
        table = TableFile.open(self.tb.path)
        for done, s in enumerate(todo, 1):
            if self.metric == "dtm":
                self._loaded[s[:2]] = self.tb.sector_codes(s)
            elif self.draw_rules is None:  # read past the probe's cache: packed only
                self._loaded[s[:2]] = pack_results(table.read_sector(s))
            else:  # each position's result under the rule at count 0
                rule_codes = table.read_sector(s, rule_layer(self.draw_rules))
                self._loaded[s[:2]] = pack_results(result_bytes(rule_codes))
            if progress is not None:
                progress(done, len(todo))
        # one dtype for the kernel's typed list: bytes unless a sector needs uint16
        if any(codes.dtype != np.uint8 for codes in self._loaded.values()):
            self._loaded = {wb: widen_codes(c) for wb, c in self._loaded.items()}
        dtype = next(iter(self._loaded.values())).dtype
        empty = np.empty(0, dtype)
        w = self._width
        self._codes = List([self._loaded.get((i, j), empty) for i in range(w) for j in range(w)])
        self._ready.add(root)
        return time.perf_counter() - start

    def search(self, position: Position, *,
               progress: Callable[[int, int], None] | None = None,
               progress_seconds: float = 1.0, deadline: float | None = None,
               cancel: threading.Event | None = None) -> SearchResult:
        """The value of ``position`` for the side to move (see ``search_value``);
        loading what it needs first. Past ``deadline`` (a ``time.monotonic()`` time; the
        loading is not limited) it raises ``SearchTimeout``, once ``cancel`` is set
        ``SearchCancelled``: the kernel stops within a node, never with a guessed value,
        and what the table learnt stays true (a stopped node stores nothing)."""
        tb = self.tb
        check_variant(tb.path, tb.variant, position.variant)
        start = time.perf_counter()
        wdl = self.metric == "wdl"
        end = terminal(position)
        if end is not None:
            plies = None if wdl or end.result is not Result.LOSS else 0
            return SearchResult(Value(end.result, plies), 0, time.perf_counter() - start,
                                self.tt_entries)
        load_seconds = self.load(position)
        state = self._state
        state[_NODES] = state[_STOP] = state[_DAMAGED] = state[_MISSING] = 0
        check_limits(deadline, cancel, 0)
        mover, other = position.mover, position.other
        W, B = mover.bit_count(), other.bit_count()
        WF, BF = position.mover_hand, position.other_hand
        key = _canonical_key(W, B, WF, BF, mover, other, *self._tables)
        depth = WF + BF + 2  # plies below the root, each taking one stone from a hand
        moves = np.empty((depth, _MOVE_ROWS, MAX_MOVES), np.int64)
        frames = np.zeros((depth, _NEXT + 1), np.int64)
        frames[0, : _BF + 1] = key, mover, other, WF, BF
        outcome: dict[str, int] = {}
        errors: list[BaseException] = []

        def run() -> None:
            try:
                outcome["score"] = _search(
                    self._codes, self._width, self._tt, moves, frames, state,
                    self.max_tt_entries, self._full_board_score, wdl, self.order,
                    self.etc_plies, self._history, self.win_first, *self._tables)
            except BaseException as e:  # handed to the caller's thread
                errors.append(e)

        limited = deadline is not None or cancel is not None
        worker = threading.Thread(target=run, name="morris-search", daemon=True)
        worker.start()
        try:
            next_report = time.monotonic() + progress_seconds
            while worker.is_alive():
                wait = max(next_report - time.monotonic(), 0.0)
                worker.join(min(wait, _LIMIT_POLL_SECONDS) if limited else wait)
                if not worker.is_alive():
                    break
                check_limits(deadline, cancel, int(state[_NODES]))
                if progress is not None and time.monotonic() >= next_report:
                    progress(int(state[_NODES]), int(state[_ENTRIES]))
                    next_report = time.monotonic() + progress_seconds
        except BaseException:  # past the limits, Ctrl-C, or an error raised by ``progress``
            state[_STOP] = 1
            worker.join()
            raise
        if errors:
            raise errors[0]
        if state[_DAMAGED]:
            raise damaged_sector(tb.path, self._leaf_sector(_DAMAGED))
        if state[_MISSING]:
            raise missing_sector(TableFile.open(tb.path), self._leaf_sector(_MISSING))
        nodes = int(state[_NODES])
        if progress is not None:
            progress(nodes, self.tt_entries)
        score = int(outcome["score"])
        found = Value((Result.LOSS, Result.DRAW, Result.WIN)[score + 1]) if wdl else value_of(score)
        return SearchResult(found, nodes, time.perf_counter() - start, self.tt_entries,
                            load_seconds)


def search_value(
    tb: MovingTables,
    position: Position | None = None,
    *,
    metric: Metric = "wdl",
    max_tt_entries: int = DEFAULT_TT_ENTRIES,
    progress: Callable[[int, int], None] | None = None,
    progress_seconds: float = 1.0,
    order: int = DEFAULT_ORDER,
    etc_plies: int = DEFAULT_ETC_PLIES,
    draw_rules: int | None = None,
    win_first: bool = False,
) -> SearchResult:
    """The value of ``position`` (default: the start) for the side to move, by alpha-beta
    over the placement phase with the moving-phase tables of ``tb`` at the leaves: win,
    draw or loss (``metric="wdl"``, plies None) or with the distance (``"dtm"``). Raises
    ``MissingSectorError`` up front if a moving-phase sector it may need is missing.
    One search of a new ``PlacementSearch``.

    The transposition table holds at most ``max_tt_entries`` positions (at most 21
    bytes each), which bounds memory at the price of repeated work; once full, a new
    position takes the slot of one with fewer stones in hand, or is not kept: Six Men's
    Morris's start (DTM) capped at 3/4 of the 30,056 entries it wants takes 31,654
    nodes against 30,655 (32,789 before a full table made room after an empty slot too),
    Morabaraba's (WDL, win first) at 100 million 146,634,509 against 168,575,038.
    ``progress`` is called about every ``progress_seconds`` and at the end, with the
    nodes so far and the table's size; an exception it raises stops the search. The
    kernel runs in a worker thread, so Ctrl-C stops it (``KeyboardInterrupt``) within a
    node. ``order`` (bits, see ``_rank``) and
    ``etc_plies`` (stones in both hands from which nodes look up all successors in the
    table first) tune the search; the defaults gave the fewest nodes on Nine Men's
    Morris (``benchmarks/bench_search.py``). ``win_first`` (WDL) asks "a win?" and then
    "a loss?" with null windows instead of one search with the window (-1, 1).

    With ``draw_rules`` L the value is the one under the draw rule of an L-ply move
    limit (``drawrules``; win, draw or loss only): placement plies do not count, so the
    leaves, where the last stone has been placed, are worth their results at count 0,
    read from the moving sectors' rule values; the placement phase is searched as
    without the rule."""
    session = PlacementSearch(tb, metric=metric, max_tt_entries=max_tt_entries, order=order,
                              etc_plies=etc_plies, draw_rules=draw_rules,
                              win_first=win_first)
    return session.search(Position.start(tb.variant) if position is None else position,
                          progress=progress, progress_seconds=progress_seconds)


def search_book(session: PlacementSearch, root: Position, found: SearchResult,
                plies: int) -> SearchBook:
    """What ``session``'s search of ``root`` (``found``, win/draw/loss) proved about the
    positions at most ``plies`` placements below it: the book a table file keeps
    (``TableFile.write_search_book``), so that those positions, the first plies of a
    game, are answered without loading the tables or searching. The proof of the
    root's value lies there: for the side that wins, a winning move at each of its
    turns; every reply of the other."""
    if plies < 0:
        raise ValueError(f"a book reaches 0 plies or more below its root, not {plies}")
    min_in_hand = max(root.mover_hand + root.other_hand - plies, 1)
    keys, lower, upper = session.bounds(min_in_hand)
    about = {"root": str(root), "result": found.value.result.value, "nodes": found.nodes,
             "seconds": round(found.seconds, 3), "min_in_hand": min_in_hand,
             "draw_rule": session.draw_rules or 0}
    return SearchBook(keys, lower, upper, about)


def search_start_value(
    tb: MovingTables,
    position: Position | None = None,
    *,
    max_tt_entries: int = DEFAULT_TT_ENTRIES,
    progress: Callable[[int, int], None] | None = None,
    progress_seconds: float = 1.0,
) -> SearchResult:
    """``search_value`` with the distance (``metric="dtm"``), as ``bench_nine.py``'s
    value step calls it."""
    return search_value(tb, position, metric="dtm", max_tt_entries=max_tt_entries,
                        progress=progress, progress_seconds=progress_seconds)
