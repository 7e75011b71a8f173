"""Helpers shared by the ``morris`` sub-commands: user input to solver objects, with
every user error turned into one line and a non-zero exit."""

from __future__ import annotations

import click

from solver.errors import MorrisError
from solver.position import Position
from solver.sectors import Sector, parse_sector
from solver.variants import Variant, get_variant


def load_variant(name: str) -> Variant:
    """The named variant, or a ``ClickException`` naming the known ones."""
    try:
        return get_variant(name)
    except MorrisError as err:
        raise click.ClickException(str(err)) from None


def load_position(variant_name: str, text: str) -> Position:
    """Position text or a move list from the start, parsed for the named variant."""
    variant = load_variant(variant_name)
    try:
        return Position.parse(text, variant)
    except MorrisError as err:
        raise click.ClickException(f"bad position {text!r}: {err}") from None


def parse_sector_option(text: str | None) -> Sector | None:
    """The ``--sector`` option's value (W-B or W-B-WF-BF), or None when not given."""
    if text is None:
        return None
    try:
        return parse_sector(text)
    except ValueError as e:
        raise click.ClickException(f"--sector: {e}") from None
