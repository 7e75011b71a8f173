"""Atomic against plain decrements of random counts, batched and prefetched as a loss
level writes them (benchmarks/solve_profile.md): whether the level passes' atomic
decrements cost anything on this machine, whether sorting a batch's targets pays, and
what reading the code only where a count reaches zero saves (``count first``: one
array's cache line a decrement instead of two).

    python benchmarks/bench_atomic.py
"""

import time

import numpy as np
from numba import njit, prange

from morris_solver.core.bits import atomic_decrement, prefetch
from morris_solver.core.threads import use_workqueue

BATCH = 4096  # targets a batch (the level pass's PENDING_WRITES)
AHEAD = 16  # targets prefetched before the first of them is written


@njit(parallel=True)
def decrement(counts, codes, targets, atomic, sort, count_first):
    """Take one off ``counts[t]`` for every target whose code is undecided; a count
    reaching zero writes a code. Returns how many did. ``count_first``: decrement
    before reading the code, and read it only where the count reaches zero (atomic),
    as the level passes write since 2026-12-06."""
    nb = targets.shape[0] // BATCH
    hits = np.zeros(nb, np.int64)
    for b in prange(nb):
        batch = targets[b * BATCH : (b + 1) * BATCH].copy()
        if sort:
            batch.sort()
        for j in range(0, BATCH, AHEAD):
            for q in range(j, j + AHEAD):
                prefetch(counts, batch[q])
                if not count_first:
                    prefetch(codes, batch[q])
            for q in range(j, j + AHEAD):
                idx = batch[q]
                if count_first:
                    if atomic_decrement(counts, idx) == 1 and codes[idx] == 0:
                        codes[idx] = 3
                        hits[b] += 1
                elif codes[idx] == 0:
                    if atomic:
                        before = atomic_decrement(counts, idx)
                    else:
                        before = counts[idx]
                        counts[idx] = before - 1
                    if before == 1:
                        codes[idx] = 3
                        hits[b] += 1
    return hits.sum()


def main() -> None:
    use_workqueue()
    rng = np.random.default_rng(1)
    for size in (160_000_000, 900_000_000):
        counts = np.full(size, 200, np.uint8)
        codes = np.zeros(size, np.uint16)
        targets = rng.integers(0, size, 40_000_000, dtype=np.int64)
        modes = [(atomic, sort, False) for atomic in (True, False) for sort in (False, True)]
        for atomic, sort, count_first in [*modes, (True, False, True)]:
            decrement(counts, codes, targets[: 4 * BATCH], atomic, sort, count_first)  # compile
            start = time.perf_counter()
            decrement(counts, codes, targets, atomic, sort, count_first)
            ns = (time.perf_counter() - start) / len(targets) * 1e9
            order = "count first" if count_first else "sorted" if sort else "as generated"
            print(f"{size:>11,} counts  {'atomic' if atomic else 'plain ':6}  "
                  f"{order:12}  {ns:5.1f} ns a decrement")

if __name__ == "__main__":
    main()
