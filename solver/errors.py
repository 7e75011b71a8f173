"""User-facing errors: each carries a one-line message fit to print as is.

They derive from ``ValueError`` so callers that only know the standard library still
catch them, and from ``MorrisError`` so the CLI can turn every user error into one
line and a non-zero exit without catching programming errors.
"""

from __future__ import annotations


class MorrisError(ValueError):
    """Base of every error caused by user input (variant names, positions, moves)."""


class PositionError(MorrisError):
    """Position text that is malformed or describes a position no game can reach."""


class IllegalMoveError(MorrisError):
    """A move that is malformed or not legal in the position it is played in."""
