"""A game in progress: the position, the moves played, undo, and optional draw rules.

The solver's values know only the rules of ``rules``. Real play often adds two house
rules that depend on the history rather than the position; they live here, off by
default: the third occurrence of a position (same side to move) is a draw, and so are
100 consecutive moving-phase plies (slides or flies) without a capture (the move limit;
Malom's player uses 50).
"""

from __future__ import annotations

from ..core.errors import IllegalMoveError, MorrisError, quoted
from .drawrules import DEFAULT_LIMIT, check_limit
from .position import Position
from .rules import Move, Outcome, legal_moves, parse_move, play, terminal
from .values import Result
from .variants import Variant, get_variant

REPETITION_DRAW = 3  # occurrences of one position that draw the game


class Game:
    """A game from ``start`` (default: the variant's start position); with
    ``draw_rules``, drawn at a third repetition and after ``move_limit`` moving plies
    without a capture."""

    def __init__(
        self, variant: Variant | str, start: Position | None = None, draw_rules: bool = False,
        move_limit: int = DEFAULT_LIMIT,
    ) -> None:
        self.variant = get_variant(variant)
        if start is not None and start.variant != self.variant:
            raise MorrisError(
                f"the start position is a {start.variant.name} position, not {self.variant.name}"
            )
        self.position = start if start is not None else Position.start(self.variant)
        self.draw_rules = draw_rules
        try:
            self.move_limit = check_limit(move_limit)
        except ValueError as e:
            raise MorrisError(str(e)) from None
        self.history: list[tuple[Position, Move]] = []  # (position before, move played)

    def outcome(self) -> Outcome | None:
        """How the game ended for the side to move, or None while it goes on. The rules'
        own ends take precedence over the draw rules."""
        end = terminal(self.position)
        if end or not self.draw_rules:
            return end
        seen = sum(before == self.position for before, _ in self.history) + 1
        if seen >= REPETITION_DRAW:
            return Outcome(Result.DRAW, "threefold repetition")
        if self.quiet_moving_plies() >= self.move_limit:
            return Outcome(Result.DRAW, f"{self.move_limit} moving plies without capture")
        return None

    def result(self) -> Result | None:
        """The result for the side to move, or None while the game goes on."""
        end = self.outcome()
        return end.result if end else None

    def quiet_moving_plies(self) -> int:
        """Slides and flies without a capture played since the last placement or capture."""
        count = 0
        for _, move in reversed(self.history):
            if move.origin is None or move.removed:
                break
            count += 1
        return count

    def legal_moves(self) -> list[Move]:
        """Legal moves now; none once the game is over, draw rules included."""
        return [] if self.outcome() else legal_moves(self.position)

    def play(self, move: Move | str) -> Position:
        """Play a move (a ``Move`` or its notation) and return the new position."""
        end = self.outcome()
        if end:
            text = quoted(move) if isinstance(move, str) else move.text(self.position.board)
            raise IllegalMoveError(f"illegal move {text}: the game is over ({end.reason})")
        if isinstance(move, str):
            move = parse_move(move, self.position)
        after = play(self.position, move)
        self.history.append((self.position, move))
        self.position = after
        return after

    def play_successor(self, move: Move, after: Position) -> None:
        """Play ``move``, which leads to ``after`` (a pair from ``rules.successors`` of
        the position now, the game not over): without ``play``'s checks, for the
        engine's look-ahead, which plays thousands of moves a decision."""
        self.history.append((self.position, move))
        self.position = after

    def undo(self) -> Move:
        """Take back the last move and return it."""
        if not self.history:
            raise MorrisError("no move to undo")
        self.position, move = self.history.pop()
        return move
