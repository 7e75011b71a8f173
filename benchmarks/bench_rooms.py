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
import os
import platform
import resource
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # its siblings below

from bench_report import command_line, machine  # noqa: E402
from rooms_figures import figures, report_text, summary_lines  # noqa: E402
from rooms_load import run  # noqa: E402
from rooms_server import (  # noqa: E402
    free_port,
    load_average,
    log_errors,
    solve_three,
    start_server,
    stop_server,
)

from morris_solver.core.errors import MorrisError  # noqa: E402

REPORT = Path("benchmarks/rooms_report.md")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


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


def machine_facts() -> dict:
    """What the report says of the machine at the start of a run."""
    return {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(), "nproc": len(os.sched_getaffinity(0)),
            "load_start": load_average(),
            "versions": ", ".join(f"{name} {metadata.version(name)}" for name in
                                  ("uvicorn", "starlette", "websockets", "httpx2"))
            + f"; Python {platform.python_version()} for the client and the server"}


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
    facts = machine_facts()
    try:
        if args.url:
            url, pid = args.url.rstrip("/"), args.server_pid
            facts["server"] = f"already running at {url}" + (
                f" (process {pid})" if pid else " (its memory and CPU not read: no --server-pid)")
            facts["tables"] = "as that server serves them"
            facts["rooms_file"] = "as that server keeps them"
            read_variant = args.read_variant  # None: the first the server serves
        else:
            from morris_solver.tables.storage import TableFile

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
        if server is not None and (errors := log_errors(log)):
            result["bench"].counts["server log lines with 'Traceback' or 'ERROR'"] = errors
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None
    finally:
        if server is not None:
            stop_server(server)
        shutil.rmtree(folder, ignore_errors=True)
    facts["load_end"] = load_average()
    found = figures(result, args)
    if args.json:
        parameters = {name: getattr(args, name) for name in PARAMETERS}
        args.json.write_text(json.dumps({"command": command, "parameters": parameters,
                                         "facts": facts, **found}, indent=2) + "\n")
    write_report(found, args, command, facts)


if __name__ == "__main__":
    main()
