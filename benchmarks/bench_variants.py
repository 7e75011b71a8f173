"""The house-rule variants end to end, one after another: solve (moving and placement
phases, sharing what another variant's file holds), verify every sector, the start
position's value from the tables and, independently, by search over the placement
phase from the moving-phase tables; a report of each run's time, memory and size.

    python benchmarks/bench_variants.py nine-noflying nine-doublemill \\
        nine-nocapture-placement nine-diagonal

Every step resumes: the solve from the table file, the rest from
``benchmarks/out/variants_state.json`` (a variant's verification sector by sector). The
report is ``benchmarks/variants_report.md``. A long run shares the cores with whatever
else runs: its times are then upper bounds, and ``--note`` says so in the report.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its siblings bench_*

from bench_report import GiB, hms, machine  # noqa: E402
from bench_state import load_state, save_merged, verify_sectors  # noqa: E402

from solver.errors import MorrisError  # noqa: E402
from solver.generate import solve  # noqa: E402
from solver.position import Position  # noqa: E402
from solver.probe import Tablebase  # noqa: E402
from solver.search import search_start_value  # noqa: E402
from solver.storage import TableFile, default_table_path  # noqa: E402
from solver.variants import get_variant  # noqa: E402

STATE = Path("benchmarks/out/variants_state.json")
REPORT = Path("benchmarks/variants_report.md")


def run_variant(name: str, state: dict, threads: int | None) -> None:
    """Solve, verify and value one variant, recording each result in ``state[name]``."""
    variant = get_variant(name)
    path = default_table_path(variant)
    done = state.setdefault(name, {})
    save = lambda: save_merged(STATE, state)  # noqa: E731
    if "solve" not in done:
        start = time.perf_counter()
        report = solve(variant, path, threads=threads)
        done["solve"] = {"seconds": time.perf_counter() - start, "groups": len(report.solved),
                         "shared": report.shared}
        save()
    table = TableFile.open(path)
    verified = done.setdefault("verify", {})
    verify_sectors(path, sorted(table.sector_set()), verified, save, threads)
    if "value" not in done:
        done["value"] = str(Tablebase.open(path).probe(Position.start(variant)))
        save()
    if "search" not in done:
        found = search_start_value(Tablebase.open(path, cache_bytes=12 * GiB))
        done["search"] = {"value": str(found.value), "nodes": found.nodes,
                          "seconds": found.seconds}
        save()


def report(names: list[str], state: dict, command: str, notes: list[str]) -> None:
    lines = [
        "# The house-rule variants, end to end", "",
        f"Produced by `{command}`. Machine: {machine()}.", "",
        "| variant | solve | peak RSS GiB | file GB | sectors (shared) | verified | "
        "start (tables) | start (search) | search nodes, time |",
        "|---|---:|---:|---:|---:|---|---|---|---|",
    ]
    for name in names:
        done = state.get(name, {})
        path = default_table_path(name)
        if "solve" not in done or not path.exists():
            lines.append(f"| {name} | not run | | | | | | | |")
            continue
        table = TableFile.open(path)
        sectors = table.sector_set()
        links = table.shared_sectors()
        # the peak of each group's own solve, as the file records it (shared ones excluded)
        peak = max((st["peak_rss_bytes"] for s, st in table.sectors().items() if s not in links),
                   default=0)
        verified = done.get("verify", {})
        ok = sum(v["ok"] for v in verified.values())
        solved = done["solve"]
        search = done.get("search")
        lines.append(
            f"| {name} | {hms(solved['seconds'])} | {peak / GiB:.2f} | "
            f"{os.path.getsize(path) / 1e9:.3g} | {len(sectors)} "
            f"({len(links)}) | {ok} of {len(sectors)} OK "
            f"({hms(sum(v['seconds'] for v in verified.values()))}) | "
            f"{done.get('value', '-')} | {search['value'] if search else '-'} | "
            + (f"{search['nodes']:,}, {search['seconds']:.0f} s |" if search else "- |")
        )
    if notes:
        lines += ["", "## Notes", "", *[line for note in notes for line in (note, "")]]
    REPORT.write_text("\n".join(lines) + "\n")
    print(f"wrote {REPORT}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--note", action="append", default=[])
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "benchmarks/bench_variants.py",
                          *(argv if argv is not None else sys.argv[1:])])
    try:
        state = load_state(STATE, {"benchmark": "variants"})
        if not args.report_only:
            for name in args.variants:
                run_variant(name, state, args.threads)
        report(args.variants, state, command, args.note)
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None


if __name__ == "__main__":
    main()
