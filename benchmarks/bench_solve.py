"""Solver speed: per group, positions, seconds, positions/second and peak memory, with
1 and with 2 threads; then probing speed. Prints a Markdown table.

    python benchmarks/bench_solve.py                      # nine, groups up to 5 stones
    python benchmarks/bench_solve.py --max-stones 6       # the README's figures
    python benchmarks/bench_solve.py --variant six --phase all
    python benchmarks/bench_solve.py --phase placement --threads 1   # placement groups only

Each group is solved from the already-solved smaller sectors (solved once, in a
scratch file, before timing), in a fresh array; the kernels are compiled and loaded
before the first measurement, so times are solving only.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from morris_solver.query.probe import Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.sectors import dependencies, is_moving, sector_key, solve_plan
from morris_solver.rules.variants import get_variant
from morris_solver.solving.generate import solve, solve_group
from morris_solver.tables.storage import TableFile


def bench_groups(variant, path, phase, max_stones, threads_list):
    table = TableFile.open(path)
    plan = solve_plan(variant, "all" if phase == "placement" else phase, max_stones)
    if phase == "placement":  # their moving-phase exits are solved, not timed
        plan = [group for group in plan if not is_moving(group[0])]
    # load the compiled kernels before timing
    solve_group(variant, plan[0], {s: table.read_sector(s) for s in dependencies(variant, plan[0])})
    rows = []
    for group in plan:
        exits = {s: table.read_sector(s) for s in dependencies(variant, group)}
        positions = sum(table.sectors()[s]["positions"] for s in group)
        row = {"group": "+".join(sector_key(s) for s in group), "positions": positions}
        for threads in threads_list:
            numba.set_num_threads(threads)
            start = time.perf_counter()
            solution = solve_group(variant, group, exits)
            seconds = time.perf_counter() - start
            row[threads] = (seconds, solution.init_seconds, solution.levels)
            # the solve's arrays: values, triggers and counts of the group, and the exits
            row["arrays"] = sum(
                (5 * a.nbytes // 2 if is_moving(s) else a.nbytes)
                for s, a in solution.codes.items()
            ) + sum(a.nbytes for a in exits.values())
            for s in group:  # the timed run must reproduce the stored tables
                assert np.array_equal(solution.codes[s], table.read_sector(s)), s
            del solution
        row["moving"] = is_moving(group[0])
        rows.append(row)
        print_row(row, threads_list)
    for phase, moving in (("moving", True), ("placement", False)):
        chosen = [r for r in rows if r["moving"] == moving]
        if not chosen:
            continue
        positions = sum(r["positions"] for r in chosen)
        rates = ", ".join(
            f"{positions / sum(r[t][0] for r in chosen) / 1e6:.2f} M positions/s with {t} thread(s)"
            for t in threads_list
        )
        print(f"\n{phase} phase: {len(chosen)} groups, {positions:,} positions, {rates}")
    return rows


def print_row(row, threads_list):
    cells = [row["group"], f"{row['positions']:,}"]
    for t in threads_list:
        seconds, init, levels = row[t]
        cells += [f"{seconds:.2f}", f"{row['positions'] / seconds / 1e6:.2f}"]
    cells += [str(row[threads_list[0]][2]), f"{row['arrays'] / 2**20:,.0f}"]
    print("| " + " | ".join(cells) + " |", flush=True)


def bench_probe(path, variant, samples=2000):
    tb = Tablebase.open(path)
    table = TableFile.open(path)
    rng = np.random.default_rng(1)
    stored = [s for s in table.sectors() if s[2] == s[3] == 0]
    biggest = max(stored, key=lambda s: table.sectors()[s]["positions"])
    start = time.perf_counter()
    positions = []
    board = variant.board
    while len(positions) < samples:
        pts = rng.permutation(board.n)
        mover = sum(1 << int(p) for p in pts[: biggest[0]])
        other = sum(1 << int(p) for p in pts[biggest[0]: biggest[0] + biggest[1]])
        positions.append(Position.from_sides(variant, mover, other, 0, 0, True))
    tb.probe(positions[0])
    load = time.perf_counter() - start
    for p in positions:  # load every sector the moves reach before timing
        tb.best_move(p)
    start = time.perf_counter()
    for p in positions:
        tb.probe(p)
    probe_us = (time.perf_counter() - start) / samples * 1e6
    start = time.perf_counter()
    for p in positions:
        tb.best_move(p)
    best_us = (time.perf_counter() - start) / samples * 1e6
    print(f"\nprobing {sector_key(biggest)}: first probe (loads the sector) {load * 1e3:.0f} ms, "
          f"warm probe {probe_us:.1f} us, best_move {best_us:.1f} us "
          f"({samples} random positions)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="nine")
    parser.add_argument("--max-stones", type=int, default=5)
    parser.add_argument("--phase", default="moving", choices=["moving", "all", "placement"],
                        help="groups to time (placement: the moving phase is solved first)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--table", help="reuse this scratch table file")
    args = parser.parse_args()
    variant = get_variant(args.variant)
    threads_list = [int(t) for t in args.threads.split(",")]
    path = Path(args.table or Path(tempfile.mkdtemp()) / f"{variant.name}.h5")
    start = time.perf_counter()
    phase = "all" if args.phase == "placement" else args.phase
    solve(variant, path, phase=phase, max_stones=args.max_stones, show_progress=False,
          log=lambda s: None)
    print(f"# {variant.name}, {args.phase} phase, up to {args.max_stones} stones: "
          f"full solve (incl. kernel loading) {time.perf_counter() - start:.1f} s, "
          f"{os.cpu_count()} cores\n")
    head = ["group", "positions"]
    for t in threads_list:
        head += [f"s ({t} thr)", f"Mpos/s ({t} thr)"]
    head += ["levels", "arrays MiB"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    bench_groups(variant, path, args.phase, args.max_stones, threads_list)
    bench_probe(path, variant)
    print(f"\npeak RSS of the benchmark process: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


if __name__ == "__main__":
    main()
