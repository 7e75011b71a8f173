"""The symmetry-reduced index: round trips, padding, canonical counts checked against
Burnside's lemma (an independent count of symmetry orbits), and slots checked against an
independent reading of the table format."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest
from numba import njit, prange

from morris_solver.core.bits import HAS_PEXT
from morris_solver.index.index_format import (
    IndexTables,
    build_index_tables,
    index_tables,
    sector_slots,
)
from morris_solver.index.indexing import (
    bytewise_colex_rank,
    canonical_index,
    colex_rank,
    free_places,
    free_places_by_loop,
    free_places_by_pext,
    free_rank_by_loop,
    free_rank_by_pext,
    index_batch,
    index_in_class,
    insertion_base,
    insertion_index,
    mover_class,
    next_in_class,
    unrank,
)
from morris_solver.rules.board import BOARDS
from morris_solver.rules.variants import get_variant


@njit(parallel=True)
def _round_trip_failures(T, W, B, n):
    """Slots whose position does not come back to the slot, excluding padding, and the
    number of canonical slots (those that do)."""
    failures = 0
    canonical = 0
    for i in prange(n):
        mover, other = unrank(T, W, B, i)
        if (mover & other) != 0:
            failures += 1
            continue
        j = canonical_index(T, W, B, mover, other)
        if j == i:
            canonical += 1
        else:
            # padding: its canonical form lives elsewhere and must map to itself
            m2, o2 = unrank(T, W, B, j)
            if canonical_index(T, W, B, m2, o2) != j:
                failures += 1
    return failures, canonical


def _cycle_lengths(perm):
    seen, lengths = set(), []
    for start in range(len(perm)):
        if start in seen:
            continue
        length, p = 0, start
        while p not in seen:
            seen.add(p)
            p = int(perm[p])
            length += 1
        lengths.append(length)
    return lengths


def burnside_orbits(board, W, B):
    """Orbits of (mover set, other set) pairs under the board's symmetry group: the
    average over symmetries of the pairs each one fixes. A fixed pair is a choice of
    whole cycles, some for the mover (W points) and some for the other side (B)."""
    total = 0
    for perm in board.symmetries:
        ways = {(0, 0): 1}
        for length in _cycle_lengths(perm):
            nxt = {}
            for (w, b), count in ways.items():
                for dw, db in ((0, 0), (length, 0), (0, length)):
                    key = (w + dw, b + db)
                    if key[0] <= W and key[1] <= B:
                        nxt[key] = nxt.get(key, 0) + count
            ways = nxt
        total += ways.get((W, B), 0)
    assert total % len(board.symmetries) == 0
    return total // len(board.symmetries)


def test_burnside_gives_the_published_three_three_count(published_nine_33):
    assert burnside_orbits(BOARDS["nine"], 3, 3) == published_nine_33["positions"]


@pytest.mark.parametrize(
    "board_name,W,B",
    [("nine", 3, 3), ("nine", 4, 3), ("nine", 5, 4), ("six", 4, 6), ("three", 3, 3),
     ("nine", 0, 2), ("nine-diagonal", 4, 4)],
)
def test_every_slot_round_trips_and_canonical_count_matches_burnside(board_name, W, B):
    board = BOARDS[board_name]
    T = index_tables(board, {24: 12, 16: 6, 9: 3}[board.n])
    n = sector_slots(T, W, B)
    failures, canonical = _round_trip_failures(T, W, B, n)
    assert failures == 0
    assert canonical == burnside_orbits(board, W, B)


@njit
def _canonical_in_class(T, W, B, base, per_class):
    """Canonical slots among ``per_class`` slots from ``base``."""
    found = 0
    for r in range(per_class):
        mover, other = unrank(T, W, B, base + r)
        if canonical_index(T, W, B, mover, other) == base + r:
            found += 1
    return found


@njit(parallel=True)
def _canonical_in_stabilized_classes(T, W, B):
    """Canonical slots of the classes whose mover set has a non-trivial stabilizer (the
    only classes with padding), and how many classes have a trivial one. (The inner
    loop is a function of its own: inlined into the prange loop, Numba on Python 3.12
    and 3.13 fails with "unexpected cycle in lookup()", numba/numba#10132.)"""
    per_class = T.binom[T.n - W, B]
    first = T.class_off[W]
    canonical = 0
    trivial = 0
    for c in prange(first, T.class_off[W + 1]):
        if T.class_stab[c] == 0:
            trivial += 1
        else:
            canonical += _canonical_in_class(T, W, B, (c - first) * per_class, per_class)
    return canonical, trivial


def test_canonical_counts_of_nine_mens_moving_sectors_match_burnside():
    """The moving sectors with up to 12 stones on the board (3-3 .. 9-3, 16 s): slots of
    classes without symmetry are all canonical, the others are enumerated, and the sum
    must be the orbit count. (The larger ones take 65 s more; ``morris verify`` checks
    every slot's padding of the real tables.) The orbits of all 49 sectors add up to the
    8,904,593,601 positions of the moving phase."""
    board = BOARDS["nine"]
    T = index_tables(board, 9)
    total = 0
    for W in range(3, 10):
        for B in range(3, 10):
            orbits = burnside_orbits(board, W, B)
            total += orbits
            if W + B <= 12:
                canonical, trivial = _canonical_in_stabilized_classes(T, W, B)
                assert canonical + trivial * comb(24 - W, B) == orbits, (W, B)
    assert total == 8_904_593_601


def test_symmetric_positions_share_a_slot():
    board = BOARDS["nine"]
    T = index_tables(board, 9)
    rng = np.random.default_rng(7)
    for _ in range(200):
        points = rng.permutation(24)
        mover = sum(1 << int(p) for p in points[:5])
        other = sum(1 << int(p) for p in points[5:11])
        idx = canonical_index(T, 5, 6, mover, other)
        for perm in board.symmetries:
            m = sum(1 << int(perm[p]) for p in range(24) if (mover >> p) & 1)
            o = sum(1 << int(perm[p]) for p in range(24) if (other >> p) & 1)
            assert canonical_index(T, 5, 6, m, o) == idx


def _canonical_masks(board, W):
    """The canonical W-stone sets in numeric order (their class ids), with numpy: every
    set's images under the symmetries, kept where the set is the smallest of them."""
    points = np.array(list(combinations(range(board.n), W)), dtype=np.int64).reshape(-1, W)
    masks = (np.int64(1) << points).sum(axis=1)
    smallest = masks.copy()
    for perm in board.symmetries:
        images = (np.int64(1) << np.asarray(perm, dtype=np.int64)[points]).sum(axis=1)
        smallest = np.minimum(smallest, images)
    return np.sort(masks[smallest == masks])


def _reference_index(board, canonical_masks, W, B, mover, other):
    """The slot of (mover, other) as the table format defines it (docs/format.md), in plain
    Python: class of the smallest mover image, times C(n - W, B), plus the smallest colex
    rank among the free points of the other set's images under the symmetries giving it."""

    def image(perm, mask):
        return sum(1 << int(perm[p]) for p in range(board.n) if (mask >> p) & 1)

    canon = min(image(perm, mover) for perm in board.symmetries)
    free = [p for p in range(board.n) if not (canon >> p) & 1]
    ranks = []
    for perm in board.symmetries:
        if image(perm, mover) == canon:
            o = image(perm, other)
            ranks.append(sum(comb(free.index(p), i + 1)
                             for i, p in enumerate(q for q in free if (o >> q) & 1)))
    cls = int(np.searchsorted(canonical_masks, canon))
    assert canonical_masks[cls] == canon
    return cls * comb(board.n - W, B) + min(ranks)


@pytest.mark.parametrize("board_name,W,B", [("nine", 9, 8), ("nine", 8, 9), ("nine", 3, 9),
                                            ("six", 5, 4), ("three", 3, 2)])
def test_index_follows_the_table_format(board_name, W, B):
    """Tables written by earlier versions stay readable only if every position keeps its
    slot: check the kernel against an independent reading of the format."""
    board = BOARDS[board_name]
    T = index_tables(board, {24: 9, 16: 6, 9: 3}[board.n])
    masks = _canonical_masks(board, W)
    rng = np.random.default_rng(W * 10 + B)
    for _ in range(300):
        points = rng.permutation(board.n)
        mover = sum(1 << int(p) for p in points[:W])
        other = sum(1 << int(p) for p in points[W : W + B])
        expected = _reference_index(board, masks, W, B, mover, other)
        assert canonical_index(T, W, B, mover, other) == expected


@njit
def _batch_mismatches(T, W, B, movers, others, batch):
    """Over batches of ``batch`` positions, how many ``index_batch`` indexes differently
    from ``canonical_index``."""
    out = np.empty(batch, np.int64)
    classes = np.empty(batch, np.int64)
    syms = np.empty(batch, np.int64)
    bad = 0
    for s in range(0, len(movers), batch):
        n = min(batch, len(movers) - s)
        index_batch(T, W, B, movers[s:], others[s:], n, out, classes, syms)
        for j in range(n):
            bad += out[j] != canonical_index(T, W, B, movers[s + j], others[s + j])
    return bad


@pytest.mark.parametrize("board_name,W,B", [("nine", 9, 8), ("nine", 3, 3), ("nine", 0, 4),
                                            ("nine-diagonal", 6, 7), ("three", 2, 2)])
def test_batched_index_equals_the_plain_one(board_name, W, B):
    """The level passes index a position's predecessors in a batch (``index_batch``,
    staged for the cache): on random positions, symmetric ones included (common with few
    stones), each index must equal the plain one, with batches of one and of many."""
    board = BOARDS[board_name]
    T = index_tables(board, get_variant(board_name).stones)
    rng = np.random.default_rng(W * 17 + B)
    points = [rng.permutation(board.n) for _ in range(3000)]
    movers = np.array([sum(1 << int(p) for p in q[:W]) for q in points], np.int64)
    others = np.array([sum(1 << int(p) for p in q[W : W + B]) for q in points], np.int64)
    for batch in (1, 7, 64):
        assert _batch_mismatches(T, W, B, movers, others, batch) == 0


@njit
def _insertion_mismatches(T, n, W, B, movers, others):
    """Over each position (the mover to place a stone; ``movers`` has W stones, ``others``
    B), every placement whose index the insertion shortcut gets differently from
    ``index_in_class``; and how many placements it checked in classes without symmetry."""
    base = np.empty(n + 1, np.int64)
    bad = 0
    fast = 0
    for i in range(len(movers)):
        mover, other = movers[i], others[i]
        c, g = mover_class(T, B, other)
        image = insertion_base(T, c, g, mover, base)
        empty = ((np.int64(1) << n) - 1) & ~(mover | other)
        while empty:
            t = np.int64(0)
            while not (empty >> t) & 1:
                t += 1
            empty &= empty - 1
            placed = mover | (np.int64(1) << t)
            got = insertion_index(T, B, W + 1, c, g, image, base, t, placed)
            if got != index_in_class(T, B, W + 1, c, g, placed):
                bad += 1
            fast += T.class_stab[c] == 0
    return bad, fast


@pytest.mark.parametrize("board_name,W,B", [("nine", 0, 3), ("nine", 1, 2), ("nine", 4, 4),
                                            ("nine", 8, 8), ("nine", 8, 3), ("nine-diagonal", 6, 7),
                                            ("six", 3, 5), ("three", 2, 2)])
def test_placement_shortcut_gives_the_index_of_every_placement(board_name, W, B):
    """The init pass indexes a position's quiet placements from one rank of its stones
    (``insertion_base``) instead of a rank each: on random positions (and symmetric
    ones: all stones of one kind on a line of symmetry are common with few stones) every
    placement's index must equal the plain one."""
    board = BOARDS[board_name]
    T = index_tables(board, get_variant(board_name).stones)
    rng = np.random.default_rng(W * 31 + B)
    movers, others = [], []
    for _ in range(2000):
        points = rng.permutation(board.n)
        movers.append(sum(1 << int(p) for p in points[:W]))
        others.append(sum(1 << int(p) for p in points[W : W + B]))
    bad, fast = _insertion_mismatches(T, board.n, W, B, np.array(movers, np.int64),
                                      np.array(others, np.int64))
    assert bad == 0
    assert fast > 0  # the shortcut itself, not only its fallback, was checked


@njit
def _stepping_mismatches(T, W, B, lo, hi):
    """Slots in [lo, hi) whose other set, stepped to from the slot before within its
    class, differs from ``unrank``'s; and how many were stepped to."""
    per_class = T.binom[T.n - W, B]
    bad = 0
    stepped = 0
    places = 0
    for i in range(lo, hi):
        mover, other = unrank(T, W, B, i)
        c = T.class_off[W] + i // per_class
        if i == lo or i % per_class == 0:
            places = free_places(T, c, other)
            continue
        places, got = next_in_class(T, c, places)
        bad += got != other
        stepped += 1
    return bad, stepped


@pytest.mark.parametrize("board_name,W,B", [("nine", 9, 8), ("nine", 3, 3), ("nine", 1, 22),
                                            ("nine", 6, 1), ("nine-diagonal", 7, 7),
                                            ("six", 4, 5), ("three", 2, 1)])
def test_stepping_through_a_class_gives_every_slot(board_name, W, B):
    """The init pass walks consecutive slots by stepping the other set to the next one
    of its class instead of unranking each slot: over runs of slots (class boundaries
    included) every step must give ``unrank``'s set."""
    board = BOARDS[board_name]
    T = index_tables(board, get_variant(board_name).stones)
    slots = sector_slots(T, W, B)
    per_class = int(T.binom[board.n - W, B])
    starts = {0, max(0, slots - 50_000)} | {min(k * per_class - 7, slots - 1)
                                             for k in (1, 2, 5) if k * per_class < slots}
    stepped = 0
    for lo in starts:
        bad, n = _stepping_mismatches(T, W, B, lo, min(lo + 50_000, slots))
        assert bad == 0, lo
        stepped += n
    assert stepped > 0


@njit
def _colex_mismatches(T, masks):
    """How many sets' byte-wise colex rank differs from the one by binomials."""
    bad = 0
    for mask in masks:
        bad += bytewise_colex_rank(T, mask) != colex_rank(T.binom, mask)
    return bad


@njit
def _pext_mismatches(T, classes, others):
    """How often ``pext`` and the byte tables rank or place an other set differently
    from the loops the kernels use without a fast ``pext`` (compiled only where the
    kernels use it: ``bits.HAS_PEXT``)."""
    bad = 0
    for i in range(len(classes)):
        c, other = classes[i], others[i]
        bad += free_rank_by_pext(T, c, other) != free_rank_by_loop(T, c, other)
        bad += free_places_by_pext(T, c, other) != free_places_by_loop(T, c, other)
    return bad


@pytest.mark.parametrize("board_name", ["nine", "nine-diagonal", "six", "three"])
def test_both_ways_of_ranking_agree(board_name):
    """``free_rank`` and ``free_places`` take ``pext`` and byte tables where the CPU has
    a fast ``pext`` and loops elsewhere, and a mover set's rank always the byte tables: on random
    sets of every size beside random classes of every size, each pair must agree (the
    other set is any set of the class's free points, the empty one included)."""
    variant = get_variant(board_name)
    T = index_tables(variant.board, variant.stones)
    n = variant.board.n
    rng = np.random.default_rng(len(board_name))
    classes = rng.integers(0, len(T.class_mask), 200_000)
    keep = rng.random((len(classes), n)) < rng.random((len(classes), 1))
    sets = ((np.int64(1) << np.arange(n, dtype=np.int64)) * keep).sum(axis=1)
    assert _colex_mismatches(T, sets) == 0
    if not HAS_PEXT:
        pytest.skip("no fast pext here: only the byte tables were checked, not pext")
    assert _pext_mismatches(T, classes, sets & T.class_free[classes]) == 0


def test_index_tables_kept_on_disk_equal_freshly_built_ones():
    for name in ("three", "six", "nine"):
        variant = get_variant(name)
        index_tables.cache_clear()
        first = index_tables(variant.board, variant.stones)  # built or loaded
        index_tables.cache_clear()
        again = index_tables(variant.board, variant.stones)  # loaded: the first stored it
        built = build_index_tables(variant.board, variant.stones)
        for field, a, b, c in zip(IndexTables._fields, first, again, built, strict=True):
            assert np.array_equal(a, c) and np.array_equal(b, c), (name, field)
            assert np.asarray(b).dtype == np.asarray(c).dtype, (name, field)
