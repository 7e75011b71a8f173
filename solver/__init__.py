"""Strong solutions of the Mill family: rules, retrograde tablebases, perfect play.

The public API: ``Variant``/``get_variant``, ``Position``, ``Move``, ``Game``,
``Result``/``Value``, ``solve`` (generate tables) and ``Tablebase`` (query them). Each
name is imported from its module on first use, so that reading rules and positions does
not load Numba and the kernels.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

from .kernelcache import drop_stale_kernels

# before any kernel module is imported: their cached machine code must match every
# source they inline, not only their own file (see kernelcache)
drop_stale_kernels(Path(__file__).resolve().parent)

# Numba's default OpenMP layer costs ~20 ms per parallel call here (docs/architecture.md);
# the solver makes hundreds of short parallel calls per twin, so use the workqueue layer
# unless the user chose one. Numba reads the environment when it is imported and its
# config attribute when the first parallel kernel runs: set the attribute too if Numba
# was imported before this package.
if "NUMBA_THREADING_LAYER" not in os.environ:
    os.environ["NUMBA_THREADING_LAYER"] = "workqueue"
    if "numba" in sys.modules:
        sys.modules["numba"].config.THREADING_LAYER = "workqueue"

_EXPORTS = {
    "Game": "game",
    "solve": "generate",
    "Position": "position",
    "MissingSectorError": "probe",
    "MoveValue": "probe",
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
