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

from ..query.probe import Tablebase
from ..rules.game import REPETITION_DRAW, Game
from ..rules.position import Position
from ..rules.rules import Move, successors
from ..rules.sectors import Sector
from ..rules.values import Result
from ..rules.variants import Variant
from ..tables.solve_advice import solve_command
from ..tables.storage import default_table_path
from .heuristic import HeuristicPlayer
from .opponent_model import DEFAULT_MODEL_ERROR

STRENGTHS = {
    "ultra": "a best move that, among the moves keeping the result, scores most against "
    "a player who errs one move in ten, looking two moves of each side ahead",
    "perfect": "a best move: the fastest win, the slowest loss, or the first drawing move",
    "strong": "a random move that keeps the result",
    "easy": "a random legal move half of the time, otherwise as strong",
}
# how ``ultra`` ranks the moves that keep the result (docs/engine.md): the score it
# expects against a model of the opponent, a few moves ahead (``model``: ``expected``);
# the share of the opponent's replies that give up their value (``trap_share``), in a
# draw after the positions the game has seen least (``fresh-replies``) or alone
# (``replies``); or Malom's share of the target sector's positions worse for the side
# to move
CRITERIA = ("model", "fresh-replies", "replies", "sectors")
# ``model``'s look-ahead, in moves of each side: 1 is the one-ply trap count's choice
DEFAULT_LOOKAHEAD = 2
_SCORE = {Result.WIN: 1.0, Result.DRAW: 0.5, Result.LOSS: 0.0}
# the moves whose one-move expectation is highest that ``model`` looks further ahead from
MODEL_WIDTH = 4
_MEMO_POSITIONS = 200_000  # the move lists ``choices`` keeps, forgotten all at once past it
_ORDER = {Result.WIN: 0, Result.DRAW: 1, Result.LOSS: 2}  # better first, for either side


# the table-free engine's plies of search for each strength: three depths, as the
# strengths without tables (ultra and perfect are the deepest; neither is perfect then)
SEARCH_DEPTHS = {"ultra": 7, "perfect": 7, "strong": 4, "easy": 2}
# the nodes a table-free move may search before it settles for a ply less (heuristic's
# node_budget), where a side that flies has too many moves for 7 plies: a move from each
# of 200 Nine positions took 1.4 s at the longest here, 17 s without it (docs/engine.md)
SEARCH_NODE_BUDGET = 5_000_000


@dataclass(frozen=True)
class Choice:
    """A legal move, the result it keeps for the side that plays it, under the
    semantics the engine plays the game by (the rule's or the game's), and the position
    it leads to."""

    move: Move
    result: Result
    after: Position


