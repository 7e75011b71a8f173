"""benchmarks/bench_cluster.py's check that two solves made the same file."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import h5py
import pytest

from morris_solver.rules.sectors import sector_key

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_cluster.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_cluster", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_identical_files_and_a_difference(bench, table_paths, tmp_path):
    copy = tmp_path / "six.h5"
    shutil.copy(table_paths["six"], copy)
    assert bench.identical(table_paths["six"], copy) == 4  # 3-3, 3-4, 4-3, 4-4
    with h5py.File(copy, "a") as f:
        ds = f["sectors"][sector_key((4, 4, 0, 0))]
        codes = ds[...]
        codes[codes.argmax()] ^= 2  # another distance, same parity
        ds[...] = codes
    with pytest.raises(SystemExit, match="4-4-0-0 differs"):
        bench.identical(table_paths["six"], copy)


def test_the_schedule_waits_for_what_a_group_needs(bench):
    # a chain a <- b <- c of 1 s each and a lone 2 s group d
    needs = {"a": set(), "b": {"a"}, "c": {"b"}, "d": set()}
    seconds = {"a": 1.0, "b": 1.0, "c": 1.0, "d": 2.0}
    assert bench.schedule(needs, seconds, 1) == 5.0  # everything in turn
    assert bench.schedule(needs, seconds, 2) == 3.0  # the chain bounds it
    assert bench.schedule(needs, seconds, 8) == 3.0


def test_the_schedule_takes_the_longest_ready_group_first(bench):
    # long first: long then after on one machine (6 s), the short ones beside it;
    # the short ones first would start long at 1 s and finish after at 7 s
    needs = {"s1": set(), "s2": set(), "s3": set(), "long": set(), "after": {"long"}}
    seconds = {"s1": 1.0, "s2": 1.0, "s3": 1.0, "long": 3.0, "after": 3.0}
    assert bench.schedule(needs, seconds, 2) == 6.0
    assert bench.schedule(needs, seconds, 1) == 9.0


def test_each_machine_runs_one_group_at_a_time_after_its_needs(bench):
    needs = {"a": set(), "b": {"a"}, "c": {"b"}, "d": set(), "e": {"a", "d"}}
    seconds = {"a": 1.0, "b": 2.0, "c": 1.0, "d": 2.0, "e": 1.5}
    placed = bench.assign(needs, seconds, 2)
    assert set(placed) == set(needs)
    for g, (machine, start) in placed.items():
        assert all(placed[d][1] + seconds[d] <= start for d in needs[g])
        others = [(s, s + seconds[h]) for h, (m, s) in placed.items() if m == machine and h != g]
        assert all(end <= start or begin >= start + seconds[g] for begin, end in others)


def test_the_transfers_count_what_the_tasks_read_and_write(bench, table_paths):
    with h5py.File(table_paths["six"], "r") as f:
        layer = f["sectors"]
        stored = layer[sector_key((3, 3, 0, 0))].id.get_storage_size()
        raw = {k: layer[k].size * layer[k].dtype.itemsize for k in layer}
    group = ((4, 3, 0, 0), (3, 4, 0, 0))
    read, written = bench.transfers(table_paths["six"], {group: {(3, 3, 0, 0)}})
    assert read == stored > 0
    assert written == raw[sector_key(group[0])] + raw[sector_key(group[1])]
