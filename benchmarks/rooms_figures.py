"""The figures of a ``bench_rooms.py`` run (latencies, moves lost, CPU and memory per
phase) and the Markdown report written from them."""

from __future__ import annotations

import argparse
import math

from bench_report import met
from rooms_load import LAG_TICK, READS_IN_FLIGHT, Bench, Sent

TARGET_P99_MS = 50.0
WINDOW = 10.0  # seconds of a phase over which the report gives a p99 each


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


def windows(delivered: list[Sent], start: float, wall: float) -> list[float | None]:
    """The p99 of move to opponent (ms) in each WINDOW seconds of a phase, by send time:
    where in the phase the slow moves were (the first table reads load the kernels)."""
    count = max(1, math.ceil(wall / WINDOW - 0.01))
    split: list[list[float]] = [[] for _ in range(count)]
    for s in delivered:
        split[min(count - 1, int((s.sent - start) / WINDOW))].append(s.received - s.sent)
    return [None if not part else round(1e3 * percentile(part, 99), 1) for part in split]


def phase_figures(bench: Bench, number: int, name: str, before: dict, after: dict,
                  args: argparse.Namespace) -> dict:
    """One phase's figures, from its moves and the snapshots at its start and end."""
    moves = [s for s in bench.moves.values() if s.phase == number]
    live = [s for s in moves if not s.refused]
    delivered = [s for s in moves if s.received is not None]
    wall = after["at"] - before["at"]
    server_cpu = (None if before["server_cpu"] is None or after["server_cpu"] is None
                  else after["server_cpu"] - before["server_cpu"])
    reads = bench.reads.get(number)

    def delta(key: str, part: int | None = None) -> float | None:
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            return None
        return round(b - a if part is None else b[part] - a[part], 1)

    machine_busy = delta("machine_cpu")
    ours = (server_cpu or 0) + (after["client_cpu"] - before["client_cpu"])
    found = {
        "name": name,
        "seconds": round(wall, 1),
        "moves_sent": len(moves),
        "moves_acknowledged": sum(s.acked is not None for s in moves),
        "moves_received_by_opponent": len(delivered),
        "moves_refused": sum(s.refused for s in moves),
        "lost_never_acknowledged": sum(s.acked is None for s in live),
        "lost_never_received": sum(s.acked is not None and s.received is None for s in live),
        "moves_per_second": round(len(moves) / wall, 1) if wall else None,
        "move_to_opponent": ms([s.received - s.sent for s in delivered]),
        "move_to_ack": ms([s.acked - s.sent for s in moves if s.acked is not None]),
        "p99_ms_by_window": windows(delivered, before["at"], wall),
        "p99_ms_after_first_window": ms([s.received - s.sent for s in delivered
                                         if s.sent - before["at"] >= WINDOW])["p99_ms"],
        "slowest": [[round(s.sent - before["at"], 2), round(1e3 * (s.received - s.sent), 1)]
                    for s in sorted(delivered, key=lambda s: s.sent - s.received)[:10]],
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
    }
    found["moves_lost"] = found["lost_never_acknowledged"] + found["lost_never_received"]
    return found


