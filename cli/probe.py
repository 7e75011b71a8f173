"""``morris probe`` and ``morris bestmove``: a position's value and perfect moves, read
from the tables; also the table helpers the other table-reading commands share."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import click
from tqdm import tqdm

from morris_solver.query.probe import DEFAULT_CACHE_BYTES, Tablebase
from morris_solver.query.probe_results import (
    Evaluation,
    RuleMoveValue,
    RuleValue,
    Searched,
    rule_evaluation_json,
)
from morris_solver.rules.drawrules import DEFAULT_LIMIT, MAX_LIMIT
from morris_solver.rules.position import Position
from morris_solver.rules.rules import Move, terminal
from morris_solver.rules.values import Result
from morris_solver.rules.variants import Variant
from morris_solver.tables.storage import default_table_path

from .common import WholeNumber, against_option, load_counted_position

db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Table file to read (default: data/VARIANT.h5).",
)


def open_tablebase(
    variant: Variant, db: Path | None, cache_bytes: int = DEFAULT_CACHE_BYTES
) -> Tablebase:
    """The tables of ``variant`` at ``db`` (default ``data/VARIANT.h5``), checked to be
    that variant's; ``cache_bytes`` bounds the sectors kept loaded. A placement
    position the file lacks is searched (``Tablebase``), loading the moving phase first
    with a progress bar."""
    path = db if db is not None else default_table_path(variant)
    if db is None and not path.exists():
        raise click.ClickException(f"no table file at {path}; run 'morris solve "
                                   f"{variant.name}' to generate it")
    tb = Tablebase.open(path, cache_bytes)  # any other path: TableFile.open says what is wrong
    if tb.variant != variant:
        raise click.ClickException(
            f"{path} holds tables of {tb.variant.name}, not of {variant.name}"
        )
    tb.search_load_progress = _loading_bar()
    return tb


def _loading_bar():
    """A progress callback showing the search's loading of the moving-phase tables."""
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, unit="sector", file=sys.stderr, leave=False,
                       desc="loading the moving-phase tables for the search")
        bar.update(done - bar.n)
        if done == total:
            bar.close()
            bar = None

    return progress


def describe_search(searched: Searched) -> str:
    """What a query cost where the file has no placement table and its placement
    positions were searched."""
    load = f", {searched.load_seconds:.1f} s of it loading" if searched.load_seconds >= 0.05 else ""
    if searched.known == searched.positions:
        return ("no placement table: known from the file's search book or earlier "
                "searches, nothing searched")
    known = ""
    if searched.known:
        known = f"; {searched.known:,} of {searched.positions:,} positions known at once"
    return (f"no placement table: searched over the moving-phase tables, "
            f"{searched.nodes:,} nodes, {searched.seconds:.2f} s{load}{known}")


def echo_evaluation(pos: Position, found: Evaluation) -> None:
    """Print the value for the side to move, how it was searched if it was, and a table
    of the moves' values."""
    end = terminal(pos)
    over = f" (game over: {end.reason})" if end else ""
    value, moves = found.value, found.moves
    click.echo(f"{pos.mover_name} to move: {value}{over}")
    if found.searched is not None:
        click.echo(f"({describe_search(found.searched)})")
    if moves:
        width = max(len(mv.text) for mv in moves)
        click.echo(f"{len(moves)} moves, valued for {pos.mover_name}:")
        for mv in moves:
            click.echo(f"  {mv.text:<{width}}  {mv.value}")


draw_rules_option = click.option(
    "--draw-rules", is_flag=True,
    help="Also the values under the move-limit draw rule (docs/draw_rules.md); POSITION may "
    "end in c:N, the moving plies since the last capture (default 0).",
)
move_limit_option = click.option(
    "--move-limit", type=WholeNumber(1, MAX_LIMIT), default=DEFAULT_LIMIT, show_default=True,
    help="With --draw-rules: moving plies without a capture that draw the game.",
)


