"""A solve stopped in the middle of a moving-phase group continues from the group's last
snapshot (``morris_solver.solving.checkpoint``) to the same tables, and a snapshot of
anything else is never used."""

from __future__ import annotations

import numpy as np
import pytest

from morris_solver.rules.sectors import dependencies, solve_plan
from morris_solver.rules.variants import get_variant
from morris_solver.solving import generate
from morris_solver.solving.checkpoint import GroupCheckpoint
from morris_solver.solving.generate import solve, solve_group
from morris_solver.tables.storage import TableFile


class Stop(Exception):
    """Stands for the kill of the process."""


def _stop(c):
    raise Stop


def _largest_moving_group(variant):
    return max(solve_plan(variant, "moving"), key=lambda g: sum(s[0] + s[1] for s in g))


def test_a_group_stopped_between_levels_continues_from_its_snapshot(six_whole_path, tmp_path,
                                                                    monkeypatch):
    variant = get_variant("six")
    table = TableFile.open(six_whole_path)
    group = _largest_moving_group(variant)
    exits = {s: table.read_sector(s) for s in dependencies(variant, group)}
    plain = solve_group(variant, group, exits)
    assert plain.levels > 8

    key = {"group": "test"}
    checkpoint = GroupCheckpoint(tmp_path / "six.h5", key, interval=0)

    def stop_at_level_8(c):
        if c == 8:
            raise Stop

    with pytest.raises(Stop):
        solve_group(variant, group, exits, level_callback=stop_at_level_8, checkpoint=checkpoint)
    assert checkpoint.load().c == 8  # saved before the level that was stopped

    def no_init(*args):
        raise AssertionError("the init pass ran again")

    monkeypatch.setattr(generate, "_init_passes", no_init)
    seen = []
    resumed = solve_group(variant, group, exits, level_callback=seen.append,
                          checkpoint=GroupCheckpoint(tmp_path / "six.h5", key, interval=0))
    assert seen[0] == 8
    assert resumed.levels == plain.levels
    for s in group:
        assert np.array_equal(resumed.codes[s], plain.codes[s])


def test_a_snapshot_of_another_group_or_a_damaged_one_is_not_used(tmp_path, six_whole_path):
    variant = get_variant("six")
    table = TableFile.open(six_whole_path)
    group = _largest_moving_group(variant)
    exits = {s: table.read_sector(s) for s in dependencies(variant, group)}
    saved = GroupCheckpoint(tmp_path / "six.h5", {"group": "a"}, interval=0)
    with pytest.raises(Stop):
        solve_group(variant, group, exits, level_callback=_stop, checkpoint=saved)
    assert saved.load() is not None
    assert GroupCheckpoint(tmp_path / "six.h5", {"group": "b"}, interval=0).load() is None
    (saved.path / "trig0.npy").write_bytes(b"not an array")
    assert saved.load() is None


def test_a_solve_stopped_mid_group_resumes_there_and_leaves_no_snapshot(six_whole_path,
                                                                         tmp_path, monkeypatch):
    variant = get_variant("six")
    group = _largest_moving_group(variant)
    path = tmp_path / "six.h5"
    real_level_pass = generate.level_pass
    calls = []

    def stopping_level_pass(R, T, SI, vals, trig, counts, events, marks, k, c, *rest):
        if tuple(SI[0, :4]) == group[0] and c == 10:
            calls.append(c)
            raise Stop
        return real_level_pass(R, T, SI, vals, trig, counts, events, marks, k, c, *rest)

    monkeypatch.setattr(generate, "level_pass", stopping_level_pass)
    with pytest.raises(Stop):
        solve(variant, path, phase="moving", show_progress=False, log=lambda s: None,
              checkpoint_interval=0)
    assert calls and path.with_name("six.h5.checkpoint").exists()
    monkeypatch.setattr(generate, "level_pass", real_level_pass)

    real_init = generate._init_passes
    initialized = []

    def recording_init(R, T, SI, vals, trig, counts, group, progress):
        initialized.append(group)
        real_init(R, T, SI, vals, trig, counts, group, progress)

    monkeypatch.setattr(generate, "_init_passes", recording_init)
    said = []
    solve(variant, path, phase="moving", show_progress=False, log=said.append,
          checkpoint_interval=0)
    assert group not in initialized, "the stopped group started again from its init pass"
    assert any("continuing from its snapshot at level 9 plies" in line for line in said), said
    assert not path.with_name("six.h5.checkpoint").exists()
    whole, resumed = TableFile.open(six_whole_path), TableFile.open(path)
    for s in group:
        assert np.array_equal(resumed.read_sector(s), whole.read_sector(s))


def test_a_snapshot_that_cannot_be_written_costs_the_snapshot_not_the_solve(
        six_whole_path, tmp_path, monkeypatch):
    variant = get_variant("six")
    group = _largest_moving_group(variant)
    path = tmp_path / "six.h5"

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "save", full_disk)
    said = []
    solve(variant, path, phase="moving", show_progress=False, log=said.append,
          checkpoint_interval=0)
    assert any("No space left on device" in line and "went on without one" in line
               for line in said), said
    assert not path.with_name("six.h5.checkpoint.new").exists()
    whole, solved = TableFile.open(six_whole_path), TableFile.open(path)
    for s in group:
        assert np.array_equal(solved.read_sector(s), whole.read_sector(s))
