"""Symmetry-reduced perfect indexing of positions inside a sector (docs/format.md).

A sector fixes the number of stones on the board of the side to move (``W``, the
*mover*) and of the other side (``B``). Within it::

    index = class(canonical mover set) * C(N - W, B) + rank(other set among free points)

The symmetry that takes the mover's set to its canonical form (the smallest mask of its
orbit) is applied to the other's set; when the canonical mover set has a non-trivial
stabilizer, the smallest resulting rank is taken. Slots whose other-set rank is not that
minimum hold no canonical position: they are *padding* and are marked in the tables.

Everything is table lookups: mover-set rank -> (class, symmetry), byte-wise symmetry
tables, colex ranks via binomials, and per class the position of each free point. The
tables and a plain-Python reading of the same index live in ``index_format``; these are the
Numba kernels that the solver, the verifier and warm probes run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.bits import HAS_PEXT, pext, popcount, prefetch_read, trailing_zeros


@njit(cache=True, inline="always")
def permute(T, g, mask):
    """Image of a stone mask under symmetry ``g``."""
    image = 0
    k = 0
    while mask:
        image |= T.sym_bytes[g, k, mask & 255]
        mask >>= 8
        k += 1
    return image


@njit(cache=True, inline="always")
def colex_rank(binom, mask):
    """Rank of a set among all sets of the same size, in colex (= numeric) order."""
    r = 0
    i = 1
    while mask:
        r += binom[trailing_zeros(mask), i]
        i += 1
        mask &= mask - 1
    return r


@njit(cache=True, inline="always")
def bytewise_colex_rank(T, mask):
    """``colex_rank(T.binom, mask)`` a byte at a time: one lookup in ``T.colex_bytes``
    per byte of the mask, given how many points the bytes below hold (three lookups on a
    24-point board instead of a step per point)."""
    r = 0
    below = 0
    for k in range(T.colex_bytes.shape[0]):
        byte = (mask >> (8 * k)) & 255
        r += T.colex_bytes[k, byte, below]
        below += popcount(byte)
    return r


@njit(cache=True, inline="always")
def free_places_by_loop(T, c, other):
    """``other`` as a mask of places among the points that class ``c`` leaves free (the
    set whose colex rank is the slot's rank in the class)."""
    places = 0
    while other:
        places |= np.int64(1) << T.class_freepos[c, trailing_zeros(other)]
        other &= other - 1
    return places


@njit(cache=True, inline="always")
def free_places_by_pext(T, c, other):
    """``free_places_by_loop`` in one instruction: ``pext`` gathers the bits of
    ``other`` at the free points, in order."""
    return pext(other, T.class_free[c])


@njit(cache=True, inline="always")
def free_rank_by_loop(T, c, other):
    """Colex rank of ``other`` among the points left free by class ``c``'s mover set."""
    r = 0
    i = 1
    while other:
        r += T.binom[T.class_freepos[c, trailing_zeros(other)], i]
        i += 1
        other &= other - 1
    return r


@njit(cache=True, inline="always")
def free_rank_by_pext(T, c, other):
    """``free_rank_by_loop`` as ``pext`` and a byte-wise rank: about half the time for 8
    or 9 stones (``bench_index.py``)."""
    return bytewise_colex_rank(T, pext(other, T.class_free[c]))


# The kernels use ``pext`` where the CPU has a fast one (``bits.HAS_PEXT``: Intel since
# 2013, AMD since Zen 3); tests hold both versions equal
if HAS_PEXT:
    free_places, free_rank = free_places_by_pext, free_rank_by_pext
else:
    free_places, free_rank = free_places_by_loop, free_rank_by_loop


@njit(cache=True, inline="always")
def mover_class(T, W, mover):
    """Global class id of a W-stone mover set and the symmetry that canonicalizes it."""
    key = T.rank_off[W] + bytewise_colex_rank(T, mover)
    return T.rank_class[key], T.rank_sym[key]


@njit(cache=True, inline="always")
def index_in_class(T, W, B, c, g, other):
    """Index of the position whose mover set has class ``c`` (canonicalized by ``g``).
    Split from ``canonical_index`` so that positions sharing a mover set (all quiet
    successors of a position) compute the mover's part once."""
    o = permute(T, g, other)
    best = free_rank(T, c, o)
    stab = T.class_stab[c]
    while stab:
        r = free_rank(T, c, permute(T, trailing_zeros(stab), o))
        if r < best:
            best = r
        stab &= stab - 1
    return (c - T.class_off[W]) * T.binom[T.n - W, B] + best


@njit(cache=True, inline="always")
def index_batch(T, W, B, movers, others, n, out, classes, syms):
    """``out[j] = canonical_index(T, W, B, movers[j], others[j])`` for ``j < n``, in
    three passes over the batch, each prefetching what the next one reads: the mover
    sets' class and symmetry, then their classes' rows. One index of a random 8-8
    position waits on two dependent cache misses into tables of megabytes; over a batch
    the misses of different positions overlap (``bench_index.py``). ``classes`` and
    ``syms``: scratch of at least ``n``."""
    freepos = T.class_freepos.ravel()
    for j in range(n):
        key = T.rank_off[W] + bytewise_colex_rank(T, movers[j])
        classes[j] = key
        prefetch_read(T.rank_class, key)
        prefetch_read(T.rank_sym, key)
    for j in range(n):
        key = classes[j]
        c = T.rank_class[key]
        classes[j] = c
        syms[j] = T.rank_sym[key]
        if HAS_PEXT:
            prefetch_read(T.class_free, c)
        else:
            prefetch_read(freepos, c * T.n)  # a row may straddle two cache lines
            prefetch_read(freepos, c * T.n + T.n - 1)
        prefetch_read(T.class_stab, c)
    for j in range(n):
        out[j] = index_in_class(T, W, B, classes[j], syms[j], others[j])


@njit(cache=True, inline="always")
def insertion_base(T, c, g, stones, base):
    """Prepare ``insertion_index`` for the sets ``stones`` plus one point, as the other
    side of a mover set of class ``c`` (canonicalized by ``g``): the quiet placements of
    a position. Writes ``base[k]``, the colex rank of the permuted ``stones`` among the
    free points when the added point comes after the first ``k`` of them (those stay
    put, the later ones move up one place), and returns the permuted ``stones``.
    Meaningless for a class with symmetries (``insertion_index`` does not read it)."""
    image = permute(T, g, stones)
    if T.class_stab[c]:
        return image
    below = 0  # sum of C(q_i, i) over the first k free positions q_1 < q_2 < ...
    above = 0  # sum of C(q_i, i + 1) over the same ones
    k = 0
    rest = image
    while rest:
        q = T.class_freepos[c, trailing_zeros(rest)]
        rest &= rest - 1
        base[k] = below - above
        k += 1
        below += T.binom[q, k]
        above += T.binom[q, k + 1]
    base[k] = below - above
    for i in range(k + 1):
        base[i] += above
    return image


@njit(cache=True, inline="always")
def insertion_index(T, W, B, c, g, image, base, point, other):
    """``index_in_class(T, W, B, c, g, other)`` for ``other`` = the ``stones`` given to
    ``insertion_base`` (``image``: their permutation) plus the one point ``point``: a
    table lookup per placement instead of a rank over all of its stones (that loop was
    the largest share of a placement sector's index arithmetic)."""
    if T.class_stab[c]:
        return index_in_class(T, W, B, c, g, other)
    moved = T.sym_bytes[g, point >> 3, np.int64(1) << (point & 7)]
    k = popcount(image & (moved - 1))
    rank = base[k] + T.binom[T.class_freepos[c, trailing_zeros(moved)], k + 1]
    return (c - T.class_off[W]) * T.binom[T.n - W, B] + rank


@njit(cache=True, inline="always")
def canonical_index(T, W, B, mover, other):
    """Index of the canonical form of (mover, other) in sector (W, B)."""
    c, g = mover_class(T, W, mover)
    return index_in_class(T, W, B, c, g, other)


@njit(cache=True, inline="always")
def unrank(T, W, B, idx):
    """The (mover, other) masks stored at slot ``idx`` of sector (W, B)."""
    per_class = T.binom[T.n - W, B]
    cl = idx // per_class
    r = idx - cl * per_class
    c = T.class_off[W] + cl
    free = T.n - W
    other = 0
    for i in range(B, 0, -1):
        # the i-th free point is the largest x with C(x, i) <= r, and lies in
        # [i - 1, free - B + i - 1]: counting the fitting x with a fixed number of
        # comparisons replaces a search loop whose exit the CPU mispredicts (random 6-6
        # slots, bench_index.py: 136 and 105 ns before, 85 and 95 ns after)
        row = T.binom_t[i]
        x = i - 1
        for j in range(i, free - B + i):
            x += row[j] <= r
        r -= row[x]
        other |= np.int64(1) << T.class_freepts[c, x]
    return T.class_mask[c], other


@njit(cache=True, inline="always")
def next_in_class(T, c, places):
    """The other set of the next slot of the same class, for a pass over consecutive
    slots: the next set of places in colex order (Gosper's hack), as ``(places,
    other)``. The caller must know that the slot after is in class ``c`` (and that
    ``places`` is not empty); ``unrank`` is the general way."""
    low = places & -places
    ripple = places + low
    places = (((ripple ^ places) >> 2) // low) | ripple
    other = 0
    rest = places
    while rest:
        other |= np.int64(1) << T.class_freepts[c, trailing_zeros(rest)]
        rest &= rest - 1
    return places, other


@njit(cache=True)
def canonical_indices(T, W, B, movers, others):
    """``canonical_index`` over arrays of positions (one call from Python for many)."""
    out = np.empty(len(movers), dtype=np.int64)
    for i in range(len(movers)):
        out[i] = canonical_index(T, W, B, movers[i], others[i])
    return out