class Engine:
    """Picks moves from the tables. ``strong``, when winning, plays a fastest win once
    the game has repeated a position, so that it cannot wander forever."""

    def __init__(self, tb: Tablebase, strength: str, rng: random.Random,
                 criterion: str = "model", model_error: float = DEFAULT_MODEL_ERROR,
                 lookahead: int = DEFAULT_LOOKAHEAD):
        if strength not in STRENGTHS:
            raise ValueError(f"unknown strength {strength!r}; choose from {', '.join(STRENGTHS)}")
        if criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {criterion!r}; choose from {', '.join(CRITERIA)}")
        if not 0 < model_error < 1:
            raise ValueError(f"the model's error rate must lie between 0 and 1, not {model_error}")
        if lookahead < 1:
            raise ValueError(f"the look-ahead must be at least 1 move, not {lookahead}")
        self.tb = tb
        self.strength = strength
        self.rng = rng
        self.criterion = criterion
        self.model_error, self.lookahead = model_error, lookahead
        self._memo: dict[Position, list[Choice]] = {}

    def choose(self, game: Game) -> Move:
        """A move for the side to move in ``game`` (which must not be over). A game with
        the draw rules is played by the tables' values under the rule when the file
        holds them (``under_rules``), else by the game's values."""
        if self.strength == "easy" and self.rng.random() < 0.5:
            return self.rng.choice(game.legal_moves())
        if (self.strength in ("perfect", "ultra") and self._searched(game)
                and not self.under_rules(game)):
            # the search values a move at a time, the book's proof holds a winning move
            # but not the others' values: a perfect move, and a win hurries
            if self.strength == "perfect" or self.tb.probe(game.position).result is Result.WIN:
                move = self.tb.best_move(game.position)
                assert move is not None  # the game is not over
                return move
        choices = self.choices(game)
        best = choices[0].result
        if self.strength == "perfect" or (self.strength == "ultra" and best is Result.WIN):
            return choices[0].move  # a win hurries: it gives nothing away by waiting
        keep = [c for c in choices if c.result is best]
        if self.strength == "ultra":
            if self.criterion == "model":
                return self._best_expected(game, keep)
            return self._most_traps(game, keep)
        if best is Result.WIN:
            keep = self._progressing(game, keep)
        return self.rng.choice(keep).move

    def _searched(self, game: Game) -> bool:
        """Whether ``game``'s position may be one the search answers: a placement
        position, and the file lacks placement sectors (not necessarily its own)."""
        pos = game.position
        return bool(pos.mover_hand or pos.other_hand) and self.tb.may_search()

    def under_rules(self, game: Game) -> bool:
        """Whether the engine plays ``game`` by the values under its move limit."""
        return game.draw_rules and game.move_limit in self.tb.rule_limits()

    def choices(self, game: Game, by_rule: bool = True) -> list[Choice]:
        """Every legal move with the result it keeps, best first: under the rule
        (``Tablebase.rule_moves``: the soonest converted win first, so a perfect winner
        never repeats a position) or by the game's values (``Tablebase.moves``; also
        where ``by_rule`` is false, as the look-ahead reads them: a position's own, so
        they are kept, where the rule's change with the count at every move). With the
        draw rules, a move that repeats a position a third time is a draw."""
        pos = game.position
        found = self._memo.get(pos)
        if found is None:
            if len(self._memo) >= _MEMO_POSITIONS:
                self._memo.clear()
            after = dict(successors(pos))
            found = [Choice(mv.move, mv.value.result, after[mv.move])
                     for mv in self.tb.moves(pos)]
            self._memo[pos] = found
        if by_rule and self.under_rules(game):
            after = {c.move: c.after for c in found}
            found = [Choice(mv.move, mv.result, after[mv.move]) for mv in
                     self.tb.rule_moves(pos, game.quiet_moving_plies(), game.move_limit)]
        if not game.draw_rules:
            return found
        occurred = Counter(before for before, _ in game.history)
        twice = {p for p, n in occurred.items() if n >= REPETITION_DRAW - 1}
        if not twice:
            return found
        found = [Choice(c.move, Result.DRAW, c.after) if c.after in twice else c for c in found]
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
            ranks = [(occurred[c.after], trap) for c, trap in zip(keep, traps, strict=True)]
            return keep[ranks.index(min(ranks))].move
        return keep[traps.index(min(traps))].move

    def expected(self, game: Game, choice: Choice, lookahead: int | None = None) -> float:
        """The score (a win 1, a draw 1/2) the side to move in ``game`` can expect from
        ``choice`` (one of ``choices``) against the model opponent (``model_error``: a
        random legal move this often, otherwise a random best move, as
        ``opponents.NoisyPlayer``), looking ``lookahead`` moves of each side ahead and
        playing each time a move that keeps the result and expects most. An error of the
        opponent is worth the result it gives away (the tables play on perfectly);
        beyond the look-ahead a position is worth its result. With a look-ahead of 1 the
        best move is the one-ply trap count's (``trap_share``); more looks for positions
        whose traps come back."""
        lookahead = self.lookahead if lookahead is None else lookahead
        game.play_successor(choice.move, choice.after)
        try:
            end = game.outcome()
            if end is not None:
                return 1.0 - _SCORE[end.result]
            replies = self.choices(game, by_rule=False)
            best = replies[0].result
            # the model's best move: any drawing one, else the first (the fastest win)
            good = len(replies) if best is Result.DRAW else 1
            good = sum(r.result is best for r in replies[:good])
            careless = self.model_error / len(replies)
            total = 0.0
            for i, r in enumerate(replies):
                if r.result is not best:
                    total += careless * _SCORE[r.result.flipped()]
                elif i >= good:  # as good, but the model plays it only by mistake
                    total += careless * (1.0 - _SCORE[best])
                else:
                    worth = self._expected_after(game, r, lookahead - 1) if lookahead > 1 \
                        else 1.0 - _SCORE[best]
                    total += (careless + (1.0 - self.model_error) / good) * worth
            return total
        finally:
            game.undo()

    def _expected_after(self, game: Game, reply: Choice, lookahead: int) -> float:
        """``expected``'s value for the side that did not play ``reply``, after it."""
        game.play_successor(reply.move, reply.after)
        try:
            end = game.outcome()
            if end is not None:
                return _SCORE[end.result]
            choices = self.choices(game, by_rule=False)
            best = choices[0].result
            if best is Result.WIN:
                return 1.0
            keep = [c for c in choices if c.result is best]
            return max(self.expected(game, c, lookahead)
                       for c in self._candidates(game, keep, lookahead))
        finally:
            game.undo()

    def _candidates(self, game: Game, keep: list[Choice], lookahead: int) -> list[Choice]:
        """The moves of ``keep`` worth a ``lookahead`` beyond one move: those of the
        ``MODEL_WIDTH`` best one-move expectations (all of them when that many or fewer)."""
        if len(keep) <= MODEL_WIDTH or lookahead == 1:
            return keep
        rated = sorted(((self.expected(game, c, 1), i) for i, c in enumerate(keep)),
                       reverse=True)
        return [keep[i] for _, i in rated[:MODEL_WIDTH]]

    def _best_expected(self, game: Game, keep: list[Choice]) -> Move:
        """Of the moves keeping the result, one that ``expected`` rates highest; among
        equals in a draw one to the positions the game has seen least, then at random;
        in a loss the first (the slowest)."""
        if len(keep) == 1:
            return keep[0].move
        lookahead = self.lookahead
        if self._searched(game):
            lookahead = 1  # placement positions answered by search: one move ahead only
        candidates = self._candidates(game, keep, lookahead)
        keep = [c for c in keep if c in candidates]  # in their order: the slowest loss first
        rated = [self.expected(game, c, lookahead) for c in keep]
        top = max(rated)
        best = [c for c, r in zip(keep, rated, strict=True) if r >= top - 1e-12]
        if keep[0].result is not Result.DRAW or len(best) == 1:
            return best[0].move
        occurred = Counter(before for before, _ in game.history)
        least = min(occurred[c.after] for c in best)
        return self.rng.choice([c for c in best if occurred[c.after] == least]).move

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
            fresh = [c for c in keep if c.after not in seen]
            if fresh:
                return fresh
        return keep[:1]


