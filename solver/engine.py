"""The engine that plays from the tables, at three strengths (``morris play``, the web
board): ``perfect`` always a best move; ``strong`` a random move keeping the
theoretical result; ``easy`` a random legal move half of the time, otherwise ``strong``."""

from __future__ import annotations

import random

from .game import Game
from .probe import Tablebase
from .rules import Move
from .values import Result

STRENGTHS = ("perfect", "strong", "easy")


class Engine:
    """Picks moves from the tables. ``strong``, when winning, plays a fastest win once
    the game has repeated a position, so that it cannot wander forever."""

    def __init__(self, tb: Tablebase, strength: str, rng: random.Random):
        if strength not in STRENGTHS:
            raise ValueError(f"unknown strength {strength!r}; choose from {', '.join(STRENGTHS)}")
        self.tb = tb
        self.strength = strength
        self.rng = rng

    def choose(self, game: Game) -> Move:
        """A move for the side to move in ``game`` (which must not be over)."""
        if self.strength == "easy" and self.rng.random() < 0.5:
            return self.rng.choice(game.legal_moves())
        if self.strength == "perfect":
            return self.tb.best_move(game.position)
        moves = self.tb.moves(game.position)
        best = moves[0].value
        keep = [mv for mv in moves if mv.value.result is best.result]
        if best.result is Result.WIN and repeated(game):
            keep = [mv for mv in keep if mv.value == best]
        return self.rng.choice(keep).move


def repeated(game: Game) -> bool:
    """Whether some position (with the same side to move) occurred twice in the game."""
    seen = [before for before, _ in game.history] + [game.position]
    return len(set(seen)) < len(seen)
