"""Helpers shared by the ``morris`` sub-commands: user input to solver objects. Errors
are ``MorrisError``s, which ``morris_cli.main`` prints as one line with a non-zero exit."""

from __future__ import annotations

import click

from morris_solver.errors import MorrisError, PositionError
from morris_solver.position import Position, split_count
from morris_solver.sectors import Sector, parse_sector
from morris_solver.variants import Variant, get_variant


def load_variant(name: str) -> Variant:
    """The named variant; an unknown name raises a ``MorrisError`` naming the known ones."""
    return get_variant(name)


def load_position(variant_name: str, text: str) -> Position:
    """Position text or a move list from the start, parsed for the named variant."""
    variant = get_variant(variant_name)
    try:
        return Position.parse(text, variant)
    except MorrisError as err:
        raise PositionError(f"bad position {text!r}: {err}") from None


def load_counted_position(variant_name: str, text: str, draw_rules: bool) -> tuple[Position, int]:
    """``load_position`` of text that may end in ``c:N`` (the count of the draw rule,
    default 0), which only ``--draw-rules`` reads."""
    bare, count = split_count(text)
    if count is not None and not draw_rules:
        raise PositionError(f"the count c:{count} is for the draw rule: add --draw-rules")
    return load_position(variant_name, bare), count or 0


def parse_sector_option(text: str | None) -> Sector | None:
    """The ``--sector`` option's value (W-B or W-B-WF-BF), or None when not given."""
    if text is None:
        return None
    try:
        return parse_sector(text)
    except ValueError as e:
        raise click.ClickException(f"--sector: {e}") from None
