"""The rules of the Mill family in plain Python: move generation, move application,
terminal status, and move notation.

This is the readable reference the Numba solver is checked against, so every rule of
docs/rules.md is spelled out once, literally:

* Terminal, checked in this order: (1) with ``line_wins``, the side not to move has a
  full line -> loss for the side to move; (2) the side to move has fewer than 3 stones
  on board and in hand -> loss; (3) the side to move has no legal move -> draw if
  ``full_board_draw`` and the board is full, else loss.
* Moves: with stones in hand, place one on any empty point; else, with ``flying`` and
  exactly 3 stones on the board, move one to any empty point; else slide one along an
  edge to an adjacent empty point.
* Removal: ``k`` mills through the landing point, complete for the mover, remove
  ``double_mill_removes`` stones if ``k >= 2`` else one (none for a placement without
  ``placement_captures``, none with ``line_wins``), one at a time, each an opponent
  stone outside complete opponent mills unless all of them are in mills, protection
  re-evaluated after each removal, stopping when the opponent's board is empty.

Notation: ``d6`` places, ``d6-d5`` slides or flies, ``xa1`` appends each removed stone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import DIGITS, IllegalMoveError, quoted
from .board import Board
from .values import Result

if TYPE_CHECKING:  # only for the hints: ``Position.parse`` replays move lists with these rules
    from .position import Position

# a point is a letter and digits (``whole_number``'s rule); at most 3 removals (no rule
# removes more than 2), so move text that matches is short enough to repeat in a message
_POINT = f"[a-z]{DIGITS}"
_MOVE = re.compile(f"({_POINT})(?:-({_POINT}))?((?:x{_POINT}){{0,3}})")


@dataclass(frozen=True)
class Move:
    """A whole move: ``origin`` is None for a placement. ``removed`` is kept sorted, so
    moves removing the same stones in another order are equal."""

    origin: int | None
    target: int
    removed: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if type(self.removed) is not tuple or len(self.removed) > 1:
            object.__setattr__(self, "removed", tuple(sorted(self.removed)))

    def text(self, board: Board) -> str:
        """The move in notation, e.g. ``d6``, ``d6-d5``, ``d6-d5xa1``, ``d6xa1xb2``."""
        names = board.points
        head = names[self.target]
        if self.origin is not None:
            head = f"{names[self.origin]}-{head}"
        return head + "".join(f"x{names[p]}" for p in self.removed)


@dataclass(frozen=True)
class Outcome:
    """How a game ended, for the side to move, with the rule that ended it."""

    result: Result
    reason: str


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def phase(position: Position) -> str:
    """What the side to move does: ``placement``, ``flying`` or ``moving``."""
    if position.mover_hand:
        return "placement"
    if position.variant.flying and position.mover.bit_count() == 3:
        return "flying"
    return "moving"


def terminal(position: Position) -> Outcome | None:
    """The outcome for the side to move if the game is over, else None."""
    v, t = position.variant, position.board.plain
    if v.line_wins and any(position.other & m == m for m in t.mills):
        return Outcome(Result.LOSS, "line of three")
    if position.mover.bit_count() + position.mover_hand < 3:
        return Outcome(Result.LOSS, "fewer than 3 stones")
    if not _steps(position):
        if v.full_board_draw and position.white | position.black == t.full:
            return Outcome(Result.DRAW, "full board")
        return Outcome(Result.LOSS, "no legal move")
    return None


def outcome(position: Position) -> Result | None:
    """The result for the side to move if the game is over, else None."""
    end = terminal(position)
    return end.result if end else None


def legal_moves(position: Position) -> list[Move]:
    """Every legal whole move, ordered by origin, target, then removed stones."""
    if terminal(position):
        return []
    return [
        Move(origin, target, removed)
        for origin, target in _steps(position)
        for removed in _removal_options(position, origin, target)
    ]


def play(position: Position, move: Move) -> Position:
    """The position after ``move``; raise ``IllegalMoveError`` if it is not legal."""
    if move not in legal_moves(position):
        reason = _why_illegal(position, move)
        raise IllegalMoveError(f"illegal move {_describe(move, position)}: {reason}")
    return _apply(position, move)


def successors(position: Position) -> list[tuple[Move, Position]]:
    """Every legal move with the position it leads to, in ``legal_moves`` order."""
    return [(move, _apply(position, move)) for move in legal_moves(position)]


def parse_move(text: str, position: Position) -> Move:
    """The legal move ``text`` names in ``position``; ``IllegalMoveError`` says why not."""
    board = position.board
    text = text.strip()
    match = _MOVE.fullmatch(text.lower())
    if not match:
        raise IllegalMoveError(f"cannot read move {quoted(text)}: write d6 (place), d6-d5 "
                               "(move), d6-d5xa1 (and remove)")
    head, tail, removed = match[1], match[2], match[3].split("x")[1:]
    index = board.index_of
    for name in (head, tail, *removed):
        if name is not None and name not in index:
            raise IllegalMoveError(
                f"illegal move {text}: unknown point {name} on the {board.name} board"
            )
    if len(set(removed)) < len(removed):
        raise IllegalMoveError(f"illegal move {text}: a stone is removed twice")
    origin, target = (None, head) if tail is None else (head, tail)
    move = Move(
        None if origin is None else index[origin],
        index[target],
        tuple(index[name] for name in removed),
    )
    if move not in legal_moves(position):
        raise IllegalMoveError(f"illegal move {text}: {_why_illegal(position, move)}")
    return move


def _steps(position: Position) -> list[tuple[int | None, int]]:
    """(origin, target) of every move ignoring removals and the end of the game."""
    t = position.board.plain
    mover = position.mover
    empty = t.full & ~(mover | position.other)
    current = phase(position)
    if current == "placement":
        return [(None, p) for p in _bits(empty)]
    if current == "flying":
        return [(o, p) for o in _bits(mover) for p in _bits(empty)]
    return [(o, p) for o in _bits(mover) for p in _bits(t.adjacency[o] & empty)]


def _apply(position: Position, move: Move) -> Position:
    """The position after a move known to be legal."""
    mover = position.mover | 1 << move.target
    if move.origin is not None:
        mover &= ~(1 << move.origin)
    other = position.other
    for p in move.removed:
        other &= ~(1 << p)
    hand = position.mover_hand - (move.origin is None)
    return position.handed_over(other, mover, position.other_hand, hand)


def _removal_options(position: Position, origin: int | None, target: int) -> list[tuple[int, ...]]:
    """The sets of opponent stones the move ``origin -> target`` may remove, sorted."""
    v, t = position.variant, position.board.plain
    if v.line_wins or (origin is None and not v.placement_captures):
        return [()]
    mover = position.mover | 1 << target
    if origin is not None:
        mover &= ~(1 << origin)
    closed = sum(mover & m == m for m in t.point_mills[target])
    if not closed:
        return [()]
    count = v.double_mill_removes if closed >= 2 else 1
    return sorted(_removals(position.other, count, t.mills))


def _removals(other: int, count: int, mills: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Unordered sets of ``count`` stones removed one at a time from ``other``."""
    if count == 0 or not other:
        return {()}
    in_mills = 0
    for m in mills:
        if other & m == m:
            in_mills |= m
    removable = other & ~in_mills or other
    return {
        tuple(sorted((p, *rest)))
        for p in _bits(removable)
        for rest in _removals(other & ~(1 << p), count - 1, mills)
    }


