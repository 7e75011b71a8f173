"""Load on the live rooms: N rooms of two WebSocket players each on one server process,
the time from a move sent to the opponent receiving it, and whether any move is lost.

    python benchmarks/bench_rooms.py                         # 500 rooms, 120 s
    python benchmarks/bench_rooms.py --db data/six.h5 --table-reads 20

It solves Three Men's Morris into a temporary folder (or serves the ``--db`` files) and
starts ``morris serve`` in a process of its own on a free loopback port, with a fresh
SQLite rooms file in a temporary folder and ``--rooms-per-minute`` raised so that one
client may create ``--rooms`` rooms; ``--url`` targets a server already running on this
machine (``--server-pid`` to read its memory and CPU).

It creates the rooms through ``POST /api/rooms`` and joins each (``POST
/api/rooms/ID/join``), then opens two WebSocket clients per room, all in this one asyncio
process. Every client, on its turn, waits a human think time (``--think``, default
uniform 1 to 3 s), then sends a random legal move; when a game is over both seats ask
for a rematch, so the rooms play for the whole ``--duration``. It measures, per move,
the time from the mover sending it to the opponent receiving the ``events`` message
holding it (one monotonic clock): p50, p99 and max; the moves sent, acknowledged and
received by the opponent; the moves lost (acknowledged but never received by the
opponent, or sent and never acknowledged nor refused); refusals; the server's memory
(VmRSS, VmHWM) and CPU time; this process's CPU time and its event loop's lag (how late
a 50 ms sleep wakes: the part of a latency that is the client's own).

``--table-reads R`` adds a second phase of ``--duration``: the same rooms play on while
another task sends R table reads a second (alternately ``/api/probe`` of a random
position and ``/api/review`` of a random game of the served table's variant) and the
report puts the two phases' latencies side by side. The client shares the machine's
cores with the server: its figures are upper bounds for the server's. The report
(Markdown, default ``benchmarks/rooms_report.md``) says the command, the machine, the
parameters and the figures; ``--json FILE`` writes the figures as JSON too, from which
``--report-only --json FILE --note TEXT`` writes the report again with notes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling bench_report

from bench_report import command_line, machine, met  # noqa: E402

from morris_solver.errors import MorrisError  # noqa: E402

REPORT = Path("benchmarks/rooms_report.md")
MORRIS = Path(sys.executable).with_name("morris")
TARGET_P99_MS = 50.0
LAG_TICK = 0.05  # seconds the loop-lag probe sleeps
WINDOW = 10.0  # seconds of a phase over which the report gives a p99 each
READS_IN_FLIGHT = 8  # table reads at once at most; beyond, a read is skipped (counted)
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


# -- the server process -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid: int | None) -> dict[str, int]:
    """VmRSS, VmHWM (bytes) and Threads of a process, from /proc/PID/status."""
    if pid is None:
        return {}
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    found = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) * 1024
        elif key == "Threads":
            found[key] = int(value)
    return found


def proc_cpu(pid: int | None) -> float | None:
    """User plus system CPU seconds of a process (all its threads), from /proc/PID/stat."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_waits(pid: int | None) -> tuple[float, float] | None:
    """Seconds a process's threads ran on a CPU and waited for one (on a run queue), from
    /proc/PID/task/*/schedstat: the wait is what other work on the cores cost it."""
    if pid is None:
        return None
    ran = waited = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            fields = (task / "schedstat").read_text().split()
        except OSError:
            continue  # a thread that ended meanwhile
        ran, waited = ran + int(fields[0]), waited + int(fields[1])
    return ran / 1e9, waited / 1e9


def machine_cpu() -> float | None:
    """CPU seconds the whole machine spent busy (every process, ours and others'), from
    /proc/stat."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle, iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # without guest time


def solve_three(folder: Path) -> Path:
    path = folder / "three.h5"
    done = subprocess.run([str(MORRIS), "solve", "three", "--out", str(path), "--quiet"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise MorrisError(f"morris solve three failed: {done.stderr.strip()[-300:]}")
    return path


def start_server(tables: list[Path], rooms: Path, port: int, log: Path) -> subprocess.Popen:
    """``morris serve`` as users run it, with room creation open to one client's rooms."""
    command = [str(MORRIS), "serve", *[a for t in tables for a in ("--db", str(t))],
               "--rooms", str(rooms), "--port", str(port), "--host", "127.0.0.1",
               "--rooms-per-minute", "1000000"]
    with log.open("w") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGINT)  # uvicorn's graceful stop: the lifespan closes
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(15)


