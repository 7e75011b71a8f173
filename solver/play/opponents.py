"""Fallible players to measure the engine against (benchmarks/bench_strength.py), each
reproducible from its seed: a random player, a perfect player that errs at random, and a
table-free alpha-beta player (``heuristic``), the nearest thing to a club player; and
two simple players that keep the result (``BASELINES``), which a strength of the engine
must beat to be worth its cost.

A player is anything with ``choose(game) -> Move``; ``player`` builds one by name, the
engine's strengths included, so a benchmark names every side the same way.

Who uses it: benchmarks/bench_strength.py and tests/test_strength.py only. It ships in
the wheel without a command of its own; the engine issue (52) may make these players
a feature of ``morris play`` or the web board.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..query.probe import Tablebase
from ..rules.game import Game
from ..rules.rules import Move
from ..rules.values import Result
from .engine import DEFAULT_LOOKAHEAD, STRENGTHS, Engine
from .heuristic import HeuristicPlayer
from .opponent_model import DEFAULT_MODEL_ERROR

# reference players that keep the result, for the engine's strengths to beat (issue 52)
BASELINES = {
    "perfect-random": "a random move keeping the best result (a fastest win, a slowest loss, "
    "any drawing move): the perfect engine without its fixed choice among draws",
    "trap1": "among the moves keeping the result, one after which the largest share of "
    "the opponent's replies give up their value, ties at random; when winning, a fastest "
    "win",
}
OPPONENTS = {
    "random": "a random legal move",
    "noisy-E": "a random legal move with probability E (0 < E < 1), else a random best move",
    "alphabeta-D": "a table-free alpha-beta search D plies deep (stones, mills, mobility); "
    "alphabeta-D-N: fewer plies where D would search more than N nodes, as the engine "
    "without tables does",
}


# what the noisy players' correct moves are, in the benchmark records' settings: a
# record without it played the perfect engine's fixed move
NOISY = "a random best move"


class Player(Protocol):
    def choose(self, game: Game) -> Move: ...


class RandomPlayer:
    """A random legal move."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def choose(self, game: Game) -> Move:
        return self.rng.choice(game.legal_moves())


class NoisyPlayer:
    """With probability ``epsilon`` a random legal move, otherwise a random best move
    (``PerfectRandomPlayer``'s; under the draw rule when the file holds it). Records
    before the setting ``noisy`` played the ``perfect`` engine's move instead, whose
    fixed choice among draws repeats positions (``NOISY``)."""

    def __init__(self, tb: Tablebase, epsilon: float, rng: random.Random):
        if not 0 < epsilon < 1:
            raise ValueError(f"the error rate must lie between 0 and 1, not {epsilon}")
        self.epsilon = epsilon
        self.rng = rng
        self.best = PerfectRandomPlayer(tb, rng)

    def choose(self, game: Game) -> Move:
        if self.rng.random() < self.epsilon:
            return self.rng.choice(game.legal_moves())
        return self.best.choose(game)


class PerfectRandomPlayer:
    """``BASELINES["perfect-random"]``, under the draw rule when the file holds it."""

    def __init__(self, tb: Tablebase, rng: random.Random):
        self.rng = rng
        self.engine = Engine(tb, "perfect", rng)

    def choose(self, game: Game) -> Move:
        choices = self.engine.choices(game)
        if choices[0].result is not Result.DRAW:
            return choices[0].move
        return self.rng.choice([c for c in choices if c.result is Result.DRAW]).move


class TrapOnePlayer:
    """``BASELINES["trap1"]``: the one-ply trap count of ``Engine.trap_share`` (by the
    replies alone), without ``ultra``'s fixed order among equal shares or its preference
    for fresh positions in a draw."""

    def __init__(self, tb: Tablebase, rng: random.Random):
        self.rng = rng
        self.engine = Engine(tb, "ultra", rng, "replies")

    def choose(self, game: Game) -> Move:
        choices = self.engine.choices(game)
        best = choices[0].result
        if best is Result.WIN:
            return choices[0].move
        keep = [c.move for c in choices if c.result is best]
        shares = [self.engine.trap_share(game, move) for move in keep]
        top = max(shares)
        return self.rng.choice([m for m, s in zip(keep, shares, strict=True) if s == top])


def player(name: str, tb: Tablebase, seed: int) -> Player:
    """The player ``name``: an engine strength (``ultra``, ``perfect``, ...; ``ultra``
    with another of ``engine.CRITERIA`` as ``ultra-sectors``, its model with a look-ahead
    of L moves against an error rate E as ``ultra-model-L-E``) or an opponent of
    ``OPPONENTS`` (``random``, ``noisy-0.1``, ``alphabeta-2``, ``alphabeta-7-5000000``), its
    random choices drawn
    from ``random.Random(seed)``."""
    rng = random.Random(seed)
    if name in STRENGTHS:
        return Engine(tb, name, rng)
    if name == "random":
        return RandomPlayer(rng)
    if name == "perfect-random":
        return PerfectRandomPlayer(tb, rng)
    if name == "trap1":
        return TrapOnePlayer(tb, rng)
    kind, _, parameter = name.partition("-")
    try:
        if kind == "ultra":  # ultra-CRITERION, ultra-model-LOOKAHEAD[-ERROR]
            criterion, *model = parameter.split("-") if parameter.startswith("model") \
                else (parameter,)
            lookahead = int(model[0]) if model else DEFAULT_LOOKAHEAD
            error = float(model[1]) if len(model) > 1 else DEFAULT_MODEL_ERROR
            return Engine(tb, kind, rng, criterion, error, lookahead)
        if kind == "noisy":
            return NoisyPlayer(tb, float(parameter), rng)
        if kind == "alphabeta":  # alphabeta-DEPTH[-NODE_BUDGET]
            depth, _, budget = parameter.partition("-")
            return HeuristicPlayer(tb.variant, int(depth), rng, int(budget) if budget else None)
    except ValueError as e:
        raise ValueError(f"bad player {name!r}: {e}") from None
    known = ", ".join([*STRENGTHS, *BASELINES, *OPPONENTS])
    raise ValueError(f"unknown player {name!r}; choose from {known}")
