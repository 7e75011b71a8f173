"""An interleaved A/B timing of one ``morris`` command in two checkouts.

The machine is noisy, so the two checkouts' runs alternate round by round (A, B, B, A,
A, B, ...: neither always runs first) and the medians of the wall times are compared.
Each checkout runs its own ``.venv/bin/morris`` (``make install`` there first, and one
untimed run, so that both have compiled and cached their kernels), and writes its
tables into a fresh folder every run: ``{out}`` in the command is replaced by that
folder.

Usage: ``python benchmarks/interleave.py BASE NEW --rounds 5 -- solve nine --max-stones
5 --phase moving --threads 2 --out {out}/nine.h5`` (BASE and NEW: the checkouts'
folders). ``--json FILE`` keeps every run's time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_once(tree: Path, command: list[str]) -> float:
    """Wall seconds of the command in ``tree``, into a fresh folder."""
    out = Path(tempfile.mkdtemp(prefix="interleave-"))
    try:
        argv = [str(tree / ".venv" / "bin" / "morris")] + [a.replace("{out}", str(out))
                                                           for a in command]
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       cwd=tree)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="checkout A (before)")
    parser.add_argument("new", type=Path, help="checkout B (after)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("give the morris command after --, with {out} for the output folder")
    cut = argv.index("--")
    args = parser.parse_args(argv[:cut])
    command = argv[cut + 1 :]
    trees = {"base": args.base.resolve(), "new": args.new.resolve()}
    for tree in trees.values():  # compile and cache the kernels, untimed
        run_once(tree, command)
    times: dict[str, list[float]] = {"base": [], "new": []}
    for r in range(args.rounds):
        order = ["base", "new"] if r % 2 == 0 else ["new", "base"]
        for name in order:
            times[name].append(run_once(trees[name], command))
        print(f"round {r + 1}: " + ", ".join(f"{n} {times[n][-1]:.2f} s" for n in order),
              flush=True)
    medians = {n: statistics.median(t) for n, t in times.items()}
    print(f"median: base {medians['base']:.2f} s, new {medians['new']:.2f} s, "
          f"speed-up {medians['base'] / medians['new']:.2f}x")
    if args.json:
        commits = {n: subprocess.run(["git", "-C", str(t), "rev-parse", "--short", "HEAD"],
                                     capture_output=True, text=True).stdout.strip()
                   for n, t in trees.items()}
        args.json.write_text(json.dumps({
            "command": "morris " + " ".join(command), "commits": commits, "seconds": times,
            "median": medians, "speedup": medians["base"] / medians["new"],
        }, indent=1) + "\n")


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as e:
        print(f"error: a run failed: {' '.join(e.cmd)}", file=sys.stderr)
        raise SystemExit(1) from None
