"""Published results and the check of a table against them.

The results live in ``known_results.toml`` next to this module, shipped as package data
and read with ``importlib.resources``, so ``morris reproduce`` works from any folder
after a plain ``pip install``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

from ..core.errors import MorrisError
from ..query.probe import Tablebase
from ..rules.position import Position
from ..rules.sectors import parse_sector_key, sector_name
from ..tables.storage import TableFile

KNOWN_RESULTS = "known_results.toml"


@dataclass
class Check:
    what: str
    expected: object
    found: object

    @property
    def ok(self) -> bool:
        return self.expected == self.found


def known_results() -> dict:
    """The published results the package ships, by variant name."""
    source = resources.files(__package__) / KNOWN_RESULTS
    try:
        return tomllib.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MorrisError(f"no list of known results at {source}") from None


def reproduce_phase(variant: str, known: dict | None = None) -> str:
    """How ``morris reproduce`` values the start of ``variant``: ``"all"`` (solve every
    phase, probe the start) or ``"moving"`` (the moving phase, then the search over the
    placement phase), as its entry in ``known_results.toml`` says (default ``"all"``)."""
    known = known_results() if known is None else known
    phase = known.get(variant, {}).get("reproduce", "all")
    if phase not in ("all", "moving"):
        raise MorrisError(f"{KNOWN_RESULTS}: {variant}'s reproduce is {phase!r}, not all or "
                          "moving")
    return str(phase)


def check_searched_start(variant: str, found: str, known: dict | None = None) -> Check | None:
    """The start's result ``found`` by the search (win, draw or loss for White) against
    the published one of ``variant``, or None if none is published."""
    known = known_results() if known is None else known
    entry = known.get(variant, {})
    if "start" not in entry:
        return None
    return Check("start position value (search)", entry["start"], found)


def check_against_known(tb: Tablebase, known: dict | None = None) -> list[Check]:
    """Compare a table with every published fact about its variant that it can answer:
    the start value (if the file holds the placement phase) and sector statistics."""
    known = known_results() if known is None else known
    entry = known.get(tb.variant.name)
    if entry is None:
        return []
    checks = []
    stored = TableFile.open(tb.path).sectors()
    start = Position.start(tb.variant)
    start_sector = (0, 0, start.mover_hand, start.other_hand)
    if "start" in entry and start_sector in stored:
        value = tb.probe(start)
        checks.append(Check("start position value", entry["start"], value.result.value))
    for key, expected in entry.get("sectors", {}).items():
        sector = parse_sector_key(key)
        if sector in stored:
            found = {k: stored[sector][k] for k in expected}
            checks.append(Check(f"sector {sector_name(sector)} statistics", expected, found))
    return checks
