"""Numba's threading layer for this package's kernels, chosen by the program, never by
``import morris_solver`` (a library import changes nothing of the process).

The solver makes hundreds of short parallel calls per twin, and on a small machine shared
with other jobs Numba's default (OpenMP) layer costs about 20 times more per call than
``workqueue`` (docs/architecture.md, "Compiled kernels"). The ``morris`` command calls
``use_workqueue`` at start; a program that solves through the Python API (the tests, the
benchmarks) calls it too, before its first parallel kernel runs.
"""

from __future__ import annotations

import os
import sys


def use_workqueue() -> None:
    """Select Numba's ``workqueue`` threading layer for this process, unless the user set
    ``NUMBA_THREADING_LAYER``. Takes effect if no parallel kernel has run yet."""
    if "NUMBA_THREADING_LAYER" in os.environ:
        return
    os.environ["NUMBA_THREADING_LAYER"] = "workqueue"
    if "numba" in sys.modules:  # read when the first parallel kernel runs
        sys.modules["numba"].config.THREADING_LAYER = "workqueue"
