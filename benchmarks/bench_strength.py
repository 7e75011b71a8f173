"""How much the engine's strengths win against fallible players, in games.

Each pairing plays ``--games`` games of an engine strength against a fallible opponent
(``solver/play/opponents.py``) or against the strength below it (the ladder). The colours
alternate; the draw rules apply (threefold repetition, 100 moving plies without a
capture), so every game ends, and the engine plays by the tables' values under the rule,
which the file must hold (``morris solve VARIANT --draw-rules``). Games start from the
start position, or from ``--starts``: a file of positions, one per line, each played
twice, once from either side; ``--sample-starts N`` draws N moving-phase positions, half
drawn and half won (for Nine Men's Morris, whose placement tables few users hold).

Every move of either side is checked against the tables: the result under the rule for
the side that moved, before the move and after it. A strength other than ``easy`` and
the baselines must never make it worse; the record counts the moves that did, by
player, and so measures how often a fallible player (the table-free ``alphabeta-D``)
keeps the value in real games.

    python benchmarks/bench_strength.py --db data/six.h5 --games 400
    python benchmarks/bench_strength.py --db data/nine.h5 --name nine-moving \\
        --sample-starts 200 --max-stones 7

Nine Men's Morris' games from positions of at most 7 stones a side need only those
sectors (a capture leads to fewer stones): ``morris solve nine --phase moving
--max-stones 7`` and then the same with ``--draw-rules`` make them from an empty disk.
A job there held 10 GB at the default ``--cache-gib`` once its sectors were loaded: with
``--jobs 2`` beside other work, bound it.

Each pairing's record is kept in ``benchmarks/strength/NAME.json`` as soon as it ends, so
an interrupted run resumes with the pairings not done (a record of other settings is
started afresh). ``--report-only`` writes ``benchmarks/strength_report.md`` from every
record there, records of the same settings as one table (so ``ultra``'s criteria, played
under another ``--name``, stand beside it). Rates come with 95 % Wilson intervals; the
score (a win 1, a draw 1/2) with a normal interval.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
import zlib
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its siblings bench_*

from bench_report import command_line, machine  # noqa: E402
from bench_state import toolkit_commit  # noqa: E402
from tqdm import tqdm  # noqa: E402

from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.play.engine import STRENGTHS  # noqa: E402
from morris_solver.play.opponents import BASELINES, NOISY, Player, player  # noqa: E402
from morris_solver.query.probe import DEFAULT_CACHE_BYTES, Tablebase  # noqa: E402
from morris_solver.rules.drawrules import DEFAULT_LIMIT  # noqa: E402
from morris_solver.rules.game import Game  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.rules import terminal  # noqa: E402
from morris_solver.rules.values import Result  # noqa: E402

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "strength"
REPORT = HERE / "strength_report.md"
ENGINES = ("ultra", "perfect", "strong", "easy", "trap1", "perfect-random")
OPPONENTS = ("random", "noisy-0.2", "noisy-0.1", "noisy-0.05", "alphabeta-3")
LADDER = (("strong", "easy"), ("perfect", "strong"), ("ultra", "perfect"))
Z95 = 1.959963984540054
# a noisy opponent's correct move in the records before the setting ``noisy``
NOISY_BEFORE = "the perfect engine's move (its first drawing move in a draw)"
_ORDER = {Result.WIN: 0, Result.DRAW: 1, Result.LOSS: 2}


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion of ``k`` in ``n`` (both ends in [0, 1])."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def score_interval(wins: int, draws: int, losses: int, z: float = Z95
                   ) -> tuple[float, float, float]:
    """The mean score (a win 1, a draw 1/2, a loss 0) and its normal 95 % interval."""
    n = wins + draws + losses
    mean = (wins + draws / 2) / n
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / n
    half = z * math.sqrt(variance / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def result_now(tb: Tablebase, game: Game) -> Result:
    """The result for the side to move: the end's if the game is over, else the tables'
    under the rule at the game's count."""
    end = game.outcome()
    if end is not None:
        return end.result
    return tb.rule_probe(game.position, game.quiet_moving_plies(), game.move_limit).result


