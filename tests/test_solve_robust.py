"""``morris solve`` as a process under stress: a full disk, Ctrl-C at any moment, and a
second solve of the same file. Each ends in one line and a known exit status, never a
traceback, a segmentation fault or a solve that runs on."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from morris_solver.solving.generate import SolveLock
from morris_solver.tables.storage import TableFile

MORRIS = [sys.executable, "-c", "from morris_cli.main import main; main()"]


def _solve(*args: str, **options) -> subprocess.Popen:
    return subprocess.Popen([*MORRIS, "solve", *args, "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **options)


@pytest.fixture
def tiny_disk(tmp_path):
    """A 1 MB tmpfs (Six Men's Morris' tables take 1.5 MB); needs root."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    reason = None
    if os.geteuid() != 0:
        reason = "mounting a tmpfs needs root"
    else:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)],
                              capture_output=True, text=True)
        reason = done.returncode and f"mount failed: {done.stderr.strip()}"
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_is_one_line_and_the_file_resumes(tiny_disk, tmp_path):
    path = tiny_disk / "six.h5"
    proc = _solve("six", "--out", str(path))
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 1, err  # not 139, a segmentation fault
    assert "Traceback" not in err
    [line] = err.strip().splitlines()
    assert line.startswith(f"Error: no space left on device writing {path}: ")
    moved = tmp_path / "six.h5"
    shutil.copy(path, moved)
    committed = set(TableFile.open(moved).sectors())
    assert committed
    proc = _solve("six", "--out", str(moved))
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert "groups were already there" in out
    assert len(TableFile.open(moved).sectors()) == 77 and committed < set(
        TableFile.open(moved).sectors())


@pytest.mark.parametrize("delay", [0.2, 0.5, 0.9, 1.5])
def test_ctrl_c_at_any_moment_stops_the_solve_with_one_line(tmp_path, delay):
    """From its start through the kernels' loading (where a KeyboardInterrupt was lost
    in llvmlite's ctypes callback, and the solve ran on to exit 0) into the solve."""
    proc = _solve("six", "--out", str(tmp_path / "six.h5"))
    time.sleep(delay)
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert time.monotonic() - started < 5
    assert err.strip().splitlines() == ["interrupted; rerun the same command to resume"]
    assert "solved" not in out


def test_a_second_solve_of_the_same_file_is_refused(tmp_path):
    path = tmp_path / "six.h5"
    lock = SolveLock(path)  # what a running solve holds
    try:
        proc = _solve("six", "--out", str(path))
        out, err = proc.communicate(timeout=300)
    finally:
        lock.release()
    assert proc.returncode == 1, (out, err)
    [line] = err.strip().splitlines()
    assert f"another solve is writing {path}" in line
    assert not path.exists()  # it touched nothing


def test_a_killed_solves_lock_does_not_block(tmp_path):
    path = tmp_path / "three.h5"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from morris_solver.solving.generate import "
         "SolveLock; l = SolveLock(sys.argv[1]); print('locked', flush=True); time.sleep(60)",
         str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    holder.kill()
    holder.wait()
    assert (tmp_path / "three.h5.lock").exists()  # left behind, but no longer locked
    proc = _solve("three", "--out", str(path))
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert not (tmp_path / "three.h5.lock").exists()
