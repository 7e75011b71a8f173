"""The resumable state of a long benchmark (a JSON file beside its report, written
atomically and merged under a lock, so that steps may run in several processes and an
interrupted run loses nothing it had finished), and the step both pipelines resume the
same way: verification, sector by sector."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from morris_solver.check.verify import verification_order, verify_table
from morris_solver.rules.sectors import Sector, sector_key, sector_name
from morris_solver.tables.storage import TableFile


def state_path(out: Path, name: str | None = None) -> Path:
    """``out/NAME_state.json`` beside the report prefix ``out`` (NAME: ``out``'s name)."""
    return out.parent / "out" / f"{name or out.name}_state.json"


def load_state(path: Path, config: dict) -> dict:
    """The state of earlier runs, or a fresh one; refuses a state of another run."""
    if not path.exists():
        return {"config": config}
    state = json.loads(path.read_text())
    if state.get("config") != config:
        raise SystemExit(
            f"{path} records a run of {state.get('config')}, not {config}: "
            "pass another --out or delete it"
        )
    return state


@contextmanager
def state_lock(path: Path) -> Iterator[None]:
    """An exclusive lock beside the state file, for its read-modify-write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def save_state(path: Path, state: dict) -> None:
    """Write atomically, so an interrupted run leaves the previous state intact."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True))
    os.replace(tmp, path)


def save_merged(path: Path, state: dict, step: str | None = None) -> None:
    """Write ``state``, merged with what other processes wrote meanwhile: ``step``'s own
    entry is taken from ``state``, every other entry keeps what is on disk
    (dictionaries merged key by key)."""
    with state_lock(path):
        on_disk = json.loads(path.read_text()) if path.exists() else {}
        for key, theirs in on_disk.items():
            ours = state.get(key)
            if isinstance(ours, dict) and isinstance(theirs, dict):
                # in place: steps hold on to their entry while they add to it
                for k, v in theirs.items():
                    if key != step or k not in ours:
                        ours[k] = v
            elif key != step or ours is None:
                state[key] = theirs
        save_state(path, state)


def check_table_identity(state: dict, table: Path) -> None:
    """Tie the state to the table file by its creation stamp: results about a file that
    has since been replaced must not be reused."""
    created = str(TableFile.open(table).attrs["created"])
    if state.setdefault("table_created", created) != created:
        raise SystemExit(
            f"the state file was made for an earlier {table} (created "
            f"{state['table_created']}, this one {created}): delete it to measure afresh"
        )


def toolkit_commit() -> str:
    """The toolkit's git commit (``+`` if the tree has changes), or ``unknown``."""
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty=+"], capture_output=True,
                             text=True, cwd=Path(__file__).resolve().parent, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "unknown"


def verify_sectors(table: Path, sectors: list[Sector], done: dict, save: Callable[[], None],
                   threads: int | None, draw_rules: int | None = None) -> None:
    """Verify ``sectors`` one at a time in the verifier's order (with ``draw_rules`` L,
    their values under that move limit), recording each verdict in ``done`` (by sector
    key) and saving at once; those verified OK before are skipped, and the first that
    fails stops the run with its mismatches."""
    todo = [s for s in sorted(sectors, key=verification_order)
            if not done.get(sector_key(s), {}).get("ok")]
    if len(todo) < len(sectors):
        print(f"verify: {len(sectors) - len(todo)} sectors already verified OK, skipped")
    for s in todo:
        r = verify_table(table, sector=s, progress=True, threads=threads,
                         draw_rules=draw_rules).sectors[0]
        done[sector_key(s)] = {"ok": r.ok, "positions": r.positions, "seconds": r.seconds,
                               "mismatch_count": r.mismatch_count}
        save()
        if not r.ok:
            details = [str(m) for m in r.mismatches] + r.problems
            raise SystemExit("\n      ".join([
                f"verify: sector {sector_name(s)} FAILED: {r.mismatch_count:,} wrong of "
                f"{r.positions:,} positions", *details]))
        print(f"verify: OK {sector_name(s):<10} {r.positions:>14,} positions {r.seconds:9.2f} s",
              flush=True)
