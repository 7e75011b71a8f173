"""``benchmarks/bench_nine.py`` as a user runs it, on Six Men's Morris (whose whole moving
phase takes seconds): every step, the report and plot, resuming, and stopping at a
sector that does not verify."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import pytest

from morris_solver.rules.sectors import sector_key, solve_plan
from morris_solver.rules.variants import get_variant

pytest.importorskip("matplotlib")  # the bench extra: the script draws its plot with it

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_nine.py"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def bench(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_NUM_THREADS": "2"}  # the scaling step times 1 and 2 threads
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
        timeout=600,
    )


def moving_sectors(variant: str, max_stones: int | None = None) -> list:
    return [s for g in solve_plan(get_variant(variant), "moving", max_stones) for s in g]


def test_six_end_to_end_then_a_rerun_skips_every_finished_step(tmp_path):
    args = ["--variant", "six", "--table", str(tmp_path / "six.h5"), "--out",
            str(tmp_path / "six"), "--threads", "1", "--scaling-sector", "3-3",
            "--retime", "3-4"]
    first = bench(*args)
    assert first.returncode == 0, first.stderr

    report = (tmp_path / "six_report.md").read_text()
    sectors = moving_sectors("six")
    for s in sectors:  # one row per group, named hi-lo
        assert f"| {max(s[:2])}-{min(s[:2])} | " in report
    assert "**draw**" in report
    assert "not a measurement" in report and "S2 = " in report
    assert "bits per position" in report and "**all OK**" in report
    assert (tmp_path / "six_seconds_vs_positions.png").read_bytes().startswith(PNG_MAGIC)

    state_file = tmp_path / "out" / "six_state.json"
    state = json.loads(state_file.read_text())
    assert set(state["verify"]) == {sector_key(s) for s in sectors}
    assert all(v["ok"] and v["mismatch_count"] == 0 for v in state["verify"].values())
    assert state["value"]["value"] == "draw" and state["value"]["nodes"] > 0
    assert state["scaling"]["sector"] == "3-3"
    assert set(state["retime"]["groups"]) == {"4-3", "6-6"}  # 6-6 is the reference
    assert "## Re-timed with the current kernels" in report and "| 4-3 | " in report

    again = bench(*args)
    assert again.returncode == 0, again.stderr
    assert "nothing to do" in again.stdout
    assert f"{len(sectors)} sectors already verified OK" in again.stdout
    assert "value: already searched: draw" in again.stdout
    assert "scaling: 3-3 already measured" in again.stdout
    assert "retime: 4-3, 6-6 already re-timed" in again.stdout
    assert json.loads(state_file.read_text()) == state


def test_verify_stops_at_a_failing_sector_and_records_it(table_paths, tmp_path):
    path = tmp_path / "six.h5"
    shutil.copy(table_paths["six"], path)  # moving sectors up to 4 stones a side
    with h5py.File(path, "r+") as f:
        f["sectors"]["3_3_0_0"].attrs["wins"] += 1
    run = bench("--variant", "six", "--max-stones", "4", "--table", str(path),
                "--out", str(tmp_path / "bad"), "--threads", "1", "--steps", "verify")
    assert run.returncode == 1
    assert "sector 3-3-0-0 FAILED" in run.stderr and "statistics wins" in run.stderr
    state = json.loads((tmp_path / "out" / "bad_state.json").read_text())
    assert list(state["verify"]) == ["3_3_0_0"]  # the first sector verified; none after it
    assert state["verify"]["3_3_0_0"]["ok"] is False


@pytest.fixture
def module(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_nine", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_nine", module)  # dataclasses look it up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def report(module):
    """``benchmarks/moving_report.py``, which the script imports."""
    return sys.modules["moving_report"]


def test_a_partial_run_meets_no_target_yet(report):
    groups = [report.Group(3, 3, [(3, 3, 0, 0)], positions=100, seconds=1.0,
                           peak_rss_bytes=2**20)]
    partial = "\n".join(report.totals_section(groups, {}, threads=2, planned=28))
    assert "1 of 28 groups (**the run is not complete**)" in partial
    assert "met" not in partial.replace("not assessed yet", "")
    complete = "\n".join(report.totals_section(groups, {}, threads=2, planned=1))
    assert complete.count(": met") == 2 and "not complete" not in complete


def test_amdahl_projection(report):
    p, s16, seconds = report.amdahl(2.0, 3600.0, threads=2, cores=16)
    assert (p, s16, seconds) == (1.0, 16.0, 450.0)  # perfectly parallel: 8x fewer seconds
    p, s16, seconds = report.amdahl(1.6, 3600.0, threads=2, cores=16)
    assert p == pytest.approx(0.75)
    assert s16 == pytest.approx(1 / (0.25 + 0.75 / 16))
    assert seconds == pytest.approx(3600 * (0.25 + 0.75 / 16) / (0.25 + 0.75 / 2))


def test_steps_in_two_processes_keep_each_others_results(module, tmp_path):
    path = tmp_path / "out" / "x_state.json"
    config = {"variant": "six"}

    def run() -> object:
        return module.Run(None, None, [], module.load_state(path, config), path, "cmd")

    verifying, searching = run(), run()  # both started from the same (empty) state
    verdicts = verifying.state.setdefault("verify", {})  # a step keeps adding to its entry
    verdicts["3_3_0_0"] = {"ok": True}
    verifying.save("verify")
    searching.state["value"] = {"value": "draw"}
    searching.save("value")  # must not drop the verdict written meanwhile
    verdicts["4_3_0_0"] = {"ok": True}
    verifying.save("verify")  # must not drop the value
    verdicts["3_4_0_0"] = {"ok": True}
    verifying.save("verify")
    searching.save("report")
    state = json.loads(path.read_text())
    assert state["value"] == {"value": "draw"} and state["config"] == config
    assert set(state["verify"]) == {"3_3_0_0", "4_3_0_0", "3_4_0_0"}
