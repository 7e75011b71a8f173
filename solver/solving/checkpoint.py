"""Snapshots of a group in the middle of its solve, so that an interrupted solve of a
large group resumes at its last level instead of from its start.

A file commits whole groups (``generate.commit``), and the largest groups of Nine Men's
Morris take up to 40 minutes on two cores: a solve stopped near a group's end lost all
of it. Between two levels a group's state is its arrays (codes, triggers, counts,
visit events, level marks) and a few numbers, so ``solve_group`` saves them here every
``interval`` seconds (``generate.CHECKPOINT_INTERVAL``) and, when it starts a group
that has a snapshot, continues from it. The snapshot is a folder beside the table
file (``nine.h5`` -> ``nine.h5.checkpoint``), replaced whole by a rename, so that a
kill while saving leaves the previous one; it is removed once its group is committed.
Its key is the variant, the group and the draw-rule limit: a snapshot of anything else
is ignored (and then replaced).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1
ARRAYS = ("vals", "trig", "counts", "events", "marks")


@dataclass
class GroupState:
    """A group's solve between two levels: per group sector (``marks``: four per sector)
    its arrays, the next level ``c``, the slots the level before it wrote, the largest
    code of the init pass, the levels done, and the seconds spent so far."""

    vals: list[np.ndarray]
    trig: list[np.ndarray]
    counts: list[np.ndarray]
    events: list[np.ndarray]
    marks: list[np.ndarray]
    c: int
    before: int
    highest: int
    levels: int
    init_seconds: float
    level_seconds: float


class GroupCheckpoint:
    """The snapshot of one group's solve (``key``: what it must match to be used)."""

    def __init__(self, table_path: Path | str, key: dict, interval: float):
        # beside the file itself, where a table file is a link to another disk
        self.path = Path(f"{Path(table_path).resolve()}.checkpoint")
        self.key = {"format": FORMAT, **key}
        self.interval = interval
        self.error: str | None = None
        self._last = time.monotonic()

    def due(self) -> bool:
        """Whether ``interval`` seconds have passed since the last save (or the start)."""
        return time.monotonic() - self._last >= self.interval

    def _meta(self) -> tuple[Path, dict] | None:
        """Where this group's snapshot is and its description, if there is one."""
        # a kill between the two renames of ``save`` leaves the snapshot at ``.old``
        where = self.path if self.path.exists() else self.path.with_name(self.path.name + ".old")
        try:
            meta = json.loads((where / "meta.json").read_text())
        except (OSError, ValueError):
            return None
        return (where, meta) if isinstance(meta, dict) and meta.get("key") == self.key else None

    def saved_level(self) -> int | None:
        """The level this group's snapshot continues at, if there is one."""
        found = self._meta()
        return found[1].get("c") if found else None

    def load(self) -> GroupState | None:
        """The saved state of this group, or None if there is none (or one of another
        group, or one that cannot be read)."""
        found = self._meta()
        if found is None:
            return None
        where, meta = found
        try:
            # Any: spread below over GroupState's fields, arrays and numbers alike
            arrays: dict[str, Any] = {
                name: [np.load(where / f"{name}{i}.npy") for i in range(meta["counts"][name])]
                for name in ARRAYS
            }
            numbers = {k: meta[k] for k in ("c", "before", "highest", "levels",
                                             "init_seconds", "level_seconds")}
        except (OSError, ValueError, KeyError):
            return None
        return GroupState(**arrays, **numbers)

    def save(self, state: GroupState) -> None:
        """Replace the snapshot with ``state``: written beside it, then renamed over it.
        A snapshot that cannot be written (a full disk) is given up, not the solve:
        ``error`` says why, and no other save is tried."""
        fresh = self.path.with_name(self.path.name + ".new")
        try:
            shutil.rmtree(fresh, ignore_errors=True)
            fresh.mkdir(parents=True)
            counts = {}
            for name in ARRAYS:
                arrays = getattr(state, name)
                counts[name] = len(arrays)
                for i, a in enumerate(arrays):
                    np.save(fresh / f"{name}{i}.npy", a)
            meta = {
                "key": self.key, "counts": counts, "c": state.c, "before": state.before,
                "highest": state.highest, "levels": state.levels,
                "init_seconds": state.init_seconds, "level_seconds": state.level_seconds,
            }
            (fresh / "meta.json").write_text(json.dumps(meta))
        except OSError as e:
            shutil.rmtree(fresh, ignore_errors=True)
            self.error = f"cannot save a snapshot in {fresh.parent}: {e.strerror or e}"
            self.interval = float("inf")
            return
        old = self.path.with_name(self.path.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if self.path.exists():
            self.path.rename(old)
        fresh.rename(self.path)
        shutil.rmtree(old, ignore_errors=True)
        self._last = time.monotonic()

    def clear(self) -> None:
        """Remove the snapshot (its group is in the file now)."""
        for suffix in ("", ".new", ".old"):
            shutil.rmtree(self.path.with_name(self.path.name + suffix), ignore_errors=True)
