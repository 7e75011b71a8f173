"""``morris reproduce``: it solves, verifies and agrees with the published results, and
fails with a clear message on a table that disagrees with them (the file it resumes)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import h5py
import pytest
from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.check.known import known_results, reproduce_phase
from morris_solver.core.errors import MorrisError

START = "sectors/0_0_3_3"  # Three Men's Morris' empty board: one position


def _reproduce(folder: Path):
    return CliRunner().invoke(main, ["reproduce", "three", "--data", str(folder), "--quiet"])


def _solved_three(table_paths, tmp_path) -> Path:
    """A folder holding a solved ``three.h5``, which ``reproduce`` resumes."""
    shutil.copy(table_paths["three"], tmp_path / "three.h5")
    return tmp_path


def test_reproduce_three(tmp_path):
    result = _reproduce(tmp_path / "data")
    assert result.exit_code == 0, result.output
    assert "three: first player wins in 9 plies" in result.output
    assert "morris verify: 7 of 7 sectors (564 positions) re-derived" in result.output
    assert "start position value: win agrees with the published win" in result.output
    assert (tmp_path / "data" / "three.h5").exists()


def test_a_doctored_start_value_disagrees(table_paths, tmp_path):
    folder = _solved_three(table_paths, tmp_path)
    with h5py.File(folder / "three.h5", "a") as f:
        f[START][...] = 0  # a draw, not the win in 9 plies (code 10)
    result = _reproduce(folder)
    assert result.exit_code == 1, result.output
    assert "three: draw" in result.output
    assert "morris verify: 6 of 7 sectors" in result.output
    assert "start position value: draw DISAGREES with the published win" in result.output
    assert result.stderr.strip() == (
        "Error: 2 check(s) failed: a sector did not verify or a result disagrees with the "
        "published results (solver/check/known_results.toml)"
    )


def test_a_doctored_statistic_fails_verification(table_paths, tmp_path):
    folder = _solved_three(table_paths, tmp_path)
    with h5py.File(folder / "three.h5", "a") as f:
        f[START].attrs["wins"] = 0  # the start is won: 1 win
    result = _reproduce(folder)
    assert result.exit_code == 1, result.output
    assert "start position value: win agrees with the published win" in result.output
    assert "morris verify: 6 of 7 sectors" in result.output
    assert result.stderr.strip().startswith("Error: 1 check(s) failed")


def test_the_moving_route_values_the_start_by_search(tmp_path):
    result = CliRunner().invoke(main, ["reproduce", "six", "--phase", "moving", "--data",
                                       str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "six: moving phase solved" in result.output
    assert "six: draw   (search over the placement phase:" in result.output
    assert ("start position value (search): draw agrees with the published draw"
            in result.output)


def test_a_searched_start_that_disagrees_fails(tmp_path, monkeypatch):
    wrong = copy.deepcopy(known_results())
    wrong["three"] |= {"start": "draw", "reproduce": "moving"}
    monkeypatch.setattr("morris_cli.reproduce.known_results", lambda: wrong)
    result = _reproduce(tmp_path)
    assert result.exit_code == 1, result.output
    assert "three: first player wins   (search over" in result.output
    assert ("start position value (search): win DISAGREES with the published draw"
            in result.output)


def test_morabaraba_is_reproduced_by_the_moving_route():
    assert reproduce_phase("twelve") == "moving"
    assert reproduce_phase("nine") == "all"
    with pytest.raises(MorrisError, match="not all or moving"):
        reproduce_phase("three", {"three": {"reproduce": "placement"}})
