"""benchmarks/bench_draw_rules.py on Six Men's Morris: the report's counts are the
file's, every sector verified, the start's value by search equals the tables'; a run
stopped half-way reports what it has, with the notes given; the published statistics
take the rule counts only over agreeing game values."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from morris_solver.tables.storage import TableFile, rule_layer

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_draw_rules.py"


def report_of(path: Path, *options: str) -> str:
    """The report ``bench_draw_rules.py PATH --limits 12 OPTIONS`` writes (beside PATH)."""
    spec = importlib.util.spec_from_file_location("bench_draw_rules", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    report = path.with_suffix(".md")
    sys.path.insert(0, str(SCRIPT.parent))  # its sibling bench_report
    try:
        spec.loader.exec_module(module)
        module.main([str(path), "--limits", "12", "--report", str(report), *options])
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return report.read_text()


def test_report_on_six(six_whole_path, tmp_path):
    path = tmp_path / "six.h5"
    shutil.copy(six_whole_path, path)
    text = report_of(path, "--verify")
    rules = TableFile.open(path).sectors(rule_layer(12))
    assert f"* L = 12: {len(rules)} of {len(rules)} sectors re-derived OK" in text
    cursed = sum(st["cursed_wins"] for s, st in rules.items() if not (s[2] or s[3]))
    assert f"{cursed:,} cursed wins" in text and cursed > 0
    # the tables' value of the start and the search's, in one line
    line = next(line for line in text.splitlines() if line.startswith("* L = 12: the start"))
    tables, searched = line.split("from the tables")[0], line.split("the search says")[1]
    assert tables.split("**")[1] == searched.split("**")[1]


def test_report_of_a_run_stopped_half_way(six_whole_path, tmp_path):
    from morris_solver.solving.generate import solve

    path = tmp_path / "six.h5"
    shutil.copy(six_whole_path, path)
    solve("six", path, draw_rules=12, phase="moving", max_stones=3, show_progress=False,
          log=lambda s: None)  # the 3-3 sector only
    text = report_of(path, "--report-only", "--note", "Cores shared with a test run.")
    assert text.endswith("## Notes\n\nCores shared with a test run.\n")
    produced = next(line for line in text.splitlines() if line.startswith("Produced by"))
    assert "--report-only" in produced and "Cores shared" not in produced
    moving = [s for s in TableFile.open(path).sector_set() if not (s[2] or s[3])]
    assert TableFile.open(path).sector_set(rule_layer(12)) == {(3, 3, 0, 0)}
    assert f"{len(moving) - 1} of {len(moving)} moving sectors still lack" in text
    assert "* L = 12, moving phase, 1 sectors:" in text
    assert text.count("| - | - | - |") == len(moving) - 1


def test_statistics_published_only_over_agreeing_game_values(six_whole_path, tmp_path):
    from morris_solver.check.stats import table_statistics
    from morris_solver.solving.generate import solve

    path = tmp_path / "six.h5"
    shutil.copy(six_whole_path, path)
    published = table_statistics(TableFile.open(path))
    stats = tmp_path / "six.json"
    stats.write_text(json.dumps(published))
    solve("six", path, draw_rules=12, phase="moving", max_stones=3, show_progress=False,
          log=lambda s: None)  # the 3-3 sector only: not yet published
    report_of(path, "--report-only", "--stats", str(stats))
    assert json.loads(stats.read_text()) == {**published, "draw_rules": {}}
    solve("six", path, draw_rules=12, phase="moving", show_progress=False, log=lambda s: None)
    report_of(path, "--report-only", "--stats", str(stats))
    written = json.loads(stats.read_text())
    assert written["sectors"] == published["sectors"]
    assert written["draw_rules"] == table_statistics(TableFile.open(path))["draw_rules"]
    assert len(written["draw_rules"]["L12"]) == sum(not (s[2] or s[3]) for s in
                                                    TableFile.open(path).sector_set())

    published["sectors"]["3_3_0_0"]["wins"] += 1  # statistics of other game values
    stats.write_text(json.dumps(published))
    with pytest.raises(SystemExit, match="3-3-0-0: wins"):
        report_of(path, "--report-only", "--stats", str(stats))
    assert "draw_rules" not in json.loads(stats.read_text())
