"""``morris probe`` and ``morris bestmove``: a position's value and perfect moves, read
from the tables; also the table helpers the other table-reading commands share."""

from __future__ import annotations

import json
from pathlib import Path

import click

from solver.position import Position
from solver.probe import DEFAULT_CACHE_BYTES, MoveValue, Tablebase, evaluation_json
from solver.rules import terminal
from solver.storage import default_table_path
from solver.values import Value
from solver.variants import Variant

from .common import load_position

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
    that variant's; ``cache_bytes`` bounds the sectors kept loaded."""
    path = db if db is not None else default_table_path(variant)
    if not path.exists():
        hint = "" if db is not None else f"; run 'morris solve {variant.name}' to generate it"
        raise click.ClickException(f"no table file at {path}{hint}")
    tb = Tablebase.open(path, cache_bytes)
    if tb.variant != variant:
        raise click.ClickException(
            f"{path} holds tables of {tb.variant.name}, not of {variant.name}"
        )
    return tb


def echo_evaluation(pos: Position, value: Value, moves: list[MoveValue]) -> None:
    """Print the value for the side to move and a table of the moves' values."""
    end = terminal(pos)
    over = f" (game over: {end.reason})" if end else ""
    click.echo(f"{pos.mover_name} to move: {value}{over}")
    if moves:
        width = max(len(mv.text) for mv in moves)
        click.echo(f"{len(moves)} moves, valued for {pos.mover_name}:")
        for mv in moves:
            click.echo(f"  {mv.text:<{width}}  {mv.value}")


@click.command()
@click.argument("variant")
@click.argument("position")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print value and moves as one JSON object.")
def probe(variant: str, position: str, db: Path | None, as_json: bool) -> None:
    """Print the value of POSITION of VARIANT for the side to move, with its distance in
    plies, and every legal move with the value it leads to (for the same side).

    POSITION is position text such as "W:a7,d7 B:a1,g1 w h:7,7" or a move list from the
    start such as "d6 d5 a1".
    """
    pos = load_position(variant, position)
    tb = open_tablebase(pos.variant, db)
    value = tb.probe(pos)
    moves = tb.moves(pos)
    if as_json:
        click.echo(json.dumps(evaluation_json(value, moves)))
        return
    click.echo(pos.diagram())
    click.echo()
    click.echo(f"{pos.variant.name}: {pos}")
    echo_evaluation(pos, value, moves)


@click.command()
@click.argument("variant")
@click.argument("position")
@db_option
def bestmove(variant: str, position: str, db: Path | None) -> None:
    """Print one perfect move in POSITION of VARIANT: the shortest win, else a draw, else
    the longest loss (ties go to the first move in notation order)."""
    pos = load_position(variant, position)
    tb = open_tablebase(pos.variant, db)
    move = tb.best_move(pos)
    if move is None:
        end = terminal(pos)
        outcome = f"{pos.mover_name} to move: {end.result.value}, {end.reason}"
        raise click.ClickException(f"no move: the game is over ({outcome})")
    click.echo(move.text(pos.board))