def repeated(game: Game) -> bool:
    """Whether some position (with the same side to move) occurred twice in the game."""
    seen = [before for before, _ in game.history] + [game.position]
    return len(set(seen)) < len(seen)


class SearchEngine:
    """The engine without tables: the alpha-beta search of ``heuristic`` (stones, mills,
    mobility) ``SEARCH_DEPTHS[strength]`` plies deep, or less where that would search
    more than ``SEARCH_NODE_BUDGET`` nodes, ties broken by ``rng``. Fast (on Nine Men's
    Morris 0.23 s a move on average at 7 plies: docs/engine.md) and fallible: it keeps
    no game-theoretic result."""

    def __init__(self, variant: Variant, strength: str, rng: random.Random):
        if strength not in STRENGTHS:
            raise ValueError(f"unknown strength {strength!r}; choose from {', '.join(STRENGTHS)}")
        self.variant, self.strength = variant, strength
        self.depth = SEARCH_DEPTHS[strength]
        self._player = HeuristicPlayer(variant, self.depth, rng, SEARCH_NODE_BUDGET)

    def choose(self, game: Game) -> Move:
        """A move for the side to move in ``game`` (which must not be over)."""
        return self._player.choose(game)

    @property
    def searched_depth(self) -> int:
        """The plies the last move's search reached (``depth`` unless the budget cut it)."""
        return self._player.searched_depth

    def note(self, path: Path | None = None) -> str:
        """What a player is told: which engine plays, and how to get perfect play (the
        tables at ``path``, default ``data/VARIANT.h5``)."""
        path = default_table_path(self.variant) if path is None else path
        return (f"no tables of {self.variant.name} ({path}): the computer searches "
                f"up to {self.depth} plies ahead, without tables, and can lose a won game; "
                f"'{solve_command(self.variant, path, '--phase', 'moving')}' gives it "
                "perfect play")


def engine_for(variant: Variant, tb: Tablebase | None, strength: str,
               rng: random.Random) -> Engine | SearchEngine:
    """The table engine on ``tb``, or the table-free one where ``tb`` is None."""
    return SearchEngine(variant, strength, rng) if tb is None else Engine(tb, strength, rng)
