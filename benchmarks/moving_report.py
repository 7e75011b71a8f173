"""The report of ``bench_nine.py`` (``OUT_report.md``): the moving phase's solve per
group against the reference group, the totals against the issue's targets, the file,
the verification, the start value, the projection to more cores, and a plot of seconds
against positions."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from bench_report import GiB, hms, machine, verdict, verification_summary
from matplotlib.figure import Figure

from morris_solver.rules.sectors import Sector, sector_key
from morris_solver.rules.variants import Variant
from morris_solver.tables.storage import TableFile

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
    summary = verification_summary(verified, sectors, "sectors")
    if summary is None:
        return ["## Verification", "", "Not run.", ""]
    return [
        "## Verification",
        "",
        "Independent forward verification (`morris verify`), one sector at a time (each "
        f"call reads its sector and successors from disk): {summary}.",
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


def write_report(table: Path, variant: Variant, sectors: list[Sector], planned: int,
                 state: dict, out: Path, command: str, threads: int,
                 speedup_2: float | None, notes: list[str], disk: str | None
                 ) -> tuple[Path, Path]:
    """Write ``OUT_report.md`` and its plot ``OUT_seconds_vs_positions.png`` from the
    table's attributes and the benchmark's state (``planned``: the run's number of
    groups); returns their paths."""
    stored = TableFile.open(table).sectors()
    groups = groups_of(stored, sectors)
    if not groups:
        raise SystemExit(f"report: {table} holds no sector of this run; solve first")
    ref = reference_group(groups)
    png = Path(f"{out}_seconds_vs_positions.png")
    plot(groups, ref, png, f"{variant.name}, moving phase: solve time per group")
    verified = state.get("verify", {})
    lines = [
        *header(variant, command),
        *groups_section(groups, ref, verified),
        f"![seconds per group against positions per group]({png.name})",
        "",
        *retime_section(state, groups),
        *totals_section(groups, state, threads, planned),
        *file_section(table, stored, complete=len(groups) == planned),
        *verify_section(verified, sectors),
        *value_section(state),
        *projection_section(groups, state, speedup_2, threads),
        *disk_section(disk),
        *(["## Notes", "", *[line for note in notes for line in (note, "")]] if notes else []),
    ]
    report = Path(f"{out}_report.md")
    report.write_text("\n".join(lines))
    return report, png
