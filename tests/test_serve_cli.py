"""``morris serve`` refusing what it cannot use, in one line and having changed nothing:
a ``--rooms`` file that is not a rooms file, a port in use, numbers out of range; it says
"serving" only once it accepts; a forged X-Forwarded-For does not pass the room limit."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_live_server import SERVE, free_port, start_server

from morris_cli.serve import serve
from morris_solver.core.errors import MorrisError

httpx = pytest.importorskip("httpx2")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() if p.is_file() else p.is_fifo() for p in folder.iterdir()}


def refused(table: Path, rooms: Path) -> str:
    """The one line ``morris serve --rooms rooms`` fails with."""
    run = subprocess.run([*SERVE, "--db", str(table), "--port", str(free_port()),
                          "--rooms", str(rooms)], capture_output=True, text=True, timeout=60)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == 1 and len(lines) == 1, run.stderr
    assert "serving" not in run.stdout
    return lines[0]


def make_db(path: Path, script: str) -> None:
    db = sqlite3.connect(path)
    db.executescript(script)
    db.close()


@pytest.mark.parametrize("kind", ["other database", "other rooms table", "not sqlite",
                                  "fifo", "schema 7"])
def test_a_file_that_is_not_a_rooms_file_is_left_as_it_was(table_paths, tmp_path, kind):
    folder = tmp_path / "here"
    folder.mkdir()
    rooms = folder / "rooms.sqlite"
    if kind == "other database":
        make_db(rooms, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ann');")
    elif kind == "other rooms table":
        make_db(rooms, "CREATE TABLE rooms (number INTEGER, size REAL);")
    elif kind == "not sqlite":
        rooms.write_bytes(b"not a database at all\n" * 300)
    elif kind == "fifo":
        os.mkfifo(rooms)
    else:
        make_db(rooms, "PRAGMA user_version = 7;")
    before = snapshot(folder)
    line = refused(table_paths["three"], rooms)
    assert "rooms file" in line and "Traceback" not in line
    assert snapshot(folder) == before


def test_dev_null_is_refused_and_nothing_made_beside_it(table_paths):
    before = sorted(os.listdir("/dev"))
    assert "not a regular file" in refused(table_paths["three"], Path("/dev/null"))
    assert sorted(os.listdir("/dev")) == before
    assert not any(Path(f"/dev/null{s}").exists() for s in ("-journal", "-wal", "-shm"))


def test_a_read_only_rooms_file_is_refused_and_left_as_it_was(table_paths, tmp_path,
                                                             monkeypatch):
    folder = tmp_path / "here"
    folder.mkdir()
    rooms = folder / "rooms.sqlite"
    from morris_cli.web import roomstore_sqlite

    asyncio.run(roomstore_sqlite.SQLiteRoomStore(rooms).close())  # a rooms file
    rooms.chmod(0o444)
    before = snapshot(folder)
    if os.geteuid() != 0:
        assert "not writable" in refused(table_paths["three"], rooms)
    else:  # root writes anyway: say the file is read-only as a read-only mount would
        monkeypatch.setattr(roomstore_sqlite.os, "access",
                            lambda path, mode: not (mode & os.W_OK))
        with pytest.raises(MorrisError, match="not writable"):
            roomstore_sqlite.SQLiteRoomStore(rooms)
    assert snapshot(folder) == before


def test_an_empty_file_is_served_and_kept_as_a_rooms_file(table_paths, tmp_path):
    """What is refused above is not everything: an empty file is made a rooms file, and
    after ``kill -9`` (its tables perhaps only in its -wal) it is served again."""
    rooms = tmp_path / "rooms.sqlite"
    rooms.touch()
    made = None
    for _ in range(2):
        port = free_port()
        server = start_server(port, "--db", str(table_paths["three"]), "--rooms", str(rooms))
        try:
            base = f"http://127.0.0.1:{port}/api/rooms"
            if made is None:
                made = httpx.post(base, json={"variant": "three"})
                assert made.status_code == 201, made.text
            assert httpx.get(f"{base}/{made.json()['room']}").status_code == 200
        finally:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def test_a_port_in_use_fails_in_one_line(table_paths, tmp_path):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        run = subprocess.run([*SERVE, "--db", str(table_paths["three"]), "--port", str(port),
                              "--rooms", str(tmp_path / "rooms.sqlite")],
                             capture_output=True, text=True, timeout=60)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == 1 and len(lines) == 1 and "cannot listen" in lines[0], run.stderr
    assert "serving" not in run.stdout


def test_a_fresh_clone_serves_every_variant_with_the_table_free_engine(tmp_path):
    # no data/ folder: the board still serves, and the computer plays Nine by search
    proc = subprocess.Popen([*SERVE, "--port", "0"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        note = proc.stdout.readline()
        assert note.startswith("no table files (data/VARIANT.h5): every variant is played")
        line = proc.stdout.readline()
        assert "serving no tables at" in line and "rooms in data/rooms.sqlite" in line
        port = re.search(r":(\d+)/", line)[1]
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/api/variants").json()["variants"] == []
        body = httpx.get(f"{base}/api/engine", params={"variant": "nine"}, timeout=60).json()
        assert body["engine"]["tables"] is False and body["engine"]["depth"] == 7
        assert len(body["move"]) == 2  # a placement, e.g. d6
        assert (tmp_path / "data/rooms.sqlite").exists()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def test_serving_is_said_once_the_port_accepts(table_paths, tmp_path):
    proc = subprocess.Popen([*SERVE, "--db", str(table_paths["three"]), "--port", "0",
                             "--rooms", str(tmp_path / "rooms.sqlite")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        line = proc.stdout.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line)[1])
        assert port != 0, line
        assert httpx.get(f"http://127.0.0.1:{port}/api/variants").status_code == 200
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


@pytest.mark.parametrize("trusted", [False, True])
def test_forwarded_addresses_only_from_a_trusted_proxy(table_paths, tmp_path, trusted):
    port = free_port()
    options = ["--forwarded-allow-ips", "127.0.0.1"] if trusted else []
    server = start_server(port, "--db", str(table_paths["three"]), "--rooms-per-minute", "0.5",
                          "--rooms", str(tmp_path / "rooms.sqlite"), *options)
    try:  # one room a client address at once
        codes = [httpx.post(f"http://127.0.0.1:{port}/api/rooms", json={"variant": "three"},
                            headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
                 for n in range(1, 4)]
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(10)
    assert codes == ([201, 201, 201] if trusted else [201, 429, 429])


@pytest.mark.parametrize("option", ["--room-days", "--rooms-per-minute", "--search-seconds"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "1e300", "10000000", "0"])
def test_numbers_out_of_range_are_usage_errors(option, value):
    result = CliRunner().invoke(serve, [option, value])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_search_budget_reaches_the_app(monkeypatch, tmp_path):
    """``--search-seconds`` is the budget the app's searches get (docs/web.md)."""
    import morris_cli.web.app as web_app

    seen = {}

    def fake_create_app(tables, **options):
        seen.update(options)
        raise MorrisError("stop here")

    monkeypatch.setattr(web_app, "create_app", fake_create_app)
    table = tmp_path / "three.h5"
    table.write_bytes(b"")
    monkeypatch.setattr("morris_cli.serve.served_tables", lambda db: {"three": table})
    result = CliRunner().invoke(serve, ["--search-seconds", "2.5"])
    assert isinstance(result.exception, MorrisError)
    assert seen["search_seconds"] == 2.5


@pytest.mark.parametrize("host", ["", " "])
def test_an_empty_host_is_refused_in_one_line(host):
    result = CliRunner().invoke(serve, ["--host", host])
    assert result.exit_code == 2, result.output
    assert "an empty address listens on every interface" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("host, warned", [("0.0.0.0", True), ("::", True),
                                          ("127.0.0.1", False)])
def test_every_interface_is_warned_of(monkeypatch, tmp_path, host, warned):
    import morris_cli.web.app as web_app

    def fake_create_app(tables, **options):
        raise MorrisError("stop here")

    monkeypatch.setattr(web_app, "create_app", fake_create_app)
    table = tmp_path / "three.h5"
    table.write_bytes(b"")
    monkeypatch.setattr("morris_cli.serve.served_tables", lambda db: {"three": table})
    result = CliRunner().invoke(serve, ["--host", host])
    assert isinstance(result.exception, MorrisError)
    assert ("listens on every interface" in result.output) == warned
