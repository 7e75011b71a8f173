"""The engine that plays from the tables, at three strengths (``morris play``, the web
board): ``perfect`` always a best move; ``strong`` a random move keeping the
theoretical result; ``easy`` a random legal move half of the time, otherwise ``strong``."""

from __future__ import annotations

import random

from .game import Game
from .probe import Tablebase
from .rules import Move, play
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
        """A move for the side to move in ``game`` (which must not be over). A game with
        the draw rules is played by the tables' values under the rule when the file
        holds them (``under_rules``), else by the game's values."""
        if self.strength == "easy" and self.rng.random() < 0.5:
            return self.rng.choice(game.legal_moves())
        if self.under_rules(game):
            return self._choose_under_rule(game)
        if self.strength == "perfect":
            return self.tb.best_move(game.position)
        moves = self.tb.moves(game.position)
        best = moves[0].value
        keep = [mv for mv in moves if mv.value.result is best.result]
        if best.result is Result.WIN and repeated(game):
            keep = [mv for mv in keep if mv.value == best]
        return self.rng.choice(keep).move


    def under_rules(self, game: Game) -> bool:
        """Whether the engine plays ``game`` by the values under its move limit."""
        return game.draw_rules and game.move_limit in self.tb.rule_limits()

    def _choose_under_rule(self, game: Game) -> Move:
        """``perfect``: a best move under the rule, which when winning brings the deciding
        capture strictly closer, so it never repeats a position. ``strong``: a random
        move keeping the result under the rule; when winning, one that repeats no
        position of the game (else the best)."""
        pos = game.position
        moves = self.tb.rule_moves(pos, game.quiet_moving_plies(), game.move_limit)
        if self.strength == "perfect":
            return moves[0].move
        best = moves[0].result
        keep = [mv for mv in moves if mv.result is best]
        if best is Result.WIN:
            seen = {before for before, _ in game.history} | {pos}
            keep = [mv for mv in keep if play(pos, mv.move) not in seen] or moves[:1]
        return self.rng.choice(keep).move


def repeated(game: Game) -> bool:
    """Whether some position (with the same side to move) occurred twice in the game."""
    seen = [before for before, _ in game.history] + [game.position]
    return len(set(seen)) < len(seen)
