"""Positions of a Mill-family game, their text notation, and terminal diagrams.

Position text names every stone by point, the side to move, and the stones in hand::

    W:a1,d7,g4 B:b2,f4 w h:3,3

``h:`` (White's, then Black's stones in hand) is omitted when both are 0, so the start
of Nine Men's Morris is ``W: B: w h:9,9``. ``Position.parse`` also accepts a move list
from the start (``d6 d5 a1``), which is how a game record is usually written down.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import MAX_DIGITS, IllegalMoveError, PositionError, quoted, whole_number
from .board import Board
from .variants import Variant, get_variant

_COUNT = re.compile(r"(?:^|\s)c:(\S*)")


def split_count(text: str) -> tuple[str, int | None]:
    """Position text without its ``c:N`` (the moving plies since the last capture, for
    the draw rule: ``W:a1 B:b2,c3,d4 b c:37``), and N, or None if there is none."""
    found = _COUNT.search(text)
    if found is None:
        return text, None
    count = whole_number(found.group(1))
    if count is None:
        raise PositionError(f"the count {quoted(found.group(0).strip())} is not a number of "
                            f"plies (at most {MAX_DIGITS} digits 0-9)")
    return (text[: found.start()] + " " + text[found.end() :]).strip(), count


@dataclass(frozen=True)
class Position:
    """Stones of both sides as bit masks (bit ``p`` is ``board.points[p]``), the stones
    still in hand, and the side to move. Frozen and hashable, so positions can key
    dictionaries and repetition counts."""

    variant: Variant
    white: int
    black: int
    white_hand: int
    black_hand: int
    white_to_move: bool

    @classmethod
    def start(cls, variant: Variant | str) -> Position:
        """The empty board with every stone in hand, White to move."""
        v = get_variant(variant)
        return cls(v, 0, 0, v.stones, v.stones, True)

    @classmethod
    def from_sides(
        cls,
        variant: Variant | str,
        mover: int,
        other: int,
        mover_hand: int,
        other_hand: int,
        white_to_move: bool,
    ) -> Position:
        """Build a position from the side-to-move view the solver works in."""
        v = get_variant(variant)
        if white_to_move:
            return cls(v, mover, other, mover_hand, other_hand, True)
        return cls(v, other, mover, other_hand, mover_hand, False)

    def handed_over(self, mover: int, other: int, mover_hand: int, other_hand: int
                    ) -> Position:
        """The position after a move, given from the side-to-move view of the side that
        moves next (what ``rules.play`` builds)."""
        return Position.from_sides(self.variant, mover, other, mover_hand, other_hand,
                                   not self.white_to_move)

    @property
    def board(self) -> Board:
        return self.variant.board

    @property
    def mover(self) -> int:
        """Stones on the board of the side to move."""
        return self.white if self.white_to_move else self.black

    @property
    def other(self) -> int:
        return self.black if self.white_to_move else self.white

    @property
    def mover_hand(self) -> int:
        """Stones in hand of the side to move."""
        return self.white_hand if self.white_to_move else self.black_hand

    @property
    def other_hand(self) -> int:
        return self.black_hand if self.white_to_move else self.white_hand

    @property
    def mover_name(self) -> str:
        return "White" if self.white_to_move else "Black"

    @property
    def other_name(self) -> str:
        return "Black" if self.white_to_move else "White"

    # -- notation -------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, variant: Variant | str) -> Position:
        """Read position text or a move list from the start; raise ``PositionError``
        with a one-line message for anything malformed or unreachable."""
        v = get_variant(variant)
        if ":" in text:
            return _parse_position_text(text, v)
        return _parse_move_list(text, v)

    def __str__(self) -> str:
        board = self.board
        text = (
            f"W:{','.join(board.names(self.white))} B:{','.join(board.names(self.black))} "
            f"{'w' if self.white_to_move else 'b'}"
        )
        if self.white_hand or self.black_hand:
            text += f" h:{self.white_hand},{self.black_hand}"
        return text

    def validate(self) -> None:
        """Raise ``PositionError`` unless stone counts, hands and side to move fit a game
        of this variant: White places first, stones alternate, and a side that is not to
        move still has 3 stones (else the game would already be over)."""
        v, board = self.variant, self.board
        if not (0 <= self.white <= board.full_mask and 0 <= self.black <= board.full_mask):
            raise PositionError(f"stone mask outside the {board.name} board's {board.n} points")
        both = self.white & self.black
        if both:
            raise PositionError(f"point {board.names(both)[0]} is listed for both White and Black")
        if self.white_hand < 0 or self.black_hand < 0:
            raise PositionError(
                f"stones in hand cannot be negative (h:{self.white_hand},{self.black_hand})"
            )
        for name, stones, hand in (
            ("White", self.white, self.white_hand),
            ("Black", self.black, self.black_hand),
        ):
            on_board = stones.bit_count()
            if on_board + hand > v.stones:
                raise PositionError(
                    f"{name} has {on_board + hand} stones ({on_board} on the board + {hand} "
                    f"in hand), more than the {v.stones} of {v.name}"
                )
        hands = f"h:{self.white_hand},{self.black_hand}"
        if self.white_to_move and self.white_hand != self.black_hand:
            raise PositionError(
                f"impossible hands {hands}: with White to move both sides have placed "
                "equally many stones, so both hands are equal"
            )
        if (
            not self.white_to_move
            and self.black_hand != self.white_hand + 1
            and (self.white_hand or self.black_hand)
        ):
            raise PositionError(
                f"impossible hands {hands}: with Black to move White has placed one stone "
                "more, so Black holds one more in hand (or both hold none)"
            )
        waiting = self.other.bit_count() + self.other_hand
        if waiting < 3:
            raise PositionError(
                f"{self.other_name} has only {waiting} stone{'s' * (waiting != 1)} on the board "
                "and in hand: the game ended before this position"
            )

    # -- diagram --------------------------------------------------------------------

    def diagram(self) -> str:
        """The board in ASCII, drawn from the board's coordinates and edges, with file
        letters and rank numbers: ``W`` and ``B`` are stones, ``.`` an empty point."""
        board = self.board
        xs = [x for x, _ in board.coords]
        ys = [y for _, y in board.coords]
        width, height = 4 * max(xs) + 1, 2 * max(ys) + 1
        grid = [[" "] * width for _ in range(height)]

        def cell(x: float, y: float) -> tuple[int, int]:
            return round(2 * (max(ys) - y)), round(4 * x)

        for a, b in board.edges:
            (xa, ya), (xb, yb) = board.coords[a], board.coords[b]
            steps = 4 * abs(xb - xa) if ya == yb else 2 * abs(yb - ya)
            if ya == yb or xa == xb:
                mark = "-" if ya == yb else "|"
            else:
                mark = "/" if (xb - xa) * (yb - ya) > 0 else "\\"
            for k in range(1, steps):
                row, col = cell(xa + (xb - xa) * k / steps, ya + (yb - ya) * k / steps)
                if grid[row][col] == " ":
                    grid[row][col] = mark
        for p, (x, y) in enumerate(board.coords):
            row, col = cell(x, y)
            grid[row][col] = "W" if self.white >> p & 1 else "B" if self.black >> p & 1 else "."
        ranks = {y: name[1:] for name, (_, y) in zip(board.points, board.coords, strict=True)}
        files = {x: name[0] for name, (x, _) in zip(board.points, board.coords, strict=True)}
        label_width = max(len(r) for r in ranks.values())
        lines = []
        for row, chars in enumerate(grid):
            level = max(ys) - row / 2
            label = ranks.get(int(level), "") if level == int(level) else ""
            lines.append(f"{label:>{label_width}} {''.join(chars)}".rstrip())
        footer = [" "] * width
        for x, letter in files.items():
            footer[4 * x] = letter
        lines.append(f"{'':>{label_width}} {''.join(footer)}".rstrip())
        return "\n".join(lines)


def _parse_position_text(text: str, variant: Variant) -> Position:
    board = variant.board
    example = "e.g. 'W:a1,d7 B:b2 w h:7,7'"
    fields: dict[str, str] = {}
    for token in re.sub(r"\s*,\s*", ",", text.strip()).split():
        low = token.lower()
        if low[:2] in ("w:", "b:", "h:"):
            key = low[0]
        elif low in ("w", "b"):
            key = "side"
        else:
            raise PositionError(f"unexpected {quoted(token)} in position text ({example})")
        if key in fields:
            raise PositionError(f"{quoted(token)} repeats a field of the position text "
                                f"({example})")
        fields[key] = low
    required = (("w", "W:"), ("b", "B:"), ("side", "w or b"))
    missing = [name for key, name in required if key not in fields]
    if missing:
        raise PositionError(f"position text lacks {' and '.join(missing)} ({example})")

    seen: dict[str, str] = {}
    masks = {}
    for key, side in (("w", "White"), ("b", "Black")):
        mask = 0
        for name in filter(None, fields[key][2:].split(",")):
            if name not in board.index_of:
                raise PositionError(
                    f"unknown point {quoted(name)} (the {board.name} board has "
                    f"{' '.join(board.points)})"
                )
            if name in seen:
                if seen[name] == side:
                    raise PositionError(f"point {name} is listed twice for {side}")
                raise PositionError(f"point {name} is listed for both White and Black")
            seen[name] = side
            mask |= 1 << board.index_of[name]
        masks[key] = mask

    white_hand, black_hand = _hands(fields["h"]) if "h" in fields else (0, 0)
    position = Position(
        variant, masks["w"], masks["b"], white_hand, black_hand, fields["side"] == "w"
    )
    position.validate()
    return position


def _hands(field: str) -> tuple[int, int]:
    """White's and Black's stones in hand from ``h:W,B``: whole numbers, a minus sign
    let through for ``validate`` to say that a hand cannot be negative."""
    hands = []
    for part in field[2:].split(",") if field.count(",") == 1 else []:
        number = whole_number(part.removeprefix("-"))
        if number is None:
            break
        hands.append(-number if part.startswith("-") else number)
    if len(hands) != 2:
        raise PositionError(f"bad stones in hand {quoted(field)}: write h:<White's>,<Black's> "
                            f"in digits 0-9, e.g. h:7,7")
    return hands[0], hands[1]


def _parse_move_list(text: str, variant: Variant) -> Position:
    from .rules import parse_move, play  # the rules' module loads only when it is used

    position = Position.start(variant)
    for number, token in enumerate(re.split(r"[\s,]+", text.strip()), start=1):
        if not token:
            continue
        try:
            position = play(position, parse_move(token, position))
        except IllegalMoveError as err:
            raise PositionError(f"move {number} of the move list: {err}") from None
    return position