@click.command()
@click.argument("variant")
@click.argument("position")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print value and moves as one JSON object.")
@draw_rules_option
@move_limit_option
def probe(variant: str, position: str, db: Path | None, as_json: bool, draw_rules: bool,
          move_limit: int) -> None:
    """Print the value of POSITION of VARIANT for the side to move, with its distance in
    plies, and every legal move with the value it leads to (for the same side).

    POSITION is position text such as "W:a7,d7 B:a1,g1 w h:7,7" or a move list from the
    start such as "d6 d5 a1".
    """
    pos, count = load_counted_position(variant, position, draw_rules)
    tb = open_tablebase(pos.variant, db)
    if draw_rules:
        value, moves = tb.rule_probe(pos, count, move_limit), tb.rule_moves(pos, count, move_limit)
        facts, title = rule_evaluation_json(value, moves), f"{pos} c:{count}"
    else:
        found = tb.evaluate(pos)
        facts, title = found.as_json(), str(pos)
    if as_json:
        click.echo(json.dumps(facts))
        return
    click.echo(pos.diagram())
    click.echo()
    click.echo(f"{pos.variant.name}: {title}")
    if draw_rules:
        echo_rule_evaluation(pos, value, moves)
    else:
        echo_evaluation(pos, found)


def echo_rule_evaluation(pos: Position, value: RuleValue, moves: list[RuleMoveValue]) -> None:
    """Print the value under the draw rule and the game's, then every move's."""
    z = f", {value.plies_to_capture} plies to the deciding capture" if (
        value.plies_to_capture is not None and value.result is not Result.DRAW) else ""
    click.echo(
        f"{pos.mover_name} to move at count {value.count} of {value.limit}: "
        f"{value.result.value} under the rule{z} ({value.rule_class} at count 0); "
        f"game value {value.value}"
    )
    if moves:
        width = max(len(mv.text) for mv in moves)
        click.echo(f"{len(moves)} moves, valued for {pos.mover_name}:")
        for mv in moves:
            z = f" in {mv.plies_to_capture}" if mv.plies_to_capture is not None else ""
            click.echo(f"  {mv.text:<{width}}  {mv.result.value}{z} under the rule; "
                       f"game {mv.value}")


@click.command()
@click.argument("variant")
@click.argument("position")
@db_option
@draw_rules_option
@move_limit_option
@against_option
@click.option("--seed", type=WholeNumber(0, 2**64 - 1), default=None,
              help="With --against: seed of the random choice among equal moves.")
def bestmove(variant: str, position: str, db: Path | None, draw_rules: bool,
             move_limit: int, against: float | None, seed: int | None) -> None:
    """Print one perfect move in POSITION of VARIANT: the shortest win, else a draw, else
    the longest loss (ties go to the first move in notation order). With --draw-rules,
    the move that keeps the best result under the rule. With --against noisy:E, the move
    ultra plays against that opponent: one that keeps the result and, of those, scores
    most against them. A placement position the table file lacks is searched over its
    moving phase (what that cost goes to stderr)."""
    if against is not None and draw_rules:
        raise click.UsageError("--against plays by the game's values: drop --draw-rules")
    pos, count = load_counted_position(variant, position, draw_rules)
    tb = open_tablebase(pos.variant, db)
    searched = tb.search_totals
    if against is not None and terminal(pos) is None:
        from morris_solver.play.engine import Engine  # Numba's kernels: not for the other commands
        from morris_solver.rules.game import Game

        engine = Engine(tb, "ultra", random.Random(seed), model_error=against)
        move: Move | None = engine.choose(Game(pos.variant, pos))
    else:
        move = tb.rule_best_move(pos, count, move_limit) if draw_rules else tb.best_move(pos)
    if tb.search_totals != searched:  # on stderr: the move alone stays on stdout
        click.echo(f"({describe_search(tb.searched_since(searched))})", err=True)
    if move is None:
        end = terminal(pos)
        assert end is not None, "only a game that is over has no move"
        outcome = f"{pos.mover_name} to move: {end.result.value}, {end.reason}"
        raise click.ClickException(f"no move: the game is over ({outcome})")
    click.echo(move.text(pos.board))
