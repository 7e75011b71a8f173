"""Nine Men's Morris end to end: solve, verify and value the moving phase; report it.

Solves the moving phase, verifies it, finds the start value by search, and writes a
Markdown report with a plot of seconds against positions per solve group.

    python benchmarks/bench_nine.py                  # nine, full moving phase: hours
    make bench-nine                                  # the same
    python benchmarks/bench_nine.py --variant six    # the whole pipeline in seconds
    python benchmarks/bench_nine.py --max-stones 4 --table /tmp/nine4.h5 --out /tmp/nine4

Steps (``--steps``, default all; they always run in this order):

solve    ``solver.generate.solve`` of the moving phase into ``--table``. Per-group solve
         times and peak memory are read back from the file's attributes afterwards, so
         they are those of whichever run solved each group.
verify   ``solver.verify.verify_table`` one sector at a time, in the verifier's order;
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
import datetime
import os
import platform
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numba
import numpy as np
from matplotlib.figure import Figure

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling bench_state

from bench_state import (  # noqa: E402
    check_table_identity,
    hms,
    load_state,
    save_merged,
    state_path,
    toolkit_commit,
)

from solver.errors import MorrisError  # noqa: E402
from solver.generate import default_table_path, peak_rss_bytes, solve, solve_group  # noqa: E402
from solver.probe import MissingSectorError, Tablebase  # noqa: E402
from solver.search import DEFAULT_TT_ENTRIES, search_start_value  # noqa: E402
from solver.sectors import (  # noqa: E402
    Sector,
    dependencies,
    is_moving,
    parse_sector,
    sector_key,
    sector_name,
    solve_plan,
    twin,
)
from solver.storage import TableFile  # noqa: E402
from solver.variants import Variant, get_variant  # noqa: E402
from solver.verify import verification_order, verify_table  # noqa: E402

STEPS = ("solve", "verify", "value", "scaling", "retime", "disk", "report")
GiB = 2**30
REFERENCE = (6, 6)  # the twin every group's speed per position is compared with
SLOWER_LIMIT = 2.0  # a group slower per position than the reference by more is flagged
TARGET_SECONDS = 3 * 3600  # targets of the issue: moving phase with 2 threads ...
TARGET_RSS = 12 * GiB  # ... peak memory ...
TARGET_FILE_BYTES = 10 * 10**9  # ... and file size
PROJECTED_CORES = 16


@dataclass
class Group:
    """A solve group of the moving phase: the twin lo-hi + hi-lo, or a sector a-a."""

    lo: int
    hi: int
    sectors: list[Sector]
    positions: int = 0
    seconds: float = 0.0  # shared by the sectors of a twin: counted once
    peak_rss_bytes: int = 0

    @property
    def name(self) -> str:
        return f"{self.hi}-{self.lo}"

    @property
    def seconds_per_position(self) -> float:
        return self.seconds / self.positions


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
    done = run.state.setdefault("verify", {})
    todo = [s for s in sorted(run.sectors, key=verification_order)
            if not done.get(sector_key(s), {}).get("ok")]
    if len(todo) < len(run.sectors):
        print(f"verify: {len(run.sectors) - len(todo)} sectors already verified OK, skipped")
    for s in todo:
        report = verify_table(run.args.table, sector=s, progress=True, threads=run.args.threads)
        r = report.sectors[0]
        done[sector_key(s)] = {"ok": r.ok, "positions": r.positions, "seconds": r.seconds,
                               "mismatch_count": r.mismatch_count}
        run.save("verify")
        if not r.ok:
            details = [str(m) for m in r.mismatches] + r.problems
            raise SystemExit("\n      ".join([
                f"verify: sector {sector_name(s)} FAILED: {r.mismatch_count:,} wrong of "
                f"{r.positions:,} positions", *details]))
        print(f"verify: OK {sector_name(s):<10} {r.positions:>14,} positions {r.seconds:9.2f} s",
              flush=True)


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


# ---------------------------------------------------------------- report


def groups_of(stored: dict[Sector, dict], sectors: list[Sector]) -> list[Group]:
    """The solve groups of ``sectors`` present in the file, smallest first."""
    groups: dict[tuple[int, int], Group] = {}
    for s in sectors:
        if s not in stored:
            continue
        attrs = stored[s]
        lo, hi = min(s[:2]), max(s[:2])
        g = groups.setdefault((lo, hi), Group(lo, hi, []))
        g.sectors.append(s)
        g.positions += attrs["positions"]
        g.seconds = max(g.seconds, attrs["solve_seconds"])
        g.peak_rss_bytes = max(g.peak_rss_bytes, attrs["peak_rss_bytes"])
    return sorted(groups.values(), key=lambda g: (g.lo + g.hi, g.hi))


def reference_group(groups: list[Group]) -> Group:
    """The 6-6 group, or the largest one if there is none."""
    by_key = {(g.lo, g.hi): g for g in groups}
    return by_key.get(REFERENCE) or max(groups, key=lambda g: g.positions)


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def proc_field(path: str, name: str) -> str | None:
    """The value of ``name:`` in a /proc file, e.g. MemTotal in /proc/meminfo."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return None


