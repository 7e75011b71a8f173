"""The published per-sector statistics (``data/stats/``) are what a fresh solve gives,
the package ships them (``morris_solver.published_stats``, read here from the editable install;
tests/test_packaging.py reads them from a wheel), and ``morris info --check-stats`` tells
a user whether a table file matches them, named by a path or by the variant's name."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.check.stats import (
    compare_statistics,
    load_statistics,
    published_statistics,
    published_variants,
    table_statistics,
)
from morris_solver.solving.generate import solve
from morris_solver.tables.storage import TableFile

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


def test_the_package_ships_data_stats_as_they_are():
    # the editable install leads morris_solver.published_stats to data/stats itself (the
    # folder, or in the strict mode a link per file): one copy
    shipped = Path(str(resources.files("morris_solver.published_stats")))
    for path in shipped.glob("*.json"):
        assert path.resolve() == STATS / path.name
    names = sorted(path.stem for path in STATS.glob("*.json"))
    assert published_variants() == names
    for name in names:
        assert published_statistics(name) == json.loads((STATS / f"{name}.json").read_text())


def test_check_stats_takes_a_variants_name(six_whole_path, table_paths):
    result = CliRunner().invoke(main, ["info", str(six_whole_path), "--check-stats", "six"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        f"{six_whole_path} matches the reference statistics of six: all 77 sectors agree")

    result = CliRunner().invoke(main, ["info", str(table_paths["three"]), "--check-stats", "six"])
    assert result.exit_code == 1
    assert "the statistics are of six, the tables of three" in result.output
    assert result.output.splitlines()[-1].endswith("does not match the reference statistics "
                                                   "of six: 1 difference")


def test_check_stats_prefers_a_file_of_that_name(table_paths, tmp_path, monkeypatch):
    stats = json.loads((STATS / "three.json").read_text())
    stats["sectors"]["3_3_0_0"]["wins"] += 1
    (tmp_path / "three").write_text(json.dumps(stats))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["info", str(table_paths["three"]), "--check-stats", "three"])
    assert result.exit_code == 1
    assert "3-3-0-0: wins" in result.output and "does not match three:" in result.output


def test_check_stats_names_what_it_accepts(table_paths):
    result = CliRunner().invoke(main, ["info", str(table_paths["three"]), "--check-stats", "ten"])
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    shipped = sorted(p.stem for p in STATS.glob("*.json"))  # as the package ships them
    assert {"nine", "six", "three"} <= set(shipped)
    assert line == ("Error: ten is neither a statistics file nor a variant with reference "
                    f"statistics ({', '.join(shipped)})")
    result = CliRunner().invoke(
        main, ["info", str(table_paths["three"]), "--check-stats", "missing/six.json"])
    assert result.exit_code == 1
    assert "cannot read statistics from missing/six.json" in result.output


def test_info_help_says_check_stats_takes_a_name_or_a_file():
    result = CliRunner().invoke(main, ["info", "--help"])
    assert "--check-stats FILE|VARIANT" in result.output
    assert "--check-stats six" in result.output


def test_a_source_checkout_that_is_not_installed_reads_data_stats(monkeypatch):
    def not_installed(name):
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources, "files", not_installed)
    assert published_statistics("three") == load_statistics(STATS / "three.json")
