"""What the benchmark reports say alike: durations, verdicts against targets, the
machine, and the verification summary."""

from __future__ import annotations

import os
import platform
import shlex
from pathlib import Path

import numba

from morris_solver.rules.sectors import Sector, sector_key

GiB = 2**30


def hms(seconds: float) -> str:
    """A duration as the reports print it: ``H:MM:SS``."""
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def command_line(script: str, argv: list[str]) -> str:
    """The command that wrote a report, as its "Produced by" line shows it: the notes
    given with ``--note`` are left out (they stand in the report's Notes below)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--note":
            skip = True
        elif not arg.startswith("--note="):
            kept.append(arg)
    return shlex.join(["python", script, *kept])


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def verdict(ok: bool, complete: bool, what: str = "the run") -> str:
    """``met`` / ``not met`` for a finished run; a partial run's total says nothing yet."""
    if not complete and ok:
        return f"not assessed yet ({what} is not complete)"
    return met(ok)


def proc_field(path: str, name: str) -> str | None:
    """The value of ``name:`` in a /proc file, e.g. MemTotal in /proc/meminfo."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return None


def machine() -> str:
    cpu = proc_field("/proc/cpuinfo", "model name") or platform.processor() or "unknown CPU"
    mem = proc_field("/proc/meminfo", "MemTotal")  # "24576000 kB"
    ram = f"{int(mem.split()[0]) / 2**20:.1f} GiB RAM" if mem else "RAM unknown"
    return (f"{os.cpu_count()} cores ({cpu}), {ram}, Python {platform.python_version()}, "
            f"numba {numba.__version__}")


def verification_summary(verified: dict, sectors: list[Sector], what: str) -> str | None:
    """"N of M ``what``, P positions in H:MM:SS (rate): verdict" over the verdicts the
    verify step recorded (by sector key), or None if none is recorded."""
    done = [verified[sector_key(s)] for s in sectors if sector_key(s) in verified]
    if not done:
        return None
    failed = [sector_key(s) for s in sectors
              if not verified.get(sector_key(s), {"ok": True})["ok"]]
    seconds = sum(d["seconds"] for d in done)
    positions = sum(d["positions"] for d in done)
    outcome = (f"**FAILED: {', '.join(failed)}**" if failed else
               "**all OK**" if len(done) == len(sectors) else "not finished")
    rate = f"{positions / seconds:,.0f}" if seconds else "-"
    return (f"{len(done)} of {len(sectors)} {what}, {positions:,} positions in "
            f"**{hms(seconds)}** ({rate} positions/s): {outcome}")
