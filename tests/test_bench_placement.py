"""benchmarks/bench_placement.py on Six Men's Morris: the by-ply table adds up to the
file's statistics, and the table and search routes agree."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from morris_solver.tables.storage import TableFile

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


def test_verify_routes_and_report_resume_and_fill_the_report(bench, six_whole_path, tmp_path):
    state = tmp_path / "state.json"
    report = tmp_path / "six_report.md"
    report.write_text("# six\n\nthe moving phase\n")
    common = [str(six_whole_path), "--state", str(state), "--report", str(report)]
    bench.main(["verify", *common, "--threads", "1"])
    bench.main(["routes", *common, "--plies", "10-11", "--samples", "2",
                "--distance-plies", "11", "--tt-entries", "100000"])
    recorded = json.loads(state.read_text())
    assert len(recorded["verify"]) == 61 and all(v["ok"] for v in recorded["verify"].values())
    assert recorded["routes"]["plies"]["11"]["distance_agree"] == 2
    bench.main(["report", *common])
    bench.main(["report", *common, "--note", "second run"])  # replaces its own part
    text = report.read_text()
    assert text.startswith("# six\n\nthe moving phase\n")
    assert text.count(bench.REPORT_BEGIN) == 1 and text.count(bench.REPORT_END) == 1
    assert "61 of 61 placement sectors" in text and "**all OK**" in text
    placed = sum(a["positions"] for s, a in TableFile.open(six_whole_path).sectors().items()
                 if s[2] + s[3] > 0)
    assert f"61 of 61 sectors, {placed:,} positions" in text
    assert "| 11 | 2 |" in text and "Disagreements: **0**" in text
    assert "second run" in text
