"""A table-free opponent: alpha-beta at a small fixed depth over a plain evaluation.

``HeuristicPlayer`` is the nearest thing to a club player the toolkit has: it reads no
table, looks ``depth`` plies ahead and judges the positions there by counting stones,
mills and moves. It is a *fallible* opponent for measuring the table engine's strength,
so it must be fast (one Numba kernel a move) and reproducible (ties between equally
scored moves are broken by the ``random.Random`` it is given).

The evaluation of a position that is not over, from the side to move's view (an
integer, larger is better; "stones" are those on the board plus those in hand)::

    100 x (mover's stones - other's stones)
  +  10 x (mover's complete mills - other's complete mills)
  +   5 x (mover's open twos - other's open twos)
  +   1 x (mover's slides - other's slides)        only once both hands are empty

An open two is a mill holding two of a side's stones with its third point empty. A side's
slides are its stone-to-adjacent-empty-point moves; a side that flies (``flying`` and
exactly 3 stones on the board, none in hand) counts 0: it can always move, and its
weakness is material, which counts already.

A position that is over (``rules.terminal``: the opponent's line of three with
``line_wins``, fewer than 3 stones on board and in hand, no legal move) scores
``ply - BIG`` for a loss, ``ply`` plies from the root, so that a faster win or a slower
loss is preferred, and 0 for a draw (a full board with ``full_board_draw``). A move's
score is the negation of its successor's negamax value ``depth - 1`` plies deep: depth 1
evaluates each successor. ``scores`` searches each root move with an open window, so
every move's score is exact; ``choose`` searches each only for whether it reaches the
best so far, which keeps the best moves exact and prunes the rest. Moves that capture
or win are tried first. A node budget, where given, bounds a move's search: past it the
search settles for a ply less.

The search is one kernel, a loop over a stack of frames rather than recursion (Numba
cannot cache a recursive function, numba issue #6061), with one move buffer per ply
(successors from ``movegen.gen_moves``, the solver's own generator).

Why not the negamax kernel of ``search``: that one proves a value, this one guesses.
``search`` covers the placement phase only, reads its leaves from the moving-phase
tables, keys a transposition table by canonical index, scores wins and losses one ply
further at each level (DTM), orders moves by threats and a cut-off history, and stops
on a flag; this one plays any phase to a fixed depth, scores its leaves by the
evaluation above, has no table and negates plainly. What they share, the move
generator and the frame stack in place of recursion, is shared or the same idiom; one
kernel for both would carry the other's leaves, scores and table through every node.

Who uses it: ``opponents`` (the fallible players the engine's strength is measured
against: benchmarks/bench_strength.py, tests/test_strength.py) and
``engine.SearchEngine``, the computer where a variant has no tables (``morris play``,
the web board), with a node budget.
"""

from __future__ import annotations

import random

import numpy as np
from numba import njit

from ..core.bits import popcount, trailing_zeros
from ..core.errors import MorrisError
from ..index.movegen import MAX_MOVES, RuleTables, gen_moves, has_mill, rule_tables
from ..rules.game import Game
from ..rules.position import Position
from ..rules.rules import Move, legal_moves, terminal
from ..rules.values import BIG
from ..rules.variants import Variant, get_variant

MATERIAL, MILL, OPEN_TWO, MOBILITY = 100, 10, 5, 1
_INF = BIG + 1  # beyond every score: an open window
_UNBOUNDED = 2**62  # a node budget no search reaches
# Columns of a ply's frame: the node (masks, hands), its window, best score so far, and
# its successors in the ply's move buffer (count, next to visit).
_MOVER, _OTHER, _WF, _BF, _ALPHA, _BETA, _BEST, _COUNT, _NEXT = range(9)
_FRAME = 9


@njit(cache=True, inline="always")
def _slides(R, stones, empty):
    """Moves of ``stones`` along an edge to an adjacent empty point."""
    n = 0
    while stones:
        s = trailing_zeros(stones)
        stones &= stones - 1
        n += popcount(R.adjacency[s] & empty)
    return n


@njit(cache=True, inline="always")
def _flies(R, stones, hand):
    return R.flying != 0 and hand == 0 and popcount(stones) == 3


@njit(cache=True)
def _evaluate(R, mover, other, WF, BF, ply):
    """The score of a leaf for its side to move (the module docstring's evaluation), or
    its terminal score if the side to move has no legal move (the leaf's other endings
    are found by ``_enter`` before)."""
    empty = R.full & ~(mover | other)
    mover_flies, other_flies = _flies(R, mover, WF), _flies(R, other, BF)
    mover_slides = 0 if WF > 0 or mover_flies else _slides(R, mover, empty)
    if empty == 0 or (WF == 0 and not mover_flies and mover_slides == 0):  # no legal move
        return 0 if R.full_board_draw != 0 and empty == 0 else ply - BIG
    score = MATERIAL * (popcount(mover) + WF - popcount(other) - BF)
    for mm in R.mill_masks:
        a, b = mover & mm, other & mm
        if a == mm:
            score += MILL
        elif b == mm:
            score -= MILL
        elif b == 0 and popcount(a) == 2:
            score += OPEN_TWO
        elif a == 0 and popcount(b) == 2:
            score -= OPEN_TWO
    if WF == 0 and BF == 0:
        other_slides = 0 if other_flies else _slides(R, other, empty)
        score += MOBILITY * (mover_slides - other_slides)
    return score


@njit(cache=True, inline="always")
def _enter(R, frames, moves, p, last):
    """Start the node in ``frames[p]``, ``p`` plies from the root. Returns
    ``(score, True)`` when its score is known at once (over, or a leaf: ``p == last``),
    else ``(0, False)`` with its successors in ``moves[p]``, captures and wins first."""
    f = frames[p]
    mover, other, WF = f[_MOVER], f[_OTHER], f[_WF]
    W = popcount(mover)
    if W + WF < 3 or (R.line_wins != 0 and has_mill(R, other)):
        return p - BIG, True
    if p == last:
        return _evaluate(R, mover, other, WF, f[_BF], p), True
    buf = moves[p]
    count = gen_moves(R, mover, other, W, WF, buf[0], buf[1], buf[2])
    if count == 0:  # no legal move
        return (0 if R.full_board_draw != 0 and (mover | other) == R.full else p - BIG), True
    k = 0
    for j in range(count):  # move ordering: captures (and wins at once) first
        if buf[2, j] != 0:
            if j != k:
                for row in range(3):
                    buf[row, j], buf[row, k] = buf[row, k], buf[row, j]
            k += 1
    f[_BEST], f[_COUNT], f[_NEXT] = -_INF, count, 0
    return 0, False


@njit(cache=True)
def _negamax(R, frames, moves, first, last, budget):
    """Fail-soft negamax with alpha-beta from the node in ``frames[first]`` (masks,
    hands, window), leaves ``last`` plies from the root: its exact score if that lies
    inside the window, else a bound on the side it fell out of. Each node entered takes
    one from ``budget[0]``; once it falls below 0 the search stops and its score means
    nothing."""
    p = first
    entering = True
    returned = False  # whether ``score`` holds the score of node p's last child
    score = 0
    while True:
        if entering:
            entering = False
            budget[0] -= 1
            if budget[0] < 0:
                return 0
            score, known = _enter(R, frames, moves, p, last)
            if known:
                if p == first:
                    return score
                p -= 1
                returned = True
                continue
        f = frames[p]
        if returned:
            returned = False
            if -score > f[_BEST]:
                f[_BEST] = -score
                if -score > f[_ALPHA]:
                    f[_ALPHA] = -score
        if f[_BEST] < f[_BETA] and f[_NEXT] < f[_COUNT]:
            j = f[_NEXT]
            f[_NEXT] += 1
            child = frames[p + 1]
            child[_MOVER], child[_OTHER] = moves[p, 0, j], moves[p, 1, j]
            child[_WF], child[_BF] = f[_BF], max(f[_WF] - 1, 0)
            child[_ALPHA], child[_BETA] = -f[_BETA], -f[_ALPHA]
            p += 1
            entering = True
            continue
        score = f[_BEST]
        if p == first:
            return score
        p -= 1
        returned = True


