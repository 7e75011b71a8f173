"""Differential test of ``morris_solver.rules.rules`` against OpenSpiel's ``nine_mens_morris``.

Seeded random games are played in both implementations side by side. After every
whole move the two must agree on the set of legal whole moves, on the position each of
them leads to (stones, stones in hand, side to move), and on whether the game is over
and who won.

How the two are lined up:

* OpenSpiel splits a move that closes a mill into two actions by the same player: the
  placement or slide, then the removal. Each such pair is expanded into one whole move
  ``d6-d5xa1`` here.
* OpenSpiel numbers points 0..23 in its own order. The map to our points is derived
  from OpenSpiel's board drawing (``str(state)``): put one stone on each OpenSpiel point,
  find where it is drawn, and turn the drawing's columns and rows into files a..g and
  ranks 7..1. No point table is typed in.

The one rule difference, handled explicitly: OpenSpiel ends every game as a draw after
``kMaxNumTurns = 200`` whole moves (nine_mens_morris.h); our rules have no move limit.
When OpenSpiel stops there and our rules say the game goes on, the game is cut off
(everything up to that point was compared in full). Everything else is compared
exactly.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from morris_solver.rules.position import Position
from morris_solver.rules.rules import Move, legal_moves, phase, successors, terminal
from morris_solver.rules.values import Result
from morris_solver.rules.variants import get_variant

pyspiel = pytest.importorskip("pyspiel")  # open-spiel: the dev extra

NINE = get_variant("nine")
BOARD = NINE.board
GAME = pyspiel.load_game("nine_mens_morris")
OPENSPIEL_TURN_LIMIT = 200
GAMES = 600


def _drawing_cells() -> list[tuple[int, int]]:
    """(row, column) where OpenSpiel draws each of its points."""
    cells = []
    for action in range(BOARD.n):
        state = GAME.new_initial_state()
        state.apply_action(action)  # a placement on OpenSpiel point ``action``
        lines = str(state).split("\n")
        (cell,) = [(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch == "W"]
        cells.append(cell)
    return cells


CELLS = _drawing_cells()


def _to_ours() -> list[int]:
    """OpenSpiel point -> our point, by geometry: the k-th distinct drawing column is
    file k (our x), the k-th distinct row from the top is rank 7 - k (our y = 6 - k)."""
    columns = sorted({c for _, c in CELLS})
    rows = sorted({r for r, _ in CELLS})
    at = {xy: p for p, xy in enumerate(BOARD.coords)}
    return [at[(columns.index(c), len(rows) - 1 - rows.index(r))] for r, c in CELLS]


TO_OURS = _to_ours()


def _read(state) -> Position:
    """Our Position for an OpenSpiel state between whole moves."""
    lines = str(state).split("\n")
    white = black = 0
    for os_point, (r, c) in enumerate(CELLS):
        bit = 1 << TO_OURS[os_point]
        white |= bit if lines[r][c] == "W" else 0
        black |= bit if lines[r][c] == "B" else 0
    facts = dict(line.split(": ", 1) for line in lines if ": " in line)
    white_hand, black_hand = map(int, facts["Men to deploy"].split())
    return Position(NINE, white, black, white_hand, black_hand, facts["Current player"] == "W")


def _whole_moves(state) -> dict[Move, object]:
    """OpenSpiel's legal whole moves, each with the state it leads to."""
    player = state.current_player()
    moves = {}
    for action in state.legal_actions():
        if action < BOARD.n:
            origin, target = None, TO_OURS[action]
        else:
            origin, target = (TO_OURS[p] for p in divmod(action - BOARD.n, BOARD.n))
        child = state.clone()
        child.apply_action(action)
        if not child.is_terminal() and child.current_player() == player:  # removal pending
            for removal in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply_action(removal)
                moves[Move(origin, target, (TO_OURS[removal],))] = grandchild
        else:
            moves[Move(origin, target)] = child
    return moves


def _black_slides(position: Position) -> int:
    """How many slides Black's stones have, whatever the phase."""
    empty = BOARD.full_mask & ~(position.white | position.black)
    return sum(
        (int(BOARD.adjacency[p]) & empty).bit_count()
        for p in range(BOARD.n)
        if position.black >> p & 1
    )


def _play_one(rng: random.Random, style: str, phases: Counter) -> str:
    """Play one random game in both implementations, comparing after every whole move;
    count the phases played in and return how the game ended. ``style`` biases the
    random moves so that every ending occurs: ``uniform``, ``captures`` (prefer them:
    games run into flying and too few stones) or ``blocking`` (no captures, and both
    sides cramp Black's stones: crowded boards where Black gets blocked)."""
    state = GAME.new_initial_state()
    position = Position.start(NINE)
    for turn in range(OPENSPIEL_TURN_LIMIT + 1):
        assert _read(state) == position, f"turn {turn}: positions differ"
        end = terminal(position)
        if state.is_terminal():
            if end is None:
                assert turn == OPENSPIEL_TURN_LIMIT, f"turn {turn}: only OpenSpiel ended"
                assert state.returns() == [0.0, 0.0]
                return "openspiel turn limit"
            mover = 0 if position.white_to_move else 1
            expected = {Result.LOSS: -1.0, Result.DRAW: 0.0}[end.result]
            assert state.returns()[mover] == expected, f"turn {turn}: {position}"
            assert legal_moves(position) == []
            return end.reason
        assert end is None, f"turn {turn}: only we ended ({end}) in {position}"
        phases[phase(position)] += 1
        theirs = _whole_moves(state)
        ours = dict(successors(position))
        assert set(ours) == set(theirs), (
            f"turn {turn} in {position}: only ours "
            f"{[m.text(BOARD) for m in set(ours) - set(theirs)]}, only OpenSpiel's "
            f"{[m.text(BOARD) for m in set(theirs) - set(ours)]}"
        )
        for move, after in ours.items():
            assert _read(theirs[move]) == after, f"turn {turn}: {move.text(BOARD)} in {position}"
        preferred = [m for m in ours if bool(m.removed) == (style == "captures")]
        if style == "blocking" and preferred:
            mobility = {m: _black_slides(ours[m]) for m in preferred}
            preferred = [m for m in preferred if mobility[m] == min(mobility.values())]
        move = rng.choice(list(ours) if style == "uniform" or not preferred else preferred)
        state, position = theirs[move], ours[move]
    raise AssertionError("OpenSpiel did not end the game at its turn limit")


def test_point_map_is_a_bijection():
    assert sorted(TO_OURS) == list(range(BOARD.n))
    # OpenSpiel's own comment draws point 0 top left and 23 bottom right.
    assert BOARD.points[TO_OURS[0]] == "a7" and BOARD.points[TO_OURS[23]] == "g1"


def test_random_games_agree_with_openspiel():
    rng = random.Random(20240611)
    phases: Counter = Counter()
    styles = ("uniform", "captures", "blocking")
    endings = Counter(_play_one(rng, styles[game % 3], phases) for game in range(GAMES))
    # The games must reach every phase and every way a game of Nine Men's Morris ends.
    assert min(phases[p] for p in ("placement", "moving", "flying")) > 0, phases
    assert endings["fewer than 3 stones"] > 0, endings
    assert endings["no legal move"] > 0, endings
    assert endings["openspiel turn limit"] > 0, endings
