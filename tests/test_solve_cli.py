"""``morris solve`` / ``morris info`` as a user runs them: resumable after a kill,
idempotent when finished, clear errors, and the documented JSON shape."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.rules.sectors import dependencies, parse_sector
from morris_solver.rules.variants import get_variant
from morris_solver.solving.generate import peak_rss_bytes, reset_peak_rss, solve_group
from morris_solver.tables import storage
from morris_solver.tables.storage import TableFile

MORRIS = [sys.executable, "-c", "from morris_cli.main import main; main()"]


def _sectors_in(path: Path) -> set[str]:
    try:
        with h5py.File(path, "r") as f:
            return set(f["sectors"])
    except (OSError, KeyError):
        return set()


def _kill_when_committed(options: list[str], path: Path, sector: str | set[str],
                         delay: float = 0.0):
    """Run ``morris solve nine OPTIONS`` into ``path`` and kill it ``delay`` seconds
    after ``sector`` (every one of a set: a twin is committed one sector after the
    other) is committed."""
    wanted = {sector} if isinstance(sector, str) else sector
    args = MORRIS + ["solve", "nine", *options, "--quiet", "--out", str(path)]
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 300
    while not wanted <= _sectors_in(path) and time.time() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.02)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_killed_solve_resumes_and_never_leaves_a_sector_that_reads_as_solved(
    tmp_path, published_nine_33
):
    path = tmp_path / "nine.h5"
    # once the 3-4 twin is committed, the solver is inside the 5-3/3-5 twin (seconds)
    _kill_when_committed(["--sector", "5-3"], path, {"4_3_0_0", "3_4_0_0"})
    after_kill = _sectors_in(path)
    assert "5_3_0_0" not in after_kill, "killed too late to be mid-sector"
    assert {"3_3_0_0", "3_4_0_0", "4_3_0_0"} <= after_kill

    runner = CliRunner()
    command = ["solve", "nine", "--sector", "5-3", "--quiet", "--out", str(path)]
    rerun = runner.invoke(main, command)
    assert rerun.exit_code == 0, rerun.output
    assert "solved 2 sectors" in rerun.output and "2 groups were already there" in rerun.output

    again = runner.invoke(main, command)
    assert again.exit_code == 0 and "nothing to do" in again.output

    info = json.loads(runner.invoke(main, ["info", str(path), "--json"]).output)
    assert info["variant"] == "nine" and info["rules"]["flying"] is True
    assert sorted(info["sectors"]) == ["3_3_0_0", "3_4_0_0", "3_5_0_0", "4_3_0_0", "5_3_0_0"]
    three = info["sectors"]["3_3_0_0"]
    assert set(three) == {"positions", "wins", "draws", "losses", "max_win_plies",
                          "max_loss_plies"}
    assert three == published_nine_33


def test_a_placement_solve_killed_mid_sector_resumes_to_the_same_tables(tmp_path):
    path = tmp_path / "nine.h5"
    target = "4_4_1_0"  # 3.7 million slots: seconds on one thread
    # the 5-4/4-5 twin is the last group before the placement sector
    _kill_when_committed(["--sector", "4-4-1-0", "--threads", "1"], path, "4_5_0_0", 0.3)
    assert target not in _sectors_in(path), "killed too late to be mid-sector"

    rerun = CliRunner().invoke(main, ["solve", "nine", "--sector", "4-4-1-0", "--quiet",
                                      "--out", str(path)])
    assert rerun.exit_code == 0, rerun.output
    assert "solved 1 sectors" in rerun.output
    table = TableFile.open(path)
    sector = (4, 4, 1, 0)
    variant = get_variant("nine")
    exits = {s: table.read_sector(s) for s in dependencies(variant, [sector])}
    fresh = solve_group(variant, (sector,), exits).codes[sector]
    assert np.array_equal(table.read_sector(sector), fresh)


_WRITER = """
import sys
import numpy as np
from morris_solver.tables.storage import STAT_KEYS, TableFile
from morris_solver.rules.variants import get_variant
table = TableFile.open(sys.argv[1])
codes = np.random.default_rng(0).integers(0, 300, 40_000_000).astype(np.uint16)
print("writing", flush=True)
table.write_sector((9, 9, 0, 0), codes, dict.fromkeys(STAT_KEYS, 1))
"""


@pytest.mark.parametrize("delay", [0.0, 0.3, 0.8])
def test_a_kill_while_a_sector_is_written_keeps_the_committed_ones(tmp_path, delay):
    """HDF5 has no journal: check that killing the writer in the middle of committing a
    large sector (compressing and writing take about a second) loses only that one."""
    path = tmp_path / "nine.h5"
    table = TableFile.create_or_open(path, get_variant("nine"))
    small = np.arange(1000, dtype=np.uint16)
    table.write_sector((3, 3, 0, 0), small, dict.fromkeys(storage.STAT_KEYS, 1000))
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "writing"
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    reopened = TableFile.create_or_open(path, get_variant("nine"))  # discards a partial one
    assert set(reopened.sectors()) in ({(3, 3, 0, 0)}, {(3, 3, 0, 0), (9, 9, 0, 0)})
    assert np.array_equal(reopened.read_sector((3, 3, 0, 0)), small)
    reopened.write_sector((4, 4, 0, 0), small, dict.fromkeys(storage.STAT_KEYS, 1000))
    assert np.array_equal(TableFile.open(path).read_sector((4, 4, 0, 0)), small)


_READER = """
import sys, time
import h5py
with h5py.File(sys.argv[1], "r"):
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_commit_waits_for_a_reader_that_holds_the_file(tmp_path, monkeypatch):
    """HDF5 locks an open file; a reader such as ``morris info`` during a solve must not
    make the solve's next commit fail (this once failed CI), and a lock that never goes
    away ends in a clear error rather than a hang."""
    path = tmp_path / "nine.h5"
    table = TableFile.create_or_open(path, get_variant("nine"))
    small = np.arange(1000, dtype=np.uint16)

    def hold(seconds: float) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-c", _READER, str(path), str(seconds)],
            stdout=subprocess.PIPE, text=True,
        )
        assert proc.stdout.readline().strip() == "holding"
        return proc

    reader = hold(1.0)
    started = time.monotonic()
    table.write_sector((3, 3, 0, 0), small, dict.fromkeys(storage.STAT_KEYS, 1000))
    assert reader.poll() is not None, "the commit did not wait for the reader"
    assert time.monotonic() - started > 0.3
    assert np.array_equal(table.read_sector((3, 3, 0, 0)), small)

    monkeypatch.setattr(storage, "LOCK_WAIT_SECONDS", 0.3)
    reader = hold(30.0)
    try:
        with pytest.raises(storage.TableError, match="stayed locked by another process"):
            table.write_sector((4, 3, 0, 0), small, {"positions": 1000})
    finally:
        reader.kill()
        reader.wait()
    assert set(table.sectors()) == {(3, 3, 0, 0)}


