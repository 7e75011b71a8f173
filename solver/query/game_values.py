"""The game's values of a table file as the probe reads them: the code of a position,
and every successor with its score.

The first few queries are answered in plain Python (the rules' move generator and
``index_format``'s index): a command-line probe is over before importing Numba and
loading the compiled kernels (about 0.8 s) would pay off. Later queries run the kernels
of ``probe_kernels``: a code is one Numba call and a move list one more. The codes come
through the chunk-by-chunk reading and the byte-bounded cache of ``LayerReader``, kept
as bytes where they fit (``compact``).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable
from functools import cached_property
from types import ModuleType

import numpy as np

from ..index.index_format import canonical_index, index_tables
from ..rules.position import Position
from ..rules.rules import successors
from ..rules.sectors import Sector
from ..rules.values import PAD, move_score
from ..rules.variants import Variant
from ..tables.compact import BYTE_PAD, compact_codes
from ..tables.layer_reader import LayerReader
from ..tables.storage import SECTORS, TableFile, damaged_sector

# Queries answered in plain Python before the kernels are loaded (unless this process
# has loaded them already): enough for a command-line probe and its move list.
_PLAIN_QUERIES = 8
_NO_CODES = np.empty(0, dtype=np.uint8)


def _kernels_imported() -> bool:
    """Whether this process has loaded the kernels already (then use them at once)."""
    return "morris_solver.tables.probe_kernels" in sys.modules


class GameValues(LayerReader):
    """The game's values (``storage.SECTORS``) of a variant's table file, sectors held
    as bytes where they fit; ``missing`` makes the error for a sector the file lacks.
    Not thread-safe: it reuses the kernels' move buffers between calls."""

    def __init__(self, table: TableFile, variant: Variant, budget: int,
                 whole_sector_after: int, missing: Callable[[Sector], Exception]):
        super().__init__(table, SECTORS, index_tables(variant.board, variant.stones), budget,
                         whole_sector_after, np.uint16, BYTE_PAD, missing,
                         prepare=compact_codes)
        self.variant = variant
        self.kernels: ModuleType | None = None  # ``probe_kernels`` once in use
        self._queries = 0
        self._buffers: tuple[np.ndarray, ...] = ()  # the kernels' move buffers

    def code(self, position: Position, sector: Sector) -> int:
        """The stored code of ``position`` in its ``sector``; ``TableError`` if the
        slot reads as padding, the ``missing`` error if the file lacks the sector."""
        codes = self._held_or_empty(sector)
        kernels = self._kernels()
        W, B = sector[:2]
        if len(codes) and kernels is not None:
            code = kernels.probe_code(codes, W, B, position.mover, position.other,
                                      *self._tables)
        else:
            index = canonical_index(self.T, W, B, position.mover, position.other)
            code = int(self.at(sector, np.array([index]))[0])
        if code == PAD:
            raise damaged_sector(self.table.path, sector)
        return code

    def successors(self, position: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Successor masks (side to move first) and scores (see
        ``probe_kernels.scored_successors``), as views of buffers the next call
        overwrites. With the kernels and every sector the moves lead to loaded whole this
        is one Numba call; the codes of sectors not loaded whole are read chunk by chunk
        at the slots that call located."""
        kernels = self._kernels()
        if kernels is None:
            return self._plain_successors(position)
        out_mover, out_other, out_kind, out_index, out_score = self._buffers
        mover, other = position.mover, position.other
        W, B = mover.bit_count(), other.bit_count()
        WF, BF = position.mover_hand, position.other_hand
        if WF:
            targets = [(B - k, W + 1, BF, WF - 1) for k in range(3)]
        else:
            targets = [(B - k, W, 0, 0) for k in range(3)]
        count, missing, damaged = kernels.scored_successors(
            mover, other, W, B, WF, BF, *(self._held_or_empty(s) for s in targets), out_mover,
            out_other, out_kind, out_index, out_score, *self._tables,
        )
        if damaged:
            raise damaged_sector(self.table.path, targets[(damaged & -damaged).bit_length() - 1])
        if missing:
            kinds, indices = out_kind[:count], out_index[:count]
            codes = np.ones(count, np.int64)  # a move that ends the game: lost in 0
            for k in np.unique(kinds[kinds >= 0]).tolist():
                chosen = kinds == k
                codes[chosen] = self._checked_at(targets[k], indices[chosen])
            out_score[:count] = _scores_of(codes)
        return out_mover[:count], out_other[:count], out_score[:count]

    def _plain_successors(self, position: Position
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What ``successors`` returns, from the rules' move generator and the plain
        index: milliseconds a position instead of microseconds, but no compiler."""
        pairs = successors(position)
        movers = np.array([after.mover for _, after in pairs], np.int64)
        others = np.array([after.other for _, after in pairs], np.int64)
        codes = np.ones(len(pairs), np.int64)  # a move that ends the game: lost in 0
        lines = self.variant.board.mill_masks.tolist() if self.variant.line_wins else ()
        slots: dict[Sector, list[tuple[int, int]]] = defaultdict(list)
        for j, (_, after) in enumerate(pairs):
            W, B = after.mover.bit_count(), after.other.bit_count()
            if W + after.mover_hand < 3 or any(after.other & m == m for m in lines):
                continue
            slots[(W, B, after.mover_hand, after.other_hand)].append(
                (j, canonical_index(self.T, W, B, after.mover, after.other))
            )
        for sector, found in slots.items():
            js, indices = (np.array(column, np.int64) for column in zip(*found, strict=True))
            codes[js] = self._checked_at(sector, indices)
        return movers, others, _scores_of(codes)

    def _checked_at(self, sector: Sector, indices: np.ndarray) -> np.ndarray:
        """``at``, a padding code among them a ``TableError``."""
        codes = self.at(sector, indices)
        if (codes == PAD).any():
            raise damaged_sector(self.table.path, sector)
        return codes

    def _held_or_empty(self, sector: Sector) -> np.ndarray:
        """The sector's codes if held whole (now most recently used), else an empty
        array (what the kernels take for a sector to read otherwise)."""
        codes = self.held(sector)
        return _NO_CODES if codes is None else codes

    @cached_property
    def _tables(self) -> tuple:
        """Rule and index tables as the kernels' trailing arguments (``kernel_tables``)."""
        from ..index.movegen import kernel_tables

        return kernel_tables(self.variant)

    def _kernels(self) -> ModuleType | None:
        """``probe_kernels``, once ``_PLAIN_QUERIES`` queries have been answered (or the
        process has loaded it already); None before: answer in plain Python."""
        if self.kernels is None:
            self._queries += 1
            if self._queries <= _PLAIN_QUERIES and not _kernels_imported():
                return None
            from ..tables import probe_kernels

            self._buffers = tuple(np.empty(probe_kernels.MAX_MOVES, np.int64) for _ in range(5))
            self.kernels = probe_kernels
        return self.kernels


def _scores_of(codes: np.ndarray) -> np.ndarray:
    """``values.move_score`` over many successor codes."""
    return np.array([move_score(c) for c in codes.tolist()], np.int64)
