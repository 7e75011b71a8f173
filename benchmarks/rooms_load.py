"""The load of ``bench_rooms.py``: the rooms created and joined, two WebSocket players a
room at a human pace, table reads beside them, every move's send, acknowledgement and
delivery timed on one monotonic clock, all in one asyncio process."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from rooms_server import snapshot, wait_ready

from morris_solver.core.errors import MorrisError

LAG_TICK = 0.05  # seconds the loop-lag probe sleeps
READS_IN_FLIGHT = 8  # table reads at once at most; beyond, a read is skipped (counted)


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
    """What every player and task of a run shares: the phase, the moves and the counts."""

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
            sent = self.own_move(message)
            if sent is not None:
                sent.acked = now
            else:
                bench.counts["rematches acknowledged"] += 1
        elif kind == "refused":
            bench.refusals[message.get("error", "?")] += 1
            sent = self.own_move(message)
            if sent is not None:
                sent.refused = True
        elif kind == "error":
            bench.counts["error messages"] += 1

    def own_move(self, message: dict) -> Sent | None:
        """The move an ``ack`` or ``refused`` answers (None: a rematch, which has no id)."""
        return self.bench.moves.get(message["id"]) if message.get("id") else None

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
    from morris_solver.rules.game import Game

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


async def run(args: argparse.Namespace, url: str, pid: int | None, server, log: Path | None,
              read_variant: str | None) -> dict:
    """The whole load on the server at ``url``: set-up, the phases, the drain; the raw
    timings and snapshots that ``rooms_figures.figures`` turns into figures."""
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

