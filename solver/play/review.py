"""An exact review of a played game from the tables: the value before and after each
move, the best move where the one played was worse, and the turning points.

For each ply the review reads the value of the position before it (``probe``) and its
move list (``moves``, once: the move played and the best move both come from it); the
position after the last move is probed once more, unless the rules have ended the game.

The values are the game-theoretic ones of the tables, without the draw rules of
``game``: a game played under the draw rules is reviewed by the tables' values of the
positions it went through. The repetition rule cannot change a position's value
(perfect play never needs to repeat to achieve its result); the move limit can (a win
that takes more moving plies without a capture than the limit allows is a draw under
it), so under a move limit a "win" here may be a win the rule would not let happen.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..query.probe import MissingSectorError, MoveValue, Tablebase
from ..rules.game import Game
from ..rules.outcome import outcome_json
from ..rules.position import Position
from ..rules.rules import Outcome, terminal
from ..rules.values import Result, Value

SLOWER_WIN = "slower win"
WIN_GIVEN_AWAY = "win given away"
WIN_TURNED_INTO_LOSS = "win turned into loss"
DRAW_TURNED_INTO_LOSS = "draw turned into loss"
QUICKER_LOSS = "quicker loss"
# marks where the result drops a category (win -> draw -> loss): the turning points
TURNING_MARKS = (WIN_GIVEN_AWAY, WIN_TURNED_INTO_LOSS, DRAW_TURNED_INTO_LOSS)


def mark_of(before: Value, after: Value) -> str | None:
    """How a move that turns the mover's value ``before`` into ``after`` falls short of
    perfect play, or None when it keeps the value."""
    if after.sort_key() <= before.sort_key():
        return None
    if before.result is Result.WIN:
        return {Result.WIN: SLOWER_WIN, Result.DRAW: WIN_GIVEN_AWAY,
                Result.LOSS: WIN_TURNED_INTO_LOSS}[after.result]
    if before.result is Result.DRAW:
        return DRAW_TURNED_INTO_LOSS
    return QUICKER_LOSS


@dataclass(frozen=True)
class PlyReview:
    """One move played. Values are for the side that plays it (``mover``); all None,
    with ``missing`` the reason, when the tables do not hold what is needed."""

    ply: int  # 1 for the first move
    mover: str  # "white" or "black"
    move: str  # the notation of the move played
    position: str  # the position before it
    before: Value | None  # the value of that position
    after: Value | None  # the value of the move played
    best: str | None  # a move that keeps ``before``, when the one played does not
    best_value: Value | None
    mark: str | None  # see ``mark_of``
    missing: str | None  # why the values are missing, or None

    def as_json(self) -> dict:
        return {
            "ply": self.ply, "mover": self.mover, "move": self.move, "position": self.position,
            "before": _value_json(self.before), "after": _value_json(self.after),
            "best": self.best, "best_value": _value_json(self.best_value), "mark": self.mark,
            "missing": self.missing,
        }


@dataclass(frozen=True)
class FinalReview:
    """The position after the last move: its value for the side to move and, if the
    game has ended (its draw rules included), how."""

    position: str
    white_to_move: bool
    value: Value | None
    missing: str | None
    over: Outcome | None  # for the side to move (``Game.outcome``)

    def as_json(self) -> dict:
        over = None if self.over is None else outcome_json(self.over, self.white_to_move)
        return {"position": self.position, "value": _value_json(self.value),
                "missing": self.missing, "over": over}


@dataclass(frozen=True)
class Review:
    """A played game reviewed ply by ply (``review_game``)."""

    variant: str
    start: str  # the start position's text
    plies: list[PlyReview]
    final: FinalReview

    @property
    def turning_points(self) -> list[int]:
        """The plies whose move dropped the mover's result a category."""
        return [p.ply for p in self.plies if p.mark in TURNING_MARKS]

    def chart(self) -> list[dict]:
        """White's value at each ply index 0..n (0: the start, n: after the last move):
        ``{"ply": k, "white": 1 | 0 | -1 | None, "plies": distance or None}``; 1 when
        White wins with perfect play from there, -1 when Black does, None when no table
        holds the position."""
        points = [(p.before, p.mover == "white") for p in self.plies]
        points.append((self.final.value, self.final.white_to_move))
        chart = []
        for k, (value, white_moves) in enumerate(points):
            white = plies = None
            if value is not None:
                sign = {Result.WIN: 1, Result.DRAW: 0, Result.LOSS: -1}[value.result]
                white, plies = (sign if white_moves else -sign), value.plies
            chart.append({"ply": k, "white": white, "plies": plies})
        return chart

    def as_json(self) -> dict:
        """The review as a JSON-ready dict; values as ``Value.as_dict`` or None."""
        return {
            "variant": self.variant,
            "start": self.start,
            "moves": [p.move for p in self.plies],
            "plies": [p.as_json() for p in self.plies],
            "final": self.final.as_json(),
            "turning_points": self.turning_points,
            "chart": self.chart(),
        }


def review_game(tb: Tablebase | None, game: Game) -> Review:
    """Review every move of ``game`` with the tables of ``tb`` (None: no tables, every
    value missing). Raises ``TableError`` for tables of another variant or damaged ones;
    a sector the tables lack only marks the plies that need it as missing."""
    name = game.variant.name
    unserved = f"no tables of {name} are served"
    plies = []
    for i, (before, move) in enumerate(game.history, 1):
        text = move.text(before.board)
        value = after = best = best_value = mark = missing = None
        if tb is None:
            missing = unserved
        else:
            value, moves, missing = _read(tb, before)
            if moves:
                played = next(mv for mv in moves if mv.text == text)
                after = played.value
                if value is None:  # the position's own sector is missing, its moves' not
                    value = moves[0].value
                if after.sort_key() > moves[0].value.sort_key():
                    best, best_value = moves[0].text, moves[0].value
                    mark = mark_of(value, after)
        plies.append(PlyReview(
            i, "white" if before.white_to_move else "black", text, str(before), value,
            after, best, best_value, mark, missing,
        ))
    return Review(name, str(game.history[0][0] if game.history else game.position), plies,
                  _final(tb, game, unserved))


def _read(tb: Tablebase, position: Position) -> tuple[Value | None, list[MoveValue], str | None]:
    """The value of ``position`` and its moves, what of them the tables hold, and why
    not the rest (one line) or None."""
    value = missing = None
    try:
        value = tb.probe(position)
    except MissingSectorError as e:
        missing = _one_line(e)
    try:
        return value, tb.moves(position), None
    except MissingSectorError as e:
        return value, [], missing or _one_line(e)


def _final(tb: Tablebase | None, game: Game, unserved: str) -> FinalReview:
    position = game.position
    value = missing = None
    end = terminal(position)
    if end is not None:  # the rules' own end needs no table
        value = Value(end.result, 0 if end.result is Result.LOSS else None)
    elif tb is None:
        missing = unserved
    else:
        try:
            value = tb.probe(position)
        except MissingSectorError as e:
            missing = _one_line(e)
    return FinalReview(str(position), position.white_to_move, value, missing, game.outcome())


def _one_line(error: Exception) -> str:
    return " ".join(str(error).splitlines())


def _value_json(value: Value | None) -> dict | None:
    return None if value is None else value.as_dict()
