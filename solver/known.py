"""Published results (``data/known_results.toml``) and the check of a table against them."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import MorrisError
from .position import Position
from .probe import Tablebase
from .sectors import parse_sector_key
from .storage import TableFile

KNOWN_RESULTS = Path(__file__).resolve().parent.parent / "data" / "known_results.toml"


@dataclass
class Check:
    what: str
    expected: object
    found: object

    @property
    def ok(self) -> bool:
        return self.expected == self.found


def known_results(path: Path = KNOWN_RESULTS) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise MorrisError(f"no list of known results at {path}") from None


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
            checks.append(Check(f"sector {key} statistics", expected, found))
    return checks
