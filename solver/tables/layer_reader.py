"""The codes at given slots of one layer of a table file, read as cheaply as the
question allows.

A sector is first read chunk by chunk: a question decompresses only the HDF5 chunks that
hold the slots it asks for, so one question about a sector of 600 million positions
reads a few MB. A sector that is used more (``whole_sector_after`` chunk reads, or a
small one at once) is loaded whole. Sectors and chunks share one ``SectorCache``, least
recently used first within its byte budget (per-element HDF5 reads cost ~10 µs
uncompressed and 100+ µs from a cold compressed chunk, far too slow for search).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..index.index_format import IndexTables, sector_slots
from ..rules.sectors import Sector, sector_name
from ..rules.values import PAD
from .sector_cache import SectorCache
from .storage import TableError, TableFile


class LayerReader:
    """One layer of a table file (``storage.SECTORS`` or a draw-rule layer), whose
    sectors hold ``dtype`` codes with ``byte_pad`` marking padding once held as bytes.
    ``prepare`` turns a sector loaded whole into the array kept (``compact`` codes, say);
    ``missing`` makes the error for a sector the file lacks."""

    def __init__(
        self,
        table: TableFile,
        layer: str,
        T: IndexTables,
        budget: int,
        whole_sector_after: int,
        dtype: type,
        byte_pad: int,
        missing: Callable[[Sector], Exception],
        prepare: Callable[[np.ndarray], np.ndarray] | None = None,
    ):
        self.table, self.layer, self.T = table, layer, T
        self.whole_sector_after = whole_sector_after
        self.cache = SectorCache(table, budget, prepare=self._checked, layer=layer)
        self.chunk_slots: dict[Sector, int] = {}  # per sector read chunk-wise
        self.chunk_reads: dict[Sector, int] = {}
        self._dtype, self._byte_pad = np.dtype(dtype), byte_pad
        self._missing, self._prepare = missing, prepare

    def held(self, sector: Sector) -> np.ndarray | None:
        """The sector's codes if held whole (now most recently used), else None."""
        return self.cache.get(sector)

    def whole(self, sector: Sector) -> np.ndarray:
        """The sector's codes, held or loaded whole (the least recently used chunks and
        sectors make room within the budget)."""
        codes = self.cache.get(sector)
        if codes is None:
            if not self.table.has_sector(sector, self.layer):
                raise self._missing(sector)
            codes = self.cache.sector(sector)
        return codes

    def at(self, sector: Sector, indices: np.ndarray) -> np.ndarray:
        """The codes of slots ``indices`` of a sector (int64, padding as ``PAD``): from
        the sector if it is loaded whole or should now be (small, or read often enough),
        else from its HDF5 chunks, read as needed and kept in the cache."""
        codes = self.cache.get(sector)
        if codes is None and self._load_whole(sector):
            codes = self.whole(sector)
        if codes is not None:
            found = codes[indices].astype(np.int64)
            if codes.dtype == np.uint8:
                found[found == self._byte_pad] = PAD
            return found
        step = self.chunk_slots[sector]
        chunks = indices // step
        parts = {}  # this call's chunks, even if a small cache evicts some of them
        for c in np.unique(chunks).tolist():
            part = self.cache.get((sector, c))
            if part is not None:
                parts[c] = part
        wanted = [c for c in np.unique(chunks).tolist() if c not in parts]
        if wanted:
            slots = sector_slots(self.T, sector[0], sector[1])
            for c, part in self.table.read_chunks(sector, wanted, slots, self.layer).items():
                parts[c] = self.cache.put((sector, c), part)
            self.chunk_reads[sector] = self.chunk_reads.get(sector, 0) + len(wanted)
        found = np.empty(len(indices), np.int64)
        for c, part in parts.items():
            chosen = chunks == c
            found[chosen] = part[indices[chosen] - c * step]
        if self._dtype == np.uint8:
            found[found == self._byte_pad] = PAD
        return found

    def _checked(self, sector: Sector, codes: np.ndarray) -> np.ndarray:
        """A sector read whole, checked against its index, then ``prepare``d."""
        slots = sector_slots(self.T, sector[0], sector[1])
        if codes.dtype != self._dtype or codes.shape != (slots,):
            raise TableError(
                f"sector {sector_name(sector)} of {self.table.path} holds {codes.shape} "
                f"{codes.dtype} codes, not the {slots} {self._dtype} codes of its index"
            )
        return codes if self._prepare is None else self._prepare(codes)

    def _load_whole(self, sector: Sector) -> bool:
        """Whether a sector not yet loaded whole should be now: when it has at most four
        chunks (they cost no more than the chunks a question reads), or when
        ``whole_sector_after`` of its chunks have been read and it fits the budget (as
        bytes: what ``compact_codes`` makes of the game's codes)."""
        step = self.chunk_slots.get(sector)
        if step is None:
            step = self.table.chunk_slots(sector, self.layer)
            if step is None:
                raise self._missing(sector)
            self.chunk_slots[sector] = step
        slots = sector_slots(self.T, sector[0], sector[1])
        if slots <= 4 * step or self.whole_sector_after <= 0:
            return True
        return (
            self.chunk_reads.get(sector, 0) >= self.whole_sector_after
            and slots <= self.cache.budget
        )
