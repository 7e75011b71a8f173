"""Latency of the web board's probe API on loopback: ``morris serve`` in its own process,
1,000 probes of random reachable positions one after another from one client, then the
same with 20 other clients on the server at once.

    python benchmarks/bench_serve.py --db data/six.h5 --variant six

The 20 other clients each send a probe, wait ``--think`` seconds (default 0.1: a user
clicking ten times a second, far faster than people play), and repeat; ``--think 0``
saturates the server instead and reports its throughput. Each client is a process of its
own, so the load does not share the measuring client's interpreter. Prints the median,
99th percentile and maximum of the measuring client's latencies, idle and loaded, and
their ratio.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.rules import legal_moves, play, terminal  # noqa: E402

MORRIS = Path(sys.executable).with_name("morris")


def positions(variant: str, count: int, seed: int) -> list[str]:
    """Texts of positions of random games (placement and moving phase alike)."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        pos = Position.start(variant)
        for _ in range(rng.randrange(1, 60)):
            options = legal_moves(pos)
            if not options or terminal(pos):
                break
            pos = play(pos, rng.choice(options))
        if terminal(pos) is None:
            found.append(str(pos))
    return found


def probe_paths(variant: str, texts: list[str]) -> list[str]:
    return [f"/api/probe?{urlencode({'variant': variant, 'position': t})}" for t in texts]


def timed_requests(port: int, paths: list[str]) -> list[float]:
    """Seconds per GET of each path, over one kept-alive connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    seconds = []
    for path in paths:
        start = time.perf_counter()
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        seconds.append(time.perf_counter() - start)
        if response.status != 200:
            raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
    conn.close()
    return seconds


def load_client(port: int, paths: list[str], think: float, stop, counter) -> None:
    """One of the other clients: probe, wait ``think`` seconds, repeat until ``stop``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    i = 0
    while not stop.is_set():
        conn.request("GET", paths[i % len(paths)])
        conn.getresponse().read()
        with counter.get_lock():
            counter.value += 1
        i += 1
        if think:
            time.sleep(think)


def summary(seconds: list[float]) -> dict:
    ordered = sorted(seconds)
    return {"median_ms": 1e3 * statistics.median(ordered),
            "p99_ms": 1e3 * ordered[int(0.99 * (len(ordered) - 1))],
            "max_ms": 1e3 * ordered[-1]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="table file to serve")
    parser.add_argument("--variant", required=True)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=20, help="other clients at once")
    parser.add_argument("--think", type=float, default=0.1,
                        help="seconds each other client waits between probes (0: saturate)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    paths = probe_paths(args.variant, positions(args.variant, args.requests, args.seed))
    port = free_port()
    server = subprocess.Popen([str(MORRIS), "serve", "--db", str(args.db), "--port", str(port)],
                              stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                timed_requests(port, ["/api/variants"])
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        timed_requests(port, paths[:200])  # warm: kernels loaded, sectors cached
        idle = summary(timed_requests(port, paths))
        stop, counter = multiprocessing.Event(), multiprocessing.Value("q", 0)
        others = [multiprocessing.Process(target=load_client,
                                          args=(port, paths[i::args.clients] or paths,
                                                args.think, stop, counter))
                  for i in range(args.clients)]
        for p in others:
            p.start()
        time.sleep(1.0)  # every client connected and probing
        start, before = time.perf_counter(), counter.value
        loaded = summary(timed_requests(port, paths))
        rate = (counter.value - before) / (time.perf_counter() - start)
        stop.set()
        for p in others:
            p.join()
    finally:
        server.terminate()
        server.wait()
    print(json.dumps({
        "variant": args.variant, "requests": args.requests, "clients": args.clients,
        "think_seconds": args.think, "idle": idle, "loaded": loaded,
        "other_clients_probes_per_second": rate,
        "p99_loaded_over_idle": loaded["p99_ms"] / idle["p99_ms"],
        "median_loaded_over_idle": loaded["median_ms"] / idle["median_ms"],
    }, indent=2))


if __name__ == "__main__":
    main()
