"""A level pass's writes to its predecessors (``retrograde.write_predecessors``), slot by
slot: which counts go down, which codes are written, and which must not be.

A loss level decrements a count before it reads the slot's code (most decrements then
touch one array), so a decided slot's count goes down too, and may even wrap around:
only the code check keeps such a slot from being written. The whole-game comparisons
with the reference solver (test_solver_vs_reference.py) cover the same rule in bulk.
"""

from __future__ import annotations

import numpy as np

from morris_solver.solving import generate
from morris_solver.solving.retrograde import MARK_BLOCK, write_buffers, write_predecessors
from morris_solver.tables.storage import TableFile


def _write(codes, counts, triggers, targets, c):
    """The writes made with atomic decrements (a bucket two threads may write) and with
    plain ones (a bucket one thread owns), which must agree."""
    results = []
    for shared in (True, False):
        vp = np.array(codes, np.uint16)
        cp = np.array(counts, np.uint8)
        tp = np.array(triggers, np.uint16)
        marks = np.zeros(1, np.uint16)
        t = np.array(targets, np.int64)
        written = write_predecessors(t, len(t), vp, cp, tp, marks, c, shared)
        results.append((written, vp.tolist(), cp.tolist(), int(marks[0])))
    assert results[0] == results[1]
    return results[0]


def test_a_loss_level_loses_the_slot_whose_last_successor_was_won():
    # slot 0: one successor left; slot 1: two; slot 2: one, but an exit that loses at
    # level 7 keeps it alive until then
    written, codes, counts, mark = _write([0, 0, 0], [1, 2, 1], [0, 0, 7], [0, 1, 2], 5)
    assert written == 1
    assert codes == [5, 0, 0]
    assert counts == [0, 1, 0]
    assert mark == 5


def test_a_loss_level_never_writes_a_decided_slot():
    # slot 0 was won at level 2 with one successor left to count; slot 1 was lost in 0
    # in the init pass (its count was left 0); slot 2 was won at level 4
    written, codes, _, mark = _write([2, 1, 4], [1, 0, 1], [0, 0, 0], [0, 1, 2], 5)
    assert written == 0
    assert codes == [2, 1, 4]
    assert mark == 0


def test_a_slot_met_twice_is_lost_on_its_last_decrement_only():
    written, codes, counts, _ = _write([0], [2], [0], [0, 0], 9)
    assert (written, codes, counts) == (1, [9], [0])


def test_a_win_level_wins_the_undecided_predecessors_and_leaves_counts_alone():
    written, codes, counts, mark = _write([0, 7, 0], [3, 3, 3], [0, 0, 0], [0, 1, 2, 2], 8)
    assert written == 2
    assert codes == [8, 7, 8]
    assert counts == [3, 3, 3]
    assert mark == 8


def test_marks_name_the_block_written():
    size = 3 * MARK_BLOCK
    vp = np.zeros(size, np.uint16)
    cp = np.ones(size, np.uint8)
    tp = np.zeros(size, np.uint16)
    marks = np.zeros(3, np.uint16)
    target = np.array([2 * MARK_BLOCK + 5], np.int64)
    assert write_predecessors(target, 1, vp, cp, tp, marks, 11) == 1
    assert marks.tolist() == [0, 0, 11]


def test_writes_grouped_in_tiny_buckets_give_the_same_tables(table_paths, tmp_path, monkeypatch):
    # buckets of 64 slots holding 2 writes a thread: nearly every write goes through a
    # full bucket's flush inside the pass, the rest through the flush after it; with the
    # defaults these small sectors fit one bucket that is flushed after the pass only
    monkeypatch.setattr(generate, "WRITE_BUCKET_SHIFT", 6)
    monkeypatch.setattr(generate, "WRITE_ROOM", 4)
    path = tmp_path / "six.h5"
    generate.solve("six", path, phase="moving", max_stones=4, show_progress=False,
                   log=lambda s: None)
    expected = TableFile.open(table_paths["six"])
    got = TableFile.open(path)
    assert set(got.sectors()) == set(expected.sectors())
    for sector in expected.sectors():
        assert np.array_equal(got.read_sector(sector), expected.read_sector(sector)), sector


def test_the_write_buffers_take_one_byte_a_slot_on_any_number_of_threads():
    slots = 600_000_000  # about Nine's largest sector
    for threads in (1, 2, 16):
        pending, fills = write_buffers(slots, threads)
        assert pending.shape[0] == fills.shape[0] == threads * -(-slots // 2**18)
        assert abs(pending.nbytes - slots) < 2**18
