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

Where the file holds a search book (``morris value VARIANT --search --book PLIES``) it
is what the search starts from, after the clearing too. ``--budget SECONDS`` stops a
query's searches past that many seconds (as the web server's ``--search-seconds``
does): the query counts as over budget, with no time of its own (Morabaraba's first
plies off the book take longer than a session has). ``--cold-timeout`` does the same
for the two fresh commands.

    python benchmarks/bench_placement_search.py --db data/twelve.h5 --games 3 \
        --budget 60 --cold-timeout 1200 --report benchmarks/placement_search_twelve.md
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

from morris_solver.play.engine import Engine  # noqa: E402
from morris_solver.query.probe import Tablebase  # noqa: E402
from morris_solver.rules.game import Game  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.rules import successors, terminal  # noqa: E402
from morris_solver.rules.values import Result  # noqa: E402
from morris_solver.search.search_limits import SearchTimeout  # noqa: E402
from morris_solver.solving.generate import peak_rss_bytes  # noqa: E402

TARGET_SECONDS = 5.0
REPORT = Path("benchmarks/placement_search_report.md")


def cold(variant: str, db: Path, timeout: float | None) -> dict:
    """Fresh processes: ``bestmove`` and ``probe --json`` of the start; one that runs
    past ``timeout`` seconds is stopped and has ``seconds`` None."""
    found: dict[str, dict] = {}
    for name, args in (("bestmove", ["bestmove", variant, ""]),
                       ("probe", ["probe", variant, "", "--json"])):
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [sys.executable, "-c", "from morris_cli.main import main; main()", *args,
                 "--db", str(db)], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            found[name] = {"seconds": None, "timeout": timeout}
            continue
        if done.returncode:
            raise SystemExit(f"{name}: {done.stderr.strip().splitlines()[-1]}")
        found[name] = {"seconds": time.perf_counter() - start}
        if name == "probe":
            facts = json.loads(done.stdout)
            found[name] |= {"result": facts["result"], **facts["searched"]}
        else:
            found[name]["stderr"] = done.stderr.strip().splitlines()[-1:]
    return found


class _WouldLoad(Exception):
    """Raised by the load progress callback: the query needs the moving-phase tables."""


def book_walks(db: Path, count: int, rng: random.Random) -> list[dict]:
    """What a fresh process answers from the file's search book alone: ``count`` games
    from the empty board in which the side the start favours plays the engine's move
    (``perfect``: ``bestmove``'s; ``ultra``'s too where that side wins) and the other a
    random one, each ply timed, until a query would load the
    moving-phase tables (the walk's end) or the placement phase is over."""
    walks = []
    for _ in range(count):
        tb = Tablebase.open(db, cache_bytes=1 << 30)

        def refuse(done: int, total: int) -> None:
            raise _WouldLoad

        tb.search_load_progress = refuse
        game, plies, favoured = Game(tb.variant), [], None
        engine = Engine(tb, "perfect", rng)
        try:
            while game.position.mover_hand or game.position.other_hand:
                if game.outcome() is not None:
                    break
                start = time.perf_counter()
                if favoured is None:
                    favoured = tb.probe(game.position).result is not Result.LOSS
                mover_favoured = favoured == (len(plies) % 2 == 0)
                move = (engine.choose(game) if mover_favoured
                        else rng.choice(game.legal_moves()))
                plies.append({"move": move.text(game.position.board),
                              "engine": mover_favoured,
                              "seconds": time.perf_counter() - start})
                game.play(move)
            end = "the placement's end"
        except _WouldLoad:
            end = "needs the tables"
        walks.append({"plies": plies, "end": end})
    return walks


def timed(tb: Tablebase, budget: float | None, query):
    """``query()`` under the search budget: (its answer or None past the budget, its
    seconds or None past the budget, the search's nodes)."""
    before = tb.search_totals
    start = time.perf_counter()
    try:
        with tb.search_limits(budget):
            answer = query()
    except SearchTimeout:
        return None, None, tb.searched_since(before).nodes
    return answer, time.perf_counter() - start, tb.searched_since(before).nodes


def restart_search(tb: Tablebase) -> None:
    """The search's table as the warm-up left it: cleared, the file's book taken up."""
    tb.placement_search.clear()
    tb._route.take_up_book(tb.placement_search)


