"""``morris value``: the game-theoretic value of a variant's start position."""

from __future__ import annotations

import json
from pathlib import Path

import click

from solver.position import Position
from solver.values import Result, Value
from solver.variants import Variant

from .common import load_variant
from .main import main
from .probe import db_option, open_tablebase, table_errors, value_json


def start_value_from_tables(variant: Variant, db: Path | None) -> Value:
    """The start position's value for the first player, read from the tables."""
    tb = open_tablebase(variant, db)
    with table_errors():
        return tb.probe(Position.start(variant))


def describe(variant: Variant, value: Value) -> str:
    """E.g. ``three: first player wins in 9 plies`` or ``six: draw``."""
    if value.result is Result.DRAW:
        return f"{variant.name}: draw"
    verb = "wins" if value.result is Result.WIN else "loses"
    return f"{variant.name}: first player {verb} in {value.plies} plies"


@main.command()
@click.argument("variant")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print variant, result and plies as JSON.")
def value(variant: str, db: Path | None, as_json: bool) -> None:
    """Print the value of VARIANT's start position for the first player (White), with
    the length of the game under perfect play, from the tables."""
    v = load_variant(variant)
    result = start_value_from_tables(v, db)
    if as_json:
        click.echo(json.dumps({"variant": v.name, **value_json(result)}))
    else:
        click.echo(describe(v, result))
