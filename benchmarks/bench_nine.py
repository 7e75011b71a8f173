"""Nine Men's Morris end to end: solve, verify and value the moving phase; report it.

Solves the moving phase, verifies it, finds the start value by search, and writes a
Markdown report with a plot of seconds against positions per solve group.

    python benchmarks/bench_nine.py                  # nine, full moving phase: hours
    make bench-nine                                  # the same
    python benchmarks/bench_nine.py --variant six    # the whole pipeline in seconds
    python benchmarks/bench_nine.py --max-stones 4 --table /tmp/nine4.h5 --out /tmp/nine4

Steps (``--steps``, default all; they always run in this order):

solve    ``morris_solver.solving.generate.solve`` of the moving phase into ``--table``.
         Per-group solve times and peak memory are read back from the file's attributes
         afterwards, so they are those of whichever run solved each group.
verify   ``morris_solver.check.verify.verify_table`` one sector at a time, in the verifier's order;
         stops at the first sector that fails.
value    the start position's value by search over the placement phase with the moving
         tables at the leaves (``morris value --search``): value, nodes, seconds. It needs
         every moving sector: with a smaller ``--max-stones`` it is skipped.
scaling  re-solves one twin (``--scaling-sector``, default 5-5) from the stored tables with
         1 and with 2 threads; the speedup feeds the 16-core projection (Amdahl's law).
         ``--speedup-2`` gives the speedup instead of measuring it.
retime   re-solves groups (``--retime``, default the groups whose stored time is more
         than 2x 6-6's per position, and 6-6) from the stored tables with the current
         kernels: a long run keeps each group's time from the commit that solved it.
         Re-measured when the toolkit's commit changes.
disk     if ``benchmarks/disk_encoding.py`` exists, its ``measure`` on a sample of sectors.
report   writes ``OUT_report.md`` and ``OUT_seconds_vs_positions.png``.

Every step resumes. The table file keeps the solved groups; every other result goes to
``out/NAME_state.json`` next to ``--out`` (``benchmarks/out/nine_state.json`` for
``--out benchmarks/nine``) as soon as it is known, verification sector by sector, and a
re-run skips what is there (the report is always rewritten). A state file belongs to
one variant, ``--max-stones`` and table file: delete it (or pick another ``--out``) to
measure afresh.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its siblings bench_*, moving_report

from bench_report import GiB, command_line  # noqa: E402
from bench_state import (  # noqa: E402
    check_table_identity,
    load_state,
    save_merged,
    state_path,
    toolkit_commit,
    verify_sectors,
)
from moving_report import (  # noqa: E402
    SLOWER_LIMIT,
    groups_of,
    reference_group,
    slower_than_limit,
    write_report,
)

from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.query.probe import MissingSectorError, Tablebase  # noqa: E402
from morris_solver.rules.sectors import (  # noqa: E402
    Sector,
    dependencies,
    is_moving,
    parse_sector,
    sector_name,
    solve_plan,
    twin,
)
from morris_solver.rules.variants import Variant, get_variant  # noqa: E402
from morris_solver.search.search import DEFAULT_TT_ENTRIES, search_start_value  # noqa: E402
from morris_solver.solving.generate import peak_rss_bytes, solve, solve_group  # noqa: E402
from morris_solver.tables.storage import TableFile, default_table_path  # noqa: E402

STEPS = ("solve", "verify", "value", "scaling", "retime", "disk", "report")


@dataclass
class Run:
    """What every step needs: the options, the variant, its selected sectors and the state."""

    args: argparse.Namespace
    variant: Variant
    sectors: list[Sector]  # the moving-phase sectors of the run, in solve order
    state: dict
    state_path: Path
    command: str

    def save(self, step: str | None = None) -> None:
        """Write the state, keeping what other processes wrote meanwhile (steps such as
        verify and value may run side by side)."""
        save_merged(self.state_path, self.state, step)


# ---------------------------------------------------------------- steps


def step_solve(run: Run) -> None:
    args = run.args
    report = solve(run.variant, args.table, phase="moving", max_stones=args.max_stones,
                   threads=args.threads)
    if report.solved:
        done = run.state.setdefault("solve", {"groups": 0, "threads": []})
        done["groups"] += len(report.solved)
        done["threads"] = sorted({*done["threads"], numba.get_num_threads()})


def step_verify(run: Run) -> None:
    """Verify sector by sector, recording each verdict at once; skip those verified OK."""
    verify_sectors(run.args.table, run.sectors, run.state.setdefault("verify", {}),
                   lambda: run.save("verify"), run.args.threads)


def step_value(run: Run) -> None:
    state = run.state
    if "value" in state:
        print(f"value: already searched: {state['value']['value']}")
        return
    tb = Tablebase.open(run.args.table, cache_bytes=int(run.args.cache_gib * GiB))
    try:
        found = search_start_value(tb, max_tt_entries=run.args.tt_entries,
                                   progress=_search_progress, progress_seconds=60)
    except MissingSectorError as e:
        print(f"value: skipped, the search needs every moving sector ({e})")
        return
    state["value"] = {"value": str(found.value), "nodes": found.nodes,
                      "seconds": found.seconds, "load_seconds": found.load_seconds,
                      "tt_entries": found.tt_entries, "tt_cap": run.args.tt_entries,
                      "peak_rss_bytes": peak_rss_bytes()}
    print(f"value: {found.value}, {found.nodes:,} nodes, {found.seconds:.2f} s "
          f"({found.load_seconds:.2f} s of it loading the tables)")


def _search_progress(nodes: int, tt_entries: int) -> None:
    print(f"value: {nodes:,} nodes, {tt_entries:,} positions in the transposition table",
          flush=True)


def step_scaling(run: Run) -> None:
    """Time one twin solved from the stored tables with 1 and with 2 threads."""
    args, variant, state = run.args, run.variant, run.state
    if args.speedup_2 is not None:
        print(f"scaling: not measured, --speedup-2 {args.speedup_2} given")
        return
    name = f"{args.scaling_sector[0]}-{args.scaling_sector[1]}"
    if state.get("scaling", {}).get("sector") == name:
        print(f"scaling: {name} already measured")
        return
    if numba.config.NUMBA_NUM_THREADS < 2:
        print("scaling: skipped, numba has fewer than 2 threads")
        return
    table = TableFile.open(args.table)
    stored = table.sectors()
    group = tuple(sorted(twin(args.scaling_sector), reverse=True))
    if not all(s in stored for s in group):
        print(f"scaling: skipped, {name} is not in {args.table} "
              "(pass --scaling-sector or --speedup-2)")
        return
    load_kernels(variant, table, args.max_stones)
    seconds = {threads: resolve_seconds(variant, table, group, threads) for threads in (1, 2)}
    state["scaling"] = {"sector": name, "seconds_1": seconds[1],
                        "seconds_2": seconds[2],
                        "positions": sum(stored[s]["positions"] for s in group)}
    print(f"scaling: {name} {seconds[1]:.2f} s with 1 thread, "
          f"{seconds[2]:.2f} s with 2: speedup {seconds[1] / seconds[2]:.2f}")


def step_retime(run: Run) -> None:
    """Solve groups again with this commit's kernels (the stored times are the commit's
    that solved them), with their ratio to the reference group measured the same way."""
    args, state = run.args, run.state
    table = TableFile.open(args.table)
    groups = groups_of(table.sectors(), run.sectors)
    if not groups:
        print("retime: skipped, no group is solved yet")
        return
    ref = reference_group(groups)
    by_name = {g.name: g for g in groups}
    if args.retime:
        missing = [name for name in args.retime if name not in by_name]
        if missing:
            print(f"retime: skipped, {', '.join(missing)} not in {args.table}")
            return
        names = list(dict.fromkeys([*args.retime, ref.name]))
    else:
        names = [*slower_than_limit(groups, ref), ref.name]
    commit = toolkit_commit()
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    done = state.get("retime", {})
    if (done.get("commit") == commit != "unknown" and done.get("threads") == threads
            and all(name in done["groups"] for name in names)):
        print(f"retime: {', '.join(names)} already re-timed with {commit}")
        return
    load_kernels(run.variant, table, args.max_stones)
    timed = {}
    for name in names:
        g = by_name[name]
        group = tuple(sorted(g.sectors, reverse=True))
        seconds = resolve_seconds(run.variant, table, group, threads)
        timed[name] = {"positions": g.positions, "seconds": seconds}
        print(f"retime: {name} {g.positions:,} positions in {seconds:.2f} s "
              f"(stored: {g.seconds:.2f} s), identical to the file", flush=True)
    state["retime"] = {"commit": commit, "threads": threads, "reference": ref.name,
                       "groups": timed}


def load_kernels(variant: Variant, table: TableFile, max_stones: int | None) -> None:
    """Solve the first group once, untimed, so that no timing pays for loading kernels."""
    first = solve_plan(variant, "moving", max_stones)[0]
    solve_group(variant, first, {s: table.read_sector(s) for s in dependencies(variant, first)})


def resolve_seconds(variant: Variant, table: TableFile, group: tuple[Sector, ...],
                    threads: int) -> float:
    """Seconds to solve ``group`` again from the exits stored in ``table`` with
    ``threads`` threads (loading excluded); the result must equal the stored tables."""
    exits = {s: table.read_sector(s) for s in dependencies(variant, group)}
    numba.set_num_threads(threads)
    start = time.perf_counter()
    solution = solve_group(variant, group, exits)
    seconds = time.perf_counter() - start
    for s in group:
        if not np.array_equal(solution.codes[s], table.read_sector(s)):
            raise SystemExit(f"re-solving {sector_name(s)} differs from the file")
    return seconds


def disk_encoding() -> ModuleType | None:
    """``benchmarks/disk_encoding.py`` (``measure`` and ``markdown``), if it exists."""
    try:
        import disk_encoding
    except ModuleNotFoundError as e:
        if e.name != "disk_encoding":
            raise
        return None
    return disk_encoding


def disk_sample(stored: dict[Sector, dict], sectors: list[Sector]) -> list[Sector]:
    """3-3, 5-5, 7-7 and the largest sector, those present."""
    present = [s for s in sectors if s in stored]
    largest = max(present, key=lambda s: stored[s]["positions"])
    wanted = [(3, 3, 0, 0), (5, 5, 0, 0), (7, 7, 0, 0), largest]
    return [s for i, s in enumerate(wanted) if s in present and s not in wanted[:i]]


def step_disk(run: Run) -> None:
    module = disk_encoding()
    if module is None:
        print("disk: skipped, benchmarks/disk_encoding.py is not there yet")
        return
    if "disk" in run.state:
        print("disk: already measured")
        return
    sample = disk_sample(TableFile.open(run.args.table).sectors(), run.sectors)
    run.state["disk"] = module.measure(run.args.table, sample)
    print(f"disk: measured {', '.join(sector_name(s) for s in sample)}")


def step_report(run: Run) -> None:
    args = run.args
    module = disk_encoding()
    disk = module.markdown(run.state["disk"]) if module and "disk" in run.state else None
    report, png = write_report(
        args.table, run.variant, run.sectors,
        len(solve_plan(run.variant, "moving", args.max_stones)), run.state, args.out,
        run.command, args.threads or numba.config.NUMBA_NUM_THREADS, args.speedup_2,
        args.note, disk,
    )
    print(f"report: wrote {report} and {png}")


# ---------------------------------------------------------------- command line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="nine")
    parser.add_argument("--max-stones", type=int, help="moving sectors up to N stones a side")
    parser.add_argument("--table", type=Path, help="table file (default data/VARIANT.h5)")
    parser.add_argument("--out", type=Path,
                        help="prefix of the report and plot (default benchmarks/VARIANT)")
    parser.add_argument("--steps", default=",".join(STEPS),
                        help=f"comma-separated steps out of {','.join(STEPS)} (default all)")
    parser.add_argument("--threads", type=int, help="numba threads (default all cores)")
    parser.add_argument("--scaling-sector", default="5-5", metavar="W-B",
                        help="twin timed with 1 and 2 threads (default 5-5)")
    parser.add_argument("--retime", metavar="W-B,...",
                        help="groups the retime step solves again (default: those more than "
                        f"{SLOWER_LIMIT:g}x slower per position than 6-6 as stored, and 6-6)")
    parser.add_argument("--speedup-2", type=float, metavar="S2",
                        help="2-thread speedup for the projection instead of measuring it")
    parser.add_argument("--cache-gib", type=float, default=12.0,
                        help="probe cache in GiB (default 12); the value search holds every "
                        "moving sector it can reach anyway (8.6 GiB for nine's distance search)")
    parser.add_argument("--note", action="append", default=[],
                        help="a paragraph for the report's Notes (repeatable): how the run "
                        "went, what else shared the machine")
    parser.add_argument("--tt-entries", type=int, default=DEFAULT_TT_ENTRIES,
                        help="transposition table size of the value search "
                        f"(default {DEFAULT_TT_ENTRIES:,})")
    args = parser.parse_args(argv)
    steps = args.steps.split(",")
    unknown = set(steps) - set(STEPS)
    if unknown:
        parser.error(f"unknown step(s) {', '.join(sorted(unknown))}; choose from {STEPS}")
    args.steps = [s for s in STEPS if s in steps]
    try:
        args.scaling_sector = parse_sector(args.scaling_sector)
    except ValueError as e:
        parser.error(str(e))
    if not is_moving(args.scaling_sector):
        parser.error("--scaling-sector must be a moving-phase sector W-B")
    if args.retime:
        try:
            wanted = [parse_sector(name) for name in args.retime.split(",")]
        except ValueError as e:
            parser.error(str(e))
        args.retime = [f"{max(s[:2])}-{min(s[:2])}" for s in wanted]
    args.table = args.table or default_table_path(args.variant)
    args.out = args.out or Path("benchmarks") / get_variant(args.variant).name
    return args


STEP_FUNCTIONS = {
    "solve": step_solve,
    "verify": step_verify,
    "value": step_value,
    "scaling": step_scaling,
    "retime": step_retime,
    "disk": step_disk,
    "report": step_report,
}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    try:
        variant = get_variant(args.variant)
        path = state_path(args.out)
        config = {"variant": variant.name, "max_stones": args.max_stones,
                  "table": str(args.table.resolve())}
        sectors = [s for g in solve_plan(variant, "moving", args.max_stones) for s in g]
        command = command_line(os.path.relpath(__file__), argv)
        run = Run(args, variant, sectors, load_state(path, config), path, command)
        for step in args.steps:
            if args.table.exists():
                check_table_identity(run.state, args.table)
            STEP_FUNCTIONS[step](run)
            run.save(step)
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None


if __name__ == "__main__":
    main()
