"""benchmarks/bench_draw_rules.py on Six Men's Morris: the report's counts are the
file's, and the start's value by search equals the tables'."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

from solver.storage import TableFile, rule_layer

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_draw_rules.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_draw_rules", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_report_on_six(six_whole_path, tmp_path):
    path = tmp_path / "six.h5"
    shutil.copy(six_whole_path, path)
    report = tmp_path / "six.md"
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        _bench().main([str(path), "--limits", "12", "--report", str(report)])
    finally:
        sys.path.remove(str(SCRIPT.parent))
    text = report.read_text()
    rules = TableFile.open(path).sectors(rule_layer(12))
    cursed = sum(st["cursed_wins"] for s, st in rules.items() if not (s[2] or s[3]))
    assert f"{cursed:,} cursed wins" in text and cursed > 0
    # the tables' value of the start and the search's, in one line
    line = next(line for line in text.splitlines() if line.startswith("* L = 12: the start"))
    tables, searched = line.split("from the tables")[0], line.split("the search says")[1]
    assert tables.split("**")[1] == searched.split("**")[1]
