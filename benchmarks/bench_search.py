"""Nodes, seconds and transposition-table size of the opening search
(``morris value VARIANT --search``): alpha-beta over the placement phase with the
moving-phase tables at the leaves.

Usage: ``python benchmarks/bench_search.py VARIANT [--db PATH] [--metric wdl|dtm]
[--tt-entries N] [--order N,N,...] [--etc-plies N,N,...] [--max-nodes N]``, e.g.
``python benchmarks/bench_search.py six --db six.h5 --order 1,31 --etc-plies 99,3``.
Every combination of ``--order`` and ``--etc-plies`` (``morris_solver.search._rank``: move
order bits; stones in both hands from which a node first looks up all its successors
in the transposition table) is searched from the start position in one process: the
moving-phase tables are loaded once (the first line's load seconds) and kept in memory.
A search from a small late placement position runs first, so that the timed lines do
not include compiling the kernel (after an edit of ``solver/``).
Each line is checked against the tables' value when the file holds the start sector.
A search that passes ``--max-nodes`` is stopped and reported as such (a budget for
trying settings on Nine Men's Morris).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

# this checkout's solver, not the installed one (see bench_index.py)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from morris_solver.errors import MorrisError  # noqa: E402
from morris_solver.generate import default_table_path, peak_rss_bytes  # noqa: E402
from morris_solver.position import Position  # noqa: E402
from morris_solver.probe import MissingSectorError, Tablebase  # noqa: E402
from morris_solver.rules import terminal  # noqa: E402
from morris_solver.search import (  # noqa: E402
    DEFAULT_ETC_PLIES,
    DEFAULT_ORDER,
    DEFAULT_TT_ENTRIES,
    search_value,
)
from morris_solver.sectors import reachable_sectors  # noqa: E402
from morris_solver.variants import Variant, get_variant  # noqa: E402


class OverBudget(Exception):
    pass


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def _warm_up_position(variant: Variant) -> Position:
    """A position with one stone in each hand and as few on the board as the rules
    allow: its search needs only small moving sectors."""
    sectors = sorted((s for s in reachable_sectors(variant) if s[2] == s[3] == 1),
                     key=lambda s: (s[0] + s[1], s))
    rng = random.Random(0)
    W, B, WF, BF = sectors[0]
    while True:
        points = rng.sample(range(variant.board.n), W + B)
        pos = Position.from_sides(variant, sum(1 << p for p in points[:W]),
                                  sum(1 << p for p in points[W:]), WF, BF, True)
        if terminal(pos) is None:
            return pos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant")
    parser.add_argument("--db", type=Path, default=None, help="default: data/VARIANT.h5")
    parser.add_argument("--metric", choices=("wdl", "dtm"), default="wdl")
    parser.add_argument("--tt-entries", type=int, default=DEFAULT_TT_ENTRIES)
    parser.add_argument("--order", type=_ints, default=[DEFAULT_ORDER])
    parser.add_argument("--etc-plies", type=_ints, default=[DEFAULT_ETC_PLIES])
    parser.add_argument("--cache-gib", type=float, default=12.0,
                        help="probe cache: large enough to keep every moving sector")
    parser.add_argument("--max-nodes", type=int, default=None,
                        help="stop a search after this many nodes")
    parser.add_argument("--progress-seconds", type=float, default=60.0)
    args = parser.parse_args()
    variant = get_variant(args.variant)
    db = args.db if args.db is not None else default_table_path(variant)
    tb = Tablebase.open(db, cache_bytes=int(args.cache_gib * 2**30))
    start = Position.start(variant)
    try:
        expected = tb.probe(start)
    except MissingSectorError:
        expected = None  # only the moving phase is solved
    print(f"{variant.name} from the start, metric {args.metric}, table {db}, "
          f"--tt-entries {args.tt_entries:,}", flush=True)
    late = _warm_up_position(variant)
    began = time.perf_counter()
    search_value(tb, late, metric=args.metric)
    print(f"warm-up search from {late}: {time.perf_counter() - began:.2f} s", flush=True)
    for order, etc_plies in itertools.product(args.order, args.etc_plies):
        began = time.perf_counter()

        def progress(nodes: int, entries: int, began: float = began) -> None:
            print(f"  ... {nodes:,} nodes, {entries:,} TT entries, "
                  f"{time.perf_counter() - began:.0f} s", flush=True)
            if args.max_nodes is not None and nodes > args.max_nodes:
                raise OverBudget(nodes)

        try:
            found = search_value(tb, metric=args.metric, max_tt_entries=args.tt_entries,
                                 order=order, etc_plies=etc_plies, progress=progress,
                                 progress_seconds=args.progress_seconds)
        except OverBudget as e:
            print(f"order {order:3d} etc-plies {etc_plies:3d}: stopped past --max-nodes at "
                  f"{e.args[0]:,} nodes after {time.perf_counter() - began:.2f} s wall",
                  flush=True)
            continue
        wall = time.perf_counter() - began
        if expected is None:
            check = "(no start table to check against)"
        else:
            want = expected if args.metric == "dtm" else type(expected)(expected.result)
            check = "= tables" if found.value == want else f"!= tables ({want}): WRONG"
        print(f"order {order:3d} etc-plies {etc_plies:3d}: {found.value} {check}; "
              f"{found.nodes:,} nodes, {found.seconds - found.load_seconds:.2f} s search + "
              f"{found.load_seconds:.2f} s loading ({wall:.2f} s wall), "
              f"{found.tt_entries:,} TT entries, peak RSS {peak_rss_bytes() / 2**30:.2f} GiB",
              flush=True)


if __name__ == "__main__":
    try:
        main()
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None
