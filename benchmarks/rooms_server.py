"""The server under load in ``bench_rooms.py``: ``morris serve`` in a process of its own
on a free loopback port, and what /proc says of its memory, its CPU and the machine's
(the server's figures are read from outside, so that measuring costs it nothing)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from morris_solver.core.errors import MorrisError

ROOT = Path(__file__).resolve().parent.parent
MORRIS = Path(sys.executable).with_name("morris")


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


def snapshot(pid: int | None) -> dict:
    """The server's and the client's counters at one moment: a phase's figures are the
    differences between two snapshots."""
    return {"server": proc_status(pid), "server_cpu": proc_cpu(pid),
            "server_sched": proc_waits(pid), "client_sched": proc_waits(os.getpid()),
            "machine_cpu": machine_cpu(), "client_cpu": time.process_time(),
            "at": time.monotonic()}


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def log_errors(log: Path) -> int:
    """Lines of the server's log that hold a traceback or an error."""
    return sum("Traceback" in line or "ERROR" in line for line in log.read_text().splitlines())
