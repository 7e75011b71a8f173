"""Live rooms against real ``morris serve`` processes: ``kill -9`` of the server in the
middle of a game and a restart lose no acknowledged move and both players continue;
two server processes share one room through Redis (Debian's ``redis-server``: skipped
with the reason where there is none, a failure under ``CI=true``)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx2")
connect = pytest.importorskip("websockets.sync.client").connect

SERVE = [sys.executable, "-c", "from morris_cli.main import main; main()", "serve"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.stderr.read().decode()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


def start_server(port: int, *options: str) -> subprocess.Popen:
    proc = subprocess.Popen([*SERVE, "--port", str(port), *options], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    wait_for_port(port, proc)
    return proc


class Player:
    """One seat's WebSocket client: the last version seen, and the moves acknowledged."""

    def __init__(self, port: int, room: str, token: str, version: int = 0) -> None:
        self.ws = contextlib.ExitStack().enter_context(
            connect(f"ws://127.0.0.1:{port}/ws/rooms/{room}", open_timeout=10))
        self.version, self.acked, self.state = version, [], None
        self.ws.send(json.dumps({"type": "hello", "version": version, "token": token}))
        self.welcome = self.next("welcome")
        self.missed = self.next("events", "state")

    def next(self, *kinds: str) -> dict:
        while True:
            message = json.loads(self.ws.recv(timeout=10))
            if message.get("state"):
                self.state, self.version = message["state"], message["state"]["version"]
            if message["type"] in kinds:
                return message

    def move(self, text: str, move_id: str) -> int:
        self.ws.send(json.dumps({"type": "move", "move": text, "id": move_id}))
        ack = self.next("ack")
        self.acked.append(text)
        return ack["version"]

    def close(self) -> None:
        self.ws.close()


def open_room(port: int, join_port: int | None = None) -> tuple[str, dict, dict]:
    base = f"http://127.0.0.1:{port}"
    host = httpx.post(f"{base}/api/rooms", json={"variant": "three", "color": "white"}).json()
    join_base = f"http://127.0.0.1:{join_port or port}"
    guest = httpx.post(f"{join_base}/api/rooms/{host['room']}/join",
                       json={"invite": host["invite_code"]}).json()
    return host["room"], host, guest


def test_kill_9_mid_game_loses_no_acknowledged_move(table_paths, tmp_path):
    port, rooms = free_port(), tmp_path / "rooms.sqlite"
    options = ("--db", str(table_paths["three"]), "--rooms", str(rooms))
    server = start_server(port, *options)
    try:
        room, host, guest = open_room(port)
        white, black = Player(port, room, host["token"]), Player(port, room, guest["token"])
        white.move("b2", "w1")
        black.move("a1", "b1")
        white.move("c3", "w2")  # acknowledged: then the server dies at once
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(10)
        white.close(), black.close()
        server = start_server(port, *options)
        white = Player(port, room, host["token"], version=white.version)
        black = Player(port, room, guest["token"], version=black.version)
        assert white.missed["type"] == "events" and white.missed["events"] == []
        assert [e["move"] for e in black.missed["events"]] == ["c3"]  # black had not read it
        assert white.state["moves"] == ["b2", "a1", "c3"] == black.state["moves"]
        black.move("a3", "b2")  # both continue where they were
        assert white.next("events")["events"][0]["move"] == "a3"
        white.close(), black.close()
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(10)


@pytest.fixture
def redis_url(tmp_path):
    binary = shutil.which("redis-server")
    if binary is None:
        reason = "no redis-server on PATH (Debian: apt-get install redis-server)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    pytest.importorskip("redis")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc, 20)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def test_two_server_processes_share_a_room_through_redis(table_paths, redis_url):
    ports = free_port(), free_port()
    servers = [start_server(port, "--db", str(table_paths["three"]), "--redis", redis_url)
               for port in ports]
    try:
        room, host, guest = open_room(ports[0], join_port=ports[1])
        white = Player(ports[0], room, host["token"])
        black = Player(ports[1], room, guest["token"])
        assert white.state["seats"]["black"]["taken"]
        deadline = time.monotonic() + 10  # the other process's seat shows as connected
        connected = white.state["seats"]["black"]["connected"]
        while not connected and time.monotonic() < deadline:
            connected = white.next("presence")["connected"]["black"]
        assert connected
        for mover, waiter, text, move_id in ((white, black, "b2", "1"), (black, white, "a1", "2"),
                                             (white, black, "c3", "3")):
            mover.move(text, move_id)
            assert waiter.next("events")["events"][-1]["move"] == text
        assert white.state["moves"] == black.state["moves"] == ["b2", "a1", "c3"]
        # a move refused on one process because of what was played on the other
        white.ws.send(json.dumps({"type": "move", "move": "a3", "id": "4"}))
        assert "not your turn" in white.next("refused")["error"]
        for port in ports:
            state = httpx.get(f"http://127.0.0.1:{port}/api/rooms/{room}").json()
            assert state["moves"] == ["b2", "a1", "c3"]
        white.close(), black.close()
    finally:
        for server in servers:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)


def test_serve_refuses_a_rooms_file_that_is_not_one(table_paths, tmp_path):
    bad = tmp_path / "rooms.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    run = subprocess.run([*SERVE, "--db", str(table_paths["three"]), "--rooms", str(bad)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not a rooms file" in lines[0], run.stderr


def test_serve_says_when_redis_cannot_be_reached(table_paths):
    port = free_port()
    run = subprocess.run([*SERVE, "--db", str(table_paths["three"]), "--port", str(free_port()),
                          "--redis", f"redis://127.0.0.1:{port}/0"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot reach Redis" in lines[0], run.stderr
