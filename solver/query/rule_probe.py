"""A table file's values under the draw rule of a move limit (``drawrules``): a
position's result at a count of moving plies without a capture, and its moves ranked
under the rule, read from the file's draw-rule layers beside the game's own values."""

from __future__ import annotations

from collections import defaultdict
from typing import Protocol

import numpy as np

from ..core.errors import MorrisError
from ..index.index_format import IndexTables, canonical_index
from ..rules.drawrules import RULE_PAD, plies_to_capture, result_at, rule_class
from ..rules.position import Position
from ..rules.rules import Move, successors, terminal
from ..rules.sectors import Sector
from ..rules.values import PAD, Result, Value
from ..tables.layer_reader import LayerReader
from ..tables.solve_advice import missing_sector, solve_command
from ..tables.storage import SECTORS, MissingSectorError, TableFile, damaged_sector, rule_layer
from .probe_results import MoveValue, RuleMoveValue, RuleValue


class GameProbe(Protocol):
    """The game's values the rule's answers stand beside (a ``probe.Tablebase``)."""

    def probe(self, position: Position) -> Value: ...

    def moves(self, position: Position) -> list[MoveValue]: ...


class RuleProbe:
    """The draw-rule layers of ``table``, read through a ``LayerReader`` a move limit
    (``budget`` and ``whole_sector_after`` as for the game's values), ``game`` giving
    the game's values."""

    def __init__(self, table: TableFile, T: IndexTables, budget: int,
                 whole_sector_after: int, game: GameProbe):
        self._table, self._T, self._game = table, T, game
        self._budget, self._whole_sector_after = budget, whole_sector_after
        self._readers: dict[int, LayerReader] = {}  # by move limit
        self._limits: list[int] | None = None

    def limits(self) -> list[int]:
        """The move limits whose draw-rule values the file holds (read once: the engine
        asks at every move)."""
        if self._limits is None:
            self._limits = sorted(int(layer.rsplit("L", 1)[1])
                                  for layer in self._table.layers() if layer != SECTORS)
        return self._limits

    def probe(self, position: Position, count: int, limit: int) -> RuleValue:
        """``Tablebase.rule_probe``."""
        placing = _check_count(position, count, limit)
        value = self._game.probe(position)
        end = terminal(position)
        if end is not None:  # over: what the rules say, whatever the count
            over = end.result is not Result.DRAW
            return RuleValue(value, end.result, end.result.value if over else "draw",
                             0 if over else None, count, limit)
        (code,) = self._codes([position], limit)
        return RuleValue(
            value, Result(result_at(code, count, limit, placing)),
            rule_class(value.to_code(), code), plies_to_capture(code, placing), count, limit,
        )

    def moves(self, position: Position, count: int, limit: int) -> list[RuleMoveValue]:
        """``Tablebase.rule_moves``."""
        placing = _check_count(position, count, limit)
        if terminal(position) is not None:
            return []
        values = {mv.text: mv.value for mv in self._game.moves(position)}
        pairs = [(move, after, terminal(after)) for move, after in successors(position)]
        after_counts = [0 if placing or move.removed else count + 1 for move, _, _ in pairs]
        asked = [j for j, (_, _, end) in enumerate(pairs)
                 if end is None and after_counts[j] < limit]
        codes = dict(zip(asked, self._codes([pairs[j][1] for j in asked], limit),
                         strict=True))
        ranked = []
        for j, (move, after, end) in enumerate(pairs):
            text = move.text(position.board)
            after_count = after_counts[j]  # 0 after a capture or a placement
            if end is not None:  # ending the game comes before the limit
                result = end.result.flipped()
                z = None if result is Result.DRAW else 1
            elif after_count >= limit:
                result, z = Result.DRAW, None  # this ply reaches the limit: drawn
            else:
                after_placing = after.mover_hand > 0 or after.other_hand > 0
                result = Result(result_at(codes[j], after_count, limit, after_placing)).flipped()
                if result is Result.DRAW:
                    z = None
                elif after_count == 0 or after_placing:
                    z = 1  # the capture itself decides it
                else:
                    z = 1 + (plies_to_capture(codes[j], False) or 0)  # a win or loss: not None
            if placing:
                z = None  # no count runs while placing
            value = values[text]
            if result is Result.WIN:
                rank = (0, z or 0)
            elif result is Result.DRAW:
                rank = (1, value.sort_key())
            else:
                rank = (2, -(z or 0))
            ranked.append((rank, text, RuleMoveValue(move, text, value, result, z)))
        ranked.sort(key=lambda item: item[:2])
        return [item[2] for item in ranked]

    def best_move(self, position: Position, count: int, limit: int) -> Move | None:
        """``Tablebase.rule_best_move``."""
        moves = self.moves(position, count, limit)
        return moves[0].move if moves else None

    def _codes(self, positions: list[Position], limit: int) -> list[int]:
        """The draw-rule codes of ``positions`` at move limit ``limit``, read sector by
        sector in one call each (a move's successors, for ``moves``)."""
        reader = self._reader(limit)
        slots: dict[Sector, list[tuple[int, int]]] = defaultdict(list)
        for j, position in enumerate(positions):
            mover, other = position.mover, position.other
            W, B = mover.bit_count(), other.bit_count()
            slots[(W, B, position.mover_hand, position.other_hand)].append(
                (j, canonical_index(self._T, W, B, mover, other)))
        codes = [0] * len(positions)
        for sector, found in slots.items():
            found_codes = reader.at(sector, np.array([i for _, i in found], np.int64))
            if (found_codes == PAD).any():
                raise damaged_sector(self._table.path, sector)
            for (j, _), code in zip(found, found_codes.tolist(), strict=True):
                codes[j] = code
        return codes

    def _reader(self, limit: int) -> LayerReader:
        """The reader of the layer of ``limit``; ``MissingSectorError`` naming the solve
        that makes it where the file lacks it."""
        reader = self._readers.get(limit)
        if reader is None:
            if limit not in self.limits():
                table = self._table
                command = solve_command(table.variant, table.path, "--draw-rules",
                                        "--move-limit", str(limit))
                raise MissingSectorError(
                    f"{table.path} holds no draw-rule values for the limit {limit}; "
                    f"run '{command}'", None)
            reader = LayerReader(
                self._table, rule_layer(limit), self._T, self._budget,
                self._whole_sector_after, np.uint8, RULE_PAD,
                lambda sector: missing_sector(self._table, sector, limit),
            )
            self._readers[limit] = reader
        return reader


def _check_count(position: Position, count: int, limit: int) -> bool:
    """Whether ``position`` is in the placement phase; a count that cannot occur is a
    ``MorrisError``."""
    placing = position.mover_hand > 0 or position.other_hand > 0
    if placing and count:
        raise MorrisError("the count of moving plies is 0 while stones are placed")
    if not 0 <= count <= limit:
        raise MorrisError(f"the count must be between 0 and the limit {limit}, not {count}")
    return placing
