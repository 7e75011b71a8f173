"""Helpers shared by the ``morris`` sub-commands: user input to solver objects. Errors
are ``MorrisError``s, which ``morris_cli.main`` prints as one line with a non-zero exit."""

from __future__ import annotations

import math
import re

import click

from morris_solver.core.errors import MorrisError, PositionError, quoted, whole_number
from morris_solver.play.opponent_model import DEFAULT_MODEL_ERROR, model_error_of
from morris_solver.rules.position import Position, split_count
from morris_solver.rules.sectors import Sector, parse_sector
from morris_solver.rules.variants import Variant, get_variant


def load_variant(name: str) -> Variant:
    """The named variant; an unknown name raises a ``MorrisError`` naming the known ones."""
    return get_variant(name)


def load_position(variant_name: str, text: str) -> Position:
    """Position text or a move list from the start, parsed for the named variant."""
    variant = get_variant(variant_name)
    try:
        return Position.parse(text, variant)
    except MorrisError as err:
        raise PositionError(f"bad position {quoted(text)}: {err}") from None


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


# a decimal number in ASCII, optionally with an exponent: no nan, inf, 1_0 or ٣
_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")


class FiniteFloat(click.ParamType):
    """A number option in ``[low, high]`` (``(low, high]`` with ``low_open``), written in
    ASCII digits: click's ``float`` also takes ``nan``, ``inf`` and ``1e999``, which pass
    a range check or overflow later, in a traceback."""

    name = "number"

    def __init__(self, low: float, high: float, low_open: bool = False):
        self.low, self.high, self.low_open = low, high, low_open

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, float | int) and not isinstance(value, bool):
            number = float(value)  # a default
        elif isinstance(value, str) and len(value) <= 40 and _DECIMAL.fullmatch(value):
            number = float(value)
        else:
            number = math.nan
        above = number > self.low if self.low_open else number >= self.low
        if not (math.isfinite(number) and above and number <= self.high):
            low = f"above {self.low:g}" if self.low_open else f"at least {self.low:g}"
            shown = quoted(value) if isinstance(value, str) else repr(value)
            self.fail(f"{shown} is not a number {low} and at most {self.high:g}", param, ctx)
        return number


class OpponentModel(click.ParamType):
    """``--against noisy:E``: the error rate E of the opponent ``ultra`` plays for
    (``opponent_model.model_error_of``)."""

    name = "noisy:E"

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, float):
            return value  # a default
        try:
            return model_error_of(str(value))
        except MorrisError as e:
            self.fail(str(e), param, ctx)


against_option = click.option(
    "--against", type=OpponentModel(), default=None,
    help="Whom the engine faces: noisy:E, a player who plays a random legal move a share E "
    "of the time (0 < E < 1) and otherwise a best move. ultra then plays, of the moves "
    "that keep the result, the one expected to score most against them, two moves of "
    f"each side ahead [noisy:{DEFAULT_MODEL_ERROR:g}]. Only ultra uses it.")


class WholeNumber(click.ParamType):
    """A whole-number option in ``[low, high]``, in ASCII digits (``whole_number``'s rule):
    click's ``int`` also reads ``٣`` as 3 and ``1_0`` as 10."""

    name = "integer"

    def __init__(self, low: int, high: int):
        self.low, self.high = low, high

    def convert(self, value, param, ctx) -> int:
        number: int | None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value  # a default
        elif isinstance(value, str):
            number = whole_number(value, max_digits=len(str(self.high)))
        else:
            number = None
        if number is None or not self.low <= number <= self.high:
            shown = quoted(value) if isinstance(value, str) else repr(value)
            self.fail(f"{shown} is not a whole number from {self.low} to {self.high}",
                      param, ctx)
        return number