def test_a_table_path_that_is_a_dangling_link_stays_a_link(tmp_path):
    # data/nine.h5 -> a disk that outlives the machine, made before the first solve: the
    # solve must write where it points, or re-making the link would drop the tables
    disk = tmp_path / "disk" / "three.h5"
    link = tmp_path / "data" / "three.h5"
    link.parent.mkdir()
    link.symlink_to(disk)
    runner = CliRunner()
    assert runner.invoke(main, ["solve", "three", "--quiet", "--out", str(link)]).exit_code == 0
    assert link.is_symlink() and disk.is_file()
    link.unlink()
    link.symlink_to(disk)  # what a later session's set-up does
    assert set(TableFile.open(link).sectors()) == set(TableFile.open(disk).sectors())
    assert len(TableFile.open(link).sectors()) == 7


def test_solve_refuses_another_variants_file(tmp_path):
    runner = CliRunner()
    path = str(tmp_path / "t.h5")
    assert runner.invoke(main, ["solve", "three", "--quiet", "--out", path]).exit_code == 0
    result = runner.invoke(main, ["solve", "six", "--quiet", "--out", path])
    assert result.exit_code != 0
    assert "holds tables of variant 'three'" in result.output
    assert "Traceback" not in result.output


def test_solve_and_info_errors_are_one_line(tmp_path):
    runner = CliRunner()
    cases = [
        ["solve", "ten"],
        ["solve", "nine", "--sector", "10-3", "--out", str(tmp_path / "x.h5")],
        ["solve", "nine", "--sector", "three", "--out", str(tmp_path / "x.h5")],
        ["info", str(tmp_path / "missing.h5")],
    ]
    (tmp_path / "junk.h5").write_bytes(b"not an hdf5 file")
    cases.append(["info", str(tmp_path / "junk.h5")])
    for args in cases:
        result = runner.invoke(main, args)
        assert result.exit_code != 0, args
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert "Error" in result.output and "Traceback" not in result.output, args


def test_placement_phase_needs_the_moving_phase(tmp_path):
    result = CliRunner().invoke(
        main, ["solve", "six", "--phase", "placement", "--out", str(tmp_path / "six.h5")]
    )
    assert result.exit_code != 0
    assert "morris solve six --phase moving" in result.output


@pytest.mark.parametrize(
    "text, sector",
    [
        ("5-4", (5, 4, 0, 0)),
        ("5_4", (5, 4, 0, 0)),
        ("3-2-6-7", (3, 2, 6, 7)),
        ("3_2_6_7", (3, 2, 6, 7)),
    ],
)
def test_sector_notation(text, sector):
    assert parse_sector(text) == sector


@pytest.mark.parametrize("text", ["", "5", "5-4-1", "a-b", "5--4", "-5-4", "5-4-0-0-0"])
def test_bad_sector_notation_says_what_is_expected(text):
    with pytest.raises(ValueError, match="expected W-B-WF-BF"):
        parse_sector(text)


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux only")
def test_each_group_reports_its_own_peak_memory():
    big = np.ones(300 * 2**20 // 8)  # 300 MiB touched
    before = peak_rss_bytes()
    del big
    reset_peak_rss()
    assert before - peak_rss_bytes() > 200 * 2**20


@pytest.mark.parametrize("address", ["", "garbage", "tcp://h:notaport", "tcp://[::1",
                                     "http://host:8786", "tcp://host:99999"])
def test_a_malformed_scheduler_is_one_line_and_makes_no_file(tmp_path, address):
    out = tmp_path / "three.h5"
    result = CliRunner().invoke(main, ["solve", "three", "--quiet", "--out", str(out),
                                       "--scheduler", address])
    assert result.exit_code != 0, result.output
    assert "the scheduler's address must be like tcp://host:8786" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "tls://sched.example:8786",
                                     "tcp://[::1]:8786", "localhost:8786"])
def test_a_scheduler_address_as_dask_takes_it_passes(address):
    from morris_solver.solving.cluster import scheduler_address

    assert scheduler_address(address) == address
