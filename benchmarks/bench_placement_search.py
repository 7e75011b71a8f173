"""Perfect play from the empty board with the moving-phase tables alone: how long a
placement position takes to answer when its table is not there and the search over
the moving phase answers it (``Tablebase``'s fallback, ``search.PlacementSearch``).

    python benchmarks/bench_placement_search.py --db data/nine.h5 --games 3

Cold: ``morris bestmove`` and ``morris probe --json`` from the empty board as fresh
processes (wall time, of which loading the moving-phase tables). Warm: one process
holding the tables, as a server or the engine does, after ``Tablebase.warm_up`` (which
loads them and searches the start). Each of ``--games`` games from the empty board is
played to the end of the placement phase: at every ply the perfect move is asked for
(``best_move``: what ``bestmove``, the engine and ``play`` need), and the game goes on
with it, or with a random move ``--random-share`` of the time (people err, and their
positions are the ones nobody searched before). Then the search's transposition table
is cleared, the start searched again (the warm-up's state) and every position of those
games evaluated whole (``evaluate``: the value and every move's, what ``probe`` and the
web board show). The table is kept across the games, as a server keeps it. The report
gives per ply the longest and the median time of each, against the target of 5 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its siblings bench_*

from bench_report import command_line, machine  # noqa: E402

from morris_solver.generate import peak_rss_bytes  # noqa: E402
from morris_solver.position import Position  # noqa: E402
from morris_solver.probe import Tablebase  # noqa: E402
from morris_solver.rules import successors, terminal  # noqa: E402

TARGET_SECONDS = 5.0
REPORT = Path("benchmarks/placement_search_report.md")


def cold(variant: str, db: Path) -> dict:
    """Fresh processes: ``bestmove`` and ``probe --json`` of the start."""
    found = {}
    for name, args in (("bestmove", ["bestmove", variant, ""]),
                       ("probe", ["probe", variant, "", "--json"])):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", "from morris_cli.main import main; main()",
                               *args, "--db", str(db)], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{name}: {done.stderr.strip().splitlines()[-1]}")
        found[name] = {"seconds": time.perf_counter() - start}
        if name == "probe":
            facts = json.loads(done.stdout)
            found[name] |= {"result": facts["result"], **facts["searched"]}
    return found


def games(tb: Tablebase, count: int, share: float, rng: random.Random) -> list[list[dict]]:
    """``count`` games through the placement phase, each ply's perfect move timed."""
    played = []
    for _ in range(count):
        pos, plies = Position.start(tb.variant), []
        while (pos.mover_hand or pos.other_hand) and terminal(pos) is None:
            before = tb.search_totals
            start = time.perf_counter()
            move = tb.best_move(pos)
            seconds = time.perf_counter() - start
            searched = tb.searched_since(before)
            chosen = "best"
            if rng.random() < share:
                move, chosen = rng.choice(successors(pos))[0], "random"
            plies.append({"position": str(pos), "best_seconds": seconds,
                          "best_nodes": searched.nodes, "played": move.text(pos.board),
                          "chosen": chosen})
            pos = next(after for m, after in successors(pos) if m == move)
        played.append(plies)
    return played


def evaluate_all(tb: Tablebase, played: list[list[dict]]) -> None:
    """Every position of ``played`` evaluated whole, in order, timed into its row."""
    for plies in played:
        for row in plies:
            pos = Position.parse(row["position"], tb.variant)
            before = tb.search_totals
            start = time.perf_counter()
            found = tb.evaluate(pos)
            row["eval_seconds"] = time.perf_counter() - start
            row["eval_nodes"] = tb.searched_since(before).nodes
            row["value"] = found.value.result.value


