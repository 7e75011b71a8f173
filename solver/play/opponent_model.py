"""The opponent ``ultra`` plays for (``engine.Engine``'s ``model`` criterion), as users name
it: ``noisy:E``, a player who plays a random legal move a share E of the time and
otherwise a random best move. Kept apart from the engine so that reading the option
loads no Numba kernels (``morris probe --help`` stays fast)."""

from __future__ import annotations

import re

from ..core.errors import MorrisError, quoted

# the opponent ``ultra`` assumes unless told: one move in ten at random
DEFAULT_MODEL_ERROR = 0.1
_MODEL = re.compile(r"noisy:(0?\.[0-9]{1,6})")


def model_error_of(text: str) -> float:
    """The error rate E of the opponent written ``noisy:E`` (0 < E < 1); ``MorrisError``
    (one line) for anything else."""
    found = _MODEL.fullmatch(text) if len(text) <= 20 else None
    if found is None or float(found[1]) == 0:
        raise MorrisError(f"{quoted(text)} is not an opponent: write noisy:E, E the share of "
                          "moves they play at random, above 0 and below 1 (e.g. noisy:0.1)")
    return float(found[1])