def games(tb: Tablebase, count: int, share: float, rng: random.Random,
          budget: float | None) -> list[list[dict]]:
    """``count`` games through the placement phase, each ply's perfect move timed; past
    the budget the game goes on with a random move."""
    played = []
    for _ in range(count):
        pos, plies = Position.start(tb.variant), []
        while (pos.mover_hand or pos.other_hand) and terminal(pos) is None:
            move, seconds, nodes = timed(tb, budget, lambda: tb.best_move(pos))  # noqa: B023
            chosen = "best"
            if move is None or rng.random() < share:
                move, chosen = rng.choice(successors(pos))[0], "random"
            plies.append({"position": str(pos), "best_seconds": seconds,
                          "best_nodes": nodes, "played": move.text(pos.board),
                          "chosen": chosen})
            pos = next(after for m, after in successors(pos) if m == move)
        played.append(plies)
    return played


def evaluate_all(tb: Tablebase, played: list[list[dict]], budget: float | None) -> None:
    """Every position of ``played`` evaluated whole, in order, timed into its row."""
    for plies in played:
        for row in plies:
            pos = Position.parse(row["position"], tb.variant)
            found, row["eval_seconds"], row["eval_nodes"] = timed(
                tb, budget, lambda: tb.evaluate(pos))  # noqa: B023
            row["value"] = None if found is None else found.value.result.value


def _seconds(seconds: float | None, budget: float | None) -> str:
    return f"> {budget:g}" if seconds is None else f"{seconds:.2f}"


def _longest(rows: list[dict], key: str) -> dict:
    """The row of the longest ``key`` seconds, one over budget first."""
    return max(rows, key=lambda r: float("inf") if r[key] is None else r[key])


