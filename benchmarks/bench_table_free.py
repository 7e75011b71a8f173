"""The table-free engine's time a move (``engine.SearchEngine``: ``heuristic``'s
alpha-beta at ``SEARCH_DEPTHS``), in self-play from the start: what a player without
tables waits for each move, per depth.

    python benchmarks/bench_table_free.py nine --depths 2 4 6 7 8 --games 3
    python benchmarks/bench_table_free.py nine --depths 7 \
        --starts benchmarks/strength/nine-moving_starts.txt --count 30

Each depth plays ``--games`` games against itself (seeded, ties broken at random) for at
most ``--plies`` plies each and reports the mean and the longest time a move, in
``benchmarks/table_free/VARIANT.json``. The numbers are wall times of one
thread: run it with nothing beside it for a figure, or say what ran beside it (``--note``).

With ``--starts`` it times one move from each of the first ``--count`` positions of a file
(one a line; the strength benchmark's sampled moving-phase starts, say) instead, twice:
the move as ``choose`` finds it (each root move searched against the best score so far)
and every move's exact score (``scores(exact=True)``, how ``choose`` searched before);
the record goes to ``VARIANT-starts.json``. ``--node-budget N`` times a third search, the
chosen move's with the engine's node budget (``heuristic.HeuristicPlayer``'s
``node_budget``: fewer plies where the depth would search more nodes), and counts the
positions it cut; its record is ``VARIANT-starts-budget.json``:

    python benchmarks/bench_table_free.py nine --depths 7 \
        --starts benchmarks/strength/nine-moving_starts.txt --count 200 --node-budget 5000000
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

from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.play.heuristic import HeuristicPlayer  # noqa: E402
from morris_solver.rules.game import Game  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.variants import get_variant  # noqa: E402

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


def time_starts(variant: str, depth: int, starts: list[Position],
                node_budget: int | None = None) -> dict:
    """One move from each start at ``depth``: the chosen move's search and the exact
    scores of every move (and with ``node_budget`` the chosen move's search within it),
    interleaved, each timed."""
    player = HeuristicPlayer(variant, depth, random.Random(0))
    budgeted = HeuristicPlayer(variant, depth, random.Random(0), node_budget)
    player.scores(starts[0], exact=False)  # the kernel loaded before timing
    searches = [("exact", player, True), ("choose", player, False)]
    if node_budget is not None:
        searches.append(("budget", budgeted, False))
    times: dict[str, list[float]] = {name: [] for name, _, _ in searches}
    cut = 0
    for position in starts:
        for name, searcher, exact in searches:
            start = time.perf_counter()
            searcher.scores(position, exact=exact)
            times[name].append(time.perf_counter() - start)
        cut += budgeted.searched_depth < depth
    row = {"depth": depth, "positions": len(starts)} | {
        f"{name}_{stat}": fn(found) for name, found in times.items()
        for stat, fn in (("total_seconds", sum), ("max_seconds", max))}
    if node_budget is not None:
        row |= {"node_budget": node_budget, "budget_cut_positions": cut}
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 4, 7])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--starts", type=Path, help="a file of positions: time one move "
                        "from each (see above) instead of self-play")
    parser.add_argument("--count", type=int, default=30,
                        help="with --starts: the first N positions [30]")
    parser.add_argument("--node-budget", type=int, help="with --starts: time the chosen "
                        "move's search within this many nodes too (see above)")
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    rows = []
    if args.starts:
        if not args.starts.is_file():
            parser.error(f"no file {args.starts} for --starts")
        try:
            starts = [Position.parse(line, args.variant) for line in
                      args.starts.read_text().splitlines() if line.strip()][:args.count]
        except MorrisError as e:
            parser.error(f"{args.starts}: {e}")
        if not starts:
            parser.error(f"no position in {args.starts}")
    if args.node_budget is not None and (not args.starts or args.node_budget < 1):
        parser.error("--node-budget needs --starts and at least 1 node")
    for depth in args.depths if not args.starts else ():
        rows.append(time_depth(args.variant, depth, args.games, args.plies))
        row = rows[-1]
        print(f"depth {depth}: {row['moves']} moves, {row['mean_seconds']:.3f} s a move on "
              f"average, {row['max_seconds']:.2f} s at most", flush=True)
    for depth in args.depths if args.starts else ():
        rows.append(time_starts(args.variant, depth, starts, args.node_budget))
        row = rows[-1]
        print(f"depth {depth}, {row['positions']} positions: choose "
              f"{row['choose_total_seconds']:.1f} s in all ({row['choose_max_seconds']:.2f} s "
              "at most), every move exact "
              f"{row['exact_total_seconds']:.1f} s ({row['exact_max_seconds']:.2f} s at most)",
              flush=True)
        if args.node_budget is not None:
            print(f"  within {args.node_budget:,} nodes: {row['budget_total_seconds']:.1f} s "
                  f"in all ({row['budget_max_seconds']:.2f} s at most), "
                  f"{row['budget_cut_positions']} positions searched less deep", flush=True)
    OUT.mkdir(exist_ok=True)
    record = {"command": command_line("benchmarks/bench_table_free.py",
                                      argv if argv is not None else sys.argv[1:]),
              "toolkit": toolkit_commit(), "machine": machine(), "note": args.note,
              "depths": rows}
    suffix = ("-starts" if args.starts else "") + ("-budget" if args.node_budget else "")
    path = OUT / f"{args.variant}{suffix}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
