"""The Dask cluster solve against the serial one, and what the dependencies between
groups allow at best.

    python benchmarks/bench_cluster.py critical-path data/nine.h5
    python benchmarks/bench_cluster.py compare six --workers 2
    python benchmarks/bench_cluster.py compare nine --phase placement --moving-from data/nine.h5
    python benchmarks/bench_cluster.py compare nine --phase placement --max-stones 7 \
        --moving-from data/nine.h5
    python benchmarks/bench_cluster.py identical serial.h5 cluster.h5

``critical-path`` reads the group times a table file records (``solve_seconds``) and
computes, per phase, their sum (the serial solve) and the longest chain of groups each
needing the one before (no number of workers makes the phase faster than that chain,
whose groups each stand alone). With ``--machines 2 4 8`` it also plays the cluster
solve's schedule on that many machines like the one that timed the groups: each group
takes its recorded time, and a free machine takes the largest group whose dependencies
are done, as ``solve_on_cluster`` submits them; the transfers are left out.

    python benchmarks/bench_cluster.py critical-path data/twelve.h5 --machines 2 4 8 16

``compare`` solves the same selection (``--phase``, ``--max-stones``: at most N stones a
side, on the board and in hand) serially (all threads) and on a local cluster of
``--workers`` processes with one thread each, into scratch files, checks that the two
files are identical code for code, and prints both wall times. For the placement phase
both start from a copy of the moving-phase sectors of ``--moving-from``. A solve of hours
is better timed as two runs of its own (``morris solve ... --out A`` and ``... --workers
2 --out B``, each resumable, in parts across sessions); ``identical A B`` then checks the
two files code for code, sector by sector.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling bench_report

from bench_report import hms  # noqa: E402

from morris_solver.rules.sectors import (  # noqa: E402
    dependencies,
    is_moving,
    parse_sector_key,
    sector_name,
    solve_plan,
)
from morris_solver.solving.cluster import solve_on_cluster  # noqa: E402
from morris_solver.solving.generate import solve  # noqa: E402
from morris_solver.tables.storage import TableFile  # noqa: E402


def critical_path(path: Path, machines: list[int], show: int | None = None) -> None:
    table = TableFile.open(path)
    stored = table.sectors()
    variant = table.variant
    plan = [g for g in solve_plan(variant, "all") if all(s in stored for s in g)]
    seconds = {g: stored[g[0]]["solve_seconds"] for g in plan}
    owner = {s: g for g in plan for s in g}
    for phase, moving in (("moving", True), ("placement", False)):
        groups = [g for g in plan if is_moving(g[0]) == moving]
        if not groups:
            continue
        # the earliest each group can finish with as many workers as wanted, once the
        # phase before is done, and the group before it on that chain
        finish: dict[tuple, float] = {}
        chain: dict[tuple, tuple | None] = {}
        for g in groups:  # the plan is in dependency order
            before = [owner[s] for s in dependencies(variant, g)
                      if s in owner and is_moving(s) == moving]
            first = max(before, key=lambda b: finish[b], default=None)
            finish[g] = seconds[g] + (finish[first] if first else 0.0)
            chain[g] = first
        total = sum(seconds[g] for g in groups)
        g = max(groups, key=lambda g: finish[g])
        path_groups = []
        while g is not None:
            path_groups.append(g)
            g = chain[g]
        bound = finish[path_groups[0]]
        print(f"{variant.name}, {phase} phase: {len(groups)} groups, {hms(total)} serial; "
              f"the longest chain of dependent groups takes {hms(bound)} "
              f"({total / bound:.2f}x at most from more workers):")
        print("  " + " <- ".join(f"{'+'.join(sector_name(s) for s in g)} "
                                 f"({seconds[g]:.0f} s)" for g in path_groups))
        needs = {g: {owner[s] for s in dependencies(variant, g)
                     if s in owner and is_moving(s) == moving} for g in groups}
        for k in machines:
            wall = schedule(needs, seconds, k)
            print(f"  on {k} machines: {hms(wall)} ({total / wall:.2f}x)")
        if show:
            placed = assign(needs, seconds, show)
            print(f"  where each group runs on {show} machines (start, group, seconds):")
            for m in range(show):
                mine = sorted((start, g) for g, (where, start) in placed.items() if where == m)
                print(f"    machine {m + 1}: " + ", ".join(
                    f"{hms(start)} {'+'.join(sector_name(s) for s in g)} ({seconds[g]:.0f})"
                    for start, g in mine))
        read, written = transfers(path, {g: set(dependencies(variant, g)) - set(g)
                                         for g in groups})
        print(f"  crossing the network with the file on the committing machine: "
              f"{read / 1e9:.1f} GB read by the tasks (the sectors they need, as stored), "
              f"{written / 1e9:.1f} GB of results written (uncompressed codes)")


def schedule(needs: dict[tuple, set[tuple]], seconds: dict[tuple, float],
             machines: int) -> float:
    """The wall time of running the groups ``needs`` (each with the groups it needs) on
    ``machines`` machines, as ``assign`` places them."""
    placed = assign(needs, seconds, machines)
    return max((start + seconds[g] for g, (_, start) in placed.items()), default=0.0)


def assign(needs: dict[tuple, set[tuple]], seconds: dict[tuple, float],
           machines: int) -> dict[tuple, tuple[int, float]]:
    """Each group's machine and start time: a free machine takes the longest group whose
    needs are done, each group taking ``seconds[group]``."""
    done_at: dict[tuple, float] = {}
    placed: dict[tuple, tuple[int, float]] = {}
    free = [0.0] * machines  # when each machine is next free
    left = set(needs)
    while left:
        now = min(free)
        ready = [g for g in left if all(d in done_at and done_at[d] <= now for d in needs[g])]
        if not ready:  # wait for the next group to finish
            later = [t for t in done_at.values() if t > now]
            free[free.index(now)] = min(later)
            continue
        g = max(ready, key=lambda g: seconds[g])
        machine = free.index(now)
        placed[g] = (machine, now)
        done_at[g] = free[machine] = now + seconds[g]
        left.remove(g)
    return placed


def transfers(path: Path, needs_sectors: dict[tuple, set[tuple]]) -> tuple[int, int]:
    """The bytes a cluster solve of these groups moves between machines when the table
    file and the scratch folder are on the machine that commits: every task reads the
    sectors it needs as stored (compressed), and writes its codes uncompressed."""
    with h5py.File(path, "r") as f:
        layer = f["sectors"]
        stored = {parse_sector_key(n): layer[n].id.get_storage_size() for n in layer}
        raw = {parse_sector_key(n): layer[n].size * layer[n].dtype.itemsize for n in layer}
    read = sum(stored[s] for sectors in needs_sectors.values() for s in sectors if s in stored)
    written = sum(raw[s] for g in needs_sectors for s in g)
    return read, written


def compare(variant: str, workers: int, phase: str, max_stones: int | None,
            moving_from: Path | None) -> None:
    quiet = {"show_progress": False, "log": lambda s: None, "max_stones": max_stones}
    with tempfile.TemporaryDirectory() as scratch:
        serial, cluster = Path(scratch) / "serial.h5", Path(scratch) / "cluster.h5"
        if moving_from is not None:  # the placement phase from the same moving sectors
            _copy_moving(moving_from, serial)
            _copy_moving(moving_from, cluster)
        start = time.perf_counter()
        solve(variant, serial, phase=phase, share_with=[], **quiet)
        serial_seconds = time.perf_counter() - start
        start = time.perf_counter()
        solve_on_cluster(variant, cluster, workers=workers, phase=phase, share_with=[],
                         **quiet)
        cluster_seconds = time.perf_counter() - start
        count = identical(serial, cluster)
        selection = phase if max_stones is None else f"{phase}, at most {max_stones} stones a side"
        print(f"{variant} ({selection}): serial {serial_seconds:.1f} s, {workers} workers "
              f"{cluster_seconds:.1f} s ({serial_seconds / cluster_seconds:.2f}x); "
              f"{count} sectors identical")


def identical(first: Path, second: Path) -> int:
    """The number of sectors of two table files, which must hold the same sectors with
    the same codes (else SystemExit naming the first difference)."""
    a, b = TableFile.open(first), TableFile.open(second)
    if a.sector_set() != b.sector_set():
        only = sorted(a.sector_set() ^ b.sector_set())
        raise SystemExit(f"the files hold other sectors, e.g. {sector_name(only[0])}")
    for s in sorted(a.sector_set()):
        if not np.array_equal(a.read_sector(s), b.read_sector(s)):
            raise SystemExit(f"{sector_name(s)} differs between {first} and {second}")
    return len(a.sector_set())


def _copy_moving(source: Path, target: Path) -> None:
    with h5py.File(source, "r") as src, h5py.File(target, "w") as dst:
        for k, v in src.attrs.items():
            dst.attrs[k] = v
        group = dst.create_group("sectors")
        for name in src["sectors"]:
            parts = name.split("_")
            if parts[2] == parts[3] == "0":
                src.copy(src["sectors"][name], group, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    cp = sub.add_parser("critical-path")
    cp.add_argument("table", type=Path)
    cp.add_argument("--machines", type=int, nargs="*", default=[],
                    help="also the wall time on that many machines like this one")
    cp.add_argument("--show", type=int, metavar="K",
                    help="also which groups run on which of K machines, and when")
    cmp = sub.add_parser("compare")
    cmp.add_argument("variant")
    cmp.add_argument("--workers", type=int, default=2)
    cmp.add_argument("--phase", default="all")
    cmp.add_argument("--max-stones", type=int)
    cmp.add_argument("--moving-from", type=Path)
    same = sub.add_parser("identical")
    same.add_argument("first", type=Path)
    same.add_argument("second", type=Path)
    args = parser.parse_args()
    if args.step == "critical-path":
        critical_path(args.table, args.machines, args.show)
    elif args.step == "identical":
        print(f"{identical(args.first, args.second)} sectors identical")
    else:
        compare(args.variant, args.workers, args.phase, args.max_stones, args.moving_from)


if __name__ == "__main__":
    main()