async def wait_ready(http, server: subprocess.Popen | None, log: Path | None,
                     seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if (await http.get("/api/variants")).status_code == 200:
                return
        except OSError:
            pass
        except Exception as e:  # httpx2's connect errors
            if "connect" not in type(e).__name__.lower():
                raise
        if server is not None and server.poll() is not None:
            tail = log.read_text()[-600:] if log else ""
            raise MorrisError(f"the server stopped at start: {' '.join(tail.split())}")
        if time.monotonic() > deadline:
            raise MorrisError(f"the server did not answer within {seconds:.0f} s")
        await asyncio.sleep(0.1)


# -- the players ---------------------------------------------------------------------------


@dataclass
class Sent:
    """One move: when it was sent, acknowledged and received by the opponent."""

    phase: int
    sent: float
    acked: float | None = None
    received: float | None = None
    refused: bool = False


@dataclass
class Bench:
    args: argparse.Namespace
    rng: random.Random
    phase: int = 0
    go: asyncio.Event = field(default_factory=asyncio.Event)
    stopping: bool = False
    closing: bool = False
    moves: dict[str, Sent] = field(default_factory=dict)
    refusals: Counter = field(default_factory=Counter)
    counts: Counter = field(default_factory=Counter)
    lag: dict[int, list[float]] = field(default_factory=dict)
    reads: dict[int, dict[str, list[float]]] = field(default_factory=dict)
    read_counts: dict[int, Counter] = field(default_factory=dict)
    tasks: set = field(default_factory=set)

    def spawn(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


class Player:
    """One seat's WebSocket client."""

    def __init__(self, bench: Bench, url: str, room: str, index: int, seat: str,
                 token: str) -> None:
        self.bench, self.room, self.index, self.seat, self.token = bench, room, index, seat, token
        self.url = f"{url.replace('http', 'ws', 1)}/ws/rooms/{room}"
        self.ws = None
        self.state: dict | None = None
        self.ready = asyncio.Event()
        self.busy = False  # a think (then a move or a rematch) is under way
        self.acted_version = -1
        self.rematch_game = 0
        self.number = 0
        self.reader: asyncio.Task | None = None

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(self.url, open_timeout=30, close_timeout=5,
                                ping_interval=None, max_size=2**22)
        await self.ws.send(json.dumps({"type": "hello", "version": 0, "token": self.token}))
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in self.ws:
                self.handle(json.loads(raw), time.monotonic())
        except ConnectionClosed:
            pass
        if not self.bench.closing:
            self.bench.counts["connections closed early"] += 1

    def handle(self, message: dict, now: float) -> None:
        bench, kind = self.bench, message.get("type")
        if kind == "welcome":
            if message.get("seat") != self.seat:
                bench.counts["welcomes with the wrong seat"] += 1
        elif kind in ("events", "state"):
            if kind == "state" and self.ready.is_set():
                bench.counts["whole states (resyncs)"] += 1
            for event in message.get("events", ()):
                if event.get("kind") == "move" and event.get("seat") != self.seat:
                    sent = bench.moves.get(event.get("id"))
                    if sent is not None and sent.received is None:
                        sent.received = now
            self.state = message["state"]
            self.ready.set()
            self.maybe_act()
        elif kind == "ack":
            sent = bench.moves.get(message.get("id")) if message.get("id") else None
            if sent is not None:
                sent.acked = now
            else:
                bench.counts["rematches acknowledged"] += 1
        elif kind == "refused":
            bench.refusals[message.get("error", "?")] += 1
            sent = bench.moves.get(message.get("id")) if message.get("id") else None
            if sent is not None:
                sent.refused = True
        elif kind == "error":
            bench.counts["error messages"] += 1

    def color(self) -> str:
        seats = self.state["seats"]
        return "white" if seats["white"]["seat"] == self.seat else "black"

    def maybe_act(self) -> None:
        bench, state = self.bench, self.state
        if not bench.go.is_set() or bench.stopping or self.busy or state is None:
            return
        if state["status"] == "over":
            if state.get("rematch_offer") != self.seat and self.rematch_game != state["game"]:
                self.rematch_game = state["game"]
                self.busy = True
                bench.spawn(self.think_then(self.rematch, state["version"]))
            return
        if (state["status"] != "playing" or state["version"] == self.acted_version
                or state["to_move"] != self.color() or not state["legal"]):
            return
        self.busy = True
        bench.spawn(self.think_then(self.move, state["version"]))

    async def think_then(self, action, version: int) -> None:
        from websockets.exceptions import ConnectionClosed

        low, high = self.bench.args.think
        try:
            await asyncio.sleep(self.bench.rng.uniform(low, high))
            if not self.bench.stopping:
                await action(version)
        except ConnectionClosed:
            self.bench.counts["sends on a closed connection"] += 1
        finally:
            self.busy = False
        self.maybe_act()

    async def move(self, version: int) -> None:
        state = self.state
        if state["version"] != version:  # the room moved on meanwhile: look again
            return
        self.number += 1
        move_id = f"{self.index}{self.seat[0]}{self.number}"
        text = json.dumps({"type": "move", "move": self.bench.rng.choice(state["legal"])["move"],
                           "id": move_id})
        self.acted_version = version
        self.bench.moves[move_id] = Sent(self.bench.phase, time.monotonic())
        await self.ws.send(text)

    async def rematch(self, version: int) -> None:
        self.bench.counts["rematches sent"] += 1
        await self.ws.send(json.dumps({"type": "rematch"}))


# -- setting up ---------------------------------------------------------------------------


async def create_rooms(http, bench: Bench, count: int, variant: str,
                       deadline: float) -> tuple[list[tuple[str, str, str]], list[float]]:
    """``count`` rooms with both seats taken: (room, host token, guest token) each, and the
    seconds each creation plus join took."""
    gate = asyncio.Semaphore(8)
    made: list[tuple[str, str, str]] = []
    took: list[float] = []

    async def post(path: str, body: dict) -> dict:
        for _ in range(1000):
            answer = await http.post(path, json=body)
            if answer.status_code in (200, 201):
                return answer.json()
            if answer.status_code != 429 or time.monotonic() > deadline:
                raise MorrisError(f"POST {path}: {answer.status_code} "
                                  f"{' '.join(answer.text.split())[:200]}"
                                  + (" (the server limits room creation per address: give "
                                     "fewer --rooms, or a longer --setup-seconds)"
                                     if answer.status_code == 429 else ""))
            bench.counts["room creations refused 429 (retried)"] += 1
            await asyncio.sleep(1.0)
        raise MorrisError(f"POST {path}: refused too often")

    async def one() -> None:
        async with gate:
            start = time.monotonic()
            host = await post("/api/rooms", {"variant": variant, "color": "white",
                                             "draw_rules": True})
            guest = await post(f"/api/rooms/{host['room']}/join",
                               {"invite": host["invite_code"]})
            took.append(time.monotonic() - start)
            made.append((host["room"], host["token"], guest["token"]))

    await asyncio.gather(*(one() for _ in range(count)))
    return made, took


async def open_players(players: list[Player], deadline: float) -> None:
    gate = asyncio.Semaphore(32)

    async def one(player: Player) -> None:
        async with gate:
            await player.connect()

    await asyncio.gather(*(one(p) for p in players))
    waits = [asyncio.create_task(p.ready.wait()) for p in players]
    _, pending = await asyncio.wait(waits, timeout=max(1.0, deadline - time.monotonic()))
    for task in pending:
        task.cancel()
    if pending:
        raise MorrisError(f"{len(pending)} of {len(players)} clients got no state "
                          "after their hello")


def read_paths(variant: str, count: int, seed: int) -> list[tuple[str, str]]:
    """Table reads of random games of ``variant``: (kind, path), probes and reviews in
    turn."""
    from morris_solver.game import Game

    rng = random.Random(seed)
    paths = []
    for i in range(count):
        game = Game(variant)
        moves = []
        for _ in range(rng.randrange(1, 50)):
            legal = game.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            moves.append(move.text(game.position.board))
            game.play(move)
        if i % 2 == 0:
            if game.outcome() is not None:  # a finished game's last position: go back one
                game.undo()
            paths.append(("probe", "/api/probe?" + urlencode(
                {"variant": variant, "position": str(game.position)})))
        else:
            paths.append(("review", "/api/review?" + urlencode(
                {"variant": variant, "moves": " ".join(moves)})))
    return paths


# -- running ------------------------------------------------------------------------------


async def lag_probe(bench: Bench) -> None:
    """How late the client's event loop wakes from a short sleep, per phase."""
    while not bench.stopping:
        start = time.monotonic()
        await asyncio.sleep(LAG_TICK)
        bench.lag.setdefault(bench.phase, []).append(time.monotonic() - start - LAG_TICK)


async def table_reads(http, bench: Bench, paths: list[tuple[str, str]], rate: float,
                      deadline: float) -> None:
    """``rate`` reads a second until ``deadline``, at most READS_IN_FLIGHT at once."""
    phase = bench.phase
    latencies = bench.reads.setdefault(phase, {"probe": [], "review": []})
    counts = bench.read_counts.setdefault(phase, Counter())
    in_flight: set[asyncio.Task] = set()

    async def one(kind: str, path: str) -> None:
        start = time.monotonic()
        try:
            answer = await http.get(path)
        except Exception as e:  # a timeout or a dropped connection: counted, not fatal
            counts[f"failed ({type(e).__name__})"] += 1
            return
        if answer.status_code == 200:
            latencies[kind].append(time.monotonic() - start)
        else:
            counts[f"answered {answer.status_code}"] += 1

    due, i = time.monotonic(), 0
    while True:
        due += 1.0 / rate
        if due >= deadline:
            break
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        if len(in_flight) >= READS_IN_FLIGHT:
            counts["skipped (too many in flight)"] += 1
            continue
        kind, path = paths[i % len(paths)]
        i += 1
        task = asyncio.create_task(one(kind, path))
        in_flight.add(task)
        task.add_done_callback(in_flight.discard)
    if in_flight:
        await asyncio.wait(in_flight, timeout=60)


def snapshot(pid: int | None) -> dict:
    return {"server": proc_status(pid), "server_cpu": proc_cpu(pid),
            "server_sched": proc_waits(pid), "client_sched": proc_waits(os.getpid()),
            "machine_cpu": machine_cpu(), "client_cpu": time.process_time(),
            "at": time.monotonic()}


async def run(args: argparse.Namespace, url: str, pid: int | None, server, log: Path | None,
              read_variant: str | None) -> dict:
    import httpx2

    bench = Bench(args, random.Random(args.seed))
    result: dict = {"snapshots": {}}
    limits = httpx2.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx2.AsyncClient(base_url=url, timeout=30, limits=limits) as http:
        await wait_ready(http, server, log)
        result["snapshots"]["server started"] = snapshot(pid)
        setup_deadline = time.monotonic() + args.setup_seconds
        start = time.monotonic()
        made, took = await create_rooms(http, bench, args.rooms, args.variant, setup_deadline)
        result["create_seconds"] = time.monotonic() - start
        result["create_join_latency"] = took
        players = [Player(bench, url, room, i, seat, token)
                   for i, (room, host, guest) in enumerate(made)
                   for seat, token in (("host", host), ("guest", guest))]
        start = time.monotonic()
        await open_players(players, setup_deadline)
        result["connect_seconds"] = time.monotonic() - start
        if args.table_reads and read_variant is None:
            served = (await http.get("/api/variants")).json()["variants"]
            if not served:
                raise MorrisError("the server serves no table: --table-reads needs one")
            read_variant = served[0]["name"]
        result["read_variant"] = read_variant
        paths = read_paths(read_variant, 400, args.seed) if args.table_reads else []
        result["snapshots"]["rooms open"] = snapshot(pid)

        phases = ["rooms alone"] + (["with table reads"] if args.table_reads else [])
        lag = asyncio.create_task(lag_probe(bench))
        bench.go.set()
        for player in players:
            player.maybe_act()
        for number, name in enumerate(phases):
            bench.phase = number
            deadline = time.monotonic() + args.duration
            reads = (asyncio.create_task(table_reads(http, bench, paths, args.table_reads,
                                                     deadline))
                     if name == "with table reads" else None)
            await asyncio.sleep(max(0.0, deadline - time.monotonic()))
            result["snapshots"][f"end of {name}"] = snapshot(pid)
            if reads is not None:
                await reads
        bench.stopping = True
        # every move sent is answered and delivered (or not, within the drain time)
        drain = time.monotonic() + args.drain_seconds
        while time.monotonic() < drain and any(
                not s.refused and (s.acked is None or s.received is None)
                for s in bench.moves.values()):
            await asyncio.sleep(0.1)
        await lag
        for task in list(bench.tasks):
            task.cancel()
        bench.closing = True
        await asyncio.wait([asyncio.create_task(p.ws.close()) for p in players], timeout=30)
        await asyncio.wait([p.reader for p in players if p.reader], timeout=30)
        result["snapshots"]["end"] = snapshot(pid)
    result["phases"] = phases
    result["bench"] = bench
    return result


# -- figures and the report ---------------------------------------------------------------


def percentile(values: list[float], p: float) -> float | None:
    """The nearest-rank percentile (p in 0..100) of ``values``; None if there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def ms(seconds: list[float]) -> dict:
    return {"count": len(seconds),
            **{k: (None if v is None else round(1e3 * v, 2)) for k, v in (
                ("p50_ms", percentile(seconds, 50)), ("p99_ms", percentile(seconds, 99)),
                ("max_ms", max(seconds) if seconds else None))}}


def windows(moves: list[Sent], start: float, wall: float) -> list[float | None]:
    """The p99 of move to opponent (ms) in each WINDOW seconds of a phase, by send time:
    where in the phase the slow moves were (the first table reads load the kernels)."""
    count = max(1, math.ceil(wall / WINDOW - 0.01))
    split: list[list[float]] = [[] for _ in range(count)]
    for s in moves:
        if s.received is not None:
            split[min(count - 1, int((s.sent - start) / WINDOW))].append(s.received - s.sent)
    return [None if not part else round(1e3 * percentile(part, 99), 1) for part in split]


def figures(result: dict, args: argparse.Namespace) -> dict:
    bench: Bench = result["bench"]
    snaps = result["snapshots"]
    phases = []
    marks = ["rooms open", *[f"end of {name}" for name in result["phases"]]]
    for number, name in enumerate(result["phases"]):
        moves = [s for s in bench.moves.values() if s.phase == number]
        live = [s for s in moves if not s.refused]
        before, after = snaps[marks[number]], snaps[marks[number + 1]]
        wall = after["at"] - before["at"]
        server_cpu = (None if before["server_cpu"] is None or after["server_cpu"] is None
                      else after["server_cpu"] - before["server_cpu"])
        reads = bench.reads.get(number)

        def delta(key: str, part: int | None = None, before=before,
                  after=after) -> float | None:
            a, b = before.get(key), after.get(key)
            if a is None or b is None:
                return None
            return round(b - a if part is None else b[part] - a[part], 1)

        machine_busy = delta("machine_cpu")
        ours = (server_cpu or 0) + (after["client_cpu"] - before["client_cpu"])
        phases.append({
            "name": name,
            "seconds": round(wall, 1),
            "moves_sent": len(moves),
            "moves_acknowledged": sum(s.acked is not None for s in moves),
            "moves_received_by_opponent": sum(s.received is not None for s in moves),
            "moves_refused": sum(s.refused for s in moves),
            "lost_never_acknowledged": sum(s.acked is None for s in live),
            "lost_never_received": sum(s.acked is not None and s.received is None
                                       for s in live),
            "moves_per_second": round(len(moves) / wall, 1) if wall else None,
            "move_to_opponent": ms([s.received - s.sent for s in moves
                                    if s.received is not None]),
            "move_to_ack": ms([s.acked - s.sent for s in moves if s.acked is not None]),
            "p99_ms_by_window": windows(moves, before["at"], wall),
            "p99_ms_after_first_window": ms([s.received - s.sent for s in moves
                                             if s.received is not None
                                             and s.sent - before["at"] >= WINDOW])["p99_ms"],
            "slowest": [[round(s.sent - before["at"], 2), round(1e3 * (s.received - s.sent), 1)]
                        for s in sorted((s for s in moves if s.received is not None),
                                        key=lambda s: s.sent - s.received)[:10]],
            "client_loop_lag": ms(bench.lag.get(number, [])),
            "server_cpu_seconds": None if server_cpu is None else round(server_cpu, 1),
            "client_cpu_seconds": round(after["client_cpu"] - before["client_cpu"], 1),
            "server_waited_for_cpu_seconds": delta("server_sched", 1),
            "client_waited_for_cpu_seconds": delta("client_sched", 1),
            "machine_busy_cpu_seconds": machine_busy,
            "others_cpu_seconds": (None if machine_busy is None or server_cpu is None
                                   else round(max(0.0, machine_busy - ours), 1)),
            "table_reads": None if reads is None else {
                "rate_asked": args.table_reads,
                "probe": ms(reads["probe"]), "review": ms(reads["review"]),
                "other": dict(bench.read_counts.get(number, {}))},
        })
        phases[-1]["moves_lost"] = (phases[-1]["lost_never_acknowledged"]
                                    + phases[-1]["lost_never_received"])
    return {
        "phases": phases,
        "rooms": args.rooms,
        "create_seconds": round(result["create_seconds"], 2),
        "create_join": ms(result["create_join_latency"]),
        "connect_seconds": round(result["connect_seconds"], 2),
        "memory": {name: snap["server"] for name, snap in snaps.items()},
        "refusals": dict(bench.refusals),
        "counts": dict(bench.counts),
    }


def fmt(value, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}{unit}"
    return f"{value:,}{unit}"


def mib(n: int | None) -> str:
    return "-" if n is None else f"{n / 2**20:,.0f}"


def report_text(found: dict, args: argparse.Namespace, command: str, facts: dict) -> str:
    phases = found["phases"]
    head = "| | " + " | ".join(p["name"] for p in phases) + " |"
    rule = "|---|" + "---:|" * len(phases)

    def row(label: str, cell) -> str:
        return f"| {label} | " + " | ".join(cell(p) for p in phases) + " |"

    def lat(key: str, which: str):
        return lambda p: fmt(p[key][which])

    cpu = lambda key: lambda p: (  # noqa: E731
        "-" if p[key] is None else f"{p[key]:.1f} s ({100 * p[key] / p['seconds']:.0f} %)")
    wait = lambda key: lambda p: "-" if p[key] is None else f"{p[key]:.1f} s"  # noqa: E731
    cores = lambda key: lambda p: (  # noqa: E731
        "-" if p[key] is None else f"{p[key]:.1f} s ({p[key] / p['seconds']:.2f} cores)")
    table = [
        head, rule,
        row("seconds", lambda p: fmt(p["seconds"])),
        row("moves sent", lambda p: fmt(p["moves_sent"])),
        row("moves a second", lambda p: fmt(p["moves_per_second"])),
        row("acknowledged", lambda p: fmt(p["moves_acknowledged"])),
        row("received by the opponent", lambda p: fmt(p["moves_received_by_opponent"])),
        row("**lost**", lambda p: f"**{p['moves_lost']}**"),
        row("refused", lambda p: fmt(p["moves_refused"])),
        row("move to opponent p50 ms", lat("move_to_opponent", "p50_ms")),
        row("**move to opponent p99 ms**", lambda p: f"**{fmt(p['move_to_opponent']['p99_ms'])}**"),
        row("move to opponent max ms", lat("move_to_opponent", "max_ms")),
        row(f"p99 ms by {WINDOW:.0f} s of the phase", lambda p: ", ".join(
            fmt(x) for x in p["p99_ms_by_window"])),
        row(f"p99 ms after the first {WINDOW:.0f} s", lambda p: fmt(
            p["p99_ms_after_first_window"])),
        row("the 10 slowest: s into the phase (ms)", lambda p: ", ".join(
            f"{at:g} ({took:g})" for at, took in sorted(p["slowest"]))),
        row("move to ack p50 ms", lat("move_to_ack", "p50_ms")),
        row("move to ack p99 ms", lat("move_to_ack", "p99_ms")),
        row("client loop lag p50 ms", lat("client_loop_lag", "p50_ms")),
        row("client loop lag p99 ms", lat("client_loop_lag", "p99_ms")),
        row("client loop lag max ms", lat("client_loop_lag", "max_ms")),
        row("server CPU (of one core)", cpu("server_cpu_seconds")),
        row("client CPU (of one core)", cpu("client_cpu_seconds")),
        row("server waited for a CPU", wait("server_waited_for_cpu_seconds")),
        row("client waited for a CPU", wait("client_waited_for_cpu_seconds")),
        row(f"machine busy (of {facts['nproc']} cores)", cores("machine_busy_cpu_seconds")),
        row("of which other processes", cores("others_cpu_seconds")),
    ]
    if any(p["table_reads"] for p in phases):
        def reads(kind: str, which: str):
            return lambda p: "-" if not p["table_reads"] else fmt(p["table_reads"][kind][which])
        table += [
            row("table reads done (probe + review)", lambda p: "-" if not p["table_reads"] else
                fmt(p["table_reads"]["probe"]["count"] + p["table_reads"]["review"]["count"])),
            row("probe p50 / p99 ms", lambda p: "-" if not p["table_reads"] else
                f"{fmt(p['table_reads']['probe']['p50_ms'])} / "
                f"{fmt(p['table_reads']['probe']['p99_ms'])}"),
            row("review p50 / p99 ms", lambda p: "-" if not p["table_reads"] else
                f"{fmt(p['table_reads']['review']['p50_ms'])} / "
                f"{fmt(p['table_reads']['review']['p99_ms'])}"),
            row("reads failed or skipped", lambda p: "-" if not p["table_reads"] else
                (", ".join(f"{k}: {v}" for k, v in p["table_reads"]["other"].items()) or "0")),
        ]
    verdicts = [f"- {p['name']}: p99 {fmt(p['move_to_opponent']['p99_ms'])} ms against "
                f"≤ {TARGET_P99_MS:.0f} ms: "
                f"{met((p['move_to_opponent']['p99_ms'] or 1e9) <= TARGET_P99_MS)}; "
                f"{p['moves_lost']} moves lost against 0: {met(p['moves_lost'] == 0)}."
                for p in phases]
    memory = ["| moment | VmRSS MiB | VmHWM MiB | threads |", "|---|---:|---:|---:|"]
    for name, status in found["memory"].items():
        memory.append(f"| {name} | {mib(status.get('VmRSS'))} | {mib(status.get('VmHWM'))} | "
                      f"{fmt(status.get('Threads'))} |")
    reads_text = (f"{args.table_reads:g} a second in the second phase (probes and reviews "
                  f"of random {facts['read_variant']} games in turn, at most "
                  f"{READS_IN_FLIGHT} at once)" if args.table_reads else "none")
    counts = {**found["counts"], **{f"refused: {k}": v for k, v in found["refusals"].items()}}
    lines = [
        "# Live rooms under load", "",
        f"Produced by `{command}` on {facts['date']}.", "",
        "## Machine", "",
        f"- {facts['machine']}; `nproc` = {facts['nproc']}; load average at the start "
        f"{facts['load_start']}, at the end {facts['load_end']}.",
        f"- {facts['versions']}.",
        f"- Server: {facts['server']}.",
        f"- Tables served: {facts['tables']}; rooms file: {facts['rooms_file']}.",
        "- **The client (this benchmark, one asyncio process holding every WebSocket) runs "
        "on the same cores as the server**: its CPU and its event loop's lag are in every "
        "latency below, so the figures are upper bounds for the server's.", "",
        "## Parameters", "",
        f"- {args.rooms} rooms of {args.variant} (draw rules on), two WebSocket players each "
        f"({2 * args.rooms} connections), each phase {args.duration:g} s.",
        f"- Think time uniform {args.think[0]:g} to {args.think[1]:g} s before each move and "
        "each rematch; a random legal move; both seats ask for a rematch once a game is over.",
        f"- Table reads: {reads_text}.",
        f"- Seed {args.seed}; moves still unanswered at the end waited for up to "
        f"{args.drain_seconds:g} s.", "",
        "## Set-up", "",
        f"- {found['rooms']} rooms created and joined in {found['create_seconds']} s (8 at once; "
        f"create + join p50 {fmt(found['create_join']['p50_ms'])} ms, p99 "
        f"{fmt(found['create_join']['p99_ms'])} ms); {2 * found['rooms']} WebSockets opened "
        f"and greeted in {found['connect_seconds']} s.", "",
        "## Moves", "",
        "Move to opponent: from the mover's client sending the move to the opponent's client "
        "receiving the `events` message holding it. Move to ack: to the mover receiving its "
        "`ack` (the server sends it after the events). Lost: sent and neither acknowledged "
        "nor refused, or acknowledged and never received by the opponent. A move belongs to "
        "the phase it was sent in. Client loop lag: how late the client's event loop woke "
        f"from a {1e3 * LAG_TICK:.0f} ms sleep (the client's own share of a latency). CPU "
        "is user plus system time over the phase (/proc/PID/stat); waited for a CPU: the "
        "time the process's runnable threads spent on a run queue (/proc/PID/task/*/"
        "schedstat), what the other work on the cores cost it; machine busy: every "
        "process's CPU time (/proc/stat), of which other processes: what neither the server "
        "nor the client used (other work on the shared machine).", "",
        *table, "",
        f"Target (the issue): p99 move to opponent ≤ {TARGET_P99_MS:.0f} ms and no move lost.",
        "", *verdicts, "",
        "## Server memory", "",
        "From /proc/PID/status of the server process; VmHWM is the peak RSS so far.", "",
        *memory, "",
        "## Other counts", "",
        *([f"- {k}: {v}" for k, v in sorted(counts.items())] or ["- none"]),
    ]
    if args.note:
        lines += ["", "## Notes", "", *[line for note in args.note for line in (note, "")]]
    return "\n".join(lines).rstrip() + "\n"


def summary_lines(found: dict) -> list[str]:
    out = []
    for p in found["phases"]:
        lat = p["move_to_opponent"]
        out.append(f"{p['name']}: {p['moves_sent']} moves ({p['moves_per_second']}/s), "
                   f"move to opponent p50 {fmt(lat['p50_ms'])} ms, p99 {fmt(lat['p99_ms'])} "
                   f"ms, max {fmt(lat['max_ms'])} ms; lost {p['moves_lost']}, refused "
                   f"{p['moves_refused']}")
    return out


# -- main ---------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=500, help="rooms (two players each)")
    parser.add_argument("--duration", type=float, default=120.0,
                        help="seconds of play (per phase)")
    parser.add_argument("--think", type=float, nargs=2, default=[1.0, 3.0],
                        metavar=("LOW", "HIGH"),
                        help="a player's think time before a move, uniform (seconds)")
    parser.add_argument("--variant", default="three", help="the rooms' variant")
    parser.add_argument("--db", type=Path, action="append", default=[],
                        help="a table file to serve (repeatable; default: Three Men's Morris "
                        "solved into a temporary folder)")
    parser.add_argument("--url", help="a server already running on this machine "
                        "(http://127.0.0.1:PORT) instead of starting one")
    parser.add_argument("--server-pid", type=int,
                        help="with --url: the server's process id, for its memory and CPU")
    parser.add_argument("--table-reads", type=float, default=0.0, metavar="PER_SECOND",
                        help="a second phase with this many table reads a second")
    parser.add_argument("--read-variant", help="the variant of the table reads (default: "
                        "the first table served)")
    parser.add_argument("--setup-seconds", type=float, default=300.0,
                        help="at most this long to create, join and connect the rooms")
    parser.add_argument("--drain-seconds", type=float, default=15.0,
                        help="at the end, wait this long at most for unanswered moves")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--report", type=Path, default=REPORT)
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    parser.add_argument("--note", action="append", default=[],
                        help="a paragraph for the report's Notes (repeatable)")
    parser.add_argument("--report-only", action="store_true",
                        help="run nothing: write the report again from the --json file of a "
                        "run (with the notes given now)")
    args = parser.parse_args(argv)
    if args.report_only:
        if args.json is None or not args.json.is_file():
            parser.error("--report-only needs the --json FILE a run wrote")
        return args
    if args.rooms < 1 or args.rooms > 5000:
        parser.error("--rooms must be 1 to 5000")
    if not 0 < args.duration <= 3600:
        parser.error("--duration must be more than 0 and at most 3600 seconds")
    if not 0 <= args.think[0] <= args.think[1] <= 60:
        parser.error("--think needs 0 <= LOW <= HIGH <= 60")
    if not 0 <= args.table_reads <= 1000:
        parser.error("--table-reads must be 0 to 1000 a second")
    if args.url:
        host = urlsplit(args.url).hostname
        if urlsplit(args.url).scheme != "http" or host not in LOOPBACK:
            parser.error(f"--url must be http:// on this machine ({', '.join(sorted(LOOPBACK))})")
        if args.db:
            parser.error("--url targets a running server: --db starts one")
    for path in args.db:
        if not path.is_file():
            parser.error(f"--db {path}: no such file")
    return args


def raise_open_files() -> None:
    """As many file descriptors as allowed (two WebSockets per room, and the server's)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


PARAMETERS = ("rooms", "duration", "think", "variant", "table_reads", "seed", "drain_seconds")


def write_report(found: dict, args: argparse.Namespace, command: str, facts: dict) -> None:
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(report_text(found, args, command, facts))
    for line in summary_lines(found):
        print(line)
    print(f"wrote {args.report}")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    if args.report_only:
        done = json.loads(args.json.read_text())
        ran = argparse.Namespace(**done["parameters"], note=args.note, report=args.report)
        write_report(done, ran, done["command"], done["facts"])
        return
    command = command_line("benchmarks/bench_rooms.py", argv)
    raise_open_files()
    folder = Path(tempfile.mkdtemp(prefix="bench_rooms_"))
    server = log = None
    facts = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
             "machine": machine(), "nproc": len(os.sched_getaffinity(0)),
             "load_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
             "versions": ", ".join(f"{name} {metadata.version(name)}" for name in
                                   ("uvicorn", "starlette", "websockets", "httpx2"))
             + f"; Python {platform.python_version()} for the client and the server"}
    try:
        if args.url:
            url, pid = args.url.rstrip("/"), args.server_pid
            facts["server"] = f"already running at {url}" + (
                f" (process {pid})" if pid else " (its memory and CPU not read: no --server-pid)")
            facts["tables"] = "as that server serves them"
            facts["rooms_file"] = "as that server keeps them"
            read_variant = args.read_variant  # None: the first the server serves
        else:
            from morris_solver.storage import TableFile

            tables = args.db or [solve_three(folder)]
            names = [TableFile.open(p).variant.name for p in tables]
            read_variant = args.read_variant or names[0]
            port = free_port()
            rooms, log = folder / "rooms.sqlite", folder / "server.log"
            server = start_server(tables, rooms, port, log)
            url, pid = f"http://127.0.0.1:{port}", server.pid
            facts["server"] = ("`morris serve --rooms-per-minute 1000000` (its other limits "
                               "as served: 10 messages a second per connection, burst 40)")
            facts["tables"] = ", ".join(
                f"{n} ({p if args.db else 'solved for the run'}, "
                f"{p.stat().st_size / 2**10:,.0f} KiB)" for n, p in zip(names, tables, strict=True))
            facts["rooms_file"] = "SQLite (WAL, synchronous=FULL) in a fresh temporary folder"
        result = asyncio.run(run(args, url, pid, server, log, read_variant))
        facts["read_variant"] = result["read_variant"]
        if server is not None:
            log_text = log.read_text()
            result["bench"].counts.update(
                {"server log lines with 'Traceback' or 'ERROR'": sum(
                    "Traceback" in line or "ERROR" in line for line in log_text.splitlines())}
                if ("Traceback" in log_text or "ERROR" in log_text) else {})
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None
    finally:
        if server is not None:
            stop_server(server)
        shutil.rmtree(folder, ignore_errors=True)
    facts["load_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    found = figures(result, args)
    if args.json:
        parameters = {name: getattr(args, name) for name in PARAMETERS}
        args.json.write_text(json.dumps({"command": command, "parameters": parameters,
                                         "facts": facts, **found}, indent=2) + "\n")
    write_report(found, args, command, facts)


if __name__ == "__main__":
    main()
