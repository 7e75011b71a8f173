"""``benchmarks/bench_group.py``: it splits a re-solved group's time, and refuses bad input."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_group.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def six_table(table_paths):
    """The session's Six Men's Morris moving sectors up to 4 stones a side (read only)."""
    return table_paths["six"]


def test_the_split_of_a_twin_adds_up(six_table):
    done = run(str(six_table), "3-4", "--threads", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("4-3-0-0+3-4-0-0: ") and "identical to the file" in out
    total = float(re.search(r"total +([\d.]+) s", out).group(1))
    init = float(re.search(r"init pass +([\d.]+) s", out).group(1))
    levels = float(re.search(r"levels +([\d.]+) s over (\d+) levels", out).group(1))
    # a twin this small solves in milliseconds: only the sum is sure to be visible
    assert total > 0 and init >= 0 and levels >= 0
    assert init + levels == pytest.approx(total, abs=0.2)
    assert int(re.search(r"over (\d+) levels", out).group(1)) >= 2
    assert "ns per frontier position" in out


@pytest.mark.parametrize("args, message", [
    (["missing.h5", "4-4"], "missing.h5"),
    (["TABLE", "7-3"], "not a sector of six"),
    (["TABLE", "4-x"], "bad sector"),
    (["TABLE", "4-4", "--threads", "0"], "--threads"),
])
def test_bad_input_is_a_one_line_error(six_table, tmp_path, args, message):
    args = [str(six_table) if a == "TABLE" else str(tmp_path / a) if a.endswith(".h5") else a
            for a in args]
    done = run(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and message in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
