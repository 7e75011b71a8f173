"""Where one group's solve time goes: the init pass, and the level passes split into a
fixed cost per level and a cost per frontier position.

The group is solved again from the exits stored in a table file (the result must equal
the file), with every level timed. Level seconds are then fitted as
``fixed + per_frontier x frontier``, where the frontier of level ``c`` is the group's
positions whose final code is ``c - 1``. A draw is never on a frontier, so a group with
many draws (6-6: 82 %) does little level work per position: this split is what shows
whether a group is slow per position because its kernels are slow or because it has
more work per position.

A placement sector is a group of its own whose solve is its init pass alone.

Usage: ``python benchmarks/bench_group.py TABLE GROUP [--threads N]``, e.g.
``python benchmarks/bench_group.py data/nine.h5 8-8 --threads 2`` or ``... 8-4-1-0``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

# this checkout's solver, not the installed one (see bench_index.py)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.rules.sectors import dependencies, parse_sector, sector_name, solve_plan  # noqa: E402
from morris_solver.solving.generate import solve_group  # noqa: E402
from morris_solver.solving.retrograde import PAD  # noqa: E402
from morris_solver.tables.storage import TableFile  # noqa: E402


def find_group(table: TableFile, name: str) -> tuple:
    """The group holding sector ``name``: ``8-8``, ``9-7`` for the 9-7/7-9 twin, or a
    placement sector such as ``8-4-1-0`` (a group of its own)."""
    sector = parse_sector(name)
    for group in solve_plan(table.variant):
        if sector in group:
            missing = [sector_name(s) for s in group if s not in table.sectors()]
            if missing:
                raise MorrisError(f"{', '.join(missing)} not in {table.path}: solve it first")
            return group
    raise MorrisError(f"{name} is not a sector of {table.variant.name}")


def measure(table: TableFile, group: tuple, threads: int) -> dict:
    """Solve ``group`` again from the stored exits, timing every level."""
    variant = table.variant
    first = solve_plan(variant, "moving")[0]  # load the compiled kernels, untimed
    solve_group(variant, first, {s: table.read_sector(s) for s in dependencies(variant, first)})
    exits = {s: table.read_sector(s) for s in dependencies(variant, group)}
    numba.set_num_threads(threads)
    stamps = []
    start = time.perf_counter()
    solution = solve_group(variant, group, exits,
                           level_callback=lambda c: stamps.append((c, time.perf_counter())))
    total = time.perf_counter() - start
    for s in group:
        if not np.array_equal(solution.codes[s], table.read_sector(s)):
            raise MorrisError(f"re-solving {sector_name(s)} differs from {table.path}")
    codes = [solution.codes[s] for s in group]
    histogram = sum(np.bincount(c, minlength=PAD + 1) for c in codes)
    slots = sum(len(c) for c in codes)
    positions = slots - int(histogram[PAD])
    previous = start + solution.init_seconds
    level_seconds, frontier = [], []
    for c, stamp in stamps:
        level_seconds.append(stamp - previous)
        frontier.append(int(histogram[c - 1]))
        previous = stamp
    fixed = per_frontier = float("nan")
    if len(stamps) >= 2:
        design = np.c_[np.ones(len(frontier)), frontier]
        fixed, per_frontier = np.linalg.lstsq(design, level_seconds, rcond=None)[0]
    return {
        "group": "+".join(sector_name(s) for s in group),
        "positions": positions,
        "slots": slots,
        "draws": int(histogram[0]),
        "total": total,
        "init": solution.init_seconds,
        "levels": len(stamps),
        "level_seconds": sum(level_seconds),
        "frontier": sum(frontier),
        "fixed": fixed,
        "per_frontier": per_frontier,
    }


def report(m: dict, threads: int) -> str:
    return "\n".join([
        f"{m['group']}: {m['positions']:,} positions ({m['slots']:,} slots), "
        f"{m['draws'] / m['positions']:.1%} draws; {threads} thread(s); identical to the file",
        f"  total      {m['total']:.3f} s "
        f"({m['total'] / m['positions'] * 1e9:.0f} ns per position)",
        f"  init pass  {m['init']:.3f} s ({m['init'] / m['slots'] * 1e9:.0f} ns per slot)",
        f"  levels     {m['level_seconds']:.3f} s over {m['levels']} levels; frontier "
        f"{m['frontier']:,} positions ({m['frontier'] / m['positions']:.2f} per position)",
        f"  level fit  {m['fixed']:.4f} s per level + {m['per_frontier'] * 1e9:.0f} ns per "
        "frontier position",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", help="table file holding the group and its exits")
    parser.add_argument(
        "group", help="a sector of the group: 8-8, 9-7 for the 9-7/7-9 twin, or 8-4-1-0"
    )
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    args = parser.parse_args()
    try:
        if not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
            raise MorrisError(f"--threads must be 1-{numba.config.NUMBA_NUM_THREADS}")
        table = TableFile.open(args.table)
        group = find_group(table, args.group)
        print(report(measure(table, group, args.threads), args.threads))
    except (MorrisError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
