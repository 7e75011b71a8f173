"""``benchmarks/bench_rooms.py``: a small load on the live rooms against a server it
starts, whose report says that every move reached the opponent, and bad input refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("httpx2")
pytest.importorskip("uvicorn")

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_rooms.py"


def run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=timeout)


def test_a_small_load_loses_no_move(table_paths, tmp_path):
    report, figures = tmp_path / "rooms.md", tmp_path / "rooms.json"
    done = run("--db", str(table_paths["three"]), "--rooms", "4", "--duration", "2.5",
               "--think", "0.05", "0.2", "--table-reads", "4", "--report", str(report),
               "--json", str(figures))
    assert done.returncode == 0, done.stderr
    found = json.loads(figures.read_text())
    assert [p["name"] for p in found["phases"]] == ["rooms alone", "with table reads"]
    for phase in found["phases"]:
        assert phase["moves_sent"] > 0
        assert phase["moves_lost"] == 0 and phase["moves_refused"] == 0
        assert phase["moves_acknowledged"] == phase["moves_sent"]
        assert phase["moves_received_by_opponent"] == phase["moves_sent"]
        latency = phase["move_to_opponent"]
        assert latency["count"] == phase["moves_sent"]
        assert 0 < latency["p50_ms"] <= latency["p99_ms"] <= latency["max_ms"] < 30_000
        assert phase["server_cpu_seconds"] is not None and phase["client_cpu_seconds"] >= 0
    reads = found["phases"][1]["table_reads"]
    assert reads["probe"]["count"] + reads["review"]["count"] > 0
    assert found["refusals"] == {} and "connections closed early" not in found["counts"]
    assert found["memory"]["end"]["VmHWM"] >= found["memory"]["server started"]["VmRSS"] > 0
    text = report.read_text()
    assert text.startswith("# Live rooms under load")
    assert "Produced by `python benchmarks/bench_rooms.py --db " in text
    assert "`nproc` = " in text and "| **lost** | **0** | **0** |" in text
    assert "runs on the same cores as the server" in text
    assert done.stdout.splitlines()[0].startswith("rooms alone: ")
    # the report again from the figures, with a note, the run's command kept
    again = run("--report-only", "--json", str(figures), "--report", str(report),
                "--note", "Measured by the test.", timeout=60)
    assert again.returncode == 0, again.stderr
    assert report.read_text() == text.rstrip("\n") + "\n\n## Notes\n\nMeasured by the test.\n"


@pytest.mark.parametrize("args, message", [
    (["--url", "http://example.com:8000"], "--url must be http:// on this machine"),
    (["--rooms", "0"], "--rooms must be"),
    (["--think", "2", "1"], "--think needs"),
    (["--db", "missing.h5"], "no such file"),
    (["--report-only"], "--report-only needs the --json FILE"),
])
def test_bad_input_is_refused(args, message):
    done = run(*args, timeout=60)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr
