"""Values respect the game's symmetries: every board symmetry, and swapping the colours
together with the side to move, leave a position's value and distance unchanged."""

from __future__ import annotations

import random

import pytest

from solver.position import Position
from solver.probe import Tablebase


def _image(position: Position, perm) -> Position:
    def move(mask):
        return sum(1 << int(perm[p]) for p in range(position.board.n) if (mask >> p) & 1)

    return Position(position.variant, move(position.white), move(position.black),
                    position.white_hand, position.black_hand, position.white_to_move)


def _colour_swapped(position: Position) -> Position:
    return Position.from_sides(position.variant, position.mover, position.other,
                               position.mover_hand, position.other_hand,
                               not position.white_to_move)


def _random_positions(variant, W, B, count, rng):
    n = variant.board.n
    for _ in range(count):
        points = rng.sample(range(n), W + B)
        mover = sum(1 << p for p in points[:W])
        other = sum(1 << p for p in points[W:])
        yield Position.from_sides(variant, mover, other, 0, 0, rng.random() < 0.5)


@pytest.mark.parametrize("name,W,B", [("nine", 3, 3), ("six", 4, 3), ("six", 3, 3),
                                      ("three", 3, 3)])
def test_symmetric_and_colour_swapped_positions_have_equal_values(table_paths, name, W, B):
    tb = Tablebase.open(table_paths[name])
    rng = random.Random(11)
    decisive = 0
    for position in _random_positions(tb.variant, W, B, 60, rng):
        value = tb.probe(position)
        decisive += value.plies is not None
        for perm in tb.variant.board.symmetries:
            assert tb.probe(_image(position, perm)) == value
        swapped = _colour_swapped(position)
        assert swapped.white != position.white or swapped.white_to_move != position.white_to_move
        assert tb.probe(swapped) == value
    assert decisive > 0
