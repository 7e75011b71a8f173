"""Strong solutions of the Mill family: rules, retrograde tablebases, perfect play.

The public API: ``Variant``/``get_variant``, ``Position``, ``Move``, ``Game``,
``Result``/``Value``, ``solve`` (generate tables) and ``Tablebase`` (query them). Each
name is imported from its module on first use, so that reading rules and positions does
not load Numba and the kernels.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same names as static tools see them, with their types
    from .game import Game as Game
    from .generate import solve as solve
    from .position import Position as Position
    from .probe import Tablebase as Tablebase
    from .probe_results import MoveValue as MoveValue
    from .rules import Move as Move
    from .storage import MissingSectorError as MissingSectorError
    from .values import Result as Result
    from .values import Value as Value
    from .variants import VARIANTS as VARIANTS
    from .variants import Variant as Variant
    from .variants import get_variant as get_variant

# Importing the package sets nothing in the process: its kernels cache in the cache
# folder by their own Numba locator (``kernelcache``), and the ``morris`` command picks
# Numba's threading layer (``morris_cli.main``).

_EXPORTS = {
    "Game": "game",
    "solve": "generate",
    "Position": "position",
    "MissingSectorError": "storage",
    "MoveValue": "probe_results",
    "Tablebase": "probe",
    "Move": "rules",
    "Result": "values",
    "Value": "values",
    "VARIANTS": "variants",
    "Variant": "variants",
    "get_variant": "variants",
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
