"""The retrograde init pass's shortcut in move generation: ``gen_successors`` with
``count_quiet`` must write exactly the successors of moves that close a mill (or win at
once) and count every other move, for every variant and any position."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from test_properties import SETTINGS, VARIANT_NAMES, positions

from morris_solver.index.movegen import MAX_MOVES, gen_moves, gen_successors, rule_tables
from morris_solver.rules.position import Position
from morris_solver.rules.variants import VARIANTS


def _written(buffers, n):
    return Counter(zip(*(b[:n].tolist() for b in buffers), strict=True))


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_count_quiet_writes_mill_moves_and_counts_the_rest(name):
    variant = VARIANTS[name]
    R = rule_tables(variant)
    buffers = [np.empty(MAX_MOVES, np.int64) for _ in range(3)]

    @SETTINGS
    @given(positions(variant))
    def check(p: Position):
        mover, other = (p.white, p.black) if p.white_to_move else (p.black, p.white)
        hand = p.white_hand if p.white_to_move else p.black_hand
        W = bin(mover).count("1")
        n_all = gen_moves(R, mover, other, W, hand, *buffers)
        every = _written(buffers, n_all)
        n, counted = gen_successors(R, mover, other, W, hand, True, *buffers)
        written = _written(buffers, n)
        if hand:  # placements all leave the sector: nothing is only counted
            assert (written, counted) == (every, 0)
        else:
            quiet = Counter({s: c for s, c in every.items() if s[2] == 0})
            assert written == every - quiet
            assert counted == sum(quiet.values())
        assert gen_successors(R, mover, other, W, hand, False, *buffers) == (n_all, 0)

    check()
