"""The placement phase: its solve and verification, what it looks like by ply, how
White's first moves score, whether the table route and the search route agree, and how
fast a cold command-line probe and a warm API probe answer.

Usage: ``python benchmarks/bench_placement.py STEP TABLE [options]``:

- ``byply``: per ply 0 .. 2 x stones (the moving phase at the last), canonical positions,
  wins, draws and losses for the side to move, from the sectors' stored statistics; then
  every first move of the start position with its value, grouped by symmetry class.
- ``verify``: ``morris verify`` of every placement sector, one at a time, each verdict
  recorded at once; a re-run skips the sectors already verified OK.
- ``routes``: random reachable placement positions (random games from the start),
  ``--samples`` at each ply of ``--plies``, valued by the tables (``Tablebase.probe``)
  and by the search from the moving-phase tables alone (``search_value``, win/draw/loss);
  at the plies of ``--distance-plies`` the search also gives the distance, which must
  equal the table's. Exit status 1 if any position disagrees. Each ply is recorded as it
  is done; a re-run skips the plies recorded with as many samples.
- ``probe``: wall time of cold ``morris probe`` commands (a new process each) on
  positions of the largest placement sectors, and of warm probes and best moves
  through the Python API once the sectors are cached.
- ``report``: the "Placement phase" part of ``--report`` (default
  ``benchmarks/VARIANT_report.md``, between its placement markers, or appended): the
  solve per ply with its time, memory and size against the targets, the verification,
  the by-ply table and first moves, and the recorded routes and probe times.

Each step prints its Markdown section; ``verify``, ``routes`` and ``probe`` also record
their results in ``benchmarks/out/VARIANT_placement_state.json`` (tied to the table file
by its creation stamp), which the report reads. E.g. ``python
benchmarks/bench_placement.py routes data/nine.h5 --plies 12-17 --samples 1700
--distance-plies 14-17``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

# this checkout's solver, not the installed one (see bench_index.py); its sibling bench_state
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_report import GiB, command_line, hms, verdict, verification_summary  # noqa: E402
from bench_state import check_table_identity, load_state, save_merged, verify_sectors  # noqa: E402

from morris_solver.check.verify import verification_order  # noqa: E402
from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.index.index_format import index_tables  # noqa: E402
from morris_solver.index.indexing import canonical_index  # noqa: E402
from morris_solver.query.probe import Tablebase  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.rules import legal_moves, play, terminal  # noqa: E402
from morris_solver.rules.sectors import (  # noqa: E402
    Sector,
    is_moving,
    reachable_sectors,
    sector_key,
)
from morris_solver.search.search import search_value  # noqa: E402
from morris_solver.tables.storage import TableFile  # noqa: E402

MORRIS = Path(sys.executable).with_name("morris")
# targets of the issue for the placement phase on the development machine, 2 threads
TARGET_SECONDS = 3 * 3600
TARGET_RSS = 12 * GiB
TARGET_FILE_BYTES = 12 * 10**9  # the whole file, moving and placement
PHASE = "the placement phase"  # what a verdict waits for
REPORT_BEGIN = "<!-- placement phase: written by benchmarks/bench_placement.py report -->"
REPORT_END = "<!-- end of the placement phase -->"


def _plies(text: str) -> list[int]:
    """``12-17`` or ``1,4,9-11``: the plies named."""
    plies = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        plies += range(int(lo), int(hi or lo) + 1)
    return plies


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
           seed: int, tt_entries: int, done: dict | None = None,
           on_ply=None) -> tuple[str, int]:
    """Both routes on ``samples`` random positions at each ply; ``done`` holds plies
    already measured (skipped when they have as many samples), ``on_ply(ply, row)``
    records each new one. Returns the Markdown table and the disagreements."""
    variant = table.variant
    # the search holds every moving sector (2.1 GiB of results for Nine Men's Morris,
    # its own, past this cache, between positions); the table route reads
    # placement sectors within the default budget, so that the many it meets are not
    # all kept whole beside them
    searcher = Tablebase.open(table.path, cache_bytes=1 << 40)
    tables = Tablebase.open(table.path)
    rows = dict(done or {})
    for ply in plies:
        if rows.get(str(ply), {}).get("positions") == samples:
            continue
        # a seed of its own per ply, so that a resumed run draws the same positions
        rng = random.Random(seed * 1000 + ply)
        row = defaultdict(int)
        row["distance_compared"] = 0
        tries = 0
        bar = tqdm(total=samples, desc=f"routes, ply {ply}", unit="pos")
        while row["positions"] < samples and tries < 100 * samples:
            tries += 1
            position = random_position(variant, ply, rng)
            if position is None or position.mover_hand == 0:
                continue
            row["positions"] += 1
            bar.update()
            expected = tables.probe(position)
            row[expected.result.value] += 1
            started = time.perf_counter()
            wdl = search_value(searcher, position, metric="wdl", max_tt_entries=tt_entries)
            row["search_seconds"] += time.perf_counter() - started
            if wdl.value.result is expected.result:
                row["wdl_agree"] += 1
            else:
                print(f"WDL differs at {position}: tables {expected}, search {wdl.value}",
                      file=sys.stderr)
            if ply in distance_plies:
                started = time.perf_counter()
                dtm = search_value(searcher, position, metric="dtm", max_tt_entries=tt_entries)
                row["search_seconds"] += time.perf_counter() - started
                row["distance_compared"] += 1
                if dtm.value == expected:
                    row["distance_agree"] += 1
                else:
                    print(f"distance differs at {position}: tables {expected}, search "
                          f"{dtm.value}", file=sys.stderr)
        bar.close()
        rows[str(ply)] = dict(row)
        if on_ply:
            on_ply(ply, rows[str(ply)])
    shown = {p: r for p, r in rows.items() if int(p) in plies} if done is None else rows
    return routes_markdown(variant.name, shown, seed), disagreements(shown)


def disagreements(rows: dict) -> int:
    return sum(r["positions"] - r.get("wdl_agree", 0) + r.get("distance_compared", 0)
               - r.get("distance_agree", 0) for r in rows.values())


def routes_markdown(name: str, rows: dict, seed: int) -> str:
    lines = [
        f"### {name}: the table route against the search route",
        "",
        f"Random reachable positions (random games from the start, seed {seed}), valued by "
        "the placement tables and by the search over the placement phase from the "
        "moving-phase tables alone.",
        "",
        "| ply | positions | wins | draws | losses | WDL agree | distance compared "
        "| distance agree | search s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for ply in sorted(rows, key=int):
        r = defaultdict(int, rows[ply])
        lines.append(
            f"| {ply} | {r['positions']} | {r['win']} | {r['draw']} | {r['loss']} | "
            f"{r['wdl_agree']} | {r['distance_compared']} | {r['distance_agree']} | "
            f"{r['search_seconds']:.1f} |"
        )
    total = sum(r["positions"] for r in rows.values())
    compared = sum(r.get("distance_compared", 0) for r in rows.values())
    lines += ["", f"{total:,} positions, {compared:,} of them with the distance compared. "
              f"Disagreements: **{disagreements(rows)}**."]
    return "\n".join(lines)


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
    for i in range(20):  # the sectors involved, and the kernels (after the plain queries)
        tb.probe(chosen[i % len(chosen)])
        tb.moves(chosen[i % len(chosen)])
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


def placement_sectors(table: TableFile) -> list[Sector]:
    return sorted((s for s in table.sectors() if not is_moving(s)), key=verification_order)


def step_verify(table: TableFile, state: dict, save, threads: int | None) -> str:
    """Verify the placement sectors not yet verified OK, recording each verdict."""
    done = state.setdefault("verify", {})
    verify_sectors(table.path, placement_sectors(table), done, lambda: save("verify"), threads)
    return verify_markdown(table, done)


def verify_markdown(table: TableFile, verified: dict) -> str:
    sectors = placement_sectors(table)
    summary = verification_summary(verified, sectors, "placement sectors")
    return ("Independent forward verification (`morris verify --sector`, one placement "
            "sector at a time, each reading its successors from disk): "
            + (f"{summary}." if summary else "not run."))


def solve_markdown(table: TableFile, planned: int, verified: dict) -> str:
    """The placement sectors' solve per ply, as their attributes record it, and the
    totals against the targets."""
    variant = table.variant
    stored = table.sectors()
    placed = {s: a for s, a in stored.items() if not is_moving(s)}
    if not placed:
        raise SystemExit(f"report: {table.path} holds no placement sector; solve them first")
    rows: dict[int, dict] = defaultdict(lambda: defaultdict(float))
    for s, a in placed.items():
        r = rows[ply_of(variant, s)]
        r["sectors"] += 1
        r["positions"] += a["positions"]
        r["seconds"] += a["solve_seconds"]
        r["peak"] = max(r["peak"], a["peak_rss_bytes"])
        check = verified.get(sector_key(s))
        r["verified"] += 1 if check else 0
        r["verify_seconds"] += check["seconds"] if check else 0.0
    lines = [
        "| ply | sectors | positions | solve s | positions/s | peak RSS GiB | verify s |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for ply in sorted(rows):
        r = rows[ply]
        verify = f"{r['verify_seconds']:,.1f}" if r["verified"] == r["sectors"] else "-"
        lines.append(f"| {ply} | {int(r['sectors'])} | {int(r['positions']):,} | "
                     f"{r['seconds']:,.1f} | {r['positions'] / r['seconds']:,.0f} | "
                     f"{r['peak'] / GiB:.2f} | {verify} |")
    complete = len(placed) == planned
    seconds = sum(a["solve_seconds"] for a in placed.values())
    positions = sum(a["positions"] for a in placed.values())
    peak = max(a["peak_rss_bytes"] for a in placed.values())
    size = os.path.getsize(table.path)
    all_positions = sum(a["positions"] for a in stored.values())
    lines += [
        "",
        f"* Placement phase: {len(placed)} of {planned} sectors"
        f"{'' if complete else ' (**not complete**)'}, {positions:,} positions, "
        f"**{hms(seconds)}** of solving (sum of the sector times, reading and writing "
        f"excluded; {positions / seconds:,.0f} positions/s); target <= 3 h with 2 "
        f"threads: {verdict(seconds <= TARGET_SECONDS, complete, PHASE)}.",
        f"* Peak RSS of a sector's solve (its exits included): **{peak / GiB:.2f} GiB**; "
        f"target <= 12 GiB: {verdict(peak <= TARGET_RSS, complete, PHASE)}.",
        f"* `{table.path}`: **{size / 1e9:.3g} GB** for {len(stored)} sectors "
        f"({all_positions:,} positions, {8 * size / all_positions:.2f} bits each); "
        f"target <= 12 GB: {verdict(size <= TARGET_FILE_BYTES, complete, PHASE)}.",
    ]
    return "\n".join(lines)


def report(table: TableFile, state: dict, path: Path, command: str, notes: list[str]) -> None:
    """Write the placement part of the report ``path`` between its markers."""
    variant = table.variant
    planned = sum(1 for s in reachable_sectors(variant) if not is_moving(s))
    verified = state.get("verify", {})
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    parts = [
        REPORT_BEGIN,
        "",
        f"## {variant.name}: the placement phase",
        "",
        f"Produced by `{command}` on {now}.",
        "",
        "### Solve, per ply",
        "",
        "A placement sector's positions all lie at one ply. Times and peak RSS are the "
        "solving process's, as stored in the table file.",
        "",
        solve_markdown(table, planned, verified),
        "",
        "### Verification",
        "",
        verify_markdown(table, verified),
        "",
        by_ply(table),
        "",
        first_moves(table),
        "",
    ]
    if "routes" in state:
        parts += [routes_markdown(variant.name, state["routes"]["plies"],
                                  state["routes"]["seed"]), ""]
    if "probe" in state:
        parts += [state["probe"]["markdown"], ""]
    if notes:
        parts += ["### Notes", "", *[line for note in notes for line in (note, "")]]
    parts.append(REPORT_END)
    section = "\n".join(parts)
    text = path.read_text() if path.exists() else ""
    if REPORT_BEGIN in text and REPORT_END in text:
        before, _, rest = text.partition(REPORT_BEGIN)
        after = rest.partition(REPORT_END)[2]
        text = before + section + after
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section + "\n"
    path.write_text(text)
    print(f"report: wrote the placement phase into {path}")


STEPS = ("byply", "verify", "routes", "probe", "report")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=STEPS)
    parser.add_argument("table", type=Path)
    parser.add_argument("--plies", default="12-17", help="routes: plies, e.g. 12-17")
    parser.add_argument("--samples", type=int, default=100, help="routes: positions a ply")
    parser.add_argument("--distance-plies", default="", help="routes: plies, e.g. 14-17")
    parser.add_argument("--tt-entries", type=int, default=20_000_000)
    parser.add_argument("--positions", type=int, default=8, help="probe: positions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, help="verify: numba threads [all cores]")
    parser.add_argument("--report", type=Path,
                        help="report: the report file [benchmarks/VARIANT_report.md]")
    parser.add_argument("--note", action="append", default=[],
                        help="report: a paragraph for its notes (repeatable)")
    parser.add_argument("--state", type=Path,
                        help="state file [benchmarks/out/VARIANT_placement_state.json]")
    args = parser.parse_args(argv)
    try:
        table = TableFile.open(args.table)
        name = table.variant.name
        path = args.state or (
            Path(__file__).resolve().parent / "out" / f"{name}_placement_state.json"
        )
        state = load_state(path, {"variant": name, "table": str(args.table.resolve())})
        check_table_identity(state, args.table)

        def save(step: str) -> None:
            save_merged(path, state, step)

        if args.step == "byply":
            print(by_ply(table) + "\n\n" + first_moves(table))
        elif args.step == "verify":
            print(step_verify(table, state, save, args.threads))
        elif args.step == "routes":
            dist = set(_plies(args.distance_plies)) if args.distance_plies else set()
            entry = state.setdefault("routes", {"seed": args.seed, "plies": {}})
            if entry["seed"] != args.seed:
                raise SystemExit(f"{path} holds routes with seed {entry['seed']}: pass it")

            def record(ply: int, row: dict) -> None:
                entry["plies"][str(ply)] = row
                save("routes")

            text, bad = routes(table, _plies(args.plies), args.samples, dist, args.seed,
                               args.tt_entries, done=entry["plies"], on_ply=record)
            print(text)
            if bad:
                raise SystemExit(1)
        elif args.step == "probe":
            text = probe_times(table, args.positions, args.seed)
            state["probe"] = {"markdown": text}
            save("probe")
            print(text)
        else:
            out = args.report or Path(__file__).resolve().parent / f"{name}_report.md"
            command = command_line(os.path.relpath(__file__), argv)
            report(table, state, out, command, args.note)
    except MorrisError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
