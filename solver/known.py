"""Published results and the check of a table against them.

The results live in ``known_results.toml`` next to this module, shipped as package data
and read with ``importlib.resources``, so ``morris reproduce`` works from any folder
after a plain ``pip install``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

from .errors import MorrisError
from .position import Position
from .probe import Tablebase
from .sectors import parse_sector_key, sector_name
from .storage import TableFile

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
