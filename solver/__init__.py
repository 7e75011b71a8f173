"""Strong solutions of the Mill family: rules, retrograde tablebases, perfect play.

The public API: ``Variant``/``get_variant``, ``Position``, ``Move``, ``Game``,
``Result``/``Value``, ``solve`` (generate tables) and ``Tablebase`` (query them).
"""

import os
from pathlib import Path

from .kernelcache import drop_stale_kernels

# before any kernel module is imported: their cached machine code must match every
# source they inline, not only their own file (see kernelcache)
drop_stale_kernels(Path(__file__).resolve().parent)

# Numba's default OpenMP layer costs ~20 ms per parallel call here (DESIGN §9); the
# solver makes hundreds of short parallel calls per twin, so use the workqueue layer
# unless the user chose one. The environment is read when numba is imported, the config
# attribute when the first parallel kernel runs: set both.
if "NUMBA_THREADING_LAYER" not in os.environ:
    os.environ["NUMBA_THREADING_LAYER"] = "workqueue"
    import numba

    numba.config.THREADING_LAYER = "workqueue"

from .game import Game  # noqa: E402
from .generate import solve  # noqa: E402
from .position import Position  # noqa: E402
from .probe import MissingSectorError, MoveValue, Tablebase  # noqa: E402
from .rules import Move  # noqa: E402
from .values import Result, Value  # noqa: E402
from .variants import VARIANTS, Variant, get_variant  # noqa: E402

__all__ = [
    "VARIANTS", "Game", "MissingSectorError", "Move", "MoveValue", "Position", "Result",
    "Tablebase", "Value", "Variant", "get_variant", "solve",
]
