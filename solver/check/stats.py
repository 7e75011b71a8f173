"""Per-sector statistics of a table file, as committed in ``data/stats/VARIANT.json``
(the reference statistics: the project's own verified solves, not a publication) and
compared against another file's (``morris info --check-stats``).

The reference files ship in the package as ``morris_solver.published_stats``, a package that
pyproject.toml maps to ``data/stats/`` (so they are kept once, where the benchmarks
write them), and are read with ``importlib.resources`` from wherever it is installed.

The statistics of a sector are its canonical positions, wins, draws and losses for the
side to move, and its longest win and loss in plies (``storage.STAT_KEYS``). They fix
the tables' content up to the order of the slots, so two databases that agree on them
almost certainly agree everywhere; other solvers publish the same figures.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ..core.errors import MorrisError
from ..rules.sectors import parse_sector_key, sector_key, sector_name
from ..tables.storage import RULE_STAT_KEYS, SECTORS, STAT_KEYS, TableFile


def table_statistics(table: TableFile) -> dict:
    """What ``morris info --json`` prints: variant, rules, format version and, per
    sector key ``W_B_WF_BF``, the statistics; and if the file holds draw-rule values,
    under ``draw_rules`` by limit (``L100``) the class counts of each sector."""
    sectors = table.sectors()
    found = {
        "variant": table.variant.name,
        "rules": table.rules,
        "format_version": int(table.attrs["format_version"]),
        "sectors": {
            sector_key(s): {k: st[k] for k in STAT_KEYS} for s, st in sorted(sectors.items())
        },
    }
    rule_layers = [layer for layer in table.layers() if layer != SECTORS]
    if rule_layers:
        found["draw_rules"] = {
            layer.rsplit("/", 1)[1]: {
                sector_key(s): {k: st[k] for k in RULE_STAT_KEYS}
                for s, st in sorted(table.sectors(layer).items())
            }
            for layer in rule_layers
        }
    return found


def load_statistics(path: str | Path | Traversable) -> dict:
    """A statistics file as written by ``morris info --json``; MorrisError if it is not one."""
    path = Path(path) if isinstance(path, str) else path
    try:
        stats = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise MorrisError(f"cannot read statistics from {path} ({e})") from None
    if not isinstance(stats, dict) or not isinstance(stats.get("sectors"), dict):
        raise MorrisError(f"{path} holds no per-sector statistics ('sectors' object)")
    return stats


PUBLISHED = "morris_solver.published_stats"


def _published_folder() -> Traversable:
    """The reference statistics files: the installed package's (a wheel's
    ``solver/published_stats/``, an editable install's ``data/stats/``), or in a source
    checkout that is only on the path, ``data/stats/`` itself."""
    try:
        return resources.files(PUBLISHED)
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "data" / "stats"


def published_variants() -> list[str]:
    """The variants whose statistics the package ships."""
    return sorted(p.name.removesuffix(".json") for p in _published_folder().iterdir()
                  if p.name.endswith(".json"))


def published_statistics(variant: str) -> dict:
    """The reference statistics of ``variant`` (``data/stats/VARIANT.json``)."""
    if variant not in published_variants():
        raise MorrisError(f"no reference statistics of {variant!r} (there are: "
                          f"{', '.join(published_variants())})")
    return load_statistics(_published_folder() / f"{variant}.json")


def statistics_named(spec: str) -> tuple[dict, str]:
    """What ``morris info --check-stats SPEC`` compares with, and how to name it: the
    statistics file at the path ``spec`` if there is one, else the reference statistics
    of the variant ``spec``."""
    if os.path.exists(spec) or spec not in published_variants():
        if not os.path.exists(spec) and os.sep not in spec and not spec.endswith(".json"):
            raise MorrisError(f"{spec} is neither a statistics file nor a variant with "
                              f"reference statistics ({', '.join(published_variants())})")
        return load_statistics(spec), spec
    return published_statistics(spec), f"the reference statistics of {spec}"


def compare_statistics(expected: dict, actual: dict) -> list[str]:
    """Every difference between two statistics objects, one line each (empty: they
    agree). Sectors the expected file lists but ``actual`` lacks are differences too:
    a table file that is not complete does not match. Draw-rule values are compared for
    the limits ``actual`` holds (``uncompared_limits`` names the others)."""
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
    problems += _differences(want, have, STAT_KEYS, "")
    # the rule values are an optional addition (solve --draw-rules): compared where held
    for limit, rule_want in expected.get("draw_rules", {}).items():
        rule_have = actual.get("draw_rules", {}).get(limit)
        if rule_have is not None:
            problems += _differences(rule_want, rule_have, RULE_STAT_KEYS, f" (limit {limit[1:]})")
    return problems


def uncompared_limits(expected: dict, actual: dict) -> list[str]:
    """The draw-rule limits (``L100``) the statistics list and the table file lacks."""
    return [limit for limit in expected.get("draw_rules", {})
            if limit not in actual.get("draw_rules", {})]


def held_part(expected: dict, actual: dict) -> dict:
    """``expected`` restricted to the sectors ``actual`` holds: what a table file that is
    not complete yet (a solve in progress, a ``--max-stones`` solve) is checked on."""
    held = {key: st for key, st in expected["sectors"].items() if key in actual["sectors"]}
    return {**expected, "sectors": held}


def _differences(want: dict, have: dict, keys: tuple[str, ...], where: str) -> list[str]:
    """The statistics of the sectors ``want`` and ``have`` both list that differ."""
    return [
        f"{_name(key)}{where}: {stat} {have[key].get(stat)}, expected {want[key].get(stat)}"
        for key in want if key in have
        for stat in keys if want[key].get(stat) != have[key].get(stat)
    ]


def _name(key: str) -> str:
    """A statistics file's sector key as users write the sector (``W-B-WF-BF``)."""
    return sector_name(parse_sector_key(key))
