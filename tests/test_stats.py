"""The published per-sector statistics (``data/stats/``) are what a fresh solve gives,
and ``morris info --check-stats`` tells a user whether a table file matches them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from cli.main import main
from solver.generate import solve
from solver.stats import compare_statistics, load_statistics, table_statistics
from solver.storage import TableFile

STATS = Path(__file__).resolve().parent.parent / "data" / "stats"


def test_a_fresh_solve_reproduces_the_committed_statistics(table_paths, six_whole_path):
    for name, path in (("three", table_paths["three"]), ("six", six_whole_path)):
        committed = load_statistics(STATS / f"{name}.json")
        fresh = table_statistics(TableFile.open(path))
        assert fresh["sectors"] == committed["sectors"], name
        assert compare_statistics(committed, fresh) == []


def test_check_stats_accepts_a_matching_file(six_whole_path):
    result = CliRunner().invoke(
        main, ["info", str(six_whole_path), "--check-stats", str(STATS / "six.json")]
    )
    assert result.exit_code == 0, result.output
    assert "all 77 sectors agree" in result.output


def test_check_stats_names_each_difference(six_whole_path, tmp_path):
    stats = json.loads((STATS / "six.json").read_text())
    stats["sectors"]["5_4_1_1"]["wins"] += 1
    del stats["sectors"]["0_0_6_6"]
    changed = tmp_path / "six.json"
    changed.write_text(json.dumps(stats))
    result = CliRunner().invoke(main, ["info", str(six_whole_path), "--check-stats", str(changed)])
    assert result.exit_code == 1
    assert "5-4-1-1: wins" in result.output
    assert "sectors not in the statistics: 0-0-6-6" in result.output
    assert result.output.strip().splitlines()[-1].startswith("Error: ")


def test_an_incomplete_file_does_not_match(table_paths):
    # the shared six tables hold only the moving sectors up to 4 stones a side
    result = CliRunner().invoke(
        main, ["info", str(table_paths["six"]), "--check-stats", str(STATS / "six.json")]
    )
    assert result.exit_code == 1
    assert "sectors missing" in result.output
    # what it holds agrees: said, so that a solve in progress can be checked
    moving = len(TableFile.open(table_paths["six"]).sectors())
    assert f"the {moving} sectors it holds agree" in result.output
    assert result.output.splitlines()[-1].endswith(": 1 difference")


def test_an_incomplete_file_with_a_wrong_sector_does_not_agree(table_paths, tmp_path):
    stats = json.loads((STATS / "six.json").read_text())
    stats["sectors"]["4_4_0_0"]["draws"] += 1
    changed = tmp_path / "six.json"
    changed.write_text(json.dumps(stats))
    result = CliRunner().invoke(
        main, ["info", str(table_paths["six"]), "--check-stats", str(changed)]
    )
    assert result.exit_code == 1
    assert "4-4-0-0: draws" in result.output and "sectors missing" in result.output
    assert "it holds agree" not in result.output


def test_check_stats_refuses_a_file_that_is_not_statistics(table_paths):
    result = CliRunner().invoke(
        main, ["info", str(table_paths["three"]), "--check-stats", str(table_paths["three"])]
    )
    assert result.exit_code == 1
    assert "cannot read statistics" in result.output
    assert "Traceback" not in result.output


def test_draw_rule_statistics_are_compared_where_the_file_holds_them(six_whole_path, tmp_path):
    path = tmp_path / "six.h5"
    shutil.copy(six_whole_path, path)
    solve("six", path, draw_rules=12, phase="moving", max_stones=3, show_progress=False,
          log=lambda s: None)
    stats = table_statistics(TableFile.open(path))  # the 3-3 sector at L = 12
    stats["draw_rules"]["L20"] = stats["draw_rules"]["L12"]  # a limit the file lacks
    published = tmp_path / "six.json"
    published.write_text(json.dumps(stats))
    result = CliRunner().invoke(main, ["info", str(path), "--check-stats", str(published)])
    assert result.exit_code == 0, result.output
    assert "not compared: the file holds none for the limit 20" in result.output

    stats["draw_rules"]["L12"]["3_3_0_0"]["cursed_wins"] += 1
    published.write_text(json.dumps(stats))
    result = CliRunner().invoke(main, ["info", str(path), "--check-stats", str(published)])
    assert result.exit_code == 1
    assert "3-3-0-0 (limit 12): cursed_wins" in result.output
