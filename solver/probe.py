"""Perfect play from the tables: the value of a position and of every legal move.

``Tablebase.open(path)`` reads only the file's attributes. Codes are read through a
``layer_reader.LayerReader``: chunk by chunk (a probe decompresses only the HDF5 chunks
that hold the position or its successors), and whole once a sector is used more, all
within a cache bounded in bytes.

The first few queries of a ``Tablebase`` are answered in plain Python (the rules'
move generator and ``index_format``'s index): a command-line probe is over before
importing Numba and loading the compiled kernels (about 0.8 s) would pay off. Later
queries run the kernels of ``probe_kernels``: a probe is one Numba call and a move list
one more. Positions that are already over are answered by the rules, so their sectors
(fewer than 3 stones) need no table.

A placement position whose sector the file lacks is answered by search over the
moving-phase tables (``search.PlacementSearch``, win/draw/loss without the distance)
when the file holds the moving phase: a user who solved only the moving phase plays
perfectly from the empty board. The search keeps its loaded sectors and transposition
table for the ``Tablebase``'s life, so the later positions of a game are cheap;
``evaluate`` says what it searched.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from .drawrules import DEFAULT_LIMIT, RULE_PAD, plies_to_capture, result_at, rule_class
from .errors import MorrisError
from .index_format import IndexTables, canonical_index, index_tables
from .layer_reader import LayerReader
from .position import Position
from .rules import Move, successors, terminal
from .sectors import Sector, is_moving, reachable_sectors, sector_name
from .storage import SECTORS, TableError, TableFile, default_table_path, rule_layer
from .values import PAD, Result, Value, move_score
from .variants import VARIANTS, Variant

if TYPE_CHECKING:
    from .search import PlacementSearch

DEFAULT_CACHE_BYTES = 4 << 30
# Chunk reads of one sector after which it is loaded whole (when it fits the cache): a
# cold probe reads a few chunks, a game or a search soon many more.
DEFAULT_WHOLE_SECTOR_AFTER = 64
# Queries a Tablebase answers in plain Python before it loads the kernels (unless this
# process has loaded them already): enough for a command-line probe and its move list.
_PLAIN_QUERIES = 8
_NO_CODES = np.empty(0, dtype=np.uint8)
_BYTE_PAD = PAD & 0xFF  # PAD as a byte: what ``astype(np.uint8)`` turns it into
_SEARCH_INF = 1 << 21  # beyond every score of the search's (``search._INF``)


def _kernels_imported() -> bool:
    """Whether this process has loaded the kernels already (then use them at once)."""
    return "morris_solver.probe_kernels" in sys.modules


class MissingSectorError(TableError):
    """A sector the query needs is not in the table file."""

    def __init__(self, message: str, sector: Sector):
        super().__init__(message)
        self.sector = sector


class SearchStopped(MorrisError):
    """A placement search stopped before its answer (it never answers a guess)."""


class SearchTimeout(SearchStopped):
    """A placement search ran past its time budget (``Tablebase.search_limits``)."""


class SearchCancelled(SearchStopped):
    """A placement search was cancelled (a web client that left)."""


@dataclass(frozen=True)
class Searched:
    """What the placement search cost to answer a query (``Tablebase.evaluate``)."""

    positions: int  # positions searched from (the query's or its moves')
    nodes: int
    seconds: float  # loading the moving-phase tables included
    load_seconds: float

    def as_dict(self) -> dict:
        return {"positions": self.positions, "nodes": self.nodes,
                "seconds": round(self.seconds, 3), "load_seconds": round(self.load_seconds, 3)}

    def __str__(self) -> str:
        load = f", {self.load_seconds:.1f} s of it loading" if self.load_seconds >= 0.05 else ""
        return (f"searched over the moving-phase tables (no placement table): "
                f"{self.nodes:,} nodes, {self.seconds:.2f} s{load}")


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
class MoveValue:
    """A legal move, its notation, and the value it leads to for the side that plays it."""

    move: Move
    text: str
    value: Value


def compact_codes(codes: np.ndarray) -> np.ndarray:
    """The codes as bytes (padding as ``_BYTE_PAD``) when they all fit, else unchanged:
    half the memory for the cache. Every distance of Nine Men's Morris fits (the longest
    is 203 plies), so its whole moving phase takes 8.6 GiB in memory instead of 17.1,
    which the start-value search needs to hold at once."""
    step = 1 << 24  # bounded temporaries for sectors of a billion slots
    for lo in range(0, len(codes), step):
        part = codes[lo : lo + step]
        if ((part >= _BYTE_PAD) & (part != PAD)).any():
            return codes
    return codes.astype(np.uint8)


def widen_codes(codes: np.ndarray) -> np.ndarray:
    """``compact_codes`` undone: uint16 codes, padding as ``PAD``."""
    if codes.dtype == np.uint16:
        return codes
    wide = codes.astype(np.uint16)
    wide[codes == _BYTE_PAD] = PAD
    return wide


def _scores_of(codes: np.ndarray) -> np.ndarray:
    """``values.move_score`` over many successor codes."""
    return np.array([move_score(c) for c in codes.tolist()], np.int64)


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
    """A position's value and its moves' values (best first) as ``morris probe --json``
    prints them and the web board's API serves them; ``searched`` when they were."""
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


