"""An interleaved A/B timing of one group's solve (``bench_group.py``) in two checkouts.

``interleave.py`` times a whole ``morris`` command; this runs each checkout's own
``benchmarks/bench_group.py TABLE GROUP --threads 2`` with its own ``.venv`` (``make
install`` there first), alternating A, B, B, A, ... so that neither always runs first,
and keeps the group's init pass and level passes apart (the compile and the loading of
the exits are outside both). Each run re-solves the group and checks it against the
table, so a run of a wrong kernel stops the benchmark.

Usage: ``python benchmarks/interleave_group.py BASE NEW TABLE GROUP --rounds 3 --json
FILE``, e.g. ``... /work/base /work/main n8.h5 7-7`` (TABLE: ``morris solve nine
--max-stones 8 --phase moving``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

FIELDS = {"total": r"total\s+([\d.]+) s", "init": r"init pass\s+([\d.]+) s",
          "levels": r"levels\s+([\d.]+) s"}


def run_once(tree: Path, table: Path, group: str, threads: int) -> dict:
    """The seconds ``bench_group.py`` of ``tree`` reports for ``group``."""
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    start = time.perf_counter()
    done = subprocess.run(
        [str(tree / ".venv" / "bin" / "python"), str(tree / "benchmarks" / "bench_group.py"),
         str(table), group, "--threads", str(threads)],
        capture_output=True, text=True, cwd=tree, env=env,
    )
    if done.returncode:
        raise SystemExit(f"error: {tree}: {done.stderr.strip().splitlines()[-1]}")
    found = {k: float(m.group(1)) for k, p in FIELDS.items() if (m := re.search(p, done.stdout))}
    return {**found, "wall": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="checkout A (before)")
    parser.add_argument("new", type=Path, help="checkout B (after)")
    parser.add_argument("table", type=Path, help="a table file holding the group and its exits")
    parser.add_argument("group", help="a sector of the group, e.g. 7-7 or 8-7")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "new": args.new.resolve()}
    runs: dict[str, list[dict]] = {"base": [], "new": []}
    for r in range(args.rounds):
        for name in (["base", "new"] if r % 2 == 0 else ["new", "base"]):
            runs[name].append(run_once(trees[name], args.table.resolve(), args.group,
                                       args.threads))
            m = runs[name][-1]
            print(f"round {r + 1} {name}: group {m['total']:.1f} s (init {m['init']:.1f} s, "
                  f"levels {m['levels']:.1f} s)", flush=True)
    medians = {n: {k: statistics.median(m[k] for m in runs[n]) for k in FIELDS} for n in runs}
    for k in FIELDS:
        print(f"median {k}: base {medians['base'][k]:.1f} s, new {medians['new'][k]:.1f} s, "
              f"speed-up {medians['base'][k] / medians['new'][k]:.2f}x")
    if args.json:
        commits = {n: subprocess.run(["git", "-C", str(t), "rev-parse", "--short", "HEAD"],
                                     capture_output=True, text=True).stdout.strip()
                   for n, t in trees.items()}
        args.json.write_text(json.dumps({
            "command": " ".join(sys.argv), "commits": commits, "runs": runs, "median": medians,
        }, indent=1) + "\n")


if __name__ == "__main__":
    main()