def sample_starts(tb: Tablebase, count: int, max_stones: int, seed: int) -> list[str]:
    """``count`` moving-phase positions of 3 to ``max_stones`` stones a side, drawn at
    random (stones on random points, the side to move at random), half of them drawn and
    half won for the side to move under the rule at count 0, none over."""
    rng = random.Random(seed)
    n = tb.variant.board.n
    wanted = {Result.DRAW: count // 2, Result.WIN: count - count // 2}
    found = []
    while any(wanted.values()):
        mover, other = rng.randint(3, max_stones), rng.randint(3, max_stones)
        points = rng.sample(range(n), mover + other)
        pos = Position.from_sides(tb.variant, sum(1 << p for p in points[:mover]),
                                  sum(1 << p for p in points[mover:]), 0, 0, rng.random() < 0.5)
        try:
            pos.validate()
        except MorrisError:
            continue
        if terminal(pos) is not None:
            continue
        result = tb.rule_probe(pos, 0, DEFAULT_LIMIT).result
        if wanted.get(result, 0):
            wanted[result] -= 1
            found.append(str(pos))
    return found


def play_game(tb: Tablebase, start: Position, white, black) -> dict:
    """One game under the draw rules. Returns the result for White, the plies, how it
    ended, and by side the moves checked (all) and those that made the mover's result
    worse."""
    game = Game(start.variant, start, draw_rules=True, move_limit=DEFAULT_LIMIT)
    moves = {True: 0, False: 0}
    worse = {True: 0, False: 0}
    times: dict[bool, list[float]] = {True: [], False: []}
    while game.outcome() is None:
        side = game.position.white_to_move
        before = result_now(tb, game)
        began = time.perf_counter()
        move = (white if side else black).choose(game)
        times[side].append(time.perf_counter() - began)
        game.play(move)
        moves[side] += 1
        worse[side] += _ORDER[result_now(tb, game).flipped()] > _ORDER[before]
    end = game.outcome()
    result = end.result if game.position.white_to_move else end.result.flipped()
    return {"white": result.value, "plies": len(game.history), "reason": end.reason,
            "checked": moves, "worse": worse, "times": times}


def keeps_result(name: str) -> bool:
    """Whether the player ``name`` must never make its result worse: every strength of
    the engine but ``easy`` (``ultra-sectors`` included), and the baselines."""
    return name in BASELINES or (name.partition("-")[0] in STRENGTHS and name != "easy")


def seed_of(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


def play_pairing(db: str, first: str, second: str, games: int, starts: list[str],
                 seed: int, cache_bytes: int = DEFAULT_CACHE_BYTES,
                 warm: bool = False) -> dict:
    """``games`` games of ``first`` against ``second``: game i from start i // 2, with
    ``first`` White in even games; each player's seed from the pairing and the game.
    ``cache_bytes`` bounds the sectors kept loaded, per layer read; ``warm`` plays the
    games once untimed first, so that the times are those of sectors already loaded."""
    tb = Tablebase.open(db, cache_bytes)

    def setup(i: int) -> tuple[Position, Player, Player]:
        """Game i's start, White and Black."""
        one = player(first, tb, seed_of(seed, first, second, i, 1))
        two = player(second, tb, seed_of(seed, first, second, i, 2))
        return (Position.parse(starts[(i // 2) % len(starts)], tb.variant),
                *((one, two) if i % 2 == 0 else (two, one)))

    if warm:
        for i in range(games):
            play_game(tb, *setup(i))
    wins = draws = losses = plies = 0
    checked = {first: 0, second: 0}
    worse = {first: 0, second: 0}
    reasons: dict[str, int] = {}
    # the first player's games by its result at the start: [wins, draws, losses]
    by_start: dict[str, list[int]] = {}
    times: list[float] = []  # the first player's, a move each
    began = time.perf_counter()
    for i in range(games):
        start, white, black = setup(i)
        first_white = i % 2 == 0
        at_start = tb.rule_probe(start, 0, DEFAULT_LIMIT).result
        if first_white != start.white_to_move:
            at_start = at_start.flipped()
        game = play_game(tb, start, white, black)
        result = Result(game["white"]) if first_white else Result(game["white"]).flipped()
        wins += result is Result.WIN
        draws += result is Result.DRAW
        losses += result is Result.LOSS
        by_start.setdefault(at_start.value, [0, 0, 0])[_ORDER[result]] += 1
        plies += game["plies"]
        times += game["times"][first_white]
        reasons[game["reason"]] = reasons.get(game["reason"], 0) + 1
        for name, side in ((first, first_white), (second, not first_white)):
            checked[name] += game["checked"][side]
            worse[name] += game["worse"][side]
    return {"first": first, "second": second, "games": games, "wins": wins, "draws": draws,
            "losses": losses, "plies": plies, "endings": reasons, "checked_moves": checked,
            "worse_moves": worse, "by_start": by_start,
            "seconds": round(time.perf_counter() - began, 1),
            "move_seconds": move_seconds(times)}


def move_seconds(times: list[float]) -> dict:
    """The first player's time a move: median, 99th percentile and longest (the cold
    first moves of a process included)."""
    ordered = sorted(times)
    if not ordered:
        return {}
    return {"median": round(ordered[len(ordered) // 2], 4),
            "p99": round(ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)], 4),
            "max": round(ordered[-1], 4)}


def _play(task: tuple) -> dict:
    return play_pairing(*task)


def pairings(engines: list[str], opponents: list[str], ladder: bool) -> list[tuple[str, str]]:
    found = [(e, o) for e in engines for o in opponents]
    if ladder:
        found += [pair for pair in LADDER if pair[0] in engines and pair[1] in engines]
    return found


def run(args: argparse.Namespace, argv: list[str] | None) -> None:
    tb = Tablebase.open(args.db)
    if DEFAULT_LIMIT not in tb.rule_limits():
        raise MorrisError(f"{args.db} holds no values under the {DEFAULT_LIMIT}-ply rule; run "
                          f"'morris solve {tb.variant.name} --draw-rules --out {args.db}'")
    if args.sample_starts:  # kept beside the record, so that a resumed run plays the same
        args.starts = RECORDS / f"{args.name}_starts.txt"
        if not args.starts.exists():
            RECORDS.mkdir(exist_ok=True)
            args.starts.write_text("\n".join(sample_starts(
                tb, args.sample_starts, args.max_stones, args.seed)) + "\n")
    starts = ([line.strip() for line in Path(args.starts).read_text().splitlines()
               if line.strip()] if args.starts else [str(Position.start(tb.variant))])
    settings = {"db": str(args.db), "variant": tb.variant.name, "games": args.games,
                "starts": starts, "seed": args.seed, "move_limit": DEFAULT_LIMIT,
                "noisy": NOISY} | ({"warm": True} if args.warm else {})
    path = RECORDS / f"{args.name}.json"
    record = json.loads(path.read_text()) if path.exists() else {}
    if {k: record.get("settings", {}).get(k) for k in settings if k != "db"} != {
            k: v for k, v in settings.items() if k != "db"}:
        record = {"settings": settings, "pairings": []}
    command = command_line("benchmarks/bench_strength.py", sys.argv[1:] if argv is None
                           else argv)
    commands = record.get("commands", [])
    record.update(settings=settings, machine=machine(), commit=toolkit_commit(),
                  commands=commands + [command] * (command not in commands))
    done = {(p["first"], p["second"]) for p in record["pairings"]}
    todo = [pair for pair in pairings(args.engines, args.opponents, args.ladder)
            if pair not in done]
    cache_bytes = int(args.cache_gib * 2**30)
    tasks = [(str(args.db), a, b, args.games, starts, args.seed, cache_bytes, args.warm)
             for a, b in todo]
    RECORDS.mkdir(exist_ok=True)
    with multiprocessing.Pool(args.jobs) as pool, tqdm(total=len(tasks), unit="pairing") as bar:
        for found in pool.imap_unordered(_play, tasks):
            record["pairings"].append(found)
            record["updated"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
            path.write_text(json.dumps(record, indent=1) + "\n")
            bar.set_postfix_str(f"{found['first']} v {found['second']}: {found['wins']}-"
                                f"{found['draws']}-{found['losses']}")
            bar.update()


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.1f} % ({100 * lo:.1f}-{100 * hi:.1f})"


def score_text(p: dict) -> str:
    mean, lo, hi = score_interval(p["wins"], p["draws"], p["losses"])
    return f"{100 * mean:.1f} % ({100 * lo:.1f}-{100 * hi:.1f})"


def gain(a: dict, b: dict) -> tuple[float, float, bool]:
    """How much ``a``'s score exceeds ``b``'s (two independent sets of games): the
    difference, its 95 % half-width, and whether the two scores' intervals are apart."""
    ma, la, ha = score_interval(a["wins"], a["draws"], a["losses"])
    mb, lb, hb = score_interval(b["wins"], b["draws"], b["losses"])
    half = math.hypot((ha - la) / 2, (hb - lb) / 2)
    return ma - mb, half, la > hb


def gain_text(a: dict, b: dict) -> str:
    diff, half, apart = gain(a, b)
    return f"{100 * diff:+.1f} ± {100 * half:.1f}{' (apart)' if apart else ''}"


def sections(record: dict) -> list[str]:
    """A record's tables: every pairing, then ``ultra``'s gain, the ladder, and the
    criteria of ``ultra`` where they were played."""
    s = record["settings"]
    by_pair = {(p["first"], p["second"]): p for p in record["pairings"]}
    checked = sum(n for p in record["pairings"] for k, n in p["checked_moves"].items()
                  if keeps_result(k))
    worse = sum(n for p in record["pairings"] for k, n in p["worse_moves"].items()
                if keeps_result(k))
    lines = [f"## {record['name']}: {s['variant']}, {s['games']} games a pairing", "",
             "Commands: " + "; ".join(f"`{c}`" for c in record["commands"])
             + f" (commit {record['commit']}, last pairing {record['updated']}); "
             f"{_starts_played(s)} start position(s), each played from either side; "
             f"{record['machine']}. A noisy opponent's correct move: "
             f"{s.get('noisy', NOISY_BEFORE)}.", "",
             "Moves of the players that must keep their result (every strength but "
             f"`easy`, and the baselines) checked against the tables: "
             f"{checked:,}; of them made the mover's result worse: **{worse}**.", "",
             "| first | second | wins | draws | losses | score | plies/game | endings | seconds "
             "| first's s/move: median, longest |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    order = {name: i for i, name in enumerate((*ENGINES, *OPPONENTS))}
    for p in sorted(record["pairings"], key=lambda p: (order.get(p["second"], 99),
                                                       order.get(p["first"], 99), p["first"])):
        n = p["games"]
        endings = ", ".join(f"{k} {v}" for k, v in sorted(p["endings"].items(),
                                                           key=lambda kv: -kv[1]))
        lines.append(f"| {p['first']} | {p['second']} | {rate(p['wins'], n)} | "
                     f"{rate(p['draws'], n)} | {rate(p['losses'], n)} | {score_text(p)} | "
                     f"{p['plies'] / n:.0f} | {endings} | {p['seconds']:.0f} | "
                     + (f"{p['move_seconds']['median']:.3f}, {p['move_seconds']['max']:.2f} |"
                        if p.get("move_seconds") else "- |"))
    opponents = [o for o in OPPONENTS if ("ultra", o) in by_pair]
    others = [e for e in ("trap1", "ultra-fresh-replies", "perfect-random", "perfect", "strong")
              if any((e, o) in by_pair for o in opponents)]
    if opponents:
        lines += ["", "### What `ultra` gains", "",
                  "Score differences in percentage points with their 95 % half-width; "
                  "*apart*: the two scores' intervals do not overlap.", "",
                  "| opponent | ultra | " + " | ".join(f"{e} | gain over {e}" for e in others)
                  + " |", "|---|---|" + "---|---|" * len(others)]
        for o in opponents:
            u = by_pair[("ultra", o)]
            cells = [f"{score_text(by_pair[(e, o)])} | {gain_text(u, by_pair[(e, o)])}"
                     if (e, o) in by_pair else "- | -" for e in others]
            lines.append(f"| {o} | {score_text(u)} | " + " | ".join(cells) + " |")
    ladder = [by_pair[pair] for pair in LADDER if pair in by_pair]
    if ladder:
        lines += ["", "### The ladder: each strength against the one below", "",
                  "| stronger | weaker | wins | draws | losses | decided games won |",
                  "|---|---|---|---|---|---|"]
        for p in ladder:
            decided = p["wins"] + p["losses"]
            won = rate(p["wins"], decided) if decided else "no game decided"
            lines.append(f"| {p['first']} | {p['second']} | {p['wins']} | {p['draws']} | "
                         f"{p['losses']} | {won} |")
    lines += by_start_section(record)
    criteria = sorted({first for first, _ in by_pair if first.startswith("ultra-")})
    if criteria and opponents:
        lines += ["", "### `ultra`'s criterion (docs/engine.md)", "",
                  "| opponent | ultra (model) | " + " | ".join(criteria) + " |",
                  "|---|---|" + "---|" * len(criteria)]
        for o in opponents:
            cells = [score_text(by_pair[(c, o)]) if (c, o) in by_pair else "-"
                     for c in criteria]
            lines.append(f"| {o} | {score_text(by_pair[('ultra', o)])} | "
                         + " | ".join(cells) + " |")
    fallible: dict[str, list[int]] = {}
    for p in record["pairings"]:
        for name, n in p["checked_moves"].items():
            if not keeps_result(name) and n:
                counts = fallible.setdefault(name, [0, 0])
                counts[0] += n
                counts[1] += p["worse_moves"][name]
    if fallible:
        lines += ["", "### How often the fallible players keep the value", "",
                  "Their moves in these games, checked against the tables: the share that "
                  "kept the mover's result under the rule (a move of a game is not "
                  "independent of the next, so read the interval as a lower bound on the "
                  "uncertainty).", "",
                  "| player | moves | kept the result |", "|---|---:|---|"]
        for name, (n, bad) in sorted(fallible.items()):
            lines.append(f"| {name} | {n:,} | {rate(n - bad, n)} |")
    return lines + [""]


def _starts_played(settings: dict) -> str:
    """How many of the starts the games reached (game i plays start i // 2)."""
    count, played = len(settings["starts"]), min(len(settings["starts"]),
                                                  (settings["games"] + 1) // 2)
    return str(count) if played == count else f"the first {played} of {count}"


def by_start_section(record: dict) -> list[str]:
    """The games split by the first player's result at the start under the rule, where
    the starts differ in it (sampled starts): which kind of start a score comes from."""
    split = [p for p in record["pairings"] if len(p.get("by_start", {})) > 1]
    if not split:
        return []
    kinds = [r.value for r in _ORDER if any(r.value in p["by_start"] for p in split)]
    lines = ["", "### By the start's value for the first player", "",
             "Each cell: the first player's score in the games from starts of that value "
             "under the rule, then its wins-draws-losses there.", "",
             "| first | second | " + " | ".join(f"from a {k}" for k in kinds) + " |",
             "|---|---|" + "---|" * len(kinds)]
    order = {name: i for i, name in enumerate((*ENGINES, *OPPONENTS))}
    for p in sorted(split, key=lambda p: (order.get(p["second"], 99),
                                          order.get(p["first"], 99), p["first"])):
        cells = []
        for kind in kinds:
            w, d, lost = p["by_start"].get(kind, (0, 0, 0))
            cells.append(f"{score_text({'wins': w, 'draws': d, 'losses': lost})} "
                         f"{w}-{d}-{lost}" if w + d + lost else "-")
        lines.append(f"| {p['first']} | {p['second']} | " + " | ".join(cells) + " |")
    return lines


def merged(records: list[dict]) -> list[dict]:
    """The records played with the same settings (the table file's path aside) as one:
    their pairings and commands together, under their names joined by ``+``."""
    groups: dict[str, list[dict]] = {}
    for record in records:
        key = json.dumps({k: v for k, v in record["settings"].items() if k != "db"},
                         sort_keys=True)
        groups.setdefault(key, []).append(record)
    return [
        {**group[-1], "name": " + ".join(r["name"] for r in group),
         "pairings": [p for r in group for p in r["pairings"]],
         "commands": [c for r in group for c in r["commands"]],
         "commit": ", ".join(sorted({r["commit"] for r in group})),
         "updated": max(r["updated"] for r in group)}
        for group in groups.values()
    ]


def report(records: list[dict]) -> str:
    lines = ["# The engine's strengths against fallible players", "",
             "Produced by `benchmarks/bench_strength.py` (its docstring: what is played and "
             "checked). Rates are of the games, for the first player named, with Wilson's 95 % "
             "intervals; the score (a win 1, a draw 1/2) with a normal 95 % interval. The "
             "strengths and the opponents: docs/engine.md. Before commit ced9634 `ultra` "
             "played the fresh-replies criterion: those pairings are named "
             "`ultra-fresh-replies` here (their commands, as run, say `ultra`).", ""]
    for record in merged(records):
        lines += sections(record)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="the table file, with the draw-rule values")
    parser.add_argument("--name", default=None, help="the record's name [the variant's]")
    parser.add_argument("--games", type=int, default=400, help="games a pairing [400]")
    parser.add_argument("--starts", help="a file of start positions, one per line")
    parser.add_argument("--sample-starts", type=int, metavar="N",
                        help="start from N random moving-phase positions of the file, half "
                        "drawn, half won (kept in the records' folder as NAME_starts.txt)")
    parser.add_argument("--max-stones", type=int, default=7,
                        help="with --sample-starts: at most this many stones a side [7]")
    parser.add_argument("--engines", nargs="+", default=list(ENGINES))
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    parser.add_argument("--no-ladder", dest="ladder", action="store_false")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="pairings played at once [1]")
    parser.add_argument("--cache-gib", type=float, default=DEFAULT_CACHE_BYTES / 2**30,
                        help="GiB of sectors a job keeps loaded, for each of the two layers "
                        "it reads (the game's values and those under the rule) "
                        f"[{DEFAULT_CACHE_BYTES / 2**30:g}]")
    parser.add_argument("--warm", action="store_true",
                        help="play each pairing's games once untimed first: the times a move "
                        "of a process whose sectors are loaded (a separate record)")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    if args.cache_gib <= 0 or args.jobs < 1:
        parser.error("--cache-gib must be above 0 and --jobs at least 1")
    if args.starts and not Path(args.starts).is_file():
        parser.error(f"no file {args.starts} for --starts")
    try:
        if not args.report_only:
            if not args.db:
                parser.error("--db is needed to play")
            args.name = args.name or Tablebase.open(args.db).variant.name
            run(args, argv)
        records = [json.loads(p.read_text()) | {"name": p.stem}
                   for p in sorted(RECORDS.glob("*.json"))]
        REPORT.write_text(report(records))
        print(f"wrote {REPORT}")
    except MorrisError as e:
        sys.exit(f"error: {e}")


if __name__ == "__main__":
    main()
