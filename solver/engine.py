"""The engine that plays from the tables (``morris play``, the web board), at four
strengths (``STRENGTHS``, strongest first). Every strength but ``easy`` keeps the
game-theoretic result: under the draw rules, the result under the move limit when the
file holds those values. What ``ultra`` adds, and how much it wins against fallible
players, is in docs/engine.md and benchmarks/strength_report.md.

Where a variant has no tables, ``engine_for`` gives the table-free engine instead
(``SearchEngine``: ``heuristic``'s alpha-beta at a depth per strength), so that a
newcomer plays the computer at once; it is not perfect, and says so (``note``)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .game import REPETITION_DRAW, Game
from .heuristic import HeuristicPlayer
from .probe import Tablebase
from .rules import Move, successors
from .sectors import Sector
from .solve_advice import solve_command
from .storage import default_table_path
from .values import Result
from .variants import Variant

STRENGTHS = {
    "ultra": "a best move that, among the moves keeping the result, leaves the opponent "
    "the most replies that lose",
    "perfect": "a best move: the fastest win, the slowest loss, or the first drawing move",
    "strong": "a random move that keeps the result",
    "easy": "a random legal move half of the time, otherwise as strong",
}
# how ``ultra`` ranks the moves that keep the result (docs/engine.md): the share of the
# opponent's replies that give up their value (``trap_share``), in a draw after the
# positions the game has seen least (``fresh-replies``) or alone (``replies``); or
# Malom's share of the target sector's positions worse for the side to move
CRITERIA = ("fresh-replies", "replies", "sectors")
_ORDER = {Result.WIN: 0, Result.DRAW: 1, Result.LOSS: 2}  # better first, for either side


# the table-free engine's plies of search for each strength: three depths, as the
# strengths without tables (ultra and perfect are the deepest; neither is perfect then)
SEARCH_DEPTHS = {"ultra": 7, "perfect": 7, "strong": 4, "easy": 2}


@dataclass(frozen=True)
class Choice:
    """A legal move and the result it keeps for the side that plays it, under the
    semantics the engine plays the game by (the rule's or the game's)."""

    move: Move
    result: Result


class Engine:
    """Picks moves from the tables. ``strong``, when winning, plays a fastest win once
    the game has repeated a position, so that it cannot wander forever."""

    def __init__(self, tb: Tablebase, strength: str, rng: random.Random,
                 criterion: str = "fresh-replies"):
        if strength not in STRENGTHS:
            raise ValueError(f"unknown strength {strength!r}; choose from {', '.join(STRENGTHS)}")
        if criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {criterion!r}; choose from {', '.join(CRITERIA)}")
        self.tb = tb
        self.strength = strength
        self.rng = rng
        self.criterion = criterion

    def choose(self, game: Game) -> Move:
        """A move for the side to move in ``game`` (which must not be over). A game with
        the draw rules is played by the tables' values under the rule when the file
        holds them (``under_rules``), else by the game's values."""
        if self.strength == "easy" and self.rng.random() < 0.5:
            return self.rng.choice(game.legal_moves())
        choices = self.choices(game)
        best = choices[0].result
        if self.strength == "perfect" or (self.strength == "ultra" and best is Result.WIN):
            return choices[0].move  # a win hurries: it gives nothing away by waiting
        keep = [c for c in choices if c.result is best]
        if self.strength == "ultra":
            return self._most_traps(game, keep)
        if best is Result.WIN:
            keep = self._progressing(game, keep)
        return self.rng.choice(keep).move

    def under_rules(self, game: Game) -> bool:
        """Whether the engine plays ``game`` by the values under its move limit."""
        return game.draw_rules and game.move_limit in self.tb.rule_limits()

    def choices(self, game: Game) -> list[Choice]:
        """Every legal move with the result it keeps, best first: under the rule
        (``Tablebase.rule_moves``: the soonest converted win first, so a perfect winner
        never repeats a position) or by the game's values (``Tablebase.moves``). With
        the draw rules, a move that repeats a position a third time is a draw."""
        pos = game.position
        if self.under_rules(game):
            moves = self.tb.rule_moves(pos, game.quiet_moving_plies(), game.move_limit)
            found = [Choice(mv.move, mv.result) for mv in moves]
        else:
            found = [Choice(mv.move, mv.value.result) for mv in self.tb.moves(pos)]
        if not game.draw_rules:
            return found
        occurred = Counter(before for before, _ in game.history)
        twice = {p for p, n in occurred.items() if n >= REPETITION_DRAW - 1}
        if not twice:
            return found
        after = dict(successors(pos))
        found = [Choice(c.move, Result.DRAW) if after[c.move] in twice else c for c in found]
        return sorted(found, key=lambda c: _ORDER[c.result])  # stable: the order kept

    def trap_share(self, game: Game, move: Move) -> float:
        """The share of the opponent's replies to ``move`` that give up the value they
        have after it (``replies``), or of the positions of the sector it leads to that
        are worse for the side to move than that value (``sectors``); 0 when the move
        ends the game, the draw rules included."""
        game.play(move)
        try:
            if game.outcome() is not None:
                return 0.0
            if self.criterion == "sectors":
                return self._sector_share(game)
            replies = [_ORDER[c.result] for c in self.choices(game)]
            best = min(replies)
            return sum(r > best for r in replies) / len(replies)
        finally:
            game.undo()

    def _most_traps(self, game: Game, keep: list[Choice]) -> Move:
        """Of the moves keeping the result, the first (in ``choices`` order: the slowest
        loss, the better game value under the rule) with the greatest ``trap_share``;
        with ``fresh-replies``, in a draw, of those that lead to the positions the game
        has seen least: a drawn game that goes on gives the opponent more moves to err."""
        if len(keep) == 1:
            return keep[0].move
        traps = [-self.trap_share(game, c.move) for c in keep]
        if self.criterion == "fresh-replies" and keep[0].result is Result.DRAW:
            occurred = Counter(before for before, _ in game.history)
            after = dict(successors(game.position))
            ranks = [(occurred[after[c.move]], trap) for c, trap in zip(keep, traps, strict=True)]
            return keep[ranks.index(min(ranks))].move
        return keep[traps.index(min(traps))].move

    def _sector_share(self, game: Game) -> float:
        """``trap_share`` by Malom's ranking, from the game's values of the sector the
        side to move stands in (the stored statistics), whatever the rule."""
        pos = game.position
        value = self.tb.probe(pos).result
        counts = self._sector_counts.get(
            (pos.mover.bit_count(), pos.other.bit_count(), pos.mover_hand, pos.other_hand))
        if counts is None:
            return 0.0
        worse = counts[Result.LOSS] + (counts[Result.DRAW] if value is Result.WIN else 0)
        return 0.0 if value is Result.LOSS else worse / max(1, sum(counts.values()))

    @cached_property
    def _sector_counts(self) -> dict[Sector, dict[Result, int]]:
        return {
            sector: {Result.WIN: st["wins"], Result.DRAW: st["draws"], Result.LOSS: st["losses"]}
            for sector, st in self.tb.sector_statistics().items()
        }

    def _progressing(self, game: Game, keep: list[Choice]) -> list[Choice]:
        """``strong``'s winning moves that cannot wander forever: until a position
        repeats, those that lead to no position of the game yet; from then on (or if
        there are none) the fastest win, after which the distance (under the rule, the
        plies to the deciding capture) falls at every move, so no position recurs."""
        if not repeated(game):
            seen = {before for before, _ in game.history}
            after = dict(successors(game.position))
            fresh = [c for c in keep if after[c.move] not in seen]
            if fresh:
                return fresh
        return keep[:1]


