"""The table-free engine's time a move (``engine.SearchEngine``: ``heuristic``'s
alpha-beta at ``SEARCH_DEPTHS``), in self-play from the start: what a player without
tables waits for each move, per depth.

    python benchmarks/bench_table_free.py nine --depths 2 4 6 7 8 --games 3

Each depth plays ``--games`` games against itself (seeded, ties broken at random) for at
most ``--plies`` plies each and reports the mean and the longest time a move, in
``benchmarks/table_free/VARIANT.json``. The numbers are wall times of one
thread: run it with nothing beside it for a figure, or say what ran beside it (``--note``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its siblings bench_*

from bench_report import command_line, machine  # noqa: E402
from bench_state import toolkit_commit  # noqa: E402

from morris_solver.game import Game  # noqa: E402
from morris_solver.heuristic import HeuristicPlayer  # noqa: E402
from morris_solver.variants import get_variant  # noqa: E402

OUT = Path(__file__).resolve().parent / "table_free"


def time_depth(variant: str, depth: int, games: int, plies: int) -> dict:
    """Self-play at ``depth``: the moves timed, their mean and longest seconds."""
    times = []
    for seed in range(games):
        player = HeuristicPlayer(variant, depth, random.Random(seed))
        game = Game(get_variant(variant))
        player.choose(game)  # the kernel loaded (from Numba's cache) before timing
        while game.outcome() is None and len(game.history) < plies:
            start = time.perf_counter()
            move = player.choose(game)
            times.append(time.perf_counter() - start)
            game.play(move)
    return {"depth": depth, "moves": len(times), "mean_seconds": sum(times) / len(times),
            "max_seconds": max(times)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 4, 7])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    rows = []
    for depth in args.depths:
        rows.append(time_depth(args.variant, depth, args.games, args.plies))
        row = rows[-1]
        print(f"depth {depth}: {row['moves']} moves, {row['mean_seconds']:.3f} s a move on "
              f"average, {row['max_seconds']:.2f} s at most", flush=True)
    OUT.mkdir(exist_ok=True)
    record = {"command": command_line("benchmarks/bench_table_free.py",
                                      argv if argv is not None else sys.argv[1:]),
              "toolkit": toolkit_commit(), "machine": machine(), "note": args.note,
              "depths": rows}
    path = OUT / f"{args.variant}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
