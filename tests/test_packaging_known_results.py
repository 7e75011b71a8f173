"""The published results the package ships (``solver/check/known_results.toml``) against the
solved tables: every figure there is read from the file, not typed in here, and a
disagreement fails."""

from __future__ import annotations

import copy

import pytest

from morris_solver.check.known import check_against_known, known_results
from morris_solver.query.probe import Tablebase
from morris_solver.solving.generate import solve


def test_every_result_names_a_source_outside_the_project():
    known = known_results()
    assert {"three", "six", "nine"} <= set(known)
    for name, entry in known.items():
        assert entry["start"] in ("win", "draw", "loss"), name
        assert len(entry["source"]) > 40 and "DESIGN" not in entry["source"], name


@pytest.mark.parametrize(
    ("name", "expected_checks"),
    [("three", {"start position value"}), ("six", {"start position value"}),
     ("nine", {"sector 3-3-0-0 statistics"})],
)
def test_the_solved_tables_agree_with_the_published_results(
    table_paths, six_whole_path, name, expected_checks
):
    tb = Tablebase.open(six_whole_path if name == "six" else table_paths[name])
    checks = check_against_known(tb)
    assert {c.what for c in checks} == expected_checks
    for check in checks:
        assert check.ok, f"{name} {check.what}: tables {check.found}, published {check.expected}"


def test_a_published_figure_the_tables_contradict_fails(table_paths):
    tb = Tablebase.open(table_paths["three"])
    wrong = copy.deepcopy(known_results())
    wrong["three"]["start"] = "draw"
    [check] = check_against_known(tb, wrong)
    assert not check.ok and check.found == "win"

    tb = Tablebase.open(table_paths["nine"])
    stats = wrong["nine"]["sectors"]["3_3_0_0"]
    stats["draws"] += 1
    [check] = check_against_known(tb, wrong)
    assert not check.ok and check.found["draws"] == stats["draws"] - 1


def test_nine_holes_is_the_published_draw(tmp_path):
    path = tmp_path / "three-holes.h5"
    solve("three-holes", path, show_progress=False, log=lambda s: None)
    checks = check_against_known(Tablebase.open(path))
    assert {c.what for c in checks} == {"start position value"}
    assert all(c.ok for c in checks), [(c.found, c.expected) for c in checks]
