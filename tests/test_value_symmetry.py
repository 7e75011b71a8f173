"""Values respect the game's symmetries and its rules.

Board symmetries: every image of a position under the board's automorphisms reads the
same value, which checks that the index canonicalizes consistently. Colours: the index
stores a position as "side to move" vs "other", so a position and its colour swap share
one slot and comparing their stored values proves nothing. Instead each position, and
its colour swap, is valued one ply deep through the plain-Python rules
(``morris_solver.rules.rules``, not the kernels' move generator): the best over its legal moves of
the stored values they lead to must be the stored value. The successors of the two
colourings are different positions, generated with White and Black exchanged.
"""

from __future__ import annotations

import random

import pytest

from morris_solver.query.probe import Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.rules import successors, terminal
from morris_solver.rules.values import Result, Value

CASES = [("nine", 3, 3), ("six", 4, 3), ("six", 3, 3), ("three", 3, 3)]


def _image(position: Position, perm) -> Position:
    def move(mask):
        return sum(1 << int(perm[p]) for p in range(position.board.n) if (mask >> p) & 1)

    return Position(position.variant, move(position.white), move(position.black),
                    position.white_hand, position.black_hand, position.white_to_move)


def _colour_swapped(position: Position) -> Position:
    return Position(position.variant, position.black, position.white,
                    position.black_hand, position.white_hand, not position.white_to_move)


def _sampled(path, W: int, B: int, count: int,
             seed: int) -> tuple[Tablebase, list[tuple[Position, Value]]]:
    """The tables at ``path`` and ``count`` random W-B moving positions with their stored
    values (either side to move), at least one of them decisive."""
    tb = Tablebase.open(path)
    rng = random.Random(seed)
    n = tb.variant.board.n
    sample = []
    for _ in range(count):
        points = rng.sample(range(n), W + B)
        mover = sum(1 << p for p in points[:W])
        other = sum(1 << p for p in points[W:])
        position = Position.from_sides(tb.variant, mover, other, 0, 0, rng.random() < 0.5)
        sample.append((position, tb.probe(position)))
    assert any(value.plies is not None for _, value in sample)
    return tb, sample


def one_ply_value(probe, position: Position) -> Value:
    """The value of ``position`` from the stored values of its successors, through the
    plain-Python rules: terminal positions by the rules, others the best move's."""
    end = terminal(position)
    if end is not None:
        return Value(end.result, None if end.result is Result.DRAW else 0)
    backed = (probe(after).after_move() for _, after in successors(position))
    return min(backed, key=Value.sort_key)


@pytest.mark.parametrize("name,W,B", CASES)
def test_symmetric_positions_have_equal_values(table_paths, name, W, B):
    tb, sample = _sampled(table_paths[name], W, B, 60, seed=11)
    for position, value in sample:
        images = {_image(position, perm) for perm in tb.variant.board.symmetries}
        assert len(images) > 1
        for image in images:
            assert tb.probe(image) == value


@pytest.mark.parametrize("name,W,B", CASES)
def test_a_position_and_its_colour_swap_are_valued_alike_by_the_rules(table_paths, name, W, B):
    tb, sample = _sampled(table_paths[name], W, B, 40, seed=12)
    for position, value in sample:
        swapped = _colour_swapped(position)
        assert swapped.white_to_move != position.white_to_move
        assert one_ply_value(tb.probe, position) == value, position
        assert one_ply_value(tb.probe, swapped) == value, swapped


def test_the_one_ply_check_catches_a_wrong_stored_value(table_paths):
    """One successor stored as lost at once (a wrong value) changes the backed-up value."""
    tb = Tablebase.open(table_paths["nine"])
    position = Position.parse("W:a1,d7,g4 B:a7,d1,g1 w", "nine")
    value = tb.probe(position)
    assert value != Value(Result.WIN, 1)
    assert one_ply_value(tb.probe, position) == value
    first = successors(position)[0][1]

    def tampered(p: Position) -> Value:
        return Value(Result.LOSS, 0) if p == first else tb.probe(p)

    assert one_ply_value(tampered, position) == Value(Result.WIN, 1)