def report(command: str, facts: dict) -> str:
    rows = facts["games"]
    by_ply: dict[int, list[dict]] = {}
    for plies in rows:
        for ply, row in enumerate(plies):
            by_ply.setdefault(ply, []).append(row)
    worst_best = max(r["best_seconds"] for p in rows for r in p)
    worst_eval = max(r["eval_seconds"] for p in rows for r in p)
    c = facts["cold"]
    lines = [
        "# Perfect play from the empty board with the moving-phase tables alone", "",
        f"Produced by `{command}` on {facts['machine']}, with `{facts['db']}` holding "
        f"{facts['variant']}'s moving phase only ({facts['sectors']} sectors).", "",
        "## Cold: a fresh command", "",
        f"- `morris bestmove {facts['variant']} \"\"`: {c['bestmove']['seconds']:.1f} s wall.",
        f"- `morris probe {facts['variant']} \"\" --json`: {c['probe']['seconds']:.1f} s wall, "
        f"of which {c['probe']['load_seconds']:.1f} s loading the moving-phase tables (shown "
        f"with a progress bar), {c['probe']['nodes']:,} nodes; the start: "
        f"{c['probe']['result']}.", "",
        "## Warm: one process holding the tables", "",
        f"`Tablebase.warm_up` (loading, then searching the start) took "
        f"{facts['warm_up_seconds']:.1f} s; peak RSS {facts['peak_rss_gib']:.2f} GiB. "
        f"{len(rows)} games, the random move {facts['random_share']:.0%} of the time "
        f"(seed {facts['seed']}).", "",
        f"Longest perfect move (`best_move`): **{worst_best:.2f} s**, target 5 s "
        f"{'met' if worst_best <= TARGET_SECONDS else 'missed'}. Longest whole evaluation "
        f"(`evaluate`: the value and every move's): **{worst_eval:.2f} s**, target "
        f"{'met' if worst_eval <= TARGET_SECONDS else 'missed'}.", "",
        "| ply | positions | best move: longest s | median s | nodes (longest) "
        "| evaluation: longest s | median s | nodes (longest) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for ply, found in sorted(by_ply.items()):
        b = max(found, key=lambda r: r["best_seconds"])
        e = max(found, key=lambda r: r["eval_seconds"])
        lines.append(
            f"| {ply} | {len(found)} | {b['best_seconds']:.2f} | "
            f"{statistics.median(r['best_seconds'] for r in found):.2f} | {b['best_nodes']:,} | "
            f"{e['eval_seconds']:.2f} | {statistics.median(r['eval_seconds'] for r in found):.2f}"
            f" | {e['eval_nodes']:,} |")
    lines += ["", "## The games", ""]
    for number, plies in enumerate(rows, 1):
        moves = " ".join(r["played"] + ("?" if r["chosen"] == "random" else "") for r in plies)
        lines.append(f"{number}. {moves} (? a random move)")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True,
                        help="a table file holding the moving phase and not the placement")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--random-share", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--report", type=Path, default=REPORT)
    args = parser.parse_args(argv)
    command = command_line("benchmarks/bench_placement_search.py",
                           argv if argv is not None else sys.argv[1:])
    tb = Tablebase.open(args.db, cache_bytes=1 << 30)
    start = Position.start(tb.variant)
    sectors = tb._table.sector_set()
    if (start.mover_hand, start.mover_hand) in {s[2:] for s in sectors}:
        raise SystemExit(f"{args.db} holds the placement phase: nothing would be searched")
    facts = {"variant": tb.variant.name, "db": str(args.db), "sectors": len(sectors),
             "machine": machine(), "seed": args.seed, "random_share": args.random_share}
    # compiled code into Numba's cache first, so that no timing below includes compiling
    # (after an edit of solver/): a small late placement position's search
    late = Position.from_sides(tb.variant, 0b111, 0b111 << 8, 1, 0, True)
    Tablebase.open(args.db, cache_bytes=1 << 30).evaluate(late)
    print("cold commands ...", flush=True)
    facts["cold"] = cold(tb.variant.name, args.db)
    print(f"warm-up ... ({facts['cold']})", flush=True)
    begin = time.perf_counter()
    tb.warm_up()
    facts["warm_up_seconds"] = time.perf_counter() - begin
    print(f"games ... (warm-up {facts['warm_up_seconds']:.1f} s)", flush=True)
    facts["games"] = games(tb, args.games, args.random_share, random.Random(args.seed))
    tb.placement_search.clear()
    tb.probe(start)  # the warm-up's own search again
    print("evaluations ...", flush=True)
    evaluate_all(tb, facts["games"])
    facts["peak_rss_gib"] = peak_rss_bytes() / 2**30
    text = report(command, facts)
    args.report.write_text(text)
    args.report.with_suffix(".json").write_text(json.dumps(facts, indent=1) + "\n")
    print(text)


if __name__ == "__main__":
    main()
