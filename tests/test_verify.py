"""The independent verifier: it passes fresh tables and catches every kind of damage
(a wrong value or distance, a wrong statistic, a corrupted chunk), through the API and
through ``morris verify``."""

from __future__ import annotations

import json
import shutil

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.check.verify import Mismatch, verify_table
from morris_solver.index.index_format import index_tables
from morris_solver.index.indexing import unrank
from morris_solver.rules.position import Position
from morris_solver.rules.sectors import sector_key
from morris_solver.rules.values import PAD
from morris_solver.tables.storage import TableError, TableFile


@pytest.fixture
def six_copy(table_paths, tmp_path):
    """A copy of the shared Six Men's Morris tables (moving, up to 4 a side) to damage."""
    path = tmp_path / "six.h5"
    shutil.copy(table_paths["six"], path)
    return path


def run(*args: str):
    return CliRunner().invoke(main, ["verify", *args])


@pytest.mark.parametrize("name", ["three", "six", "nine"])
def test_fresh_tables_verify(table_paths, name, published_nine_33):
    path = table_paths[name]
    report = verify_table(path, progress=False)
    stored = TableFile.open(path).sectors()
    assert report.ok, [(r.sector, r.mismatches, r.problems) for r in report.sectors if not r.ok]
    assert {r.sector for r in report.sectors} == set(stored)
    assert report.positions == sum(s["positions"] for s in stored.values())
    if name == "nine":
        assert report.positions == published_nine_33["positions"]  # the 3-vs-3 sector


def _rewrite(path, sector, pick, change):
    """Change the first code of ``sector`` that ``pick`` selects; returns its slot, the old
    code and the position text the verifier should print."""
    with h5py.File(path, "r+") as f:
        ds = f["sectors"][sector_key(sector)]
        codes = ds[...]
        slot = int(np.flatnonzero(pick(codes))[0])
        old = int(codes[slot])
        ds[slot] = change(old)
    variant = TableFile.open(path).variant
    T = index_tables(variant.board, variant.stones)
    mover, other = unrank(T, sector[0], sector[1], slot)
    text = str(Position.from_sides(variant, int(mover), int(other), 0, 0, True))
    return slot, old, text


@pytest.mark.parametrize(
    "sector, pick, change",
    [
        # 4-3 is reached only from 3-4, so a change there is the sector's only wrong slot
        ((4, 3, 0, 0), lambda c: (c != PAD) & (c > 0) & (c % 2 == 0), lambda old: 0),
        ((4, 3, 0, 0), lambda c: (c != PAD) & (c > 0) & (c % 2 == 0), lambda old: old + 2),
        ((4, 3, 0, 0), lambda c: c == PAD, lambda old: 0),
        # 4-4 leads to itself: its predecessors there may be recomputed differently too
        ((4, 4, 0, 0), lambda c: (c != PAD) & (c > 1) & (c % 2 == 1), lambda old: old + 2),
    ],
    ids=["win-to-draw", "win-distance", "padding", "loss-distance"],
)
def test_changed_code_is_reported(six_copy, sector, pick, change):
    slot, old, text = _rewrite(six_copy, sector, pick, change)
    report = verify_table(six_copy, progress=False, examples=1000)
    assert not report.ok
    result = next(r for r in report.sectors if r.sector == sector)
    assert Mismatch(f"{text} (slot {slot})", change(old), old) in result.mismatches
    if sector == (4, 3, 0, 0):
        assert result.mismatch_count == 1
    others = [r for r in report.sectors if r.sector not in (sector, (3, 4, 0, 0))]
    assert all(r.ok for r in others)


@pytest.mark.parametrize("change", [lambda c: c + 2, lambda c: PAD], ids=["distance", "padding"])
@pytest.mark.parametrize("name, sector", [("six", (4, 3, 0, 0)), ("three", (2, 2, 1, 1))])
def test_every_changed_slot_is_counted_once(table_paths, tmp_path, name, sector, change):
    """The values are checked in a walk by the other side's sets, which meets a position
    once per symmetry of that set: every canonical slot must still be counted once."""
    path = tmp_path / f"{name}.h5"
    shutil.copy(table_paths[name], path)
    with h5py.File(path, "r+") as f:
        ds = f["sectors"][sector_key(sector)]
        codes = ds[...]
        canonical = codes != PAD
        codes[canonical] = change(codes[canonical])
        ds[...] = codes
    (result,) = verify_table(path, sector=sector, progress=False).sectors
    assert result.mismatch_count == result.positions == int(canonical.sum())