def repeated(game: Game) -> bool:
    """Whether some position (with the same side to move) occurred twice in the game."""
    seen = [before for before, _ in game.history] + [game.position]
    return len(set(seen)) < len(seen)


class SearchEngine:
    """The engine without tables: the alpha-beta search of ``heuristic`` (stones, mills,
    mobility) ``SEARCH_DEPTHS[strength]`` plies deep, ties broken by ``rng``. Fast (on
    Nine Men's Morris 0.23 s a move on average at 7 plies: docs/engine.md) and
    fallible: it keeps no game-theoretic result."""

    def __init__(self, variant: Variant, strength: str, rng: random.Random):
        if strength not in STRENGTHS:
            raise ValueError(f"unknown strength {strength!r}; choose from {', '.join(STRENGTHS)}")
        self.variant, self.strength = variant, strength
        self.depth = SEARCH_DEPTHS[strength]
        self._player = HeuristicPlayer(variant, self.depth, rng)

    def choose(self, game: Game) -> Move:
        """A move for the side to move in ``game`` (which must not be over)."""
        return self._player.choose(game)

    def note(self, path: Path | None = None) -> str:
        """What a player is told: which engine plays, and how to get perfect play (the
        tables at ``path``, default ``data/VARIANT.h5``)."""
        path = default_table_path(self.variant) if path is None else path
        return (f"no tables of {self.variant.name} ({path}): the computer searches "
                f"{self.depth} plies ahead, without tables, and can lose a won game; "
                f"'{solve_command(self.variant, path, '--phase', 'moving')}' gives it "
                "perfect play")


def engine_for(variant: Variant, tb: Tablebase | None, strength: str,
               rng: random.Random) -> Engine | SearchEngine:
    """The table engine on ``tb``, or the table-free one where ``tb`` is None."""
    return SearchEngine(variant, strength, rng) if tb is None else Engine(tb, strength, rng)