def _median(rows: list[dict], key: str, budget: float | None) -> str:
    """The median of ``key`` seconds, those over budget counted as the longest."""
    ordered = sorted(float("inf") if r[key] is None else r[key] for r in rows)
    middle = ordered[(len(ordered) - 1) // 2: len(ordered) // 2 + 1]
    if float("inf") in middle:
        return _seconds(None, budget)
    return f"{statistics.mean(middle):.2f}"


def _walks_section(facts: dict) -> list[str]:
    """The book walks' lines: how far a fresh process plays from the book alone."""
    walks = facts.get("book_walks")
    if not walks:
        return []
    reached = [len(w["plies"]) for w in walks]
    seconds = [p["seconds"] for w in walks for p in w["plies"]] or [0.0]
    engine = [p["seconds"] for w in walks for p in w["plies"] if p["engine"]] or [0.0]
    ends = {end: sum(w["end"] == end for w in walks) for end in {w["end"] for w in walks}}
    return [
        "## From the search book alone: a fresh process", "",
        f"{len(walks)} games from the empty board, the side the start favours playing "
        "`perfect` (a move that keeps its result, as `bestmove`; `ultra` plays it too "
        "where that side wins), the other a random move, until a query "
        "needs the moving-phase tables: plies played from the book, fewest "
        f"{min(reached)}, median {statistics.median(reached):g}, most {max(reached)} "
        f"({', '.join(f'{n} ended: {end}' for end, n in sorted(ends.items()))}). "
        f"A ply took at most {max(seconds):.3f} s, the engine's median "
        f"{statistics.median(engine):.4f} s (the first query of a process includes "
        "reading the book).", ""]


def report(command: str, facts: dict) -> str:
    rows = facts["games"]
    by_ply: dict[int, list[dict]] = {}
    for plies in rows:
        for ply, row in enumerate(plies):
            by_ply.setdefault(ply, []).append(row)
    budget = facts.get("budget")
    every = [r for p in rows for r in p]
    worst_best = _longest(every, "best_seconds")["best_seconds"]
    worst_eval = _longest(every, "eval_seconds")["eval_seconds"]
    over = {key: sum(r[key] is None for r in every) for key in ("best_seconds", "eval_seconds")}

    def verdict(seconds: float | None) -> str:
        return "met" if seconds is not None and seconds <= TARGET_SECONDS else "missed"

    def cold_line(name: str, what: str) -> str:
        found = facts["cold"][name]
        if found["seconds"] is None:
            return (f"- `morris {name} {facts['variant']} \"\"{what}`: stopped after "
                    f"{found['timeout']:g} s.")
        line = f"- `morris {name} {facts['variant']} \"\"{what}`: {found['seconds']:.1f} s wall"
        if name == "bestmove":
            said = found.get("stderr")
            return line + (f" ({said[0].strip('()')})." if said else ".")
        return (line + f", of which {found['load_seconds']:.1f} s loading the moving-phase "
                f"tables (shown with a progress bar), {found['nodes']:,} nodes; the start: "
                f"{found['result']}.")

    book = facts.get("book")
    lines = [
        "# Perfect play from the empty board with the moving-phase tables alone", "",
        f"Produced by `{command}` on {facts['machine']}, with `{facts['db']}` holding "
        f"{facts['variant']}'s moving phase only ({facts['sectors']} sectors)"
        + (f" and a search book of {book['positions']:,} positions with "
           f"{book['min_in_hand']}+ stones in hand" if book else "") + ".", "",
        "## Cold: a fresh command", "",
        cold_line("bestmove", ""), cold_line("probe", " --json"), "",
        *_walks_section(facts),
        "## Warm: one process holding the tables", "",
        f"`Tablebase.warm_up` (loading, then searching the start) took "
        f"{facts['warm_up_seconds']:.1f} s; peak RSS {facts['peak_rss_gib']:.2f} GiB. "
        f"{len(rows)} games, the random move {facts['random_share']:.0%} of the time "
        f"(seed {facts['seed']})"
        + (f"; every query's searches stopped after {budget:g} s" if budget else "") + ".", "",
        f"Longest perfect move (`best_move`): **{_seconds(worst_best, budget)} s**, target "
        f"5 s {verdict(worst_best)}"
        + (f" ({over['best_seconds']} of {len(every)} over budget)" if budget else "")
        + f". Longest whole evaluation (`evaluate`: the value and every move's): "
        f"**{_seconds(worst_eval, budget)} s**, target {verdict(worst_eval)}"
        + (f" ({over['eval_seconds']} of {len(every)} over budget)" if budget else "") + ".",
        "",
        "| ply | positions | best move: longest s | median s | nodes (longest) "
        "| evaluation: longest s | median s | nodes (longest) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for ply, found in sorted(by_ply.items()):
        b, e = _longest(found, "best_seconds"), _longest(found, "eval_seconds")
        lines.append(
            f"| {ply} | {len(found)} | {_seconds(b['best_seconds'], budget)} | "
            f"{_median(found, 'best_seconds', budget)} | {b['best_nodes']:,} | "
            f"{_seconds(e['eval_seconds'], budget)} | {_median(found, 'eval_seconds', budget)}"
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
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds of search a query may take [no limit]")
    parser.add_argument("--book-walks", type=int, default=20,
                        help="games played from the search book alone in fresh processes")
    parser.add_argument("--cold-timeout", type=float, default=None,
                        help="seconds a fresh command may take [no limit]")
    args = parser.parse_args(argv)
    command = command_line("benchmarks/bench_placement_search.py",
                           argv if argv is not None else sys.argv[1:])
    tb = Tablebase.open(args.db, cache_bytes=1 << 30)
    start = Position.start(tb.variant)
    sectors = tb._table.sector_set()
    if (start.mover_hand, start.mover_hand) in {s[2:] for s in sectors}:
        raise SystemExit(f"{args.db} holds the placement phase: nothing would be searched")
    facts = {"variant": tb.variant.name, "db": str(args.db), "sectors": len(sectors),
             "machine": machine(), "seed": args.seed, "random_share": args.random_share,
             "budget": args.budget}
    book = tb._table.search_book()
    if book is not None:
        facts["book"] = {"positions": len(book.keys), **book.about}
    # compiled code into Numba's cache first, so that no timing below includes compiling
    # (after an edit of solver/): a small late placement position's search
    late = Position.from_sides(tb.variant, 0b111, 0b111 << 8, 1, 0, True)
    Tablebase.open(args.db, cache_bytes=1 << 30).evaluate(late)
    if book is not None:
        print("walks along the book ...", flush=True)
        facts["book_walks"] = book_walks(args.db, args.book_walks, random.Random(args.seed))
    print("cold commands ...", flush=True)
    facts["cold"] = cold(tb.variant.name, args.db, args.cold_timeout)
    print(f"warm-up ... ({facts['cold']})", flush=True)
    begin = time.perf_counter()
    tb.warm_up()
    facts["warm_up_seconds"] = time.perf_counter() - begin
    print(f"games ... (warm-up {facts['warm_up_seconds']:.1f} s)", flush=True)
    facts["games"] = games(tb, args.games, args.random_share, random.Random(args.seed),
                           args.budget)
    restart_search(tb)
    tb.probe(start)  # the warm-up's own search again
    print("evaluations ...", flush=True)
    evaluate_all(tb, facts["games"], args.budget)
    facts["peak_rss_gib"] = peak_rss_bytes() / 2**30
    text = report(command, facts)
    args.report.write_text(text)
    args.report.with_suffix(".json").write_text(json.dumps(facts, indent=1) + "\n")
    print(text)


if __name__ == "__main__":
    main()
