"""Nodes, seconds and transposition-table size of the opening search
(``morris value VARIANT --search``): alpha-beta over the placement phase with the
moving-phase tables at the leaves.

Usage: ``python benchmarks/bench_search.py VARIANT [--db PATH] [--metric wdl|dtm]
[--tt-entries N] [--order N,N,...] [--etc-plies N,N,...] [--win-first 0,1] [--max-nodes N]
[--after PLIES,... --lines N]``, e.g.
``python benchmarks/bench_search.py six --db six.h5 --order 1,31 --etc-plies 99,3``.
Every combination of ``--order``, ``--etc-plies`` (``morris_solver.search.search._rank``: move
order bits; stones in both hands from which a node first looks up all its successors
in the transposition table) and ``--win-first`` (1: "a win?" then "a loss?" with null
windows, instead of the window (-1, 1)) is searched from the start position in one
process: the moving-phase tables are loaded once and kept in memory, each search starts
with an empty transposition table. ``--after 16,14`` searches instead the positions
after that many plies of ``--lines`` random placement lines (seeded, so every
combination and every run meets the same positions): how the search's cost grows with
the plies left, where the start is out of reach.
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

from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.query.probe import MissingSectorError, Tablebase  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.rules import successors, terminal  # noqa: E402
from morris_solver.rules.sectors import reachable_sectors  # noqa: E402
from morris_solver.rules.variants import Variant, get_variant  # noqa: E402
from morris_solver.search.search import (  # noqa: E402
    DEFAULT_ETC_PLIES,
    DEFAULT_ORDER,
    DEFAULT_TT_ENTRIES,
    PlacementSearch,
    search_value,
)
from morris_solver.solving.generate import default_table_path, peak_rss_bytes  # noqa: E402


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


def random_line_positions(variant: Variant, plies: list[int], lines: int
                          ) -> list[tuple[str, Position]]:
    """The positions after each of ``plies`` placement plies of ``lines`` random lines from
    the start (line L drawn with seed L), labelled, the fewest stones in hand (the
    cheapest searches) first; a line over sooner gives fewer."""
    found: list[tuple[int, str, Position]] = []
    for line in range(lines):
        rng, pos = random.Random(line), Position.start(variant)
        for ply in range(max(plies) + 1):
            if terminal(pos) is not None or not (pos.mover_hand or pos.other_hand):
                break
            if ply in plies:
                hand = pos.mover_hand + pos.other_hand
                found.append((hand, f"line {line} after {ply} plies ({hand} stones in hand)",
                              pos))
            pos = rng.choice(successors(pos))[1]
    return [(label, pos) for _, label, pos in sorted(found, key=lambda f: f[0])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant")
    parser.add_argument("--db", type=Path, default=None, help="default: data/VARIANT.h5")
    parser.add_argument("--metric", choices=("wdl", "dtm"), default="wdl")
    parser.add_argument("--tt-entries", type=int, default=DEFAULT_TT_ENTRIES)
    parser.add_argument("--order", type=_ints, default=[DEFAULT_ORDER])
    parser.add_argument("--etc-plies", type=_ints, default=[DEFAULT_ETC_PLIES])
    parser.add_argument("--win-first", type=_ints, default=[0],
                        help="0, 1 or both (0,1): WDL's two null-window tests")
    parser.add_argument("--after", type=_ints, default=None,
                        help="search the positions after these plies of random lines")
    parser.add_argument("--lines", type=int, default=3, help="random lines for --after")
    parser.add_argument("--cache-gib", type=float, default=12.0,
                        help="probe cache: large enough to keep every moving sector")
    parser.add_argument("--max-nodes", type=int, default=None,
                        help="stop a search after this many nodes")
    parser.add_argument("--progress-seconds", type=float, default=60.0)
    args = parser.parse_args()
    variant = get_variant(args.variant)
    db = args.db if args.db is not None else default_table_path(variant)
    # no search route: a placement position the file lacks has no table value to check
    tb = Tablebase.open(db, cache_bytes=int(args.cache_gib * 2**30), search=False)
    start = Position.start(variant)
    if args.after is None:
        roots = [("the start", start)]
    else:
        roots = random_line_positions(variant, args.after, args.lines)
    print(f"{variant.name}, metric {args.metric}, table {db}, "
          f"--tt-entries {args.tt_entries:,}", flush=True)
    late = _warm_up_position(variant)
    began = time.perf_counter()
    search_value(tb, late, metric=args.metric)
    print(f"warm-up search from {late}: {time.perf_counter() - began:.2f} s", flush=True)
    session = PlacementSearch(tb, metric=args.metric, max_tt_entries=args.tt_entries)
    began = time.perf_counter()
    session.load(start)
    print(f"moving-phase tables loaded in {time.perf_counter() - began:.0f} s", flush=True)
    values: dict[str, set[str]] = {}
    for label, root in roots:
        try:
            expected = tb.probe(root)
        except MissingSectorError:
            expected = None  # only the moving phase is solved
        for order, etc_plies, win_first in itertools.product(args.order, args.etc_plies,
                                                             args.win_first):
            session.order, session.etc_plies = order, etc_plies
            session.win_first = bool(win_first)
            session.clear()
            setting = f"{label}: order {order} etc-plies {etc_plies} win-first {win_first}"
            began = time.perf_counter()

            def progress(nodes: int, entries: int, began: float = began) -> None:
                print(f"  ... {nodes:,} nodes, {entries:,} TT entries, "
                      f"{time.perf_counter() - began:.0f} s", flush=True)
                if args.max_nodes is not None and nodes > args.max_nodes:
                    raise OverBudget(nodes)

            try:
                found = session.search(root, progress=progress,
                                       progress_seconds=args.progress_seconds)
            except OverBudget as e:
                print(f"{setting}: stopped past --max-nodes at {e.args[0]:,} nodes after "
                      f"{time.perf_counter() - began:.2f} s", flush=True)
                continue
            values.setdefault(label, set()).add(str(found.value))
            if expected is None:
                check = "(no table to check against)"
            else:
                want = expected if args.metric == "dtm" else type(expected)(expected.result)
                check = "= tables" if found.value == want else f"!= tables ({want}): WRONG"
            print(f"{setting}: {found.value} {check}; {found.nodes:,} nodes, "
                  f"{found.seconds:.2f} s, {found.tt_entries:,} TT entries, "
                  f"peak RSS {peak_rss_bytes() / 2**30:.2f} GiB", flush=True)
    split = sorted(label for label, found in values.items() if len(found) > 1)
    if split:
        raise SystemExit(f"the settings disagree on {', '.join(split)}: WRONG")


if __name__ == "__main__":
    try:
        main()
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None
