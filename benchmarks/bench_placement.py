"""The placement phase from the tables: what it looks like by ply, how White's first
moves score, whether the table route and the search route agree, and how fast a cold
command-line probe and a warm API probe answer.

Usage: ``python benchmarks/bench_placement.py STEP TABLE [options]``; each step prints
a Markdown section for the benchmark report:

- ``byply``: per ply 0 .. 2 x stones (the moving phase at the last), canonical positions,
  wins, draws and losses for the side to move, from the sectors' stored statistics; then
  every first move of the start position with its value, grouped by symmetry class.
- ``routes``: random reachable placement positions (random games from the start),
  ``--samples`` at each ply of ``--plies``, valued by the tables (``Tablebase.probe``)
  and by the search from the moving-phase tables alone (``search_value``, win/draw/loss);
  at the plies of ``--distance-plies`` the search also gives the distance, which must
  equal the table's. Exit status 1 if any position disagrees.
- ``probe``: wall time of cold ``morris probe`` commands (a new process each) on
  positions of the largest placement sectors, and of warm probes and best moves
  through the Python API once the sectors are cached.

E.g. ``python benchmarks/bench_placement.py routes data/nine.h5 --plies 12-17
--samples 1700 --distance-plies 14-17``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

# this checkout's solver, not the installed one (see bench_index.py)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.errors import MorrisError  # noqa: E402
from solver.indexing import canonical_index, index_tables  # noqa: E402
from solver.position import Position  # noqa: E402
from solver.probe import Tablebase  # noqa: E402
from solver.rules import legal_moves, play, terminal  # noqa: E402
from solver.search import search_value  # noqa: E402
from solver.storage import TableFile  # noqa: E402
from solver.values import Result  # noqa: E402

MORRIS = Path(sys.executable).with_name("morris")


def _plies(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def ply_of(variant, sector) -> int:
    """Plies played to reach a sector: stones that left the hands (a placement sector's
    positions all lie at one ply; the moving phase counts as ply 2 x stones)."""
    return 2 * variant.stones - sector[2] - sector[3]


def by_ply(table: TableFile) -> str:
    variant = table.variant
    rows: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for sector, st in table.sectors().items():
        row = rows[ply_of(variant, sector)]
        row["sectors"] += 1
        for key in ("positions", "wins", "draws", "losses"):
            row[key] += st[key]
    last = 2 * variant.stones
    lines = [
        f"### {variant.name}: the placement phase by ply",
        "",
        "Canonical positions of the sectors at each ply (every placement of the stones "
        "in hand, one per symmetry class, as the index counts them: not all are reachable "
        f"in a game), valued for the side to move. Ply {last} is the whole moving phase.",
        "",
        "| ply | sectors | positions | wins | draws | losses |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for ply in sorted(rows):
        r = rows[ply]
        label = f"{ply} (moving)" if ply == last else str(ply)
        lines.append(
            f"| {label} | {r['sectors']} | {r['positions']:,} | {r['wins']:,} | "
            f"{r['draws']:,} | {r['losses']:,} |"
        )
    return "\n".join(lines)


def first_moves(table: TableFile) -> str:
    """Every first move of the start position with its value, by symmetry class."""
    variant = table.variant
    tb = Tablebase.open(table.path)
    start = Position.start(variant)
    T = index_tables(variant.board, variant.stones)
    classes: dict[int, list] = defaultdict(list)
    for mv in tb.moves(start):
        after = play(start, mv.move)
        index = canonical_index(T, after.mover.bit_count(), after.other.bit_count(),
                                after.mover, after.other)
        classes[index].append(mv)
    lines = [
        f"### {variant.name}: White's first moves",
        "",
        f"Start position: **{tb.probe(start)}** for White. Moves in one row lead to "
        "positions that a symmetry of the board maps onto each other.",
        "",
        "| moves | value for White |",
        "|---|---|",
    ]
    for moves in sorted(classes.values(), key=lambda ms: (ms[0].value.sort_key(), ms[0].text)):
        lines.append(f"| {', '.join(mv.text for mv in moves)} | {moves[0].value} |")
    return "\n".join(lines)


def random_position(variant, ply: int, rng: random.Random) -> Position | None:
    """The position after ``ply`` random legal moves from the start, or None if the
    game ended before."""
    position = Position.start(variant)
    for _ in range(ply):
        moves = legal_moves(position)
        if not moves:
            return None
        position = play(position, rng.choice(moves))
    return None if terminal(position) else position


def routes(table: TableFile, plies: list[int], samples: int, distance_plies: set[int],
           seed: int, tt_entries: int) -> tuple[str, int]:
    variant = table.variant
    # one Tablebase for both routes, its cache unbounded so that the search's
    # moving-phase sectors stay loaded: the search reads only those, the table route
    # reads the placement sectors (chunk-wise) and the moving ones
    tables = searcher = Tablebase.open(table.path, cache_bytes=1 << 40)
    rng = random.Random(seed)
    lines = [
        f"### {variant.name}: the table route against the search route",
        "",
        f"Random reachable positions (random games from the start, seed {seed}), valued by "
        "the placement tables and by the search over the placement phase from the "
        "moving-phase tables alone.",
        "",
        "| ply | positions | wins | draws | losses | WDL agree | distance compared "
        "| distance agree | search s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    disagreements = 0
    for ply in plies:
        tally = defaultdict(int)
        found = 0
        seconds = 0.0
        tries = 0
        while found < samples and tries < 100 * samples:
            tries += 1
            position = random_position(variant, ply, rng)
            if position is None or position.mover_hand == 0:
                continue
            found += 1
            expected = tables.probe(position)
            tally[expected.result] += 1
            started = time.perf_counter()
            wdl = search_value(searcher, position, metric="wdl", max_tt_entries=tt_entries)
            seconds += time.perf_counter() - started
            if wdl.value.result is expected.result:
                tally["agree"] += 1
            else:
                disagreements += 1
                print(f"WDL differs at {position}: tables {expected}, search {wdl.value}",
                      file=sys.stderr)
            if ply in distance_plies:
                started = time.perf_counter()
                dtm = search_value(searcher, position, metric="dtm", max_tt_entries=tt_entries)
                seconds += time.perf_counter() - started
                tally["compared"] += 1
                if dtm.value == expected:
                    tally["distance"] += 1
                else:
                    disagreements += 1
                    print(f"distance differs at {position}: tables {expected}, search "
                          f"{dtm.value}", file=sys.stderr)
        lines.append(
            f"| {ply} | {found} | {tally[Result.WIN]} | {tally[Result.DRAW]} | "
            f"{tally[Result.LOSS]} | {tally['agree']} | {tally['compared']} | "
            f"{tally['distance']} | {seconds:.1f} |"
        )
    lines.append("")
    lines.append(f"Disagreements: **{disagreements}**.")
    return "\n".join(lines), disagreements


def probe_times(table: TableFile, positions: int, seed: int) -> str:
    """Cold command-line probes on the largest placement sectors, then warm API calls."""
    variant = table.variant
    sizes = sorted(
        ((st["slots"], s) for s, st in table.sectors().items() if s[2] > 0), reverse=True
    )
    rng = random.Random(seed)
    chosen = []
    for _, sector in sizes[: 2 * positions]:
        position = _position_in(variant, sector, rng)
        if position is not None:
            chosen.append(position)
        if len(chosen) == positions:
            break
    start = Position.start(variant)
    if (0, 0, variant.stones, variant.stones) in table.sectors():
        chosen.insert(0, start)
    lines = [
        f"### {variant.name}: probe times",
        "",
        f"Cold: `{MORRIS.name} probe {variant.name} POSITION --db {table.path}`, a new "
        "process each (import, index tables, kernels from the cache, the chunks read).",
        "",
        "| position | sector | value | cold probe s |",
        "|---|---|---|---:|",
    ]
    cold = []
    for position in chosen:
        started = time.perf_counter()
        out = subprocess.run(
            [str(MORRIS), "probe", variant.name, str(position), "--db", str(table.path),
             "--json"], capture_output=True, text=True,
        )
        took = time.perf_counter() - started
        if out.returncode != 0:
            raise MorrisError(f"morris probe failed on {position}: {out.stderr.strip()}")
        cold.append(took)
        sector = (position.mover.bit_count(), position.other.bit_count(),
                  position.mover_hand, position.other_hand)
        lines.append(f"| `{position}` | {'-'.join(map(str, sector))} | "
                     f"{out.stdout[:60].split(',')[0]}... | {took:.2f} |")
    lines.append("")
    lines.append(f"Cold probes: median {statistics.median(cold):.2f} s, "
                 f"max {max(cold):.2f} s.")
    tb = Tablebase.open(table.path, cache_bytes=1 << 40, whole_sector_after=0)
    for position in chosen:  # load every sector involved, and the kernels
        tb.probe(position)
        tb.moves(position)
    for name, call in (("probe", tb.probe), ("best_move", tb.best_move)):
        rounds = 2000
        started = time.perf_counter()
        for i in range(rounds):
            call(chosen[i % len(chosen)])
        per_call = (time.perf_counter() - started) / rounds * 1e6
        lines.append(f"Warm `Tablebase.{name}` (sectors cached): {per_call:.1f} µs a call.")
    return "\n".join(lines)


def _position_in(variant, sector, rng: random.Random) -> Position | None:
    """A random position of a placement sector (mover, other on board, hands), with the
    side to move that the hands imply, or None if the draw ended the game."""
    W, B, WF, BF = sector
    points = rng.sample(range(variant.board.n), W + B)
    mover = sum(1 << p for p in points[:W])
    other = sum(1 << p for p in points[W:])
    try:
        position = Position.from_sides(variant, mover, other, WF, BF, white_to_move=WF == BF)
    except MorrisError:
        return None
    return None if terminal(position) else position


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["byply", "routes", "probe"])
    parser.add_argument("table", type=Path)
    parser.add_argument("--plies", default="12-17", help="routes: plies, e.g. 12-17")
    parser.add_argument("--samples", type=int, default=100, help="routes: positions a ply")
    parser.add_argument("--distance-plies", default="", help="routes: plies, e.g. 14-17")
    parser.add_argument("--tt-entries", type=int, default=20_000_000)
    parser.add_argument("--positions", type=int, default=8, help="probe: positions")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        table = TableFile.open(args.table)
        if args.step == "byply":
            print(by_ply(table) + "\n\n" + first_moves(table))
        elif args.step == "routes":
            dist = set(_plies(args.distance_plies)) if args.distance_plies else set()
            text, bad = routes(table, _plies(args.plies), args.samples, dist, args.seed,
                               args.tt_entries)
            print(text)
            if bad:
                raise SystemExit(1)
        else:
            print(probe_times(table, args.positions, args.seed))
    except MorrisError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
