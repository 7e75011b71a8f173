"""The values under the move-limit draw rule of a variant's tables, timed and counted.

    python benchmarks/bench_draw_rules.py data/nine.h5 --limits 100,50 --moving-only
    python benchmarks/bench_draw_rules.py data/six.h5 --limits 100,50,20 --report /tmp/six.md

For each limit it runs ``solve(..., draw_rules=L)`` on every sector of the file (the
moving phase, and the placement phase where the file has it; resumable like any solve),
then writes a Markdown report (default ``benchmarks/VARIANT_draw_rules.md``): per
moving-phase sector the cursed wins, blessed losses and longest Z at each limit, the
totals, the time the rule values took against the game's own solve of the same sectors
(both as the files record them), and the start position's value under each limit: by
the search over the placement phase from the moving sectors' rule values, and from the
placement sectors' own where the file holds them (``--moving-only`` leaves those out:
for Nine Men's Morris they take a placement-phase solve per limit). ``--report-only``
solves nothing and reports what the file holds: a run stopped half-way gives the
sectors done so far, and the start's value once a limit covers every moving sector.
``--verify`` then re-derives every sector's rule values with the verifier's own code
(``morris verify --draw-rules``), sector by sector, each verdict kept in
``benchmarks/out/VARIANT_draw_rules_state.json`` so that a re-run skips those verified.
``--stats FILE`` (for Nine Men's Morris ``data/stats/nine.json``) puts the per-sector
rule counts of each limit solved over the whole moving phase into that published
statistics file, once the game's statistics of every sector the table holds agree with it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling bench_report

from bench_report import command_line, hms, machine  # noqa: E402
from bench_state import check_table_identity, load_state, save_merged, verify_sectors  # noqa: E402

from morris_solver.check.stats import (  # noqa: E402
    compare_statistics,
    held_part,
    load_statistics,
    table_statistics,
)
from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.query.probe import MissingSectorError, Tablebase  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.sectors import is_moving, sector_name  # noqa: E402
from morris_solver.search.search import search_value  # noqa: E402
from morris_solver.solving.generate import solve  # noqa: E402
from morris_solver.tables.storage import TableFile, rule_layer  # noqa: E402


def sector_rows(table: TableFile, limits: list[int]) -> list[str]:
    game = table.sectors()
    layers = {limit: table.sectors(rule_layer(limit)) for limit in limits}
    head = "| sector | positions | " + " | ".join(
        f"cursed wins L={limit} | blessed losses L={limit} | longest Z L={limit}"
        for limit in limits) + " |"
    lines = [head, "|---|---:|" + "---:|---:|---:|" * len(limits)]
    moving = sorted((s for s in game if is_moving(s)), key=lambda s: (s[0] + s[1], s))
    for s in moving:
        cells = []
        for limit in limits:
            st = layers[limit].get(s)
            cells += ([f"{st['cursed_wins']:,}", f"{st['blessed_losses']:,}",
                       f"{max(st['max_win_z'], st['max_loss_z'])}"] if st else ["-"] * 3)
        lines.append(f"| {sector_name(s)} | {game[s]['positions']:,} | " + " | ".join(cells) + " |")
    return lines


def group(sector) -> tuple:
    """The solve group a sector belongs to: a moving twin, or the placement sector."""
    return (min(sector[:2]), max(sector[:2])) if is_moving(sector) else sector


def totals(table: TableFile, limits: list[int]) -> list[str]:
    game = table.sectors()
    lines = []
    for limit in limits:
        rules = table.sectors(rule_layer(limit))
        for phase, chosen in (("moving", True), ("placement", False)):
            kept = {s: st for s, st in rules.items() if is_moving(s) == chosen}
            if not kept:
                continue
            count = {k: sum(st[k] for st in kept.values())
                     for k in ("wins", "cursed_wins", "draws", "blessed_losses", "losses")}
            # a twin's time is recorded on both of its sectors: count each group once
            rule_seconds = sum({group(s): st["solve_seconds"] for s, st in kept.items()}.values())
            game_seconds = sum({group(s): game[s]["solve_seconds"] for s in kept}.values())
            lines.append(
                f"* L = {limit}, {phase} phase, {len(kept)} sectors: "
                + ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in count.items())
                + f". Rule values in **{hms(rule_seconds)}** against the game's "
                f"{hms(game_seconds)} for the same sectors "
                f"({rule_seconds / game_seconds:.2f}x)."
            )
    return lines


def start_values(path: Path, limits: list[int]) -> list[str]:
    """The start's value under each limit: from the placement phase's rule values where
    the file holds them, and by the search over the placement phase from the moving
    sectors' rule values (which needs no placement values at all)."""
    tb = Tablebase.open(path)
    start = Position.start(tb.variant)
    table = TableFile.open(path)
    moving = {s for s in table.sector_set() if is_moving(s)}
    lines = []
    for limit in limits:
        missing = moving - table.sector_set(rule_layer(limit))
        if missing:
            lines.append(f"* L = {limit}: not known yet, {len(missing)} of {len(moving)} "
                         "moving sectors still lack their rule values.")
            continue
        try:
            value = tb.rule_probe(start, 0, limit)
            tables = (f"**{value.result.value}** from the tables ({value.rule_class}; the "
                      f"game: {value.value})")
        except MissingSectorError:
            tables = "not in the tables (no placement rule values)"
        found = search_value(tb, start, draw_rules=limit)
        lines.append(f"* L = {limit}: the start position is {tables}; the search says "
                     f"**{found.value.result.value}** ({found.nodes:,} nodes, "
                     f"{found.seconds:.0f} s).")
    return lines


