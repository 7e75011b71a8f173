"""Rooms in one SQLite file, for one server process (``morris serve --rooms FILE``).

Every statement runs on one thread of its own, so the event loop never waits for the
disk. The file is in WAL mode with ``synchronous=FULL``: an append returns (and the
move is acknowledged) only once the event is in the log on disk, so neither ``kill -9``
nor a power cut loses an acknowledged move. Fan-out and presence stay in this process.

A file that exists is first read with ``immutable=1`` (no lock, no ``-wal`` or ``-shm``
made beside it), and only a rooms file or a database without tables is then opened to
write: ``--rooms`` pointed at someone else's file leaves it byte for byte as it was.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from morris_solver.core.errors import MorrisError

from .referee import RoomRecord
from .roomstore import RoomStore, StoredRoom

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    host_hash TEXT NOT NULL,
    guest_hash TEXT,
    invite_hash TEXT NOT NULL,
    version INTEGER NOT NULL,
    touched INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    room TEXT NOT NULL,
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (room, version)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rooms_touched ON rooms (touched);
"""
_COLUMNS = {
    "rooms": ["id", "record", "host_hash", "guest_hash", "invite_hash", "version", "touched"],
    "events": ["room", "version", "body"],
}
_INDEXES = {"rooms_touched"}
_HEADER = b"SQLite format 3\x00"


