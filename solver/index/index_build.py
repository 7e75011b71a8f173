"""The one Numba kernel of building the index tables (``index_format.build_index_tables``):
classifying every stone set by its symmetries, most of a second for Nine Men's Morris.
Its own module so that ``index_format`` imports Numba only when the tables are not on
disk yet."""

from __future__ import annotations

import numpy as np
from numba import njit

from .indexing import colex_rank


@njit(cache=True)
def classify_sets(n, W, binom, sym_bytes, nsyms, rank_class, rank_sym, class_base, out_masks):
    """Assign every W-subset of n points its canonical class and symmetry.

    Sets are visited in numeric order (= colex order), so a set's canonical form, the
    numerically smallest image, is always classified before the set itself."""
    count = binom[n, W]
    mask = (np.int64(1) << W) - 1
    classes = 0
    for rank in range(count):
        best = mask
        best_g = 0
        for g in range(1, nsyms):
            image = 0
            m = mask
            k = 0
            while m:
                image |= sym_bytes[g, k, m & 255]
                m >>= 8
                k += 1
            if image < best:
                best = image
                best_g = g
        if best == mask:
            rank_class[rank] = class_base + classes
            out_masks[classes] = mask
            classes += 1
        else:
            rank_class[rank] = rank_class[colex_rank(binom, best)]
        rank_sym[rank] = best_g
        if W == 0:
            break
        low = mask & -mask  # Gosper's hack: next larger set of the same size
        ripple = mask + low
        mask = (((ripple ^ mask) >> 2) // low) | ripple
    return classes
