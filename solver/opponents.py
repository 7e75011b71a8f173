"""Fallible players to measure the engine against (benchmarks/bench_strength.py), each
reproducible from its seed: a random player, a perfect player that errs at random, and a
table-free alpha-beta player (``heuristic``), the nearest thing to a club player.

A player is anything with ``choose(game) -> Move``; ``player`` builds one by name, the
engine's strengths included, so a benchmark names every side the same way.

Who uses it: benchmarks/bench_strength.py and tests/test_strength.py only. It ships in
the wheel without a command of its own; the engine issue (52) may make these players
a feature of ``morris play`` or the web board.
"""

from __future__ import annotations

import random
from typing import Protocol

from .engine import STRENGTHS, Engine
from .game import Game
from .heuristic import HeuristicPlayer
from .probe import Tablebase
from .rules import Move

OPPONENTS = {
    "random": "a random legal move",
    "noisy-E": "a random legal move with probability E (0 < E < 1), else a perfect move",
    "alphabeta-D": "a table-free alpha-beta search D plies deep (stones, mills, mobility)",
}


class Player(Protocol):
    def choose(self, game: Game) -> Move: ...


class RandomPlayer:
    """A random legal move."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, game: Game) -> Move:
        return self.rng.choice(game.legal_moves())


class NoisyPlayer:
    """With probability ``epsilon`` a random legal move, otherwise the ``perfect``
    engine's move (under the draw rule when the file holds it)."""

    def __init__(self, tb: Tablebase, epsilon: float, rng: random.Random):
        if not 0 < epsilon < 1:
            raise ValueError(f"the error rate must lie between 0 and 1, not {epsilon}")
        self.epsilon = epsilon
        self.rng = rng
        self.perfect = Engine(tb, "perfect", rng)

    def choose(self, game: Game) -> Move:
        if self.rng.random() < self.epsilon:
            return self.rng.choice(game.legal_moves())
        return self.perfect.choose(game)


def player(name: str, tb: Tablebase, seed: int) -> Player:
    """The player ``name``: an engine strength (``ultra``, ``perfect``, ...; ``ultra``
    with another of ``engine.CRITERIA`` as ``ultra-sectors``) or an opponent of
    ``OPPONENTS`` (``random``, ``noisy-0.1``, ``alphabeta-2``), its random choices drawn
    from ``random.Random(seed)``."""
    rng = random.Random(seed)
    if name in STRENGTHS:
        return Engine(tb, name, rng)
    if name == "random":
        return RandomPlayer(rng)
    kind, _, parameter = name.partition("-")
    try:
        if kind == "ultra":
            return Engine(tb, kind, rng, parameter)
        if kind == "noisy":
            return NoisyPlayer(tb, float(parameter), rng)
        if kind == "alphabeta":
            return HeuristicPlayer(tb.variant, int(parameter), rng)
    except ValueError as e:
        raise ValueError(f"bad player {name!r}: {e}") from None
    known = ", ".join([*STRENGTHS, *OPPONENTS])
    raise ValueError(f"unknown player {name!r}; choose from {known}")
