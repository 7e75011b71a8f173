"""What a ``Tablebase`` answers: a move with its value, a position's evaluation, the
cost of searching, and the values under the draw rule; with their JSON forms, which
``morris probe --json`` prints and the web board's API serves."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.rules import Move
from ..rules.values import Result, Value


@dataclass(frozen=True)
class MoveValue:
    """A legal move, its notation, and the value it leads to for the side that plays it."""

    move: Move
    text: str
    value: Value


@dataclass(frozen=True)
class Searched:
    """What the placement search cost to answer a query (``Tablebase.evaluate``)."""

    positions: int  # positions searched from (the query's or its moves')
    nodes: int
    seconds: float  # loading the moving-phase tables included
    load_seconds: float
    known: int = 0  # of them, those settled at once by stored bounds (the book, earlier searches)

    def as_dict(self) -> dict:
        return {"positions": self.positions, "nodes": self.nodes,
                "seconds": round(self.seconds, 3), "load_seconds": round(self.load_seconds, 3),
                "known": self.known}


@dataclass(frozen=True)
class Evaluation:
    """A position's value and its moves' values, best first, and what searching cost
    (None when the tables held every value)."""

    value: Value
    moves: list[MoveValue]
    searched: Searched | None

    def as_json(self) -> dict:
        return evaluation_json(self.value, self.moves, self.searched)


@dataclass(frozen=True)
class RuleValue:
    """A position's value under the draw rule of a move limit (``drawrules``) at a count
    of moving plies without a capture, beside the game's own value."""

    value: Value  # the game's value (the distance to the end, without the rule)
    result: Result  # under the rule, at ``count``
    rule_class: str  # at count 0: one of ``drawrules.CLASSES``
    plies_to_capture: int | None  # Z: plies to the capture that decides it, or None
    count: int
    limit: int


@dataclass(frozen=True)
class RuleMoveValue:
    """A legal move with what it leads to, for the side that plays it: the game's value
    and the result under the rule at the count after it."""

    move: Move
    text: str
    value: Value
    result: Result
    plies_to_capture: int | None  # the mover's Z through this move (None for a draw)


def evaluation_json(value: Value, moves: list[MoveValue], searched: Searched | None = None
                    ) -> dict:
    """A position's value and its moves' values (best first); ``searched`` when they
    were."""
    found = {**value.as_dict(),
             "moves": [{"move": mv.text, **mv.value.as_dict()} for mv in moves]}
    return found | ({"searched": searched.as_dict()} if searched is not None else {})


def rule_evaluation_json(value: RuleValue, moves: list[RuleMoveValue]) -> dict:
    """``evaluation_json`` with the draw rule's fields beside the game's (``morris probe
    --draw-rules --json``)."""
    rule_fields = {"rule_result": value.result.value, "rule_class": value.rule_class,
                   "plies_to_capture": value.plies_to_capture, "count": value.count,
                   "move_limit": value.limit}
    listed = [{"move": mv.text, **mv.value.as_dict(), "rule_result": mv.result.value,
               "plies_to_capture": mv.plies_to_capture} for mv in moves]
    return {**value.value.as_dict(), **rule_fields, "moves": listed}
