"""The Numba kernels behind ``probe.Tablebase`` once its sectors are loaded whole: the
code of one position, and every successor with its score, in one call each.

They live apart from ``probe`` so that a cold probe, which reads a few chunks and
answers in plain Python, does not import Numba at all (see ``index_format``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..index.indexing import canonical_index
from ..index.movegen import MAX_MOVES, WIN_NOW, gen_moves, has_mill, split_tables  # noqa: F401
from ..rules.values import PAD, move_score
from .compact import BYTE_PAD

score = njit(inline="always")(move_score)


@njit(cache=True, inline="always")
def code_at(codes, i):
    """``codes[i]`` as a full code, for uint16 codes and for ``compact_codes`` bytes."""
    code = np.int64(codes[i])
    if codes.itemsize == 1 and code == BYTE_PAD:
        return np.int64(PAD)
    return code


@njit(cache=True, inline="always")
def packed_result_at(packed, i):
    """The result of slot ``i`` in ``compact.pack_results``'s array (``PACKED_*``)."""
    return (np.int64(packed[i >> 2]) >> ((i & 3) << 1)) & 3


@njit(cache=True)
def probe_code(codes, W, B, mover, other, *tables):
    """The stored code of (mover, other) in a sector of (W, B) stones (``tables``: see
    ``kernel_tables``)."""
    _, T = split_tables(tables)
    return code_at(codes, canonical_index(T, W, B, mover, other))


@njit(cache=True, inline="always")
def locate_successors(
    R, T, mover, other, W, B, WF, BF, out_mover, out_other, out_kind, out_index
):
    """Every successor of (mover, other) and where its code is stored: ``out_kind[j]``
    is the number of stones the move removes, or -1 when it ends the game (the opponent
    is left with fewer than 3 stones, or a line of three wins); ``out_index[j]`` is the
    successor's slot in the sector of (B - kind, W or W + 1) stones. Returns the count,
    0 exactly when the position is terminal."""
    if W + WF < 3 or (R.line_wins != 0 and has_mill(R, other)):
        return 0
    count = gen_moves(R, mover, other, W, WF, out_mover, out_other, out_kind)
    to_B = W + 1 if WF > 0 else W
    for j in range(count):
        kind = out_kind[j]
        if kind == WIN_NOW or B - kind + BF < 3:
            out_kind[j] = -1
        else:
            out_index[j] = canonical_index(T, B - kind, to_B, out_mover[j], out_other[j])
    return count


@njit(cache=True)
def scored_successors(
    mover, other, W, B, WF, BF, codes0, codes1, codes2, out_mover, out_other, out_kind,
    out_index, out_score, *tables,
):
    """Every successor of (mover, other) and its ``score``, reading the code of a move
    removing ``k`` stones from ``codes<k>`` (1, lost in 0, after a move that ends the
    game). Returns ``(count, missing, damaged)``: ``count`` is 0 exactly when the
    position is terminal; ``missing`` and ``damaged`` are bit sets of the ``k`` whose
    codes were needed but not given (empty), or hold a padding code."""
    R, T = split_tables(tables)
    count = locate_successors(
        R, T, mover, other, W, B, WF, BF, out_mover, out_other, out_kind, out_index
    )
    missing = 0
    damaged = 0
    for j in range(count):
        kind = out_kind[j]
        code = 1
        if kind >= 0:
            # no "codes = codes0 if ... else ...": the three may differ in dtype
            size = len(codes0) if kind == 0 else len(codes1) if kind == 1 else len(codes2)
            if size == 0:
                missing |= 1 << kind
                continue
            i = out_index[j]
            code = (code_at(codes0, i) if kind == 0 else
                    code_at(codes1, i) if kind == 1 else code_at(codes2, i))
            if code == PAD:
                damaged |= 1 << kind
                continue
        out_score[j] = score(code)
    return count, missing, damaged