def verify(path: Path, limits: list[int], state_file: Path, threads: int | None) -> None:
    """Every sector's rule values at each limit through the verifier, resumably."""
    table = TableFile.open(path)
    state = load_state(state_file, {"variant": table.variant.name})
    check_table_identity(state, path)
    for limit in limits:
        done = state.setdefault("verify", {}).setdefault(f"L{limit}", {})
        verify_sectors(path, sorted(table.sector_set(rule_layer(limit))), done,
                       lambda: save_merged(state_file, state, "verify"), threads, draw_rules=limit)


def verification(table: TableFile, limits: list[int], state_file: Path) -> list[str]:
    """What the recorded verification says, a line per limit."""
    state = load_state(state_file, {"variant": table.variant.name})
    if state.get("table_created", "") not in ("", str(table.attrs["created"])):
        return [f"* The verification in {state_file} is of an earlier file: run `--verify` "
                "again."]
    recorded = state.get("verify", {})
    lines = []
    for limit in limits:
        sectors = table.sector_set(rule_layer(limit))
        done = recorded.get(f"L{limit}", {})
        ok = [v for v in done.values() if v["ok"]]
        failed = len(done) - len(ok)
        lines.append(
            f"* L = {limit}: {len(ok)} of {len(sectors)} sectors re-derived OK by `morris "
            f"verify --draw-rules` ({sum(v['positions'] for v in ok):,} positions, "
            f"{hms(sum(v['seconds'] for v in ok))})"
            + (f"; **{failed} FAILED**" if failed else "") + ".")
    return lines


def publish_statistics(table: TableFile, limits: list[int], stats_file: Path) -> None:
    """Put the rule counts of each limit whose values cover the whole moving phase into
    the statistics file's ``draw_rules`` part (a limit still being solved is left as the
    file has it), after checking that the game's statistics of the table's sectors agree
    with the file: the rule values are only as good as the game's values they came from."""
    published, actual = load_statistics(stats_file), table_statistics(table)
    problems = compare_statistics(held_part({**published, "draw_rules": {}}, actual), actual)
    if problems:
        raise MorrisError(f"{table.path} does not match {stats_file}: {problems[0]}")
    moving = {s for s in table.sector_set() if is_moving(s)}
    whole = [limit for limit in limits if moving <= table.sector_set(rule_layer(limit))]
    rules = published.setdefault("draw_rules", {})
    for limit in whole:
        rules[f"L{limit}"] = actual["draw_rules"][f"L{limit}"]
    stats_file.write_text(json.dumps(published, indent=2) + "\n")
    print(f"wrote the draw-rule statistics of L = {', '.join(map(str, whole)) or 'none'} "
          f"into {stats_file}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", type=Path)
    parser.add_argument("--limits", default="100,50", help="comma-separated move limits")
    parser.add_argument("--report", type=Path, help="default benchmarks/VARIANT_draw_rules.md")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--moving-only", action="store_true",
                        help="the moving phase's rule values only")
    parser.add_argument("--report-only", action="store_true",
                        help="solve nothing: report what the file holds")
    parser.add_argument("--verify", action="store_true",
                        help="verify every sector's rule values (resumable) before the report")
    parser.add_argument("--note", action="append", default=[],
                        help="a paragraph for the report's notes (repeatable): what the "
                        "file's times do not say, such as cores shared or a pause")
    parser.add_argument("--stats", type=Path,
                        help="a published statistics file (morris info --json) whose "
                        "draw_rules part to write, e.g. data/stats/nine.json")
    args = parser.parse_args(argv)
    limits = [int(x) for x in args.limits.split(",")]
    try:
        table = TableFile.open(args.table)
        for limit in [] if args.report_only else limits:
            solve(table.variant, args.table, draw_rules=limit, threads=args.threads,
                  phase="moving" if args.moving_only else "all", log=print)
        report = args.report or Path("benchmarks") / f"{table.variant.name}_draw_rules.md"
        state_file = report.parent / "out" / f"{report.stem}_state.json"
        if args.verify:
            verify(args.table, limits, state_file, args.threads)
        command = command_line("benchmarks/bench_draw_rules.py",
                               argv if argv is not None else sys.argv[1:])
        lines = [f"# {table.variant.name}: values under the move-limit draw rule", "",
                 f"Produced by `{command}`. Machine: {machine()}.", "",
                 "## Totals", "", *totals(table, limits), "", "## Start position", "",
                 *start_values(args.table, limits), "", "## Verification", "",
                 *verification(table, limits, state_file), "", "## Moving-phase sectors", "",
                 *sector_rows(table, limits), ""]
        if args.note:
            lines += ["## Notes", "", *[line for note in args.note for line in (note, "")]]
        report.write_text("\n".join(lines))
        print(f"wrote {report}")
        if args.stats:
            publish_statistics(table, limits, args.stats)
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None


if __name__ == "__main__":
    main()
