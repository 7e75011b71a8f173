"""User-facing errors: each carries a one-line message fit to print as is.

They derive from ``ValueError`` so callers that only know the standard library still
catch them, and from ``MorrisError`` so the CLI can turn every user error into one
line and a non-zero exit without catching programming errors.

Also the two rules every reader of user text follows: ``whole_number`` for any number
a user writes, and ``quoted`` for any user text an error message repeats.
"""

from __future__ import annotations

import re

MAX_DIGITS = 6  # far above any count of stones, plies or points a position holds
DIGITS = f"[0-9]{{1,{MAX_DIGITS}}}"  # ``whole_number``'s rule inside a larger pattern
QUOTE_LIMIT = 60  # characters of user text an error message repeats


class MorrisError(ValueError):
    """Base of every error caused by user input (variant names, positions, moves)."""


class PositionError(MorrisError):
    """Position text that is malformed or describes a position no game can reach."""


class IllegalMoveError(MorrisError):
    """A move that is malformed or not legal in the position it is played in."""


def whole_number(text: str, max_digits: int = MAX_DIGITS) -> int | None:
    """``text`` as a number if it is 1 to ``max_digits`` ASCII digits, else None (the
    caller says what it expected). ``int()`` alone is not the rule: it reads ``٣`` as 3,
    ``1_0`` as 10 and `` 7`` as 7, and raises a bare ValueError on ``²`` or on more
    than 4,300 digits."""
    return int(text) if re.fullmatch(f"[0-9]{{1,{max_digits}}}", text) else None


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as an error message repeats it: ``repr`` (so it stays one line, odd
    characters visible), and past ``limit`` characters only its start, then "…" and the
    length, so a 10,000-character input does not make a 40 KB error line."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"
