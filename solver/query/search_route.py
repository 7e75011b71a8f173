"""The probe's route for placement positions whose sector the file lacks: search over
the moving-phase tables (``search.PlacementSearch``, win/draw/loss without the
distance), within a time budget, when the file holds the moving phase. A user who
solved only the moving phase plays perfectly from the empty board.

The search keeps its loaded sectors and transposition table for the ``Tablebase``'s
life, so the later positions of a game are cheap; the route counts what it searched
(``Tablebase.evaluate`` reports it). The search's kernel is imported at the first
search, so a probe that reads the tables never loads it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..rules.position import Position
from ..rules.rules import Move, successors
from ..rules.sectors import Sector, is_moving, reachable_sectors
from ..rules.values import Value
from ..rules.variants import Variant
from ..search.search_limits import SearchTimeout
from ..tables.solve_advice import solve_command
from ..tables.storage import MissingSectorError, TableFile
from .probe_results import MoveValue, Searched

if TYPE_CHECKING:
    from ..search.search import PlacementSearch

_SEARCH_INF = 1 << 21  # beyond every score of the search's (``search._INF``)


class SearchedTablebase(Protocol):
    """What the route reads: a ``probe.Tablebase`` (its moving-phase codes for the
    search, its probe for the successors of a searched position)."""

    @property
    def variant(self) -> Variant: ...

    @property
    def path(self) -> Path: ...

    def sector_codes(self, sector: Sector) -> np.ndarray: ...

    def probe(self, position: Position) -> Value: ...


class SearchRoute:
    """The searches of one ``Tablebase`` over ``table``'s moving phase; ``enabled``
    says whether placement positions the file lacks are searched at all."""

    def __init__(self, table: TableFile, tablebase: SearchedTablebase, enabled: bool):
        self._table, self._tb, self.enabled = table, tablebase, enabled
        # called with (sectors loaded, sectors to load) while the search loads its tables
        self.load_progress: Callable[[int, int], None] | None = None
        # positions, nodes, seconds, load seconds, positions answered by known bounds
        self._totals = [0, 0, 0.0, 0.0, 0]
        self._sectors: set[Sector] = set()  # found missing: searched from now on
        # (deadline, its seconds, cancel flag) of the searches now run (``limits``)
        self._limits: tuple[float | None, float | None, threading.Event | None] = (
            None, None, None)

    @cached_property
    def search(self) -> PlacementSearch:
        """The search, kept for the route's life (its sectors and transposition table),
        holding from the start the bounds of the file's search book if it has one."""
        from ..search.search import PlacementSearch

        search = PlacementSearch(self._tb)
        self.take_up_book(search)
        return search

    def close(self) -> None:
        """Let go of the search and the moving-phase tables it loaded (``Tablebase.close``)."""
        self.__dict__.pop("search", None)

    def take_up_book(self, search: PlacementSearch) -> None:
        """Put the bounds of the file's search book, if it has one of the game's values,
        into ``search``'s table (a cleared one too: ``bench_placement_search.py``)."""
        book = self._table.search_book()
        if book is not None and book.about["draw_rule"] == 0:
            search.add_bounds(book.keys, book.lower, book.upper)

    @cached_property
    def _reachable(self) -> set[Sector]:
        return reachable_sectors(self._tb.variant)

    def covers(self, sector: Sector) -> bool:
        """Whether positions of ``sector`` are searched (found missing before)."""
        return sector in self._sectors

    def searchable(self, missing: MissingSectorError) -> bool:
        """Whether a placement sector some game reaches is what is missing, and searching
        is on (a sector no game reaches is named as such, not searched)."""
        return (self.enabled and missing.sector is not None and not is_moving(missing.sector)
                and missing.sector in self._reachable)

    def may_search(self) -> bool:
        """``Tablebase.may_search``."""
        held = self._table.sector_set()
        return self.enabled and any(not is_moving(s) and s not in held for s in self._reachable)

    @property
    def totals(self) -> tuple:
        """``Tablebase.search_totals``."""
        return tuple(self._totals)

    def since(self, totals: tuple) -> Searched:
        """``Tablebase.searched_since``."""
        return Searched(*(a - b for a, b in zip(self._totals, totals, strict=True)))

    @contextlib.contextmanager
    def limits(self, seconds: float | None,
               cancel: threading.Event | None = None) -> Iterator[None]:
        """``Tablebase.search_limits``."""
        saved = self._limits
        deadline = None if seconds is None else time.monotonic() + seconds
        self._limits = (deadline, seconds, cancel)
        try:
            yield
        finally:
            self._limits = saved

    def first_value(self, position: Position, missing: MissingSectorError) -> Value:
        """The value of ``position``, whose sector the file lacks, by search; ``missing``
        is raised instead where the file lacks moving-phase sectors the search needs
        too (it names the solve that makes them all)."""
        if not self.searchable(missing):
            raise missing
        assert missing.sector is not None  # a searchable sector
        try:  # here, so that what is missing is named as the user's command would
            found = self.value(position)
        except MissingSectorError:
            raise missing from None
        self._sectors.add(missing.sector)
        return found

    def value(self, position: Position) -> Value:
        """The search's value of ``position``, counted in ``totals``: from the bounds
        the search holds where they settle it (the file's search book, or an earlier
        search), with no tables loaded; else searched, loading them first."""
        known = self.search.known_value(position)
        if known is not None:
            self._totals[0] += 1
            self._totals[4] += 1
            return known
        load_seconds = self.search.load(position, self.load_progress)
        deadline, seconds, cancel = self._limits
        try:
            found = self.search.search(position, deadline=deadline, cancel=cancel)
        except SearchTimeout as e:
            command = solve_command(self._tb.variant, self._tb.path, "--phase", "placement")
            raise SearchTimeout(
                f"the search took longer than {seconds:g} s ({e}; the file has no placement "
                f"tables, so placement positions are searched): for exact answers at once, "
                f"solve them with '{command}'") from None
        counts = (1, found.nodes, load_seconds + found.seconds,
                  load_seconds + found.load_seconds, 0)
        self._totals = [a + b for a, b in zip(self._totals, counts, strict=True)]
        return found.value

    def best_move(self, position: Position) -> Move | None:
        """``Tablebase.best_move`` where some move leads to a placement sector the file
        lacks: the position searched, then its moves tried until one keeps its result,
        those the transposition table already bounds as keeping it first (the root's
        search left them there), so usually one more search, answered from the table.
        Which of the moves keeping the result it is depends on what was searched
        before."""
        probe = self._tb.probe
        want = probe(position).result
        options = []
        for move, after in successors(position):
            held = after.mover_hand == after.other_hand == 0  # read from the tables
            bound = -_SEARCH_INF if held else self.search.stored_upper_bound(after)
            options.append((bound, move.text(position.board), move, after))
        options.sort(key=lambda item: item[:2])
        for _, _, move, after in options:
            if probe(after).result.flipped() is want:
                return move
        return None  # the game is over: no successors

    def moves(self, position: Position) -> list[MoveValue]:
        """``Tablebase.moves`` where some move leads to a placement sector the file
        lacks: every successor probed, those sectors' by search."""
        seen: set[tuple[int, int]] = set()
        ranked = []
        for move, after in successors(position):
            if (after.mover, after.other) in seen:  # the same two stones in either order
                continue
            seen.add((after.mover, after.other))
            value = self._tb.probe(after).after_move()
            ranked.append((value.sort_key(), move.text(position.board), move, value))
        ranked.sort(key=lambda item: item[:2])
        return [MoveValue(move, text, value) for _, text, move, value in ranked]
