"""The codes a reader or the solver holds in memory, in one store for all of them.

Whole sectors and chunks of sectors read from a table file are kept least recently used
first within a byte budget. The probe reads a sector chunk by chunk until it has read
enough of it to load it whole; the verifier and the solver load a sector together with
the sectors its moves lead to (``load``), and those stay while they are in use,
whatever the budget (the solver's budget is 0: nothing is kept that the next group does
not need, which bounds the largest jobs' memory).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection

import numpy as np

from ..rules.sectors import Sector
from .storage import SECTORS, TableFile

Chunk = tuple[Sector, int]  # a sector and the number of one of its HDF5 chunks


class SectorCache:
    """Sectors (keyed by ``Sector``) and chunks (keyed by ``Chunk``) of one layer of a
    table file. ``prepare`` turns a sector read whole into the array kept (a check, a
    narrower type, a view)."""

    def __init__(
        self,
        table: TableFile,
        budget: int,
        prepare: Callable[[Sector, np.ndarray], np.ndarray] | None = None,
        layer: str = SECTORS,
    ):
        self.table = table
        self.layer = layer
        self.budget = budget
        self.nbytes = 0
        self._prepare = prepare
        self._arrays: OrderedDict[Sector | Chunk, np.ndarray] = OrderedDict()

    def get(self, key: Sector | Chunk) -> np.ndarray | None:
        """The array held under ``key``, now the most recently used, or None."""
        array = self._arrays.get(key)
        if array is not None:
            self._arrays.move_to_end(key)
        return array

    def put(
        self, key: Sector | Chunk, array: np.ndarray, keep: Collection[Sector] = ()
    ) -> np.ndarray:
        """Hold ``array`` under ``key``, dropping what ``trim`` drops to make room."""
        self.trim(array.nbytes, keep)
        self._arrays[key] = array
        self.nbytes += array.nbytes
        return array

    def trim(self, room: int = 0, keep: Collection[Sector] = ()) -> None:
        """Drop the least recently used arrays, except the sectors in ``keep``, until
        ``room`` more bytes fit the budget (or only ``keep`` is left)."""
        for key in list(self._arrays):
            if self.nbytes + room <= self.budget:
                break
            if key not in keep:
                self.nbytes -= self._arrays.pop(key).nbytes

    def sector(self, sector: Sector, keep: Collection[Sector] = ()) -> np.ndarray:
        """The sector's codes, read whole (and prepared) unless held already; the
        chunks held of it are dropped, since the whole sector answers for them."""
        codes = self.get(sector)
        if codes is None:
            codes = self.table.read_sector(sector, self.layer)
            if self._prepare is not None:
                codes = self._prepare(sector, codes)
            for key in [k for k in self._arrays if len(k) == 2 and k[0] == sector]:
                self.nbytes -= self._arrays.pop(key).nbytes
            self.put(sector, codes, keep)
        return codes

    def load(self, sectors: Collection[Sector]) -> dict[Sector, np.ndarray]:
        """Sectors needed together. What else is held is trimmed to the budget before
        any of them is read, so memory stays within the budget plus these sectors."""
        keep = set(sectors)
        self.trim(0, keep)
        return {s: self.sector(s, keep) for s in sectors}

    def sectors(self) -> dict[Sector, np.ndarray]:
        """The sectors held whole (a snapshot, least recently used first)."""
        return {k: a for k, a in self._arrays.items() if len(k) == 4}

    def chunks(self) -> dict[Chunk, np.ndarray]:
        """The chunks held (a snapshot, least recently used first)."""
        return {k: a for k, a in self._arrays.items() if len(k) == 2}