def machine() -> str:
    cpu = proc_field("/proc/cpuinfo", "model name") or platform.processor() or "unknown CPU"
    mem = proc_field("/proc/meminfo", "MemTotal")  # "24576000 kB"
    ram = f"{int(mem.split()[0]) / 2**20:.1f} GiB RAM" if mem else "RAM unknown"
    return (f"{os.cpu_count()} cores ({cpu}), {ram}, Python {platform.python_version()}, "
            f"numba {numba.__version__}")


def header(variant: Variant, command: str) -> list[str]:
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return [
        f"# {variant.name}: moving phase end to end (solve, verify, value)",
        "",
        f"Produced by `{command}` on {now}.",
        f"Machine: {machine()}.",
        "",
    ]


def groups_section(groups: list[Group], ref: Group, verified: dict) -> list[str]:
    lines = [
        "## Solve, per group",
        "",
        "A group a-b is the twin of sectors a-b and b-a (solved together, one time for both); "
        f"a-a is one sector. *vs {ref.name}* is the group's seconds per position over the "
        f"{ref.name} group's; above {SLOWER_LIMIT:g} is flagged. Times and peak RSS are the "
        "solving process's, as stored in the table file; the first group a process solves "
        "also pays for loading the compiled kernels (about a second). Peak RSS is the "
        "group's own (exit sectors included); tables written before that was measured "
        "per group (toolkit commits before 81250dc) hold the process's peak so far.",
        "",
        "| group | positions | solve s | positions/s | s per position vs "
        f"{ref.name} | peak RSS GiB | verify s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for g in groups:
        ratio = g.seconds_per_position / ref.seconds_per_position
        checks = [verified.get(sector_key(s)) for s in g.sectors]
        verify = f"{sum(c['seconds'] for c in checks):.1f}" if all(checks) else "-"
        lines.append(
            f"| {g.name} | {g.positions:,} | {g.seconds:,.1f} | {g.positions / g.seconds:,.0f} "
            f"| {ratio_cell(ratio)} | {g.peak_rss_bytes / GiB:.2f} | {verify} |"
        )
    slow = slower_than_limit(groups, ref)
    lines += ["", f"Groups more than {SLOWER_LIMIT:g}x slower per position than {ref.name}: "
              f"{', '.join(slow) if slow else 'none'}.", ""]
    return lines


def ratio_cell(ratio: float) -> str:
    """A time-per-position ratio to the reference, in bold when over the limit."""
    return f"**{ratio:.2f} (> {SLOWER_LIMIT:g})**" if ratio > SLOWER_LIMIT else f"{ratio:.2f}"


def slower_than_limit(groups: list[Group], ref: Group) -> list[str]:
    return [g.name for g in groups
            if g.seconds_per_position > SLOWER_LIMIT * ref.seconds_per_position]


def retime_section(state: dict, stored_groups: list[Group]) -> list[str]:
    retime = state.get("retime")
    if not retime:
        return []
    timed, ref = retime["groups"], retime["reference"]
    stored = {g.name: g for g in stored_groups}
    ref_rate = timed[ref]["seconds"] / timed[ref]["positions"]
    lines = [
        "## Re-timed with the current kernels",
        "",
        f"The groups solved again from the stored tables by `--steps retime` with commit "
        f"{retime['commit']} on {retime['threads']} thread(s); every result equals the file. "
        f"The ratio is to {ref}'s time re-measured the same way.",
        "",
        f"| group | positions | stored s | re-timed s | positions/s | s per position vs {ref} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    ratios = {name: t["seconds"] / t["positions"] / ref_rate for name, t in timed.items()}
    for name, t in timed.items():
        before = f"{stored[name].seconds:,.2f}" if name in stored else "-"
        lines.append(f"| {name} | {t['positions']:,} | {before} | {t['seconds']:,.2f} "
                     f"| {t['positions'] / t['seconds']:,.0f} | {ratio_cell(ratios[name])} |")
    slow = [name for name, ratio in ratios.items() if ratio > SLOWER_LIMIT]
    lines += ["", f"Re-timed groups more than {SLOWER_LIMIT:g}x slower per position than "
              f"{ref}: {', '.join(slow) if slow else 'none'}.", ""]
    return lines


def verdict(ok: bool, complete: bool) -> str:
    """``met`` / ``not met`` for a finished run; a partial run's total says nothing yet."""
    if not complete and ok:
        return "not assessed yet (the run is not complete)"
    return met(ok)


def totals_section(groups: list[Group], state: dict, threads: int, planned: int) -> list[str]:
    complete = len(groups) == planned
    total = sum(g.seconds for g in groups)
    positions = sum(g.positions for g in groups)
    peak = max(g.peak_rss_bytes for g in groups)
    solved = state.get("solve")
    origin = (f"this benchmark's solve step solved {solved['groups']} of {len(groups)} groups "
              f"with {', '.join(map(str, solved['threads']))} thread(s); the others"
              if solved else "all groups")
    return [
        "## Totals",
        "",
        f"* Moving phase: {len(groups)} of {planned} groups"
        f"{'' if complete else ' (**the run is not complete**)'}, {positions:,} positions, "
        f"**{hms(total)}** of solving (sum of the group times, {positions / total:,.0f} "
        f"positions/s); target <= 3 h with 2 threads: "
        f"{verdict(total <= TARGET_SECONDS, complete)} "
        f"(times taken as measured with {threads} thread(s)).",
        f"* Peak RSS: **{peak / GiB:.2f} GiB**; target <= 12 GiB: "
        f"{verdict(peak <= TARGET_RSS, complete)}.",
        f"* Where the times come from: {origin} were already in the file, with the times "
        "their solve recorded.",
        "",
    ]


def file_section(table: Path, stored: dict[Sector, dict], complete: bool) -> list[str]:
    size = os.path.getsize(table)
    positions = sum(a["positions"] for a in stored.values())
    return [
        "## File",
        "",
        f"* `{table}`: **{size / 1e9:.3g} GB** ({size / GiB:.3g} GiB, {len(stored)} sectors, "
        f"{positions:,} positions); target <= ~10 GB: "
        f"{verdict(size <= TARGET_FILE_BYTES, complete)}.",
        f"* **{8 * size / positions:.2f} bits per position** (file size over the positions "
        "of every sector in it).",
        "",
    ]


def verify_section(verified: dict, sectors: list[Sector]) -> list[str]:
    done = [verified[sector_key(s)] for s in sectors if sector_key(s) in verified]
    if not done:
        return ["## Verification", "", "Not run.", ""]
    seconds = sum(d["seconds"] for d in done)
    positions = sum(d["positions"] for d in done)
    failed = [sector_key(s) for s in sectors
              if sector_key(s) in verified and not verified[sector_key(s)]["ok"]]
    if failed:
        verdict = f"**FAILED: {', '.join(failed)}**"
    elif len(done) < len(sectors):
        verdict = "not finished"
    else:
        verdict = "**all OK**"
    rate = f"{positions / seconds:,.0f}" if seconds else "-"
    return [
        "## Verification",
        "",
        f"Independent forward verification (`morris verify`), one sector at a time (each "
        f"call reads its sector and successors from disk): {len(done)} of {len(sectors)} "
        f"sectors, {positions:,} positions in **{hms(seconds)}** ({rate} positions/s): "
        f"{verdict}.",
        "",
    ]


def value_section(state: dict) -> list[str]:
    v = state.get("value")
    text = ("Not run (the search needs every moving-phase sector)." if v is None else
            f"Start position, first player (White) to move: **{v['value']}**; "
            f"{v['nodes']:,} nodes, {v['tt_entries']:,} positions in the transposition "
            f"table, {v['seconds']:.1f} s"
            + (f" ({v['load_seconds']:.1f} s of it loading the tables; table capped at "
               f"{v['tt_cap']:,} positions; peak RSS {v['peak_rss_bytes'] / GiB:.2f} GiB)"
               if "load_seconds" in v else "") + ".")
    return ["## Value (`morris value --search`)", "", text, ""]


def amdahl(
    speedup_2: float, seconds: float, threads: int, cores: int
) -> tuple[float, float, float]:
    """Parallel fraction ``p`` from a 2-thread speedup, the speedup on ``cores`` and the
    time on ``cores`` of a run that took ``seconds`` with ``threads``."""
    p = min(1.0, max(0.0, 2 * (1 - 1 / speedup_2)))
    on_cores, on_threads = (1 - p) + p / cores, (1 - p) + p / threads  # over 1-thread time
    return p, 1 / on_cores, seconds * on_cores / on_threads


def projection_section(groups: list[Group], state: dict, speedup_2: float | None,
                       threads: int) -> list[str]:
    title = [f"## Projection for a {PROJECTED_CORES}-core workstation", ""]
    scaling = state.get("scaling")
    if speedup_2 is not None:
        source = f"S2 = {speedup_2:.2f} (given with --speedup-2)"
    elif scaling:
        speedup_2 = scaling["seconds_1"] / scaling["seconds_2"]
        source = (f"S2 = {speedup_2:.2f}, measured by re-solving {scaling['sector']} "
                  f"({scaling['positions']:,} positions) in {scaling['seconds_1']:.2f} s with "
                  f"1 thread and {scaling['seconds_2']:.2f} s with 2")
    else:
        return title + ["Not available: run the scaling step or pass --speedup-2.", ""]
    total = sum(g.seconds for g in groups)
    p, s16, projected = amdahl(speedup_2, total, threads, PROJECTED_CORES)
    return title + [
        f"**This is a projection from Amdahl's law with the measured numbers, not a "
        f"measurement.** {source}. Parallel fraction p = 2 (1 - 1/S2) = {p:.3f}; "
        f"S{PROJECTED_CORES} = 1 / ((1 - p) + p/{PROJECTED_CORES}) = {s16:.2f}. Moving phase "
        f"on {PROJECTED_CORES} cores = measured total x ((1 - p) + p/{threads}) / ((1 - p) + "
        f"p/{PROJECTED_CORES}) = {hms(total)} x {projected / total:.3f} = **{hms(projected)}** "
        f"(assumes cores as fast as these and memory bandwidth that keeps up).",
        "",
    ]


def disk_section(markdown: str | None) -> list[str]:
    """The "Disk encoding" section: ``markdown`` from ``benchmarks/disk_encoding.py``."""
    if markdown is None:
        return []
    return ["## Disk encoding", "", markdown.strip(), ""]


def plot(groups: list[Group], ref: Group, path: Path, title: str) -> None:
    """Log-log scatter of seconds against positions per group, with the reference rate."""
    fig = Figure(figsize=(8, 5.5), layout="constrained")
    ax = fig.subplots()
    ax.scatter([g.positions for g in groups], [g.seconds for g in groups], zorder=3)
    for g in groups:
        ax.annotate(g.name, (g.positions, g.seconds), textcoords="offset points",
                    xytext=(4, 3), fontsize=8)
    xs = np.array([min(g.positions for g in groups) / 1.5, max(g.positions for g in groups) * 1.5])
    rate = 1 / ref.seconds_per_position
    ax.plot(xs, xs / rate, "--", color="grey", label=f"{ref.name} rate ({rate:,.0f} positions/s)")
    ax.plot(xs, SLOWER_LIMIT * xs / rate, ":", color="red",
            label=f"{SLOWER_LIMIT:g}x slower per position than {ref.name}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("positions per group")
    ax.set_ylabel("solve seconds per group")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.savefig(path, dpi=120)


def step_report(run: Run) -> None:
    args, variant, state, sectors = run.args, run.variant, run.state, run.sectors
    stored = TableFile.open(args.table).sectors()
    groups = groups_of(stored, sectors)
    if not groups:
        raise SystemExit(f"report: {args.table} holds no sector of this run; solve first")
    ref = reference_group(groups)
    planned = len(solve_plan(variant, "moving", args.max_stones))
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    png = Path(f"{args.out}_seconds_vs_positions.png")
    plot(groups, ref, png, f"{variant.name}, moving phase: solve time per group")
    module = disk_encoding()
    disk = module.markdown(state["disk"]) if module and "disk" in state else None
    verified = state.get("verify", {})
    lines = [
        *header(variant, run.command),
        *groups_section(groups, ref, verified),
        f"![seconds per group against positions per group]({png.name})",
        "",
        *retime_section(state, groups),
        *totals_section(groups, state, threads, planned),
        *file_section(args.table, stored, complete=len(groups) == planned),
        *verify_section(verified, sectors),
        *value_section(state),
        *projection_section(groups, state, args.speedup_2, threads),
        *disk_section(disk),
        *(["## Notes", "", *[line for note in args.note for line in (note, "")]]
          if args.note else []),
    ]
    report = Path(f"{args.out}_report.md")
    report.write_text("\n".join(lines))
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
                        "moving sector it can reach anyway (8.6 GiB for nine)")
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
        command = shlex.join(["python", os.path.relpath(__file__), *argv])
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