def inspect_rooms_file(path: str) -> None:
    """Fail with one line, having written nothing, unless ``path`` is new, empty, a
    SQLite database without tables, or a rooms file of this schema (perhaps one whose
    writes are still in its ``-wal``: its tables are then missing or all there)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise MorrisError(f"{path} is not a rooms file ({e.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise MorrisError(f"{path} is not a rooms file (not a regular file)")
    folder = os.path.dirname(os.path.abspath(path))
    if not (os.access(path, os.R_OK | os.W_OK) and os.access(folder, os.W_OK | os.X_OK)):
        raise MorrisError(f"{path} is not writable, or its folder is not (the rooms file "
                          "and its -wal and -shm beside it must be)")
    if info.st_size == 0:
        return
    try:
        with open(path, "rb") as f:
            header = f.read(len(_HEADER))
    except OSError as e:
        raise MorrisError(f"{path} is not a rooms file ({e.strerror})") from None
    if header != _HEADER:
        raise MorrisError(f"{path} is not a rooms file (not a SQLite database)")
    uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro&immutable=1"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            objects = db.execute("SELECT type, name FROM sqlite_master").fetchall()
            columns = {table: [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
                       for kind, table in objects if kind == "table" and table in _COLUMNS}
        finally:
            db.close()
    except sqlite3.Error as e:
        raise MorrisError(f"{path} is not a rooms file ({e})") from None
    if version not in (0, SCHEMA_VERSION):
        raise MorrisError(f"{path} is a rooms file of schema {version}, "
                          f"not {SCHEMA_VERSION}: use another --rooms file")
    foreign = sorted(name for kind, name in objects
                     if not (kind == "table" and name in _COLUMNS
                             or kind == "index" and (name in _INDEXES
                                                     or name.startswith("sqlite_autoindex_"))))
    if foreign:
        raise MorrisError(f"{path} is not a rooms file (it holds {', '.join(foreign)})")
    for table, names in columns.items():
        if names != _COLUMNS[table]:
            raise MorrisError(f"{path} is not a rooms file (its table {table} has the "
                              f"columns {', '.join(names)})")


class SQLiteRoomStore(RoomStore):
    """Rooms in the SQLite file ``path`` (``":memory:"`` for a store that lives as long
    as the process). A file that is not a rooms file fails here, with one line."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = str(path)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rooms-sqlite")
        self._db: sqlite3.Connection | None = None
        self._connected: Counter[tuple[str, str]] = Counter()
        self._thread.submit(self._open).result()

    def _open(self) -> None:
        if self.path != ":memory:":
            inspect_rooms_file(self.path)
        try:
            db = sqlite3.connect(self.path, isolation_level=None)
            db.execute("PRAGMA busy_timeout = 5000")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise MorrisError(f"{self.path} is a rooms file of schema {version}, "
                                  f"not {SCHEMA_VERSION}: use another --rooms file")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("SELECT id, record, host_hash, guest_hash, invite_hash, version, touched "
                       "FROM rooms LIMIT 1").fetchall()
        except sqlite3.Error as e:
            raise MorrisError(f"{self.path} is not a rooms file ({e})") from None
        self._db = db

    async def _run(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self._thread, function, *args)

    def _connection(self) -> sqlite3.Connection:
        """The open file; a store used after ``close()`` fails here, by name."""
        if self._db is None:
            raise RuntimeError(f"the rooms store {self.path} is closed")
        return self._db

    def check(self) -> None:
        """Nothing left to check: the file was opened and its schema read on creation."""

    async def start(self) -> None:
        """Nothing runs in the background: fan-out stays in this process."""

    async def close(self) -> None:
        if self._db is not None:
            await self._run(self._db.close)
            self._db = None
        self._thread.shutdown(wait=True)

    # -- writes -----------------------------------------------------------------------

    async def create(self, record: RoomRecord, host_hash: str, invite_hash: str) -> None:
        await self._run(self._create, record, host_hash, invite_hash)

    def _create(self, record: RoomRecord, host_hash: str, invite_hash: str) -> None:
        self._connection().execute(
            "INSERT INTO rooms (id, record, host_hash, guest_hash, invite_hash, version, touched)"
            " VALUES (?, ?, ?, NULL, ?, 0, ?)",
            (record.id, json.dumps(record.as_json()), host_hash, invite_hash, record.created),
        )

    async def append(self, room_id: str, event: dict, guest_hash: str | None = None) -> bool:
        stored = await self._run(self._append, room_id, event, guest_hash)
        if stored:
            await self._deliver(room_id, {"type": "event", "event": event})
        return stored

    def _append(self, room_id: str, event: dict, guest_hash: str | None) -> bool:
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT version, guest_hash FROM rooms WHERE id = ?",
                             (room_id,)).fetchone()
            if row is None or row[0] != event["v"] - 1 or (guest_hash and row[1] is not None):
                db.execute("ROLLBACK")
                return False
            db.execute("INSERT INTO events (room, version, body) VALUES (?, ?, ?)",
                       (room_id, event["v"], json.dumps(event)))
            db.execute("UPDATE rooms SET version = ?, touched = ?,"
                       " guest_hash = COALESCE(?, guest_hash) WHERE id = ?",
                       (event["v"], event["at"], guest_hash, room_id))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return True

    async def remove_idle(self, before_ms: int) -> int:
        return await self._run(self._remove_idle, before_ms)

    def _remove_idle(self, before_ms: int) -> int:
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM events WHERE room IN "
                       "(SELECT id FROM rooms WHERE touched < ?)", (before_ms,))
            removed = db.execute("DELETE FROM rooms WHERE touched < ?", (before_ms,)).rowcount
            db.execute("COMMIT")
        except BaseException:  # a transaction left open would fail every later write
            db.execute("ROLLBACK")
            raise
        return removed

    # -- reads ------------------------------------------------------------------------

    async def load(self, room_id: str) -> StoredRoom | None:
        return await self._run(self._load, room_id)

    def _load(self, room_id: str) -> StoredRoom | None:
        db = self._connection()
        row = db.execute(
            "SELECT record, host_hash, guest_hash, invite_hash FROM rooms WHERE id = ?",
            (room_id,)).fetchone()
        if row is None:
            return None
        events = [json.loads(body) for (body,) in db.execute(
            "SELECT body FROM events WHERE room = ? ORDER BY version", (room_id,))]
        return StoredRoom(RoomRecord.from_json(json.loads(row[0])), events, row[1], row[2], row[3])

    # -- this process only ------------------------------------------------------------

    async def publish(self, room_id: str, message: dict) -> None:
        await self._deliver(room_id, message)

    async def set_presence(self, room_id: str, seat: str, present: bool) -> dict[str, bool]:
        key = (room_id, seat)
        self._connected[key] += 1 if present else -1
        if self._connected[key] <= 0:
            del self._connected[key]
        return await self.presence(room_id)

    async def presence(self, room_id: str) -> dict[str, bool]:
        return {seat: self._connected[room_id, seat] > 0 for seat in ("host", "guest")}
