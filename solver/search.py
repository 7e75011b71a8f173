"""The start position's value by search (Gasser's route): alpha-beta over the placement
phase, the moving-phase tables at the leaves.

This needs only the moving-phase sectors, not the placement ones, and is an independent
check of the table route: both must give the same value *and* distance (DESIGN §4).

Scores make the value order of ``Value.sort_key`` an integer order, larger is better for
the side to move: win in p -> ``BIG - p``, draw -> 0, loss in p -> ``p - BIG``. A move's
score for the side that plays it is ``_back(child score)``: the negation, one ply further
from the end. ``_back`` is strictly decreasing on scores, so negamax with fail-soft
alpha-beta stays exact; ``_forward`` turns the parent's window into the child's.

Nodes are keyed in the transposition table by sector and ``canonical_index`` (one entry
per symmetry class) and hold ``(lower, upper)`` bounds on the score. One Numba call per
expanded node generates the successors (``movegen.gen_moves``, the solver's own move
generator), orders them for early cut-offs (mills first, then blocks of the opponent's
mills: a third fewer nodes than mills first alone on Six Men's Morris) and computes the
successors' keys; the Python side is the negamax loop and a dict.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from .bits import trailing_zeros
from .generate import default_table_path
from .indexing import canonical_index
from .movegen import MAX_MOVES, WIN_NOW, gen_moves, kernel_tables, split_tables
from .position import Position
from .probe import MissingSectorError, Tablebase
from .rules import terminal
from .sectors import Sector, is_moving, sector_key, successors
from .storage import TableFile
from .values import Result, Value

BIG = 1 << 20  # larger than any distance, so win and loss scores never reach 0
_INF = BIG + 1  # beyond every score: the root's open window
WIN_IN_1 = BIG - 1  # the best score a position not yet over can have
_WIN_NOW = -1  # key of a successor whose move ends the game: a win in 1 for its player
DEFAULT_TT_ENTRIES = 20_000_000  # about 3.4 GB of Python dict (170 bytes an entry, measured)


@dataclass(frozen=True)
class SearchResult:
    """What a search found and what it cost (the CLI reports nodes and seconds)."""

    value: Value  # for the side to move in the searched position
    nodes: int  # search calls: placement nodes, table leaves and transposition hits
    seconds: float
    tt_entries: int  # canonical positions in the transposition table at the end


def score_of(value: Value) -> int:
    """The integer that orders like ``Value.sort_key`` (larger is better)."""
    if value.result is Result.DRAW:
        return 0
    return BIG - value.plies if value.result is Result.WIN else value.plies - BIG


def value_of(score: int) -> Value:
    """The ``Value`` that ``score_of`` maps to ``score``."""
    if score == 0:
        return Value(Result.DRAW)
    return Value(Result.WIN, BIG - score) if score > 0 else Value(Result.LOSS, score + BIG)


def _back(score: int) -> int:
    """The score for the mover of a move whose successor scores ``score`` for the
    opponent: ``score_of(value_of(score).after_move())``."""
    return 1 - score if score > 0 else -1 - score if score < 0 else 0


def _forward(bound: int) -> int:
    """The child's bound matching a negated parent bound: for every score ``s``,
    ``s <= _forward(bound)`` exactly when ``-_back(s) <= bound``, and likewise with ``>=``
    (tested over all bounds near 0 and near the ends)."""
    return bound + 1 if bound > 0 else bound - 1 if bound < 0 else 0


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


@njit(cache=True)
def _expand(
    mover, other, W, B, WF, BF, buf_mover, buf_other, buf_kind, out_mover, out_other, out_key,
    *tables,
):
    """Successors of a placement position (``WF > 0``, not over), side-swapped, in the
    search's order: moves that close a mill (or a line of three), then moves that block
    the opponent's two-stone mill, then the rest. ``out_key`` holds each successor's
    key, or ``_WIN_NOW`` when the move ends the game. Returns how many were written."""
    R, T = split_tables(tables)
    count = gen_moves(R, mover, other, W, WF, buf_mover, buf_other, buf_kind)
    rank = np.empty(count, np.int8)
    for j in range(count):
        rank[j] = 0 if buf_kind[j] != 0 else 1 if _blocks(R, other, buf_other[j] & ~mover) else 2
    written = 0
    for r in range(3):
        for j in range(count):
            if rank[j] != r:
                continue
            kind = buf_kind[j]
            out_mover[written] = buf_mover[j]
            out_other[written] = buf_other[j]
            if kind == WIN_NOW or B - kind + BF < 3:
                out_key[written] = _WIN_NOW
            else:
                index = canonical_index(T, B - kind, W + 1, buf_mover[j], buf_other[j])
                out_key[written] = _pack(B - kind, W + 1, BF, WF - 1, index)
            written += 1
    return written


@njit(cache=True, inline="always")
def _blocks(R, other, placed):
    """Whether the stone ``placed`` (a one-bit mask) fills the gap of a mill that
    ``other`` has two stones of."""
    t = trailing_zeros(placed)
    for j in range(R.point_mills.shape[1]):
        mm = R.point_mills[t, j]
        if mm != 0 and (other & mm) == (mm & ~placed):
            return True
    return False


def needed_moving_sectors(tb: Tablebase, position: Position) -> set[Sector]:
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


def check_tables(tb: Tablebase, position: Position) -> None:
    """Refuse before searching, naming the command that generates what is missing."""
    missing = needed_moving_sectors(tb, position) - set(TableFile.open(tb.path).sectors())
    if not missing:
        return
    first = min(missing)
    command = f"morris solve {tb.variant.name} --phase moving"
    if tb.path.resolve() != default_table_path(tb.variant).resolve():
        command += f" --out {tb.path}"
    raise MissingSectorError(
        f"the search needs the moving-phase tables ({len(missing)} sectors missing from "
        f"{tb.path}, e.g. {sector_key(first)}): run '{command}'",
        first,
    )


def search_start_value(
    tb: Tablebase,
    position: Position | None = None,
    *,
    max_tt_entries: int = DEFAULT_TT_ENTRIES,
    progress: Callable[[int, int], None] | None = None,
    progress_every: int = 1 << 16,
) -> SearchResult:
    """The value of ``position`` (default: the start) for the side to move, by alpha-beta
    over the placement phase with the moving-phase tables of ``tb`` at the leaves. Raises
    ``MissingSectorError`` up front if a moving-phase sector it may need is missing.

    The transposition table stops taking new positions at ``max_tt_entries`` (about
    170 bytes each), which bounds memory at the price of repeated work: on Six Men's
    Morris a cap at 3/4 of the 26,390 entries the search wants costs 12 times the nodes.
    ``progress`` is called every ``progress_every`` nodes with the nodes so far and the
    table size."""
    variant = tb.variant
    if position is None:
        position = Position.start(variant)
    tb._check_variant(position)
    check_tables(tb, position)
    tables = kernel_tables(variant)
    bufs = tuple(np.empty(MAX_MOVES, np.int64) for _ in range(6))
    full_board_score = 0 if variant.full_board_draw else -BIG
    tt: dict[int, tuple[int, int]] = {}
    nodes = 0

    def leaf(mover: int, other: int) -> int:
        # the tables are side-normalized: only which side is to move matters
        return score_of(tb.probe(Position(variant, mover, other, 0, 0, True)))

    def last_placement(mover: int, other: int) -> int:
        # every move leads into the moving phase: score them all in one call
        return score_of(tb.value_from_successors(Position(variant, mover, other, 1, 0, True)))

    def node(key: int, mover: int, other: int, WF: int, BF: int, alpha: int, beta: int) -> int:
        """Fail-soft negamax: the exact score if it lies inside (alpha, beta), else a
        bound on the side of the window it fell out of."""
        nonlocal nodes
        nodes += 1
        if progress is not None and nodes % progress_every == 0:
            progress(nodes, len(tt))
        # a moving-phase leaf, or the ply before one: answered from the tables in one
        # call and kept out of the transposition table, which this halves (Six Men's
        # Morris from the start: 26,390 entries instead of 51,705, 15 % more time)
        if WF == 0:
            return leaf(mover, other)
        if WF == 1 and BF == 0:
            return last_placement(mover, other)
        lower, upper = tt.get(key, (-_INF, _INF))
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        W, B = mover.bit_count(), other.bit_count()
        count = _expand(mover, other, W, B, WF, BF, *bufs, *tables)
        if count == 0:  # a full board: nowhere to place
            return full_board_score
        alpha, beta = max(alpha, lower), min(beta, upper)
        keys = bufs[5][:count].tolist()
        movers = bufs[3][:count].tolist()
        others = bufs[4][:count].tolist()
        best = -_INF
        child_alpha, child_beta = _forward(-beta), _forward(-alpha)
        for child, child_mover, child_other in zip(keys, movers, others, strict=True):
            if child == _WIN_NOW:
                score = WIN_IN_1
            else:
                score = _back(
                    node(child, child_mover, child_other, BF, WF - 1, child_alpha, child_beta)
                )
            if score > best:
                best = score
                if best >= beta or best == WIN_IN_1:
                    break
                if best > alpha:
                    child_beta = _forward(-best)
        if len(tt) < max_tt_entries or key in tt:
            if best == WIN_IN_1 or alpha < best < beta:
                tt[key] = (best, best)
            elif best <= alpha:
                tt[key] = (lower, best)
            else:
                tt[key] = (best, upper)
        return best

    start = time.perf_counter()
    end = terminal(position)
    if end is not None:
        score = score_of(Value(end.result, 0 if end.result is Result.LOSS else None))
    else:
        mover, other = position.mover, position.other
        W, B = mover.bit_count(), other.bit_count()
        WF, BF = position.mover_hand, position.other_hand
        key = _canonical_key(W, B, WF, BF, mover, other, *tables)
        # First ask only "draw, or better or worse?" with the window (-1, 1): no score lies
        # strictly between a draw and the longest win or loss, so this is a null window
        # around 0 and cuts far more than an open one. A draw comes out exact; otherwise
        # the open-window search for the distance reuses the bounds already stored.
        score = node(key, mover, other, WF, BF, -1, 1)
        if score != 0:
            score = node(key, mover, other, WF, BF, -_INF, _INF)
    seconds = time.perf_counter() - start
    return SearchResult(value_of(score), nodes, seconds, len(tt))
