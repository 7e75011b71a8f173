"""Re-time solve groups with the current kernels, from the exits stored in a table file.

    python benchmarks/retime_groups.py 8-3 9-3 6-6 [--table data/nine.h5] [--threads 2]

Groups solved by an older commit keep the time they took then; this solves them again
(nothing is written), checks the result equals the file, and prints positions/s and the
time per position relative to the last group named (e.g. 6-6, the issue's reference).
"""

from __future__ import annotations

import argparse

from bench_nine import load_kernels, resolve_seconds

from solver.sectors import parse_sector, sector_key, twin
from solver.storage import TableFile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="+", type=parse_sector, metavar="W-B")
    parser.add_argument("--table", default="data/nine.h5")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    table = TableFile.open(args.table)
    stored = table.sectors()
    load_kernels(table.variant, table, None)
    rows = []
    for sector in args.groups:
        group = tuple(sorted(twin(sector), reverse=True))
        missing = [sector_key(s) for s in group if s not in stored]
        if missing:
            raise SystemExit(f"{args.table} lacks {', '.join(missing)}")
        seconds = resolve_seconds(table.variant, table, group, args.threads)
        positions = sum(stored[s]["positions"] for s in group)
        rows.append((f"{sector[0]}-{sector[1]}", positions, seconds))
    reference = rows[-1][2] / rows[-1][1]
    for name, positions, seconds in rows:
        print(f"{name}: {positions:,} positions in {seconds:.1f} s ({positions / seconds:,.0f}/s), "
              f"{seconds / positions / reference:.2f}x {rows[-1][0]} per position, identical "
              "to the file", flush=True)


if __name__ == "__main__":
    main()