class Tablebase:
    """Read-only access to a variant's solved tables. Not thread-safe (it reuses move
    buffers between calls): open one per thread."""

    def __init__(
        self,
        table: TableFile,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        whole_sector_after: int = DEFAULT_WHOLE_SECTOR_AFTER,
        search: bool = True,
    ):
        self._table = table
        self.search = search  # answer placement positions without their table by search
        # called with (sectors loaded, sectors to load) while the search loads its tables
        self.search_load_progress: Callable[[int, int], None] | None = None
        self._searched = [0, 0, 0.0, 0.0]  # positions, nodes, seconds, load seconds
        self._search_sectors: set[Sector] = set()  # found missing: searched from now on
        # (deadline, its seconds, cancel flag) of the searches now run (``search_limits``)
        self._search_limits: tuple[float | None, float | None, threading.Event | None] = (
            None, None, None)
        self.whole_sector_after = whole_sector_after
        self._cache_bytes = cache_bytes
        self._rule_readers: dict[int, LayerReader] = {}  # by move limit
        self._queries = 0
        self._loaded_kernels: ModuleType | None = None
        v = table.variant
        self._variant = VARIANTS[v.name] if VARIANTS.get(v.name) == v else v  # fast `is` check
        self._buffers: tuple[np.ndarray, ...] = ()  # the kernels' move buffers
        self._statistics: dict[Sector, dict] | None = None
        self._rule_limits: list[int] | None = None

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
        are answered by search over its moving phase (module docstring). Raises
        ``TableError`` if the file is missing or not a table file."""
        return cls(TableFile.open(path), cache_bytes, whole_sector_after, search)

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def path(self) -> Path:
        return self._table.path

    def sector_statistics(self) -> dict[Sector, dict]:
        """Every sector of the file with its stored statistics (``storage.STAT_KEYS``:
        wins, draws and losses for the side to move), read once."""
        if self._statistics is None:
            self._statistics = self._table.sectors()
        return self._statistics

    @property
    def cache_bytes(self) -> int:
        """The bound on the bytes of sectors and chunks held (``open``), per layer."""
        return self._cache_bytes

    @property
    def cached_bytes(self) -> int:
        """Bytes held by the sectors and chunks now in the cache of the game's values."""
        return self._game.cache.nbytes

    @cached_property
    def _game(self) -> LayerReader:
        """The game's values (``storage.SECTORS``), kept as bytes where they fit."""
        return LayerReader(
            self._table, SECTORS, self._T, self._cache_bytes, self.whole_sector_after,
            np.uint16, _BYTE_PAD, self._missing, prepare=compact_codes,
        )

    def probe(self, position: Position) -> Value:
        """The value of ``position`` for the side to move. Raises ``TableError`` for a
        position of another variant or a damaged sector, ``MissingSectorError`` when its
        sector is not in the file."""
        self._check_variant(position)
        mover, other = position.mover, position.other
        W = mover.bit_count()
        if W + position.mover_hand < 3:
            return Value(Result.LOSS, 0)
        B = other.bit_count()
        sector = (W, B, position.mover_hand, position.other_hand)
        if sector in self._search_sectors and terminal(position) is None:
            return self._search_value(position)  # a game over is answered below
        codes = self._cached(sector)
        kernels = self._kernels()
        try:
            if len(codes) and kernels is not None:
                code = kernels.probe_code(codes, W, B, mover, other, *self._tables)
            else:
                index = canonical_index(self._T, W, B, mover, other)
                code = int(self._codes_at(sector, np.array([index]))[0])
        except MissingSectorError as missing:
            end = terminal(position)  # a game that is over needs no table
            if end is None:
                return self._search(position, missing)
            return Value(end.result, 0 if end.result is Result.LOSS else None)
        if code == PAD:
            raise self.damaged(sector)
        return _value_of_code(code)

    def warm_up(self) -> None:
        """Load the probe kernels and their compiled code now, rather than at the first
        queries: that takes about a second of Python holding the GIL, which a server
        pays before it answers anyone instead of stalling every request under way. A
        file without the placement phase also loads the moving phase for the search and
        searches the start (Nine Men's Morris: 8.6 GiB, about two minutes)."""
        from . import probe_kernels  # noqa: F401  (once imported, every Tablebase uses it)

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

    def value_from_successors(self, position: Position) -> Value:
        """The value of ``position`` as the best of its successors' stored values. It
        needs only the sectors the moves lead to, not the position's own:
        the last placement before the moving phase, say, when only the moving phase is
        solved (what the start-value search relies on)."""
        self._check_variant(position)
        scores = self._successors(position)[2]
        if len(scores) == 0:
            end = terminal(position)  # over, or no legal move
            return Value(end.result, 0 if end.result is Result.LOSS else None)
        return _value_of_score(int(scores.min()))

    def moves(self, position: Position) -> list[MoveValue]:
        """Every legal move with the value it leads to for the side to move, best first:
        shortest win, draws, longest loss (a searched win or loss, without its distance,
        next to the draws); ties in order of the move text. Empty when the game is over."""
        self._check_variant(position)
        found = self._stored_successors(position)
        if found is None:
            return self._searched_moves(position)
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
            return self._searched_best_move(position)
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
        """``probe`` and ``moves`` together, with what searching cost."""
        before = self.search_totals
        value = self.probe(position)
        moves = self.moves(position)
        searched = self.searched_since(before) if self.search_totals != before else None
        return Evaluation(value, moves, searched)

    @property
    def search_totals(self) -> tuple:
        """The placement searches' totals so far (positions, nodes, seconds, load
        seconds): what ``searched_since`` subtracts."""
        return tuple(self._searched)

    def searched_since(self, totals: tuple) -> Searched:
        """What the placement searches cost since ``search_totals`` was ``totals``."""
        return Searched(*(a - b for a, b in zip(self._searched, totals, strict=True)))

    # -- placement positions by search over the moving phase (``search``) -----------

    @cached_property
    def placement_search(self) -> PlacementSearch:
        """The search that answers placement positions the file lacks, kept for this
        ``Tablebase``'s life (its sectors and transposition table)."""
        from .search import PlacementSearch  # it reads the tables through this class

        return PlacementSearch(self)

    def _stored_successors(self, position: Position) -> tuple[np.ndarray, ...] | None:
        """``_successors``, or None where a move leads to a placement sector the file
        lacks, which the search answers instead."""
        try:
            return self._successors(position)
        except MissingSectorError as missing:
            if not self._searchable(missing):
                raise
            return None

    def _searchable(self, missing: MissingSectorError) -> bool:
        """Whether a placement sector some game reaches is what is missing, and searching
        is on (a sector no game reaches is named as such, not searched)."""
        return (self.search and not is_moving(missing.sector)
                and missing.sector in self._reachable)

    def may_search(self) -> bool:
        """Whether some placement position is answered by search here: searching is on
        and the file lacks a placement sector some game reaches (a server runs those
        queries apart from the plain reads)."""
        held = self._table.sector_set()
        return self.search and any(not is_moving(s) and s not in held for s in self._reachable)

    @cached_property
    def _reachable(self) -> set[Sector]:
        return reachable_sectors(self._variant)

    def _search(self, position: Position, missing: MissingSectorError) -> Value:
        """The value of ``position``, whose sector the file lacks, by search; ``missing``
        is raised instead where the file lacks moving-phase sectors the search needs
        too (it names the solve that makes them all)."""
        if not self._searchable(missing):
            raise missing
        try:  # here, so that what is missing is named as the user's command would
            load = self.placement_search.load(position, self.search_load_progress)
        except MissingSectorError:
            raise missing from None
        self._search_sectors.add(missing.sector)
        return self._search_value(position, load)

    @contextlib.contextmanager
    def search_limits(self, seconds: float | None,
                      cancel: threading.Event | None = None) -> Iterator[None]:
        """Bound the placement searches run inside the block, so that a server's query
        cannot hold its thread for minutes: ``seconds`` for them all, from now, then
        ``SearchTimeout`` (one line saying how to get the answer at once); ``cancel``
        set, ``SearchCancelled``. A stopped search leaves the searches after it exact."""
        saved = self._search_limits
        deadline = None if seconds is None else time.monotonic() + seconds
        self._search_limits = (deadline, seconds, cancel)
        try:
            yield
        finally:
            self._search_limits = saved

    def _search_value(self, position: Position, load_seconds: float = 0.0) -> Value:
        """The search's value of ``position``, counted in ``search_totals`` with the
        ``load_seconds`` spent loading its tables just before."""
        deadline, seconds, cancel = self._search_limits
        try:
            found = self.placement_search.search(position, deadline=deadline, cancel=cancel)
        except SearchTimeout as e:
            command = f"morris solve {self._variant.name} --phase placement"
            if self.path.resolve() != default_table_path(self._variant).resolve():
                command += f" --out {self.path}"
            raise SearchTimeout(
                f"the search took longer than {seconds:g} s ({e}; the file has no placement "
                f"tables, so placement positions are searched): for exact answers at once, "
                f"solve them with '{command}'") from None
        counts = (1, found.nodes, load_seconds + found.seconds,
                  load_seconds + found.load_seconds)
        self._searched = [a + b for a, b in zip(self._searched, counts, strict=True)]
        return found.value

    def _searched_best_move(self, position: Position) -> Move | None:
        """``best_move`` where some move leads to a placement sector the file lacks: the
        position searched, then its moves tried until one keeps its result, those the
        transposition table already bounds as keeping it first (the root's search left
        them there), so usually one more search, answered from the table. Which of the
        moves keeping the result it is depends on what was searched before."""
        want = self.probe(position).result
        search = self.placement_search
        options = []
        for move, after in successors(position):
            held = after.mover_hand == after.other_hand == 0  # read from the tables
            bound = -_SEARCH_INF if held else search.stored_upper_bound(after)
            options.append((bound, move.text(position.board), move, after))
        options.sort(key=lambda item: item[:2])
        for _, _, move, after in options:
            if self.probe(after).result.flipped() is want:
                return move
        return None  # the game is over: no successors

    def _searched_moves(self, position: Position) -> list[MoveValue]:
        """``moves`` where some move leads to a placement sector the file lacks: every
        successor probed, those sectors' by search."""
        seen: set[tuple[int, int]] = set()
        ranked = []
        for move, after in successors(position):
            if (after.mover, after.other) in seen:  # the same two stones in either order
                continue
            seen.add((after.mover, after.other))
            value = self.probe(after).after_move()
            ranked.append((value.sort_key(), move.text(position.board), move, value))
        ranked.sort(key=lambda item: item[:2])
        return [MoveValue(move, text, value) for _, text, move, value in ranked]

    # -- under the draw rule of a move limit (``drawrules``) ---------------------------

    def rule_limits(self) -> list[int]:
        """The move limits whose draw-rule values the file holds (read once: the engine
        asks at every move)."""
        if self._rule_limits is None:
            self._rule_limits = sorted(int(layer.rsplit("L", 1)[1])
                                       for layer in self._table.layers() if layer != SECTORS)
        return self._rule_limits

    def rule_probe(self, position: Position, count: int = 0,
                   limit: int = DEFAULT_LIMIT) -> RuleValue:
        """The value of ``position`` under the draw rule of ``limit`` moving plies without
        a capture, ``count`` of them played already (always 0 while placing). Raises
        ``MissingSectorError`` when the file lacks the draw-rule values of its sector."""
        self._check_variant(position)
        placing = self._check_count(position, count, limit)
        value = self.probe(position)
        end = terminal(position)
        if end is not None:  # over: what the rules say, whatever the count
            over = end.result is not Result.DRAW
            return RuleValue(value, end.result, end.result.value if over else "draw",
                             0 if over else None, count, limit)
        code = self._rule_code(position, limit)
        return RuleValue(
            value, Result(result_at(code, count, limit, placing)),
            rule_class(value.to_code(), code), plies_to_capture(code, placing), count, limit,
        )

    def rule_moves(self, position: Position, count: int = 0,
                   limit: int = DEFAULT_LIMIT) -> list[RuleMoveValue]:
        """Every legal move with the result under the rule it leads to, best first for
        the side to move: the rule wins soonest converted, the draws (the better game
        value first, so a cursed win still presses and a blessed loss still resists),
        the rule losses latest converted; ties in notation order."""
        self._check_variant(position)
        placing = self._check_count(position, count, limit)
        if terminal(position) is not None:
            return []
        values = {mv.text: mv.value for mv in self.moves(position)}
        pairs = [(move, after, terminal(after)) for move, after in successors(position)]
        after_counts = [0 if placing or move.removed else count + 1 for move, _, _ in pairs]
        asked = [j for j, (_, _, end) in enumerate(pairs)
                 if end is None and after_counts[j] < limit]
        codes = dict(zip(asked, self._rule_codes([pairs[j][1] for j in asked], limit),
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
                    z = 1 + plies_to_capture(codes[j], False)
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

    def rule_best_move(self, position: Position, count: int = 0,
                       limit: int = DEFAULT_LIMIT) -> Move | None:
        """A perfect move under the rule (the first of ``rule_moves``), or None when the
        game is over."""
        moves = self.rule_moves(position, count, limit)
        return moves[0].move if moves else None

    def _check_count(self, position: Position, count: int, limit: int) -> bool:
        """Whether ``position`` is in the placement phase; a count that cannot occur is
        a ``MorrisError``."""
        placing = position.mover_hand > 0 or position.other_hand > 0
        if placing and count:
            raise MorrisError("the count of moving plies is 0 while stones are placed")
        if not 0 <= count <= limit:
            raise MorrisError(f"the count must be between 0 and the limit {limit}, not {count}")
        return placing

    def _rule_code(self, position: Position, limit: int) -> int:
        """The draw-rule code of ``position`` (``drawrules``) at move limit ``limit``."""
        return self._rule_codes([position], limit)[0]

    def _rule_codes(self, positions: list[Position], limit: int) -> list[int]:
        """The draw-rule codes of ``positions`` at move limit ``limit``, read sector by
        sector in one call each (a move's successors, for ``rule_moves``)."""
        reader = self._rule_readers.get(limit)
        if reader is None:
            if limit not in self.rule_limits():
                out = "" if self.path.resolve() == default_table_path(
                    self._variant).resolve() else f" --out {self.path}"
                raise MissingSectorError(
                    f"{self.path} holds no draw-rule values for the limit {limit}; run "
                    f"'morris solve {self._variant.name} --draw-rules --move-limit {limit}{out}'",
                    None,
                )
            reader = LayerReader(
                self._table, rule_layer(limit), self._T, self._cache_bytes,
                self.whole_sector_after, np.uint8, RULE_PAD,
                lambda sector: self._missing(sector, limit),
            )
            self._rule_readers[limit] = reader
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
                raise self.damaged(sector)
            for (j, _), code in zip(found, found_codes.tolist(), strict=True):
                codes[j] = code
        return codes

    # -- internals ------------------------------------------------------------------

    @cached_property
    def _T(self) -> IndexTables:
        """The index tables (``index_format.index_tables``: from disk once built)."""
        return index_tables(self._variant.board, self._variant.stones)

    @cached_property
    def _tables(self) -> tuple:
        """Rule and index tables as the kernels' trailing arguments (``kernel_tables``)."""
        from .movegen import kernel_tables

        return kernel_tables(self._variant)

    def _kernels(self) -> ModuleType | None:
        """``probe_kernels``, once this Tablebase has answered ``_PLAIN_QUERIES`` queries
        (or the process has loaded it already); None before: answer in plain Python."""
        if self._loaded_kernels is None:
            self._queries += 1
            if self._queries <= _PLAIN_QUERIES and not _kernels_imported():
                return None
            from . import probe_kernels

            self._buffers = tuple(np.empty(probe_kernels.MAX_MOVES, np.int64) for _ in range(5))
            self._loaded_kernels = probe_kernels
        return self._loaded_kernels

    def _check_variant(self, position: Position) -> None:
        if position.variant is not self._variant and position.variant != self._variant:
            raise TableError(
                f"{self.path} holds tables of {self._variant.name}, "
                f"not of {position.variant.name} (the position's variant)"
            )

    def _successors(self, position: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Successor masks (side to move first) and scores (see
        ``probe_kernels.scored_successors``), as views of buffers the next call
        overwrites. With the kernels and every sector the moves lead to loaded whole this
        is one Numba call; the codes of sectors not loaded whole are read chunk by chunk
        (``_codes_at``) at the slots that call located."""
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
            mover, other, W, B, WF, BF, *(self._cached(s) for s in targets), out_mover,
            out_other, out_kind, out_index, out_score, *self._tables,
        )
        if damaged:
            raise self.damaged(targets[(damaged & -damaged).bit_length() - 1])
        if missing:
            kinds, indices = out_kind[:count], out_index[:count]
            codes = np.ones(count, np.int64)  # a move that ends the game: lost in 0
            for k in np.unique(kinds[kinds >= 0]).tolist():
                chosen = kinds == k
                codes[chosen] = self._codes_at(targets[k], indices[chosen])
                if (codes[chosen] == PAD).any():
                    raise self.damaged(targets[k])
            out_score[:count] = _scores_of(codes)
        return out_mover[:count], out_other[:count], out_score[:count]

    def _plain_successors(self, position: Position) -> tuple[np.ndarray, ...]:
        """What ``_successors`` returns, from the rules' move generator and the plain
        index: milliseconds a position instead of microseconds, but no compiler."""
        pairs = successors(position)
        movers = np.array([after.mover for _, after in pairs], np.int64)
        others = np.array([after.other for _, after in pairs], np.int64)
        codes = np.ones(len(pairs), np.int64)  # a move that ends the game: lost in 0
        lines = self._variant.board.mill_masks.tolist() if self._variant.line_wins else ()
        slots: dict[Sector, list[tuple[int, int]]] = defaultdict(list)
        for j, (_, after) in enumerate(pairs):
            W, B = after.mover.bit_count(), after.other.bit_count()
            if W + after.mover_hand < 3 or any(after.other & m == m for m in lines):
                continue
            slots[(W, B, after.mover_hand, after.other_hand)].append(
                (j, canonical_index(self._T, W, B, after.mover, after.other))
            )
        for sector, found in slots.items():
            js, indices = (np.array(column, np.int64) for column in zip(*found, strict=True))
            codes[js] = self._codes_at(sector, indices)
            if (codes[js] == PAD).any():
                raise self.damaged(sector)
        return movers, others, _scores_of(codes)

    def _cached(self, sector: Sector) -> np.ndarray:
        """The sector's codes if held whole (now most recently used), else an empty array."""
        codes = self._game.held(sector)
        return _NO_CODES if codes is None else codes

    def _codes(self, sector: Sector) -> np.ndarray:
        return self._game.whole(sector)

    def _codes_at(self, sector: Sector, indices: np.ndarray) -> np.ndarray:
        return self._game.at(sector, indices)

    def sector_codes(self, sector: Sector) -> np.ndarray:
        """The codes of a sector as the kernels read them (``code_at``): bytes when they
        fit (``compact_codes``), else uint16. Loaded into the cache if needed. Raises
        ``MissingSectorError`` or ``TableError`` like ``probe``."""
        return self._codes(sector)

    def _missing(self, sector: Sector, limit: int | None = None) -> MissingSectorError:
        """The error for a sector the file lacks: of the game's values, or with
        ``limit`` of the draw-rule values at that move limit."""
        name = self._variant.name
        if sector not in reachable_sectors(self._variant):
            return MissingSectorError(
                f"no game of {name} reaches sector {sector_name(sector)} (that many captures "
                "cannot happen with the stones placed), so no table holds it",
                sector,
            )
        if limit is not None:
            command = f"morris solve {name} --draw-rules --move-limit {limit}"
        elif is_moving(sector):
            command = f"morris solve {name} --sector {sector[0]}-{sector[1]}"
        else:
            present = set(self._table.sectors())
            moving = {s for s in reachable_sectors(self._variant) if is_moving(s)}
            command = f"morris solve {name} --phase {'placement' if moving <= present else 'all'}"
        if self.path.resolve() != default_table_path(self._variant).resolve():
            command += f" --out {self.path}"
        return MissingSectorError(
            f"sector {sector_name(sector)} is not in {self.path}; run '{command}' to generate it",
            sector,
        )

    def damaged(self, sector: Sector) -> TableError:
        """The error for a sector whose canonical slot reads as padding (also raised by
        the search, which reads the codes in its own kernel)."""
        return TableError(
            f"sector {sector_name(sector)} of {self.path} is damaged "
            "(a canonical position reads as a padding slot)"
        )


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