def test_placement_sector_change_is_reported(table_paths, tmp_path):
    path = tmp_path / "three.h5"
    shutil.copy(table_paths["three"], path)
    _rewrite(path, (2, 2, 1, 1), lambda c: (c != PAD) & (c > 0), lambda old: old + 2)
    report = verify_table(path, sector=(2, 2, 1, 1), progress=False)
    (result,) = report.sectors
    assert result.mismatch_count == 1 and not report.ok
    assert " w h:1,1 (slot " in result.mismatches[0].position


def test_wrong_statistics_attribute_is_reported(six_copy):
    with h5py.File(six_copy, "r+") as f:
        ds = f["sectors"]["3_3_0_0"]
        wins = int(ds.attrs["wins"])
        ds.attrs["wins"] = wins + 1
    report = verify_table(six_copy, progress=False)
    bad = [r for r in report.sectors if not r.ok]
    assert [r.sector for r in bad] == [(3, 3, 0, 0)]
    assert bad[0].mismatch_count == 0
    assert bad[0].problems == [f"statistics wins: stored {wins + 1}, recounted {wins}"]


def test_missing_successor_sector_is_reported(six_copy):
    with h5py.File(six_copy, "r+") as f:
        del f["sectors"]["3_3_0_0"]
    report = verify_table(six_copy, progress=False)
    problems = {r.sector: r.problems for r in report.sectors if not r.ok}
    # only 3-4 leads to 3-3 (by a capture)
    assert problems == {(3, 4, 0, 0): ["moves lead to 3-3-0-0, not in the file"]}


def test_damaged_chunk_is_a_clean_error(six_copy):
    with h5py.File(six_copy, "r") as f:
        info = f["sectors"]["4_4_0_0"].id.get_chunk_info(0)
    with open(six_copy, "r+b") as fh:
        fh.seek(info.byte_offset + info.size // 2)
        original = fh.read(16)
        fh.seek(info.byte_offset + info.size // 2)
        fh.write(bytes(b ^ 0x5A for b in original))
    with pytest.raises(TableError, match="4-4-0-0 .* is damaged"):
        verify_table(six_copy, progress=False)
    result = run(str(six_copy))
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("Error: sector 4-4-0-0")
    assert "Traceback" not in result.output


def test_cli_ok_lines_and_json(table_paths):
    path = str(table_paths["six"])
    result = run(path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sum(line.startswith("OK    ") for line in lines) == 4
    assert lines[-1].startswith("OK: six, 4 sectors, 117,240 positions")
    one = run(path, "--sector", "4-3-0-0")
    assert one.exit_code == 0 and one.output.splitlines()[-1].startswith("OK: six, 1 sector, ")
    result = run(path, "--json", "--sector", "4-3-0-0", "--threads", "1")
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output)
    assert facts["ok"] and [s["sector"] for s in facts["sectors"]] == ["4-3-0-0"]


def test_cli_fails_on_a_wrong_value(six_copy):
    _rewrite(six_copy, (4, 3, 0, 0), lambda c: (c != PAD) & (c > 0), lambda old: old + 2)
    result = run(str(six_copy), "--sector", "4-3")
    assert result.exit_code == 1
    assert result.output.startswith("FAIL  4-3-0-0")
    assert "stored" in result.output and "recomputed" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["{tmp}/missing.h5"], "Error: no table file at"),
        (["{tmp}/plain.h5"], "is not a morris tablebase file"),
        (["{tmp}/text.h5"], "is not a readable HDF5 table file"),
        (["{six}", "--sector", "9-9"], "has no sector 9-9-0-0"),
        (["{six}", "--sector", "nine"], "--sector: bad sector 'nine'"),
    ],
)
def test_cli_errors_are_one_line(table_paths, tmp_path, args, message):
    with h5py.File(tmp_path / "plain.h5", "w") as f:
        f.create_dataset("x", data=np.zeros(3))
    (tmp_path / "text.h5").write_text("not hdf5")
    args = [a.format(tmp=tmp_path, six=table_paths["six"]) for a in args]
    result = run(*args)
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1
    assert message in result.output
