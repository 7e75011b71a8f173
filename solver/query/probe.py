"""Perfect play from the tables: the value of a position and of every legal move.

``Tablebase.open(path)`` reads only the file's attributes; used in a ``with`` block, or
ended by ``close``, the ``Tablebase`` lets go of what it loaded. Values are for the side to
move (``values.Value``): win, draw or loss, and the distance in plies to the end of the
game under optimal play (the winner hurries, the loser delays). A move's value is the
value it leads to for the side that plays it; moves rank shortest win, draws, longest
loss. Positions that are already over are answered by the rules, so their sectors
(fewer than 3 stones) need no table.

The codes are read by ``game_values`` (chunk by chunk, then whole; in plain Python for
the first queries, then through the Numba kernels), the values under a draw rule by
``rule_probe``; a placement position whose sector the file lacks is searched over the
moving phase by ``search_route`` (win, draw or loss without the distance).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..rules.drawrules import DEFAULT_LIMIT
from ..rules.position import Position
from ..rules.rules import Move, terminal
from ..rules.sectors import Sector
from ..rules.values import Result, Value
from ..rules.variants import VARIANTS, Variant
from ..tables.solve_advice import missing_sector
from ..tables.storage import MissingSectorError, TableError, TableFile, check_variant
from .game_values import GameValues
from .probe_results import Evaluation, MoveValue, RuleMoveValue, RuleValue, Searched
from .rule_probe import RuleProbe
from .search_route import SearchRoute

if TYPE_CHECKING:
    from ..search.search import PlacementSearch

DEFAULT_CACHE_BYTES = 4 << 30
# Chunk reads of one sector after which it is loaded whole (when it fits the cache): a
# cold probe reads a few chunks, a game or a search soon many more.
DEFAULT_WHOLE_SECTOR_AFTER = 64


class Tablebase:
    """Read-only access to a variant's solved tables. Not thread-safe (it reuses move
    buffers between calls): open one per thread.

    The game: ``probe`` (a position's value), ``moves`` (every move's, best first),
    ``best_move``, ``evaluate`` (the two with what searching cost). Under the draw rule
    of a move limit: ``rule_limits``, ``rule_probe``, ``rule_moves``, ``rule_best_move``.
    The search of placement positions the file lacks: ``search`` (on or off),
    ``search_limits``, ``may_search``, ``search_totals``/``searched_since``,
    ``warm_up``. The file: ``variant``, ``path``, ``sector_statistics``,
    ``sector_codes``, ``cache_bytes``/``cached_bytes``, ``close``/``closed`` (and
    ``with Tablebase.open(path) as tb:``, which closes it at the block's end). Errors:
    ``TableError`` for a foreign position, a damaged file or a closed ``Tablebase``, its
    ``MissingSectorError`` where the file lacks what a query needs (the message names
    the ``morris solve`` that makes it), ``SearchTimeout``/``SearchCancelled`` past
    ``search_limits`` (docs/api.md)."""

    def __init__(
        self,
        table: TableFile,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        whole_sector_after: int = DEFAULT_WHOLE_SECTOR_AFTER,
        search: bool = True,
    ):
        self._table = table
        self._cache_bytes = cache_bytes
        self._whole_sector_after = whole_sector_after
        v = table.variant
        self._variant = VARIANTS[v.name] if VARIANTS.get(v.name) == v else v  # fast `is` check
        self._route = SearchRoute(table, self, search)
        self._statistics: dict[Sector, dict] | None = None
        self._closed = False

    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        whole_sector_after: int = DEFAULT_WHOLE_SECTOR_AFTER,
        search: bool = True,
    ) -> Tablebase:
        """Open a table file (its attributes and its sectors' metadata are read and
        checked now, by ``TableFile.open``, not their codes). ``cache_bytes`` bounds the
        memory of loaded sectors and chunks (the sector in use is kept even if larger).
        A sector is read chunk by chunk until ``whole_sector_after`` of its chunks have
        been read, then loaded whole if it fits ``cache_bytes`` (0: load every sector
        whole at once). With ``search``, placement positions whose sector the file lacks
        are answered by search over its moving phase (``search_route``). Raises
        ``TableError`` if the file is missing or not a table file. Also a context
        manager: ``with Tablebase.open(path) as tb:`` closes it at the block's end."""
        return cls(TableFile.open(path), cache_bytes, whole_sector_after, search)

    def close(self) -> None:
        """Let go of the table: the sectors and chunks loaded, the draw-rule values, the
        placement search's tables. The file itself is open only while a read runs, so
        nothing else is held. A query after it raises ``TableError``; ``variant`` and
        ``path`` still answer. Closing again does nothing."""
        self._closed = True
        for loaded in ("_game", "_rules"):  # cached properties: dropped with their caches
            self.__dict__.pop(loaded, None)
        self._route.close()
        self._statistics = None

    @property
    def closed(self) -> bool:
        """Whether ``close`` was called (or the ``with`` block that opened it ended)."""
        return self._closed

    def __enter__(self) -> Tablebase:
        self._check_open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = " (closed)" if self._closed else ""
        return f"<Tablebase {self._variant.name} {str(self.path)!r}{state}>"

    # -- the file ---------------------------------------------------------------------

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def path(self) -> Path:
        return self._table.path

    def sector_statistics(self) -> dict[Sector, dict]:
        """Every sector of the file with its stored statistics (``storage.STAT_KEYS``:
        wins, draws and losses for the side to move), read once."""
        self._check_open()
        if self._statistics is None:
            self._statistics = self._table.sectors()
        return self._statistics

    def sector_codes(self, sector: Sector) -> np.ndarray:
        """The codes of a sector as the kernels read them (``probe_kernels.code_at``):
        bytes when they fit (``compact.compact_codes``), else uint16. Loaded into the
        cache if needed. Raises ``MissingSectorError`` or ``TableError`` like ``probe``."""
        self._check_open()
        return self._game.whole(sector)

    @property
    def cache_bytes(self) -> int:
        """The bound on the bytes of sectors and chunks held (``open``), per layer."""
        return self._cache_bytes

    @property
    def cached_bytes(self) -> int:
        """Bytes held by the sectors and chunks now in the cache of the game's values (0
        once closed)."""
        game = self.__dict__.get("_game")
        return 0 if game is None else game.cache.nbytes

    # -- the game ---------------------------------------------------------------------

    def probe(self, position: Position) -> Value:
        """The value of ``position`` for the side to move. Raises ``TableError`` for a
        position of another variant or a damaged sector, ``MissingSectorError`` when its
        sector is not in the file (and not searched)."""
        self._check_variant(position)
        W = position.mover.bit_count()
        if W + position.mover_hand < 3:
            return Value(Result.LOSS, 0)
        sector = (W, position.other.bit_count(), position.mover_hand, position.other_hand)
        if self._route.covers(sector) and terminal(position) is None:
            return self._route.value(position)  # a game over is answered below
        try:
            code = self._game.code(position, sector)
        except MissingSectorError as missing:
            end = terminal(position)  # a game that is over needs no table
            if end is None:
                return self._route.first_value(position, missing)
            return Value(end.result, 0 if end.result is Result.LOSS else None)
        return _value_of_code(code)

    def moves(self, position: Position) -> list[MoveValue]:
        """Every legal move with the value it leads to for the side to move, best first:
        shortest win, draws, longest loss (a searched win or loss, without its distance,
        next to the draws); ties in order of the move text. Empty when the game is over."""
        self._check_variant(position)
        found = self._stored_successors(position)
        if found is None:
            return self._route.moves(position)
        succ_mover, succ_other, scores = found
        mover, other, board = position.mover, position.other, position.board
        seen: set[tuple[int, int]] = set()
        ranked = []
        successors = zip(succ_mover.tolist(), succ_other.tolist(), scores.tolist(), strict=True)
        for m, o, score in successors:
            if (m, o) in seen:  # a double mill may remove the same two stones in either order
                continue
            seen.add((m, o))
            move = _move_from_masks(mover, other, m, o)
            ranked.append((score, move.text(board), move))
        ranked.sort(key=lambda item: item[:2])
        return [MoveValue(move, text, _value_of_score(score)) for score, text, move in ranked]

    def best_move(self, position: Position) -> Move | None:
        """A perfect move (the first of ``moves``), or None when the game is over."""
        self._check_variant(position)
        found = self._stored_successors(position)
        if found is None:
            return self._route.best_move(position)
        succ_mover, succ_other, scores = found
        if len(scores) == 0:
            return None
        scores = scores.tolist()
        best = min(scores)
        tied = [j for j, score in enumerate(scores) if score == best]
        mover, other = position.mover, position.other
        if len(tied) > 1:  # the first in notation order; texts without building Moves
            names = position.board.points
            texts = [
                _text_from_masks(names, mover, other, int(succ_mover[j]), int(succ_other[j]))
                for j in tied
            ]
            tied = [tied[texts.index(min(texts))]]
        return _move_from_masks(mover, other, int(succ_mover[tied[0]]), int(succ_other[tied[0]]))

    def evaluate(self, position: Position) -> Evaluation:
        """``probe`` and ``moves`` together, with what searching cost (None if nothing
        was searched)."""
        before = self.search_totals
        value = self.probe(position)
        moves = self.moves(position)
        searched = self.searched_since(before) if self.search_totals != before else None
        return Evaluation(value, moves, searched)

    def value_from_successors(self, position: Position) -> Value:
        """The value of ``position`` as the best of its successors' stored values. It
        needs only the sectors the moves lead to, not the position's own:
        the last placement before the moving phase, say, when only the moving phase is
        solved (what the start-value search relies on)."""
        self._check_variant(position)
        scores = self._game.successors(position)[2]
        if len(scores) == 0:
            end = terminal(position)  # over, or no legal move
            assert end is not None, "a position without successors is over"
            return Value(end.result, 0 if end.result is Result.LOSS else None)
        return _value_of_score(int(scores.min()))

    # -- under the draw rule of a move limit (``drawrules``) ---------------------------

    def rule_limits(self) -> list[int]:
        """The move limits whose draw-rule values the file holds (read once)."""
        self._check_open()
        return self._rules.limits()

    def rule_probe(self, position: Position, count: int = 0,
                   limit: int = DEFAULT_LIMIT) -> RuleValue:
        """The value of ``position`` under the draw rule of ``limit`` moving plies without
        a capture, ``count`` of them played already (always 0 while placing). Raises
        ``MissingSectorError`` when the file lacks the draw-rule values of its sector."""
        self._check_variant(position)
        return self._rules.probe(position, count, limit)

    def rule_moves(self, position: Position, count: int = 0,
                   limit: int = DEFAULT_LIMIT) -> list[RuleMoveValue]:
        """Every legal move with the result under the rule it leads to, best first for
        the side to move: the rule wins soonest converted, the draws (the better game
        value first, so a cursed win still presses and a blessed loss still resists),
        the rule losses latest converted; ties in notation order."""
        self._check_variant(position)
        return self._rules.moves(position, count, limit)

    def rule_best_move(self, position: Position, count: int = 0,
                       limit: int = DEFAULT_LIMIT) -> Move | None:
        """A perfect move under the rule (the first of ``rule_moves``), or None when the
        game is over."""
        self._check_variant(position)
        return self._rules.best_move(position, count, limit)

    # -- the search of placement positions the file lacks (``search_route``) ----------

    @property
    def search(self) -> bool:
        """Whether placement positions whose sector the file lacks are searched."""
        return self._route.enabled

    @search.setter
    def search(self, on: bool) -> None:
        self._route.enabled = on

    @property
    def search_load_progress(self) -> Callable[[int, int], None] | None:
        """Called with (sectors loaded, sectors to load) while the search loads the
        moving-phase tables."""
        return self._route.load_progress

    @search_load_progress.setter
    def search_load_progress(self, progress: Callable[[int, int], None] | None) -> None:
        self._route.load_progress = progress

    def search_limits(self, seconds: float | None,
                      cancel: threading.Event | None = None) -> AbstractContextManager[None]:
        """Bound the placement searches run inside the block, so that a server's query
        cannot hold its thread for minutes: ``seconds`` for them all, from now, then
        ``SearchTimeout`` (one line saying how to get the answer at once); ``cancel``
        set, ``SearchCancelled``. A stopped search leaves the searches after it exact."""
        return self._route.limits(seconds, cancel)

    def may_search(self) -> bool:
        """Whether some placement position is answered by search here: searching is on
        and the file lacks a placement sector some game reaches (a server runs those
        queries apart from the plain reads)."""
        self._check_open()
        return self._route.may_search()

    @property
    def search_totals(self) -> tuple:
        """The placement searches' totals so far (positions, nodes, seconds, load
        seconds): what ``searched_since`` subtracts."""
        return self._route.totals

    def searched_since(self, totals: tuple) -> Searched:
        """What the placement searches cost since ``search_totals`` was ``totals``."""
        return self._route.since(totals)

    @property
    def placement_search(self) -> PlacementSearch:
        """The search that answers placement positions the file lacks, kept for this
        ``Tablebase``'s life (its sectors and transposition table)."""
        self._check_open()
        return self._route.search

    def warm_up(self) -> None:
        """Load the probe kernels and their compiled code now, rather than at the first
        queries: that takes about a second of Python holding the GIL, which a server
        pays before it answers anyone instead of stalling every request under way. A
        file without the placement phase also loads the moving phase for the search and
        searches the start (Nine Men's Morris: 2.1 GiB of results, minutes)."""
        from ..tables import probe_kernels  # noqa: F401  (once imported, every Tablebase uses it)

        self._check_open()

        sector = min(self._table.sectors(), default=None)
        if sector is None:
            return
        W, B, WF, BF = sector
        position = Position.from_sides(self._variant, (1 << W) - 1, ((1 << B) - 1) << W,
                                       WF, BF, True)
        try:
            self.probe(position)
            self.moves(position)
        except TableError:  # a sector the probe needs that the file lacks: warm enough
            pass
        start = Position.start(self._variant)
        sector = (start.mover.bit_count(), start.other.bit_count(), start.mover_hand,
                  start.other_hand)
        if self.search and sector not in self._table.sector_set():
            try:  # a file without the placement phase: its search's tables, and the start
                self.placement_search.load(start, self.search_load_progress)
            except MissingSectorError:  # nor the moving phase: nothing to search with
                return
            self.probe(start)

    # -- internals ------------------------------------------------------------------

    @cached_property
    def _game(self) -> GameValues:
        """The game's values, read when first asked (so is the index)."""
        self._check_open()
        return GameValues(self._table, self._variant, self._cache_bytes,
                          self._whole_sector_after,
                          lambda sector: missing_sector(self._table, sector))

    @cached_property
    def _rules(self) -> RuleProbe:
        return RuleProbe(self._table, self._game.T, self._cache_bytes,
                         self._whole_sector_after, self)

    def _stored_successors(self, position: Position) -> tuple[np.ndarray, ...] | None:
        """``GameValues.successors``, or None where a move leads to a placement sector
        the file lacks, which the search answers instead."""
        try:
            return self._game.successors(position)
        except MissingSectorError as missing:
            if not self._route.searchable(missing):
                raise
            return None

    def _check_variant(self, position: Position) -> None:
        self._check_open()
        check_variant(self.path, self._variant, position.variant)

    def _check_open(self) -> None:
        if self._closed:
            raise TableError(f"the Tablebase of {self.path} is closed: open the file again "
                             "to query it")


def _move_from_masks(mover: int, other: int, succ_mover: int, succ_other: int) -> Move:
    """The move that turns (mover, other) into the successor (succ_mover, succ_other)."""
    origin = mover & ~succ_other
    removed = other & ~succ_mover
    return Move(
        origin.bit_length() - 1 if origin else None,
        (succ_other & ~mover).bit_length() - 1,
        tuple(p for p in range(removed.bit_length()) if removed >> p & 1) if removed else (),
    )


def _text_from_masks(
    names: tuple[str, ...], mover: int, other: int, succ_mover: int, succ_other: int
) -> str:
    """``Move.text`` of ``_move_from_masks(mover, other, succ_mover, succ_other)``."""
    origin = mover & ~succ_other
    removed = other & ~succ_mover
    text = names[(succ_other & ~mover).bit_length() - 1]
    if origin:
        text = f"{names[origin.bit_length() - 1]}-{text}"
    while removed:
        low = removed & -removed
        text += "x" + names[low.bit_length() - 1]
        removed ^= low
    return text


@cache
def _value_of_code(code: int) -> Value:
    return Value.from_code(code)


@cache
def _value_of_score(score: int) -> Value:
    return Value.from_score(score)
