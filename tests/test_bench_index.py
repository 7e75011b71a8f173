"""``benchmarks/bench_index.py``: it times every shape asked for, and refuses bad ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_index.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=600)


def test_one_row_of_positive_timings_per_shape():
    done = run("--variant", "six", "--shapes", "3-3,6-3", "--count", "2000", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 3-3")
            or line.startswith("| 6-3")]
    assert [row.split("|")[1].strip() for row in rows] == ["3-3", "6-3"]
    for row in rows:
        assert all(float(cell) > 0 for cell in row.split("|")[2:8])


def test_a_shape_the_variant_does_not_have_is_a_one_line_error():
    for shapes in ("7-3", "3-x"):
        done = run("--variant", "six", "--shapes", shapes)
        assert done.returncode == 2
        assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
