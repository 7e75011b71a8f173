"""Nanoseconds per call of the pieces the retrograde kernels are made of.

A level of the retrograde analysis computes ``canonical_index`` once per predecessor,
and a flying side has up to 3 x 18 of them, so this is the figure that sets how much
slower per position the flying groups (3-3, 9-3, ...) are than 6-6. For each sector
shape given it times, over random positions of that shape, on one thread:

* ``canonical_index``: the whole index;
* ``index_batch``: the same, over batches of 16 positions (how a level pass indexes a
  position's predecessors: the tables' cache misses of different positions overlap);
* ``mover part``: the mover set's class and symmetry, and the other set permuted;
* ``free_rank``: the other set's rank among the free points (a class without symmetry);
* ``unrank``: the position at a random slot of the sector (slots in increasing order,
  as a level pass meets its frontier);
* ``unmoves``: ``gen_unmoves``, all quiet predecessors of a position;
* ``successors``: ``gen_successors`` as the init pass calls it (quiet moves counted).

Usage: ``python benchmarks/bench_index.py [--variant nine] [--shapes 3-9,9-3,6-6,3-3]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit

# this checkout's solver, not the installed one: a git worktree of another commit then
# times its own kernels (how the A/B comparisons in the README were run)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.index.index_format import index_tables, sector_slots  # noqa: E402
from morris_solver.index.indexing import (  # noqa: E402
    canonical_index,
    free_rank,
    index_batch,
    mover_class,
    permute,
    unrank,
)
from morris_solver.index.movegen import (  # noqa: E402
    MAX_MOVES,
    MAX_UNMOVES,
    gen_successors,
    gen_unmoves,
    rule_tables,
)
from morris_solver.rules.sectors import parse_sector  # noqa: E402
from morris_solver.rules.variants import get_variant  # noqa: E402


# not cached on disk (cache=True): Numba would key these on this file alone and keep
# stale copies of the solver functions they inline (see morris_solver.core.kernelcache)
@njit
def _time_canonical_index(T, W, B, movers, others):
    total = 0
    for i in range(len(movers)):
        total += canonical_index(T, W, B, movers[i], others[i])
    return total


@njit
def _time_index_batch(T, W, B, movers, others):
    out = np.empty(16, np.int64)
    classes = np.empty(16, np.int64)
    syms = np.empty(16, np.int64)
    total = 0
    for s in range(0, len(movers), 16):
        n = min(16, len(movers) - s)
        index_batch(T, W, B, movers[s:], others[s:], n, out, classes, syms)
        total += out[:n].sum()
    return total


@njit
def _time_mover_part(T, W, movers, others):
    total = 0
    for i in range(len(movers)):
        c, g = mover_class(T, W, movers[i])
        total += permute(T, g, others[i]) + c
    return total


@njit
def _time_free_rank(T, c, others):
    total = 0
    for i in range(len(others)):
        total += free_rank(T, c, others[i])
    return total


@njit
def _time_unrank(T, W, B, slots):
    total = 0
    for i in range(len(slots)):
        mover, other = unrank(T, W, B, slots[i])
        total += mover ^ other
    return total


@njit
def _time_unmoves(R, B, movers, others):
    out_mover = np.empty(MAX_UNMOVES, np.int64)
    out_other = np.empty(MAX_UNMOVES, np.int64)
    total = 0
    for i in range(len(movers)):
        total += gen_unmoves(R, movers[i], others[i], B, out_mover, out_other)
        total += out_mover[0]
    return total


@njit
def _time_successors(R, T, W, B, movers, others):
    out_mover = np.empty(MAX_MOVES, np.int64)
    out_other = np.empty(MAX_MOVES, np.int64)
    out_kind = np.empty(MAX_MOVES, np.int64)
    total = 0
    for i in range(len(movers)):
        quiet_class = mover_class(T, B, others[i])[0]
        n, quiet = gen_successors(R, movers[i], others[i], W, 0, T.class_stab[quiet_class] == 0,
                                  out_mover, out_other, out_kind)
        total += n + quiet + out_mover[0]
    return total


def random_positions(n_points: int, W: int, B: int, count: int, seed: int = 1):
    """``count`` random (mover, other) mask pairs with W and B stones."""
    rng = np.random.default_rng(seed)
    points = np.argsort(rng.random((count, n_points)), axis=1)
    weights = np.int64(1) << points.astype(np.int64)
    return weights[:, :W].sum(axis=1), weights[:, W : W + B].sum(axis=1)


def nanoseconds(kernel, args, count: int, repeats: int) -> float:
    """Best of ``repeats`` timed calls, per item (the kernel is compiled before)."""
    kernel(*[a[:10] if isinstance(a, np.ndarray) else a for a in args])
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        kernel(*args)
        best = min(best, time.perf_counter() - start)
    return best / count * 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="nine")
    parser.add_argument("--shapes", default="3-9,9-3,6-6,3-3",
                        help="sector shapes W-B (W: stones of the side to move)")
    parser.add_argument("--count", type=int, default=2_000_000, help="positions per shape")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        variant = get_variant(args.variant)
        shapes = [parse_sector(s)[:2] for s in args.shapes.split(",")]
        for W, B in shapes:
            if min(W, B) < 1 or W + B > variant.board.n or max(W, B) > variant.stones:
                raise MorrisError(f"{W}-{B} is not a sector shape of {variant.name}")
    except (MorrisError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    numba.set_num_threads(1)
    T = index_tables(variant.board, variant.stones)
    R = rule_tables(variant)
    print(f"{variant.name}, {args.count:,} random positions per shape, one thread, "
          f"best of {args.repeats}")
    print("| shape | canonical_index ns | index_batch ns | mover part ns | free_rank ns "
          "| unrank ns | unmoves ns | successors ns |")
    print("|---|---|---|---|---|---|---|---|")
    for W, B in shapes:
        movers, others = random_positions(variant.board.n, W, B, args.count)
        # free_rank alone: B-stone sets on the free points of a class without symmetry
        plain = int(np.flatnonzero(T.class_stab[T.class_off[W] : T.class_off[W + 1]] == 0)[0])
        c = T.class_off[W] + plain
        free_points = T.class_freepts[c, : variant.board.n - W].astype(np.int64)
        rng = np.random.default_rng(2)
        picks = np.argsort(rng.random((args.count, len(free_points))), axis=1)[:, :B]
        free_others = (np.int64(1) << free_points[picks]).sum(axis=1)
        whole = nanoseconds(_time_canonical_index, (T, W, B, movers, others), args.count,
                            args.repeats)
        batched = nanoseconds(_time_index_batch, (T, W, B, movers, others), args.count,
                              args.repeats)
        mover = nanoseconds(_time_mover_part, (T, W, movers, others), args.count,
                            args.repeats)
        rank = nanoseconds(_time_free_rank, (T, c, free_others), args.count, args.repeats)
        slots = np.sort(rng.integers(0, sector_slots(T, W, B), args.count))
        unranked = nanoseconds(_time_unrank, (T, W, B, slots), args.count, args.repeats)
        unmoves = nanoseconds(_time_unmoves, (R, B, movers, others), args.count, args.repeats)
        successors = nanoseconds(_time_successors, (R, T, W, B, movers, others), args.count,
                                 args.repeats)
        print(f"| {W}-{B} | {whole:.1f} | {batched:.1f} | {mover:.1f} | {rank:.1f} "
              f"| {unranked:.1f} | {unmoves:.1f} | {successors:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
