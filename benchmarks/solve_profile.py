"""Where a moving-phase group's solve time goes, part by part, against what this
machine can do (``benchmarks/solve_profile.md``).

For one group of a table file (its exits already solved there) it measures:

* the real solve (``solve_group``, the result compared with the file): the init pass,
  the level passes, how many levels and how many frontier positions;
* the level passes taken apart: the same levels replayed over the group's final codes
  (level ``c`` expands the slots holding ``c - 1``, as in the solve), with the work
  added one step at a time: finding the frontier (the block marks and the scan of a
  marked block), ``unrank``, ``gen_unmoves``, ``index_batch`` and the writes to the
  predecessors (into a scratch copy). Each step's time is its own row's time minus the
  row before;
* the init pass taken apart the same way: walking the slots (``unrank`` and
  ``next_in_class``, the padding test), and ``gen_successors``;
* this machine's bounds, on the same threads: a copy kernel (memory bandwidth) and
  random read-modify-writes into an array the size of the partner sector, batched and
  prefetched as the level pass does them (random-access throughput).

Usage: ``python benchmarks/solve_profile.py TABLE GROUP [--threads N] [--json FILE]``,
e.g. ``python benchmarks/solve_profile.py data/nine.h5 7-7 --threads 2``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange
from numba.typed import List

# this checkout's solver, not the installed one (see bench_index.py)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_group import find_group  # noqa: E402

from morris_solver.core.bits import atomic_decrement, prefetch  # noqa: E402
from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.core.threads import use_workqueue  # noqa: E402
from morris_solver.index.index_format import index_tables  # noqa: E402
from morris_solver.index.indexing import (  # noqa: E402
    canonical_index,
    free_places,
    index_batch,
    next_in_class,
    unrank,
)
from morris_solver.index.movegen import (  # noqa: E402
    MAX_MOVES,
    MAX_UNMOVES,
    WIN_NOW,
    gen_successors,
    gen_unmoves,
    rule_tables,
)
from morris_solver.rules.sectors import dependencies, sector_name, solve_plan  # noqa: E402
from morris_solver.solving.generate import GroupSolution, sector_info, solve_group  # noqa: E402
from morris_solver.solving.retrograde import (  # noqa: E402
    IN_GROUP,
    MARK_BLOCK,
    PAD,
    TARGET0,
    distinct,
    exit_arrays,
)
from morris_solver.tables.storage import TableFile  # noqa: E402

LEVEL_STEPS = ("frontier scan", "unrank", "gen_unmoves", "index_batch", "writes")
INIT_STEPS = ("walk slots", "gen_successors", "exit indices", "exit reads")
CHUNK = 2048


# not cached on disk (cache=True): Numba would key these on this file alone and keep
# stale copies of the solver functions they inline (see morris_solver.core.kernelcache)
@njit(parallel=True)
def replay_level(R, T, W, B, v, marked, c, steps, vp, cp):
    """Level ``c``'s frontier work over final codes ``v``, up to step ``steps`` of
    ``LEVEL_STEPS``; returns (frontier positions, predecessors, a checksum that keeps
    the compiler from dropping unused work)."""
    fresh = np.uint16(c - 1)
    per_class = T.binom[T.n - W, B]
    nblocks = marked.shape[0]
    per_chunk = CHUNK // MARK_BLOCK
    nchunks = (nblocks + per_chunk - 1) // per_chunk
    found = np.zeros(nchunks, np.int64)
    preds = np.zeros(nchunks, np.int64)
    check = np.zeros(nchunks, np.int64)
    win_level = c % 2 == 0
    for ci in prange(nchunks):
        pm = np.empty(MAX_UNMOVES, np.int64)
        po = np.empty(MAX_UNMOVES, np.int64)
        pi = np.empty(MAX_UNMOVES, np.int64)
        pc = np.empty(MAX_UNMOVES, np.int64)
        ps = np.empty(MAX_UNMOVES, np.int64)
        for b in range(ci * per_chunk, min((ci + 1) * per_chunk, nblocks)):
            if not marked[b]:
                continue
            for i in range(b * MARK_BLOCK, min((b + 1) * MARK_BLOCK, v.shape[0])):
                if v[i] != fresh:
                    continue
                found[ci] += 1
                if steps < 2:
                    continue
                mover, other = unrank(T, W, B, i)
                if steps < 3:
                    check[ci] ^= mover ^ other
                    continue
                n = gen_unmoves(R, mover, other, B, pm, po)
                preds[ci] += n
                if steps < 4:
                    for j in range(n):
                        check[ci] ^= pm[j]
                    continue
                index_batch(T, B, W, pm, po, n, pi, pc, ps)
                if not win_level:
                    n = distinct(T, T.class_off[W] + i // per_class, pi, n)
                if steps < 5:
                    for j in range(n):
                        check[ci] ^= pi[j]
                    continue
                for j in range(n):
                    prefetch(vp, pi[j])
                    if not win_level:
                        prefetch(cp, pi[j])
                for j in range(n):
                    idx = pi[j]
                    if win_level:
                        if vp[idx] == 0:
                            vp[idx] = c
                    elif vp[idx] == 0 and atomic_decrement(cp, idx) == 1:
                        vp[idx] = c
    return found.sum(), preds.sum(), check.sum()


@njit(parallel=True)
def replay_init(R, T, SI, vals, k, lo, hi, steps):
    """The init pass's slot walk over [lo, hi) of group sector ``k``, up to step
    ``steps`` of ``INIT_STEPS``."""
    W, B, WF = SI[k, 0], SI[k, 1], 0
    per_class = T.binom[T.n - W, B]
    has_symmetry = T.class_stab[T.class_off[W] : T.class_off[W + 1]] != 0
    nchunks = (hi - lo + CHUNK - 1) // CHUNK
    check = np.zeros(nchunks, np.int64)
    _, exit1, exit2, _, _ = exit_arrays(SI, vals, k)
    for ci in prange(nchunks):
        exit_kind = np.empty(MAX_MOVES, np.int64)
        exit_index = np.empty(MAX_MOVES, np.int64)
        om = np.empty(MAX_MOVES, np.int64)
        oo = np.empty(MAX_MOVES, np.int64)
        ok = np.empty(MAX_MOVES, np.int64)
        start = lo + ci * CHUNK
        places = 0
        for i in range(start, min(start + CHUNK, hi)):
            if i == start or i % per_class == 0:
                mover, other = unrank(T, W, B, i)
                places = free_places(T, T.class_off[W] + i // per_class, other)
            else:
                places, other = next_in_class(T, T.class_off[W] + i // per_class, places)
            if has_symmetry[i // per_class] and canonical_index(T, W, B, mover, other) != i:
                continue
            if steps < 2:
                check[ci] ^= other
                continue
            n, quiet = gen_successors(R, mover, other, W, WF, True, om, oo, ok)
            check[ci] += n + quiet
            if steps < 3:
                continue
            # as ``settle_slot``: the exits' indices first, each prefetched, then reads
            n_exits = 0
            for j in range(n):
                kind = ok[j]
                if kind == 0 or kind == WIN_NOW:
                    continue
                tk = SI[k, TARGET0 + kind]
                if tk < 0 or SI[tk, IN_GROUP]:
                    continue
                idx = canonical_index(T, SI[tk, 0], SI[tk, 1], om[j], oo[j])
                exit_kind[n_exits] = kind
                exit_index[n_exits] = idx
                n_exits += 1
                if steps >= 4:
                    prefetch(exit1 if kind == 1 else exit2, idx)
            for j in range(n_exits):
                if steps < 4:
                    check[ci] ^= exit_index[j]
                else:
                    e = exit1 if exit_kind[j] == 1 else exit2
                    check[ci] += e[exit_index[j]]
    return check.sum()


@njit(parallel=True)
def copy_kernel(src, dst):
    for i in prange(src.shape[0]):
        dst[i] = src[i]


@njit(parallel=True)
def random_updates(a, targets, batch):
    """``a[t] += 1`` for every ``t`` of ``targets``, prefetched a batch ahead as the
    level pass does (``write_predecessors``)."""
    nb = (targets.shape[0] + batch - 1) // batch
    for b in prange(nb):
        lo, hi = b * batch, min((b + 1) * batch, targets.shape[0])
        for j in range(lo, hi):
            prefetch(a, targets[j])
        for j in range(lo, hi):
            a[targets[j]] += 1


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def machine_bounds(slots: int) -> dict:
    """Memory bandwidth (bytes copied, read + written, per second) and random
    read-modify-writes per second into a uint16 array of ``slots``."""
    src = np.ones(max(slots, 1 << 26), np.uint16)
    dst = np.empty_like(src)
    copy_kernel(src[:1024], dst[:1024])
    seconds = min(timed(copy_kernel, src, dst)[0] for _ in range(3))
    bandwidth = 2 * src.nbytes / seconds
    del src, dst
    a = np.zeros(max(slots, 1 << 20), np.uint16)
    targets = np.random.default_rng(1).integers(0, len(a), 1 << 25)
    random_updates(a, targets[:1024], 16)
    seconds = min(timed(random_updates, a, targets, 16)[0] for _ in range(3))
    return {"copy_bytes_per_s": bandwidth, "random_updates_per_s": len(targets) / seconds}


def profile(table: TableFile, group: tuple, threads: int, replay_only: bool = False) -> dict:
    variant = table.variant
    R = rule_tables(variant)
    T = index_tables(variant.board, variant.stones)
    first = solve_plan(variant, "moving")[0]  # load the compiled kernels, untimed
    solve_group(variant, first, {s: table.read_sector(s) for s in dependencies(variant, first)})
    exits = {s: table.read_sector(s) for s in dependencies(variant, group)}
    numba.set_num_threads(threads)
    if replay_only:
        solution = GroupSolution({s: table.read_sector(s) for s in group}, 0, 0.0, 0.0)
        total = 0.0
    else:
        start = time.perf_counter()
        solution = solve_group(variant, group, exits)
        total = time.perf_counter() - start
        for s in group:
            if not np.array_equal(solution.codes[s], table.read_sector(s)):
                raise MorrisError(f"re-solving {sector_name(s)} differs from {table.path}")
    order, SI = sector_info(variant, group, exits)
    vals = List()
    for s in order:
        vals.append(solution.codes[s] if s in group else exits[s])
    codes = {s: solution.codes[s] for s in group}
    partner = {s: (s[1], s[0], 0, 0) if (s[1], s[0], 0, 0) in codes else s for s in group}
    top = max(int(np.max(np.where(v == PAD, 0, v))) for v in codes.values())
    positions = sum(int(np.count_nonzero(v != PAD)) for v in codes.values())
    slots = sum(len(v) for v in codes.values())

    # compile the replay kernels, untimed
    none = np.zeros(1, np.uint16)
    replay_level(R, T, group[0][0], group[0][1], none, np.zeros(0, np.bool_), 2, 5, none,
                 np.zeros(1, np.uint8))
    replay_init(R, T, SI, vals, 0, 0, 0, 4)

    # the level passes, step by step, over every level of the solve
    steps_seconds = []
    frontier = predecessors = 0
    for steps in range(1, len(LEVEL_STEPS) + 1):
        seconds = 0.0
        for s, v in codes.items():
            W, B = s[0], s[1]
            nblocks = (len(v) + MARK_BLOCK - 1) // MARK_BLOCK
            padded = np.full(nblocks * MARK_BLOCK, PAD, np.uint16)
            padded[: len(v)] = v
            blocks = padded.reshape(nblocks, MARK_BLOCK)
            size = len(codes[partner[s]])
            vp = np.zeros(size, np.uint16) if steps == 5 else np.zeros(1, np.uint16)
            cp = np.full(size, 255, np.uint8) if steps == 5 else np.zeros(1, np.uint8)
            for c in range(2, top + 2):
                marked = (blocks == c - 1).any(axis=1)
                t, (n, p, _) = timed(replay_level, R, T, W, B, v, marked, c, steps, vp, cp)
                seconds += t
                if steps == 1:
                    frontier += n
                if steps == 3:
                    predecessors += p
            del vp, cp
        steps_seconds.append(seconds)
    init_seconds = []
    for steps in range(1, len(INIT_STEPS) + 1):
        seconds = 0.0
        for k, v in enumerate(codes.values()):
            seconds += timed(replay_init, R, T, SI, vals, k, 0, len(v), steps)[0]
        init_seconds.append(seconds)
    bounds = machine_bounds(max(len(v) for v in codes.values()))
    return {
        "group": "+".join(sector_name(s) for s in group),
        "threads": threads,
        "positions": positions,
        "slots": slots,
        "seconds": total,
        "init_seconds": solution.init_seconds,
        "level_seconds": solution.level_seconds,
        "levels": solution.levels,
        "frontier": frontier,
        "predecessors": predecessors,
        "level_steps": dict(zip(LEVEL_STEPS, steps_seconds, strict=True)),
        "init_steps": dict(zip(INIT_STEPS, init_seconds, strict=True)),
        **bounds,
    }


def report(m: dict) -> str:
    ns = 1e9
    lines = [
        f"{m['group']}: {m['positions']:,} positions ({m['slots']:,} slots), "
        f"{m['threads']} thread(s); the solve identical to the file",
        f"  solve       {m['seconds']:.2f} s: init pass {m['init_seconds']:.2f} s "
        f"({m['init_seconds'] / m['slots'] * ns:.0f} ns a slot), levels "
        f"{m['level_seconds']:.2f} s over {m['levels']} levels",
        f"  frontier    {m['frontier']:,} positions ({m['frontier'] / m['positions']:.2f} a "
        f"position), {m['predecessors']:,} un-moves "
        f"({m['predecessors'] / max(m['frontier'], 1):.1f} a frontier position)",
        "  level passes replayed, cumulative seconds (the step's own share):",
    ]
    before = 0.0
    for name, seconds in m["level_steps"].items():
        lines.append(f"    {name:<14} {seconds:8.2f} s  (+{seconds - before:.2f} s, "
                     f"{(seconds - before) / max(m['frontier'], 1) * ns:.0f} ns a frontier "
                     "position)")
        before = seconds
    lines.append("  init pass replayed, cumulative seconds (the step's own share):")
    before = 0.0
    for name, seconds in m["init_steps"].items():
        lines.append(f"    {name:<14} {seconds:8.2f} s  (+{seconds - before:.2f} s, "
                     f"{(seconds - before) / m['slots'] * ns:.0f} ns a slot)")
        before = seconds
    lines.append(f"    the rest of the init pass (exits, codes) "
                 f"{m['init_seconds'] - before:.2f} s")
    updates = m["predecessors"] / m["random_updates_per_s"]
    lines += [
        f"  machine     copy {m['copy_bytes_per_s'] / 1e9:.1f} GB/s; random "
        f"read-modify-writes {m['random_updates_per_s'] / 1e6:.0f} million/s "
        f"({ns / m['random_updates_per_s']:.1f} ns each)",
        f"  bounds      the un-moves' writes alone at that rate: {updates:.2f} s; one read "
        f"of every code per level: "
        f"{m['levels'] * 2 * m['slots'] / m['copy_bytes_per_s'] * 2:.2f} s",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", help="table file holding the group and its exits")
    parser.add_argument("group", help="a sector of a moving-phase group: 7-7, 9-7, ...")
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--replay-only", action="store_true",
                        help="skip the real solve (its figures are then 0): the parts only")
    args = parser.parse_args()
    use_workqueue()
    try:
        if not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
            raise MorrisError(f"--threads must be 1-{numba.config.NUMBA_NUM_THREADS}")
        table = TableFile.open(args.table)
        group = find_group(table, args.group)
        if group[0][2] or group[0][3]:
            raise MorrisError(f"{args.group} is a placement sector: give a moving one")
        figures = profile(table, group, args.threads, args.replay_only)
        print(report(figures))
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1) + "\n")
    except (MorrisError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
