"""benchmarks/bench_variants.py on small files: the comparison with the standard game
counts exactly the positions whose result changes, a whole run of Nine Holes writes
the report, the statistics file and the variant's record, and the report is rebuilt from
the records alone when the tables are gone; the moving-phase pipeline, the check against
published statistics, and the sector-by-sector comparison from statistics."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import threading
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

from morris_solver.check.stats import table_statistics
from morris_solver.rules.variants import Variant
from morris_solver.solving.generate import solve
from morris_solver.tables.storage import TableFile

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_variants.py"
QUIET = {"show_progress": False, "log": lambda s: None}


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_variants", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_variants"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["bench_variants"]


def test_value_changes_counts_what_flying_changes(bench, table_paths, tmp_path):
    nine = TableFile.open(table_paths["nine"])  # the session's 3-vs-3 sector
    path = tmp_path / "nine-noflying.h5"
    solve("nine-noflying", path, phase="moving", max_stones=3, **QUIET)
    noflying = TableFile.open(path)
    same = bench.value_changes(nine, nine)
    assert same["moving"]["sectors"] == 1 and same["moving"]["changed"] == 0
    changes = bench.value_changes(nine, noflying)["moving"]
    a = nine.read_sector((3, 3, 0, 0)).astype(np.int64)
    b = noflying.read_sector((3, 3, 0, 0)).astype(np.int64)
    real = a != 0xFFFF

    def result(c):
        return np.where(c == 0, 0, np.where(c % 2 == 0, 1, 2))

    assert changes["positions"] == int(real.sum())
    assert changes["changed"] == int((real & (result(a) != result(b))).sum()) > 0
    assert sum(changes["by_change"].values()) == changes["changed"]
    # without flying, 3 against 3 is mostly blocked positions and slow games: many of the
    # flying game's wins are draws there
    assert changes["by_change"].get("win->draw", 0) > 0


def test_no_comparison_while_the_standard_file_lacks_a_sector(bench, table_paths, tmp_path):
    # the standard file holds 3-3 only: comparing 4-3 and 4-4 must wait, not count nothing
    path = tmp_path / "nine-noflying.h5"
    solve("nine-noflying", path, phase="moving", max_stones=4, **QUIET)
    assert bench.value_changes(TableFile.open(table_paths["nine"]), TableFile.open(path)) is None


def test_a_whole_run_of_nine_holes(bench, tmp_path, monkeypatch):
    # no data/three.h5: another board's positions are not compared, so none is needed
    monkeypatch.chdir(tmp_path)
    bench.main(["three-holes"])
    state = json.loads((tmp_path / "benchmarks/out/variants_state.json").read_text())
    done = state["three-holes"]
    assert done["value"] == done["search"]["value"] == "draw"
    sectors = TableFile.open(tmp_path / "data/three-holes.h5").sector_set()
    assert len(done["verify"]) == len(sectors) > 1  # every sector's verdict kept
    assert all(v["ok"] for v in done["verify"].values())
    assert done["changes"] == {"board": "three-orthogonal"}
    stats = json.loads((tmp_path / "data/stats/three-holes.json").read_text())
    assert stats == json.loads(json.dumps(table_statistics(TableFile.open(
        tmp_path / "data/three-holes.h5"))))
    report = (tmp_path / "benchmarks/variants_report.md").read_text()
    assert "| three-holes | draw | draw |" in report and "another board" in report
    # the report keeps a row for every house rule, not only the ones this command ran
    assert "| nine-noflying | not run |" in report
    record = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert bench.is_complete(record)
    assert record["verify"]["ok"] == record["sectors"] == len(sectors)
    assert record["totals"]["positions"] == sum(s["positions"] for s in stats["sectors"].values())
    # one run solved every group: their recorded times fit in its wall time
    assert 0 < record["group_seconds"] <= record["solve"]["seconds"]


def test_a_finished_variant_outlives_its_tables(bench, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bench.main(["three-holes"])
    report = (tmp_path / "benchmarks/variants_report.md").read_text()
    # another machine: the tables and the resumable state are gone, the records and the
    # statistics (committed) are not
    for table in (tmp_path / "data").glob("*.h5"):
        table.unlink()
    shutil.rmtree(tmp_path / "benchmarks/out")
    bench.main(["three-holes", "--report-only"])
    again = (tmp_path / "benchmarks/variants_report.md").read_text()
    assert "| three-holes | draw | draw |" in again
    assert again.split("## Runs")[1] == report.split("## Runs")[1]
    # its record is complete: running it again solves nothing
    bench.main(["three-holes"])
    assert not (tmp_path / "data/three-holes.h5").exists()


def test_an_unfinished_record_is_run_on(bench, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bench.main(["three-holes"])
    path = tmp_path / "benchmarks/variants/three-holes.json"
    record = json.loads(path.read_text())
    del record["search"]
    record["verify"]["ok"] -= 1  # a sector that failed, or not verified yet
    assert not bench.is_complete(record)
    path.write_text(json.dumps(record))
    bench.main(["three-holes", "--report-only"])
    report = (tmp_path / "benchmarks/variants_report.md").read_text()
    assert "| three-holes | draw | - |" in report and "in progress" in report
    # the machine is new: the run solves and searches again, and the record is whole
    shutil.rmtree(tmp_path / "data")
    shutil.rmtree(tmp_path / "benchmarks/out")
    bench.main(["three-holes"])
    assert (tmp_path / "data/three-holes.h5").exists()
    assert bench.is_complete(json.loads(path.read_text()))


@pytest.mark.parametrize("text", ['{"variant": "three-holes", "tot', '{"variant": "three-holes"}',
                                  "[1, 2]"])
def test_a_record_that_is_not_one_stops_the_run_with_one_line(bench, tmp_path, monkeypatch,
                                                              text):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "benchmarks/variants/three-holes.json"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    for argv in (["three-holes"], ["three-holes", "--report-only"]):
        with pytest.raises(SystemExit) as stop:
            bench.main(argv)
        message = str(stop.value)
        assert message.startswith(f"{path.relative_to(tmp_path)}: not a variant record")
        assert "\n" not in message and "delete it" in message
    assert not (tmp_path / "data/three-holes.h5").exists()


def test_linked_sectors_are_verified_once_in_the_file_holding_them(
        bench, table_paths, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    nine = tmp_path / "nine.h5"
    shutil.copy(table_paths["nine"], nine)  # 3 against 3, the sector both games share
    state = {}
    for name in ("nine-nocapture-placement", "nine-noflying"):
        path = tmp_path / f"{name}.h5"
        solve(name, path, phase="moving", max_stones=3, share_with=[nine], **QUIET)
        bench.verify_linked(TableFile.open(path), state, None)
    # nocapture links 3-3 (its moving rules are nine's), noflying does not (no flying)
    links = TableFile.open(tmp_path / "nine-nocapture-placement.h5").shared_sectors()
    assert links == {(3, 3, 0, 0): nine.resolve()}
    assert not TableFile.open(tmp_path / "nine-noflying.h5").shared_sectors()
    verdict = state["linked nine.h5"]["verify"]["3_3_0_0"]
    assert verdict["ok"] and verdict["positions"] > 0
    saved = json.loads((tmp_path / "benchmarks/out/variants_state.json").read_text())
    assert saved["linked nine.h5"]["verify"] == state["linked nine.h5"]["verify"]
    # another variant linking it finds the verdict and does not verify again
    bench.verify_linked(TableFile.open(tmp_path / "nine-nocapture-placement.h5"), saved, None)
    assert saved["linked nine.h5"]["verify"]["3_3_0_0"] == verdict
    # a verdict about another file of that name (solved again: a new stamp) is not reused
    with h5py.File(nine, "a") as f:
        f.attrs["created"] = "2030-01-01T00:00:00Z"
    with pytest.raises(SystemExit, match="earlier"):
        bench.verify_linked(TableFile.open(tmp_path / "nine-nocapture-placement.h5"), state, None)


def test_check_published_compares_the_moving_sectors(bench, six_whole_path, tmp_path):
    six = TableFile.open(six_whole_path)
    check = bench.check_published(six_whole_path)  # placement sectors too: not compared
    moving = [s for s in six.sector_set() if s[2] == s[3] == 0]
    assert check["problems"] == [] and check["sectors"] == len(moving) > 10
    assert check["positions"] == sum(six.sectors()[s]["positions"] for s in moving)
    doctored = tmp_path / "six.h5"
    shutil.copy(six_whole_path, doctored)
    with h5py.File(doctored, "a") as f:
        f["sectors/4_4_0_0"].attrs["wins"] += 1
    problems = bench.check_published(doctored)["problems"]
    assert len(problems) == 1 and problems[0].startswith("4-4-0-0: wins")
    with h5py.File(doctored, "a") as f:
        del f["sectors/5_5_0_0"]
    assert any("sectors missing" in p for p in bench.check_published(doctored)["problems"])


def test_sector_comparison_of_six_against_a_variant_of_six(bench, six_whole_path, tmp_path):
    six = table_statistics(TableFile.open(six_whole_path))
    assert not any(r["wins_change"] or r["draws_change"] or r["losses_change"]
                   for r in bench.sector_comparison(six, six))
    path = tmp_path / "six-noflying.h5"
    solve(Variant("six-noflying", "six", 6, flying=False), path, phase="moving",
          max_stones=4, **QUIET)
    rows = bench.sector_comparison(table_statistics(TableFile.open(path)), six)
    assert [r["sector"] for r in rows] == ["3-3-0-0", "3-4-0-0", "4-3-0-0", "4-4-0-0"]
    for row in rows:  # the same positions, other results
        assert row["positions"] == six["sectors"][row["sector"].replace("-", "_")]["positions"]
        assert row["wins_change"] + row["draws_change"] + row["losses_change"] == 0
    # a side with 3 stones cannot fly: every sector's results move (4 against 4 through
    # the captures into 3 against 4)
    assert all(r["wins_change"] != 0 for r in rows)


def test_a_variant_valued_from_its_moving_phase(bench, tmp_path, monkeypatch):
    # Nine Holes through the moving-phase pipeline: its moving sector solved and
    # verified, the start searched, no placement tables and no table value
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "MOVING_ONLY", frozenset({"three-holes"}))
    bench.main(["three-holes", "--note", "a test run"])
    record = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert record["pipeline"] == "moving" and bench.is_complete(record)
    assert "value" not in record and record["search"]["value"] == "draw"
    table = TableFile.open(tmp_path / "data/three-holes.h5")
    assert all(s[2] == s[3] == 0 for s in table.sector_set())
    assert record["verify"]["ok"] == record["sectors"] == len(table.sector_set())
    search = record["search"]
    assert 0 <= search["beside_seconds"] <= search["seconds"] + 1
    assert record["pipeline_seconds"] == pytest.approx(
        record["solve"]["seconds"] + record["verify"]["seconds"] + search["seconds"]
        - search["beside_seconds"])
    assert record["notes"] == ["a test run"]
    report = (tmp_path / "benchmarks/variants_report.md").read_text()
    assert "| three-holes | - (no placement tables) | draw |" in report
    assert "three-holes: a test run" in report
    # the note survives the record being written again, and is not added twice
    bench.main(["three-holes", "--note", "a test run"])
    again = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert again["notes"] == ["a test run"]


def test_a_start_search_longer_than_a_session_goes_on_from_its_saved_table(
        bench, tmp_path, monkeypatch, capsys):
    """The search stops at its save interval, writes its table beside the file and goes
    on; a run killed after that resumes from the saved table and finishes the record."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "MOVING_ONLY", frozenset({"three-holes"}))
    real = bench.PlacementSearch
    calls = []

    class Interrupted(real):
        def search(self, position, **limits):  # a save, then the machine goes away
            calls.append(limits["deadline"])
            if len(calls) == 1:
                found = super().search(position, **limits)  # (all of Nine Holes' search)
                assert found.nodes > 1
                raise bench.SearchTimeout("the search ran out of time after 1 node")
            raise KeyboardInterrupt

    monkeypatch.setattr(bench, "PlacementSearch", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        bench.main(["three-holes"])
    saved = tmp_path / "data/three-holes.search.npz"
    effort = tmp_path / "data/three-holes.search.json"
    assert saved.exists() and effort.exists() and len(calls) == 2
    record = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert "search" not in record and record["search_so_far"]["saves"] == 1
    bench.main(["three-holes", "--report-only"])
    report = (tmp_path / "benchmarks/variants_report.md").read_text()
    assert "not finished: " in report and " 1 saves |" in report
    monkeypatch.setattr(bench, "PlacementSearch", real)
    bench.main(["three-holes"])
    assert "search: resumed from" in capsys.readouterr().out
    record = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert record["search"]["value"] == "draw" and record["search"]["saves"] == 1
    assert record["search"]["nodes"] > 1 and not saved.exists() and not effort.exists()
    assert bench.is_complete(record)


def test_the_start_search_runs_beside_the_verification(bench, tmp_path, monkeypatch):
    """The win/draw/loss search (one thread, its leaves packed) starts before the
    verification and runs while it does: the verifier here waits for the search to
    begin, and fails the run if it does not."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "MOVING_ONLY", frozenset({"three-holes"}))
    monkeypatch.setattr(bench, "DISTANCE_SEARCH_BYTES", 0)  # as for Morabaraba
    searching = threading.Event()
    real_search, real_verify = bench.PlacementSearch, bench.verify_sectors

    class Watched(real_search):
        def search(self, position, **limits):
            searching.set()
            return super().search(position, **limits)

    def verify_after_the_search_began(*args, **kwargs):
        assert searching.wait(60), "the search had not begun while the verifier ran"
        return real_verify(*args, **kwargs)

    monkeypatch.setattr(bench, "PlacementSearch", Watched)
    monkeypatch.setattr(bench, "verify_sectors", verify_after_the_search_began)
    bench.main(["three-holes"])
    record = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert bench.is_complete(record) and record["search"]["value"] == "draw"
    assert record["search"]["metric"] == "wdl" and record["search"]["beside_seconds"] > 0


def test_the_distance_search_waits_for_the_verification(bench, tmp_path, monkeypatch):
    """The distance search holds a byte a moving position (Nine's 8.6 GiB): it starts only
    once the verifier, which needs as much again, has ended."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "MOVING_ONLY", frozenset({"three-holes"}))
    verified = threading.Event()
    real_search, real_verify = bench.PlacementSearch, bench.verify_sectors

    class Watched(real_search):
        def search(self, position, **limits):
            assert verified.is_set(), "the distance search began beside the verifier"
            return super().search(position, **limits)

    def verify(*args, **kwargs):
        real_verify(*args, **kwargs)
        verified.set()

    monkeypatch.setattr(bench, "PlacementSearch", Watched)
    monkeypatch.setattr(bench, "verify_sectors", verify)
    bench.main(["three-holes"])
    record = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert record["search"]["metric"] == "dtm" and record["search"]["value"] == "draw"


def test_a_search_that_ended_before_its_run_was_stopped_is_not_run_again(
        bench, tmp_path, monkeypatch):
    """The value is kept beside the table as soon as the search finds it: a run stopped
    later, in the verification, loses it not, and the next run records it unsearched."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "MOVING_ONLY", frozenset({"three-holes"}))
    monkeypatch.setattr(bench, "DISTANCE_SEARCH_BYTES", 0)  # beside the verifier
    effort = tmp_path / "data/three-holes.search.json"
    real_verify = bench.verify_sectors

    def stopped_once_the_search_has_ended(*args, **kwargs):
        for _ in range(600):
            if effort.exists() and "found" in json.loads(effort.read_text()):
                raise KeyboardInterrupt
            time.sleep(0.1)
        raise AssertionError("the search did not end")

    monkeypatch.setattr(bench, "verify_sectors", stopped_once_the_search_has_ended)
    with pytest.raises(KeyboardInterrupt):
        bench.main(["three-holes"])
    found = json.loads(effort.read_text())["found"]
    assert found["value"] == "draw" and found["nodes"] > 1

    class NotAgain(bench.PlacementSearch):
        def __init__(self, *args, **kwargs):
            raise AssertionError("searched again")

    monkeypatch.setattr(bench, "verify_sectors", real_verify)
    monkeypatch.setattr(bench, "PlacementSearch", NotAgain)
    bench.main(["three-holes"])
    record = json.loads((tmp_path / "benchmarks/variants/three-holes.json").read_text())
    assert record["search"]["value"] == "draw" and record["search"]["nodes"] == found["nodes"]
    assert bench.is_complete(record) and not effort.exists()
    # the search's book, kept beside the table while the verifier read it, is in it now
    assert not (tmp_path / "data/three-holes.search-book.npz").exists()
    book = TableFile.open(tmp_path / "data/three-holes.h5").search_book()
    assert book is not None and book.about["result"] == "draw" and len(book.keys) > 0
    assert book.about["nodes"] == found["nodes"]


def test_a_damaged_search_record_stops_the_run_with_one_line(bench, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "MOVING_ONLY", frozenset({"three-holes"}))
    (tmp_path / "data").mkdir()
    (tmp_path / "data/three-holes.search.json").write_text('{"nodes": 3')
    with pytest.raises(SystemExit) as stop:
        bench.main(["three-holes"])
    message = str(stop.value)
    assert "three-holes.search.json: not a start search's record; delete it" in message
    assert "\n" not in message


def test_a_resumed_solve_counts_at_least_its_groups(bench):
    """A solve a later run resumed timed only its last part: the pipeline counts at least
    the seconds its own groups took."""
    record = {"solve": {"seconds": 10.0}, "group_seconds": 25.0, "verify": {"seconds": 5.0},
              "links": {}, "search": {"seconds": 3.0}}
    assert bench.pipeline_seconds(record) == 33.0
    record["group_seconds"] = 4.0  # one run: its wall time, start-ups included
    assert bench.pipeline_seconds(record) == 18.0
    record["search"]["beside_seconds"] = 2.0  # two of its seconds beside the verifier
    assert bench.pipeline_seconds(record) == 16.0