def figures(result: dict, args: argparse.Namespace) -> dict:
    """Every figure of a run, as the JSON file and the report hold them."""
    bench: Bench = result["bench"]
    snaps = result["snapshots"]
    marks = ["rooms open", *[f"end of {name}" for name in result["phases"]]]
    return {
        "phases": [phase_figures(bench, number, name, snaps[marks[number]],
                                 snaps[marks[number + 1]], args)
                   for number, name in enumerate(result["phases"])],
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


def moves_table(phases: list[dict], nproc: int) -> list[str]:
    """The report's table of the moves: a row a figure, a column a phase."""

    def row(label: str, cell) -> str:
        return f"| {label} | " + " | ".join(cell(p) for p in phases) + " |"

    def plain(key: str):
        return lambda p: fmt(p[key])

    def lat(key: str, which: str):
        return lambda p: fmt(p[key][which])

    def timed(key: str, share=None):
        """Seconds of ``key`` in a phase, and their share of it where ``share`` writes one."""
        return lambda p: "-" if p[key] is None else (
            f"{p[key]:.1f} s" + (share(p[key], p["seconds"]) if share else ""))

    def percent(value: float, wall: float) -> str:
        return f" ({100 * value / wall:.0f} %)"

    def in_cores(value: float, wall: float) -> str:
        return f" ({value / wall:.2f} cores)"

    table = [
        "| | " + " | ".join(p["name"] for p in phases) + " |",
        "|---|" + "---:|" * len(phases),
        row("seconds", plain("seconds")),
        row("moves sent", plain("moves_sent")),
        row("moves a second", plain("moves_per_second")),
        row("acknowledged", plain("moves_acknowledged")),
        row("received by the opponent", plain("moves_received_by_opponent")),
        row("**lost**", lambda p: f"**{p['moves_lost']}**"),
        row("refused", plain("moves_refused")),
        row("move to opponent p50 ms", lat("move_to_opponent", "p50_ms")),
        row("**move to opponent p99 ms**", lambda p: f"**{fmt(p['move_to_opponent']['p99_ms'])}**"),
        row("move to opponent max ms", lat("move_to_opponent", "max_ms")),
        row(f"p99 ms by {WINDOW:.0f} s of the phase", lambda p: ", ".join(
            fmt(x) for x in p["p99_ms_by_window"])),
        row(f"p99 ms after the first {WINDOW:.0f} s", plain("p99_ms_after_first_window")),
        row("the 10 slowest: s into the phase (ms)", lambda p: ", ".join(
            f"{at:g} ({took:g})" for at, took in sorted(p["slowest"]))),
        row("move to ack p50 ms", lat("move_to_ack", "p50_ms")),
        row("move to ack p99 ms", lat("move_to_ack", "p99_ms")),
        row("client loop lag p50 ms", lat("client_loop_lag", "p50_ms")),
        row("client loop lag p99 ms", lat("client_loop_lag", "p99_ms")),
        row("client loop lag max ms", lat("client_loop_lag", "max_ms")),
        row("server CPU (of one core)", timed("server_cpu_seconds", percent)),
        row("client CPU (of one core)", timed("client_cpu_seconds", percent)),
        row("server waited for a CPU", timed("server_waited_for_cpu_seconds")),
        row("client waited for a CPU", timed("client_waited_for_cpu_seconds")),
        row(f"machine busy (of {nproc} cores)", timed("machine_busy_cpu_seconds", in_cores)),
        row("of which other processes", timed("others_cpu_seconds", in_cores)),
    ]
    if not any(p["table_reads"] for p in phases):
        return table

    def reads(cell):
        """A table reads' cell: "-" in a phase without them."""
        return lambda p: "-" if not p["table_reads"] else cell(p["table_reads"])

    def p50_p99(kind: str):
        return reads(lambda r: f"{fmt(r[kind]['p50_ms'])} / {fmt(r[kind]['p99_ms'])}")

    return table + [
        row("table reads done (probe + review)", reads(
            lambda r: fmt(r["probe"]["count"] + r["review"]["count"]))),
        row("probe p50 / p99 ms", p50_p99("probe")),
        row("review p50 / p99 ms", p50_p99("review")),
        row("reads failed or skipped", reads(
            lambda r: ", ".join(f"{k}: {v}" for k, v in r["other"].items()) or "0")),
    ]


def report_text(found: dict, args: argparse.Namespace, command: str, facts: dict) -> str:
    """The Markdown report of a run's figures (``found``) and its machine (``facts``)."""
    phases = found["phases"]
    table = moves_table(phases, facts["nproc"])
    verdicts = [f"- {p['name']}: p99 {fmt(p['move_to_opponent']['p99_ms'])} ms against "
                f"≤ {TARGET_P99_MS:.0f} ms: "
                f"{met((p['move_to_opponent']['p99_ms'] or 1e9) <= TARGET_P99_MS)}; "
                f"{p['moves_lost']} moves lost against 0: {met(p['moves_lost'] == 0)}."
                for p in phases]
    memory = ["| moment | VmRSS MiB | VmHWM MiB | threads |", "|---|---:|---:|---:|",
              *(f"| {name} | {mib(status.get('VmRSS'))} | {mib(status.get('VmHWM'))} | "
                f"{fmt(status.get('Threads'))} |" for name, status in found["memory"].items())]
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