def _on_board(move: Move, board: Board) -> bool:
    points = [move.target, *move.removed] + ([] if move.origin is None else [move.origin])
    return all(0 <= p < board.n for p in points)


def _describe(move: Move, position: Position) -> str:
    return move.text(position.board) if _on_board(move, position.board) else repr(move)


def _why_illegal(position: Position, move: Move) -> str:
    """A short reason why ``move`` (known not to be legal) is not legal."""
    board = position.board
    name, side, foe = board.points, position.mover_name, position.other_name
    end = terminal(position)
    if end:
        return f"the game is over ({side} to move: {end.result.value}, {end.reason})"
    if not _on_board(move, board):
        return f"no such point on the {board.name} board"
    current = phase(position)
    if current == "placement" and move.origin is not None:
        return f"{side} still has {position.mover_hand} stones in hand and must place one"
    if current != "placement" and move.origin is None:
        return f"{side} has no stones in hand and must move a stone, e.g. d6-d5"
    if move.origin is not None and not position.mover >> move.origin & 1:
        return f"{name[move.origin]} is not {side}'s stone"
    if (position.white | position.black) >> move.target & 1:
        return f"{name[move.target]} is occupied"
    if move.origin is not None and (move.origin, move.target) not in _steps(position):
        return f"{name[move.origin]} and {name[move.target]} are not adjacent"
    options = _removal_options(position, move.origin, move.target)
    if options == [()]:
        return "it closes no mill that removes a stone, so nothing is removed"
    if not move.removed:
        example = Move(move.origin, move.target, options[0]).text(board)
        return f"it closes a mill: name the stone to remove, e.g. {example}"
    if len(move.removed) != len(options[0]):
        return f"it removes {len(options[0])} stone(s), not {len(move.removed)}"
    for p in move.removed:
        if not position.other >> p & 1:
            return f"{name[p]} is not {foe}'s stone"
    return f"{foe}'s stones in mills are protected while {foe} has stones outside mills"
