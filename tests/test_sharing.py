"""Sectors two variants share (solver/rules/sharing.py): which ones, the link that stores them
once, and the clear error when the linked file is missing or holds other rules."""

from __future__ import annotations

import dataclasses
import random
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.check.verify import verify_table
from morris_solver.index.index_format import canonical_index, index_tables, sector_slots
from morris_solver.query.probe import Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.sectors import reachable_sectors
from morris_solver.rules.sharing import shared
from morris_solver.rules.variants import get_variant
from morris_solver.solving.generate import solve
from morris_solver.tables.storage import TableError, TableFile

quiet = {"show_progress": False, "log": lambda s: None}


def test_which_sectors_two_variants_share():
    nine, beginners = get_variant("nine"), get_variant("nine-nocapture-placement")
    noflying, diagonal, twelve = (get_variant(n) for n in ("nine-noflying", "nine-diagonal",
                                                           "twelve"))
    moving = [s for s in reachable_sectors(nine) if s[2] == s[3] == 0]
    assert all(shared(beginners, nine, s) for s in moving)
    assert not any(shared(beginners, nine, s) for s in reachable_sectors(nine) if s[2] or s[3])
    assert not any(shared(noflying, nine, s) for s in moving)  # flying changes every value
    # two stones for a double mill: never in the moving phase of the standard board; on
    # one where slides close two mills, only where 5 stones close them against 4
    assert all(shared(get_variant("nine-doublemill"), nine, s) for s in moving)
    diagonal_double = dataclasses.replace(diagonal, name="diagonal-doublemill",
                                          double_mill_removes=2)
    assert {s[:2] for s in moving if shared(diagonal_double, diagonal, s)} == {
        (w, b) for w in range(3, 10) for b in range(3, 10) if min(w, b) == 3 or max(w, b) <= 4}
    # twelve's full-board rule matters only on a full board: never with 9 stones a side
    assert all(shared(twelve, diagonal, s) for s in moving)
    assert not shared(twelve, diagonal, (12, 12, 0, 0))


def test_two_stones_for_a_double_mill_change_no_moving_sector_of_the_standard_board(tmp_path):
    # the claim behind linking all of nine-doublemill's moving phase to nine's, solved
    # both ways where it would show first: 5 stones against 4
    nine, doublemill = tmp_path / "nine.h5", tmp_path / "nine-doublemill.h5"
    solve("nine", nine, sector=(5, 4, 0, 0), **quiet)
    solve("nine-doublemill", doublemill, sector=(5, 4, 0, 0), share_with=[], **quiet)
    ours, theirs = TableFile.open(doublemill), TableFile.open(nine)
    assert ours.sector_set() == theirs.sector_set() >= {(5, 4, 0, 0), (4, 5, 0, 0)}
    assert not ours.shared_sectors()
    for sector in ours.sector_set():
        assert np.array_equal(ours.read_sector(sector), theirs.read_sector(sector)), sector


def test_a_shared_sector_has_the_same_index_whatever_the_stones():
    diagonal, twelve = get_variant("nine-diagonal"), get_variant("twelve")
    small, large = index_tables(diagonal.board, 9), index_tables(twelve.board, 12)
    rng = random.Random(5)
    for W, B in ((3, 3), (5, 4), (9, 8)):
        assert sector_slots(small, W, B) == sector_slots(large, W, B)
        for _ in range(200):
            points = rng.sample(range(24), W + B)
            mover = sum(1 << p for p in points[:W])
            other = sum(1 << p for p in points[W:])
            assert (canonical_index(small, W, B, mover, other)
                    == canonical_index(large, W, B, mover, other))


@pytest.fixture
def folder(tmp_path, table_paths):
    """A data folder with nine's 3-vs-3 sector (the session's table, copied)."""
    shutil.copy(table_paths["nine"], tmp_path / "nine.h5")
    return tmp_path


def test_the_beginners_rule_links_nines_moving_sectors(folder):
    path = folder / "nine-nocapture-placement.h5"
    report = solve("nine-nocapture-placement", path, phase="moving", max_stones=3, **quiet)
    assert report.shared == 1 and not report.solved
    table = TableFile.open(path)
    assert table.shared_sectors() == {(3, 3, 0, 0): (folder / "nine.h5").resolve()}
    ours, theirs = table.read_sector((3, 3, 0, 0)), TableFile.open(folder / "nine.h5")
    assert np.array_equal(ours, theirs.read_sector((3, 3, 0, 0)))
    assert table.sectors()[(3, 3, 0, 0)] == theirs.sectors()[(3, 3, 0, 0)]
    assert verify_table(path, progress=False).ok
    pos = Position.parse("W:a1,d1,g4 B:a7,d7,b4 w", "nine-nocapture-placement")
    assert Tablebase.open(path).probe(pos) == Tablebase.open(folder / "nine.h5").probe(
        Position.parse(str(pos), "nine"))
    info = CliRunner().invoke(main, ["info", str(path)])
    assert info.exit_code == 0 and "shared:    1 sectors" in info.output


def test_no_share_solves_everything_itself(folder):
    path = folder / "nine-nocapture-placement.h5"
    report = solve("nine-nocapture-placement", path, phase="moving", max_stones=3,
                   share_with=[], **quiet)
    assert report.shared == 0 and len(report.solved) == 1
    assert TableFile.open(path).shared_sectors() == {}


def test_a_missing_or_foreign_linked_file_is_one_clear_error(folder, tmp_path_factory):
    path = folder / "nine-nocapture-placement.h5"
    solve("nine-nocapture-placement", path, phase="moving", max_stones=3, **quiet)
    saved = tmp_path_factory.mktemp("saved") / "nine.h5"
    shutil.move(folder / "nine.h5", saved)
    with pytest.raises(TableError, match="which is missing"):
        TableFile.open(path).read_sector((3, 3, 0, 0))
    result = CliRunner().invoke(main, ["probe", "nine-nocapture-placement",
                                       "W:a1,d1,g4 B:a7,d7,b4 w", "--db", str(path)])
    assert result.exit_code != 0 and "which is missing" in result.output
    assert "Traceback" not in result.output
    # another variant's file under the name: its rules give the sector other values
    solve("nine-noflying", folder / "nine.h5", phase="moving", max_stones=3, share_with=[],
          **quiet)
    with pytest.raises(TableError, match="other values"):
        TableFile.open(path).sectors()
