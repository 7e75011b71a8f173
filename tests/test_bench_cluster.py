"""benchmarks/bench_cluster.py's check that two solves made the same file."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import h5py
import pytest

from morris_solver.sectors import sector_key

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
