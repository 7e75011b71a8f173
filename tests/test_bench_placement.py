"""benchmarks/bench_placement.py on Six Men's Morris: the by-ply table adds up to the
file's statistics, and the table and search routes agree."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from solver.storage import TableFile

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_placement.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_placement", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_placement"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["bench_placement"]


def test_by_ply_sums_to_the_file(bench, six_whole_path):
    table = TableFile.open(six_whole_path)
    text = bench.by_ply(table)
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| ")]
    rows = [r for r in rows if r[0].strip()[0].isdigit()]
    assert [r[0].strip() for r in rows] == [str(p) for p in range(12)] + ["12 (moving)"]
    positions = sum(int(r[2].replace(",", "")) for r in rows)
    assert positions == sum(st["positions"] for st in table.sectors().values())
    for r in rows:
        total, wins, draws, losses = (int(x.replace(",", "")) for x in r[2:6])
        assert wins + draws + losses == total
    assert "| 0 | 1 | 1 | 0 | 1 | 0 |" in text  # the start: one position, a draw


def test_first_moves_cover_every_move_once(bench, six_whole_path):
    text = bench.first_moves(TableFile.open(six_whole_path))
    moves = [m.strip() for line in text.splitlines()[6:] for m in line.split("|")[1].split(",")]
    assert len(moves) == 16 and len(set(moves)) == 16
    assert "Start position: **draw**" in text


def test_routes_agree_on_six(bench, six_whole_path):
    text, disagreements = bench.routes(
        TableFile.open(six_whole_path), [4, 9, 11], samples=3, distance_plies={11}, seed=2,
        tt_entries=1_000_000,
    )
    assert disagreements == 0
    assert "| 11 | 3 |" in text
