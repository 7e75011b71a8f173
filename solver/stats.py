"""Per-sector statistics of a table file, as published in ``data/stats/VARIANT.json``
and compared against another file's (``morris info --check-stats``).

The statistics of a sector are its canonical positions, wins, draws and losses for the
side to move, and its longest win and loss in plies (``storage.STAT_KEYS``). They fix
the tables' content up to the order of the slots, so two databases that agree on them
almost certainly agree everywhere; other solvers publish the same figures.
"""

from __future__ import annotations

import json
from pathlib import Path

from .errors import MorrisError
from .sectors import parse_sector_key, sector_key, sector_name
from .storage import STAT_KEYS, TableFile


def table_statistics(table: TableFile) -> dict:
    """What ``morris info --json`` prints: variant, rules, format version and, per
    sector key ``W_B_WF_BF``, the statistics."""
    sectors = table.sectors()
    return {
        "variant": table.variant.name,
        "rules": table.rules,
        "format_version": int(table.attrs["format_version"]),
        "sectors": {
            sector_key(s): {k: st[k] for k in STAT_KEYS} for s, st in sorted(sectors.items())
        },
    }


def load_statistics(path: str | Path) -> dict:
    """A statistics file as written by ``morris info --json``; MorrisError if it is not one."""
    path = Path(path)
    try:
        stats = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise MorrisError(f"cannot read statistics from {path} ({e})") from None
    if not isinstance(stats, dict) or not isinstance(stats.get("sectors"), dict):
        raise MorrisError(f"{path} holds no per-sector statistics ('sectors' object)")
    return stats


def compare_statistics(expected: dict, actual: dict) -> list[str]:
    """Every difference between two statistics objects, one line each (empty: they
    agree). Sectors the expected file lists but ``actual`` lacks are differences too:
    a table file that is not complete does not match."""
    if expected.get("variant") != actual.get("variant"):
        return [f"the statistics are of {expected.get('variant')}, the tables of "
                f"{actual.get('variant')}"]
    problems = []
    if expected.get("rules") != actual.get("rules"):
        problems.append(
            f"rules differ: expected {json.dumps(expected.get('rules'), sort_keys=True)}, "
            f"found {json.dumps(actual.get('rules'), sort_keys=True)}"
        )
    want, have = expected["sectors"], actual["sectors"]
    missing = [_name(key) for key in want if key not in have]
    if missing:
        problems.append(f"{len(missing)} sectors missing, e.g. {', '.join(missing[:5])}")
    extra = [_name(key) for key in have if key not in want]
    if extra:
        problems.append(f"{len(extra)} sectors not in the statistics: {', '.join(extra[:5])}")
    for key in want:
        if key not in have:
            continue
        for stat in STAT_KEYS:
            if want[key].get(stat) != have[key].get(stat):
                problems.append(
                    f"{_name(key)}: {stat} {have[key].get(stat)}, expected {want[key].get(stat)}"
                )
    return problems


def _name(key: str) -> str:
    """A statistics file's sector key as users write the sector (``W-B-WF-BF``)."""
    return sector_name(parse_sector_key(key))
