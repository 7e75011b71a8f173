"""The one store of sectors and chunks that the probe, the verifier and the solver share:
what it keeps, what it drops and when it reads."""

from __future__ import annotations

import numpy as np
import pytest

from morris_solver.rules.variants import get_variant
from morris_solver.tables.sector_cache import SectorCache
from morris_solver.tables.storage import TableFile

SIZES = {(3, 3, 0, 0): 100, (4, 3, 0, 0): 200, (3, 4, 0, 0): 300, (4, 4, 0, 0): 400}


class CountingTable:
    """A table file that counts its whole-sector reads."""

    def __init__(self, table: TableFile):
        self.table = table
        self.reads: list = []

    def read_sector(self, sector, layer):
        self.reads.append(sector)
        return self.table.read_sector(sector, layer)


@pytest.fixture
def table(tmp_path) -> CountingTable:
    t = TableFile.create_or_open(tmp_path / "nine.h5", get_variant("nine"))
    for s, n in SIZES.items():
        t.write_sector(s, np.arange(n, dtype=np.uint16), {"positions": n})
    return CountingTable(t)


def nbytes(*sectors) -> int:
    return sum(2 * SIZES[s] for s in sectors)


def test_sectors_needed_together_stay_whatever_the_budget(table):
    cache = SectorCache(table, budget=0)
    a, b, c, d = SIZES
    first = cache.load([a, b])
    assert set(first) == {a, b} and cache.nbytes == nbytes(a, b)
    assert np.array_equal(first[b], np.arange(200))
    # the solver's budget 0: what the next group does not need is gone, what it shares
    # is not read again
    cache.load([b, c])
    assert set(cache.sectors()) == {b, c} and cache.nbytes == nbytes(b, c)
    assert table.reads == [a, b, c]


def test_a_budget_keeps_the_most_recently_used(table):
    a, b, c, d = SIZES
    cache = SectorCache(table, budget=nbytes(c, d) - 1)
    cache.load([a])
    cache.load([b])
    cache.load([a])  # a is used again: b is now the least recently used
    cache.load([d])
    assert list(cache.sectors()) == [a, d] and table.reads == [a, b, d]
    # c and d are needed together: both stay, one byte over the budget
    cache.load([c, d])
    assert list(cache.sectors()) == [c, d] and cache.nbytes == nbytes(c, d)
    assert table.reads == [a, b, d, c]


def test_chunks_share_the_bound_and_leave_when_their_sector_is_loaded(table):
    a, b, *_ = SIZES
    cache = SectorCache(table, budget=nbytes(b) + 39)
    cache.put((a, 0), np.zeros(10, np.uint16))
    cache.put((a, 1), np.zeros(10, np.uint16))
    cache.put((b, 0), np.zeros(10, np.uint16))
    cache.sector(b)  # room for b: the least recently used chunks go first
    assert list(cache.chunks()) == [(a, 1)] and list(cache.sectors()) == [b]
    assert cache.nbytes == 20 + nbytes(b)
    cache.sector(a)
    assert cache.chunks() == {} and list(cache.sectors()) == [a]


def test_prepare_gives_the_array_kept(table):
    a, *_ = SIZES
    cache = SectorCache(table, budget=1 << 20, prepare=lambda s, codes: codes.astype(np.uint8))
    assert cache.sector(a).dtype == np.uint8
    assert cache.get(a).dtype == np.uint8 and cache.nbytes == SIZES[a]