@njit(cache=True)
def _root_scores(mover, other, WF, BF, depth, exact, budget, frames, moves, out_score,
                 *tables):
    """Every successor of a position that is not over, into ``moves[0]`` (mover, other,
    kind), and its score for the side to move into ``out_score``; returns how many, or
    -1 where the search needed more nodes than ``budget[0]``.
    With ``exact`` each score is exact; else only the best moves' are, and every other
    move's is an upper bound on its score, below the best: each move is searched for
    whether it reaches the best score so far, which prunes most of the subtrees of the
    moves that do not."""
    R = RuleTables(*tables)
    buf = moves[0]
    count = gen_moves(R, mover, other, popcount(mover), WF, buf[0], buf[1], buf[2])
    best = -_INF
    for j in range(count):
        child = frames[1]
        child[_MOVER], child[_OTHER] = buf[0, j], buf[1, j]
        child[_WF], child[_BF] = BF, max(WF - 1, 0)
        # from the root's side the window is (best - 1, inf): a score equal to the best
        # so far lies inside it, so ties stay exact
        child[_ALPHA] = -_INF
        child[_BETA] = _INF if exact or best == -_INF else 1 - best
        out_score[j] = -_negamax(R, frames, moves, 1, depth, budget)
        if budget[0] < 0:
            return -1
        best = max(best, out_score[j])
    return count


class HeuristicPlayer:
    """Alpha-beta to ``depth`` plies over the module docstring's evaluation, no tables;
    ties between best moves broken by ``rng``, so a seed replays the same games.

    With a ``node_budget`` a search that would enter more nodes than that is given up
    for one a ply shallower, and so on (one ply always completes): it bounds a move's
    time where the moves are many (a side that flies) while keeping the games a seed
    plays the same on any machine, as a clock would not. ``searched_depth`` is the
    depth of the last ``scores``."""

    def __init__(self, variant: Variant | str, depth: int, rng: random.Random,
                 node_budget: int | None = None) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an integer of at least 1, not {depth!r}")
        if node_budget is not None and node_budget < 1:
            raise ValueError(f"the node budget must be at least 1, not {node_budget}")
        self.variant = get_variant(variant)
        self.depth = depth
        self.rng = rng
        self.node_budget = node_budget
        self.searched_depth = depth
        self._budget = np.zeros(1, dtype=np.int64)
        self._tables = tuple(rule_tables(self.variant))
        # the node p plies deep sits in frames[p]; plies 0 .. depth - 1 expand into moves[p]
        self._frames = np.zeros((depth + 1, _FRAME), dtype=np.int64)
        self._moves = np.empty((depth, 3, MAX_MOVES), dtype=np.int64)
        self._scores = np.empty(MAX_MOVES, dtype=np.int64)

    def scores(self, position: Position, exact: bool = True) -> list[tuple[Move, int]]:
        """Every legal move with its alpha-beta score (larger is better for the side to
        move), ``searched_depth`` plies deep (``depth`` unless the node budget cut it), in
        ``legal_moves`` order; empty when the game is over. Without ``exact``
        only the best moves' scores are exact, the others' are bounds above their scores
        and below the best (faster: all that ``choose`` needs)."""
        if position.variant != self.variant:
            raise ValueError(
                f"a {position.variant.name} position for a {self.variant.name} player"
            )
        if terminal(position):
            return []
        mover, other = position.mover, position.other
        for depth in range(self.depth, 0, -1):
            budget = self.node_budget
            self._budget[0] = _UNBOUNDED if budget is None or depth == 1 else budget
            count = _root_scores(
                mover, other, position.mover_hand, position.other_hand, depth, exact,
                self._budget, self._frames, self._moves, self._scores, *self._tables,
            )
            if count >= 0:
                self.searched_depth = depth
                break
        # successor masks -> score; a double mill may list one successor twice (its two
        # stones removed in either order), with the same score
        by_successor = dict(zip(
            zip(self._moves[0, 0, :count].tolist(), self._moves[0, 1, :count].tolist(),
                strict=True),
            self._scores[:count].tolist(),
            strict=True,
        ))
        scored = []
        for move in legal_moves(position):
            succ_other = mover | 1 << move.target
            if move.origin is not None:
                succ_other &= ~(1 << move.origin)
            succ_mover = other
            for p in move.removed:
                succ_mover &= ~(1 << p)
            scored.append((move, by_successor[succ_mover, succ_other]))
        return scored

    def choose(self, game: Game) -> Move:
        """The move with the best score; ties broken by ``self.rng`` so games vary yet
        are reproducible for a seed. ``MorrisError`` if the game is over (draw rules
        included)."""
        if game.outcome() is not None:
            raise MorrisError("the game is over: there is no move to choose")
        scored = self.scores(game.position, exact=False)
        best = max(score for _, score in scored)
        return self.rng.choice([move for move, score in scored if score == best])
