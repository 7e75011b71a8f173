"""Strong solutions of the Mill family: rules, retrograde tablebases, perfect play.

The public API (docs/api.md): ``Variant``/``get_variant``, ``Position``, ``Move``,
``Game``, ``Result``/``Value``, ``solve`` (generate tables) and ``Tablebase`` (query
them: ``with Tablebase.open(path) as tb:``) with what it answers (``MoveValue``,
``Evaluation``, ``Searched``, ``RuleValue``, ``RuleMoveValue``), and every error a user
can meet: ``MorrisError`` and its subclasses. Each name is imported from its module on
first use, so that reading rules and positions does not load Numba and the kernels.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same names as static tools see them, with their types
    from .core.errors import IllegalMoveError as IllegalMoveError
    from .core.errors import MorrisError as MorrisError
    from .core.errors import PositionError as PositionError
    from .query.probe import Tablebase as Tablebase
    from .query.probe_results import Evaluation as Evaluation
    from .query.probe_results import MoveValue as MoveValue
    from .query.probe_results import RuleMoveValue as RuleMoveValue
    from .query.probe_results import RuleValue as RuleValue
    from .query.probe_results import Searched as Searched
    from .rules.game import Game as Game
    from .rules.position import Position as Position
    from .rules.rules import Move as Move
    from .rules.values import Result as Result
    from .rules.values import Value as Value
    from .rules.variants import VARIANTS as VARIANTS
    from .rules.variants import UnknownVariantError as UnknownVariantError
    from .rules.variants import Variant as Variant
    from .rules.variants import get_variant as get_variant
    from .search.search_limits import SearchCancelled as SearchCancelled
    from .search.search_limits import SearchStopped as SearchStopped
    from .search.search_limits import SearchTimeout as SearchTimeout
    from .solving.generate import solve as solve
    from .tables.storage import MissingSectorError as MissingSectorError
    from .tables.storage import TableError as TableError

# Importing the package sets nothing in the process: its kernels cache in the cache
# folder by their own Numba locator (``kernelcache``), and the ``morris`` command picks
# Numba's threading layer (``morris_cli.main``).

_EXPORTS = {
    "Game": "rules.game",
    "solve": "solving.generate",
    "Position": "rules.position",
    "Tablebase": "query.probe",
    "Evaluation": "query.probe_results",
    "MoveValue": "query.probe_results",
    "RuleMoveValue": "query.probe_results",
    "RuleValue": "query.probe_results",
    "Searched": "query.probe_results",
    "Move": "rules.rules",
    "Result": "rules.values",
    "Value": "rules.values",
    "VARIANTS": "rules.variants",
    "Variant": "rules.variants",
    "get_variant": "rules.variants",
    # the errors, each where it is defined: every one a ``MorrisError`` (a ValueError)
    "MorrisError": "core.errors",
    "PositionError": "core.errors",
    "IllegalMoveError": "core.errors",
    "UnknownVariantError": "rules.variants",
    "TableError": "tables.storage",
    "MissingSectorError": "tables.storage",
    "SearchStopped": "search.search_limits",
    "SearchTimeout": "search.search_limits",
    "SearchCancelled": "search.search_limits",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
