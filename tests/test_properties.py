"""Property tests of the rules layer over random positions of every variant: symmetry
invariance, notation round trips, and the board facts of docs/rules.md."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from morris_solver.rules.board import BOARDS
from morris_solver.rules.position import Position
from morris_solver.rules.rules import Move, legal_moves, outcome, parse_move, successors
from morris_solver.rules.variants import VARIANTS, Variant

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def arbitrary_positions(draw, variant: Variant) -> Position:
    """Any position ``Position.validate`` accepts: hands fit the side to move, neither
    side has more than its stones, the side not to move has at least 3."""
    stones, n = variant.stones, variant.board.n
    white_to_move = draw(st.booleans())
    if white_to_move:
        white_hand = black_hand = draw(st.integers(0, stones))
    elif draw(st.booleans()):
        white_hand = black_hand = 0
    else:
        white_hand = draw(st.integers(0, stones - 1))
        black_hand = white_hand + 1
    white_on = draw(st.integers(0, min(stones - white_hand, n)))
    black_on = draw(st.integers(0, min(stones - black_hand, n - white_on)))
    waiting = (black_on + black_hand) if white_to_move else (white_on + white_hand)
    if waiting < 3:  # the side not to move must still be in the game
        if white_to_move:
            black_on = min(3 - black_hand, n - white_on)
        else:
            white_on = min(3 - white_hand, n - black_on)
    order = draw(st.permutations(range(n)))
    white = sum(1 << p for p in order[:white_on])
    black = sum(1 << p for p in order[white_on : white_on + black_on])
    return Position(variant, white, black, white_hand, black_hand, white_to_move)


@st.composite
def played_positions(draw, variant: Variant) -> Position:
    """A position reached by random legal moves from the start."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    position = Position.start(variant)
    for _ in range(draw(st.integers(0, 60))):
        moves = legal_moves(position)
        if not moves:
            break
        position = successors(position)[rng.randrange(len(moves))][1]
    return position


def positions(variant: Variant):
    return st.one_of(arbitrary_positions(variant), played_positions(variant))


def _map_mask(perm, mask: int) -> int:
    return sum(1 << int(perm[p]) for p in range(len(perm)) if mask >> p & 1)


def _map_position(perm, p: Position) -> Position:
    white, black = _map_mask(perm, p.white), _map_mask(perm, p.black)
    return Position(p.variant, white, black, p.white_hand, p.black_hand, p.white_to_move)


def _map_move(perm, move: Move) -> Move:
    origin = None if move.origin is None else int(perm[move.origin])
    removed = tuple(sorted(int(perm[q]) for q in move.removed))
    return Move(origin, int(perm[move.target]), removed)


VARIANT_NAMES = sorted(VARIANTS)


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_symmetries_map_moves_outcomes_and_successors(name):
    variant = VARIANTS[name]

    @SETTINGS
    @given(positions(variant))
    def check(p: Position):
        p.validate()
        after = dict(successors(p))
        for perm in variant.board.symmetries:
            image = _map_position(perm, p)
            assert outcome(image) == outcome(p)
            expected = {_map_move(perm, m): _map_position(perm, q) for m, q in after.items()}
            assert dict(successors(image)) == expected

    check()


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_notation_round_trips(name):
    variant = VARIANTS[name]

    @SETTINGS
    @given(positions(variant))
    def check(p: Position):
        text = str(p)
        assert Position.parse(text, variant) == p
        assert Position.parse(text, name) == p
        for move in legal_moves(p):
            assert parse_move(move.text(p.board), p) == move
        picture = p.diagram()
        assert picture.count("W") == p.white.bit_count()
        assert picture.count("B") == p.black.bit_count()
        assert picture.count(".") == p.board.n - p.white.bit_count() - p.black.bit_count()

    check()


def test_move_lists_replay_to_the_same_position():
    rng = random.Random(7)
    for variant in VARIANTS.values():
        for _ in range(20):
            p, record = Position.start(variant), []
            for _ in range(rng.randrange(40)):
                moves = successors(p)
                if not moves:
                    break
                move, p = rng.choice(moves)
                record.append(move.text(variant.board))
            assert Position.parse(" ".join(record), variant) == p


@pytest.mark.parametrize(
    ("board", "size"), [("nine", 16), ("nine-diagonal", 16), ("six", 16), ("three", 8)]
)
def test_automorphism_group_size(board, size):
    b = BOARDS[board]
    assert len(b.symmetries) == size
    edges = {frozenset(e) for e in b.edges}
    mills = {frozenset(m) for m in b.mills}
    for perm in b.symmetries:
        assert {frozenset(int(perm[p]) for p in e) for e in edges} == edges
        assert {frozenset(int(perm[p]) for p in m) for m in mills} == mills


def test_nine_board_points_and_mills():
    b = BOARDS["nine"]
    assert b.points == tuple(
        "a1 a4 a7 d7 g7 g4 g1 d1 b2 b4 b6 d6 f6 f4 f2 d2 c3 c4 c5 d5 e5 e4 e3 d3".split()
    )
    assert b.coords[b.index_of["a7"]] == (0, 6)  # outer top left
    assert b.coords[b.index_of["d7"]] == (3, 6)  # outer top middle
    mills = {frozenset(b.points[p] for p in m) for m in b.mills}
    assert len(mills) == 16
    for connector in ("a4 b4 c4", "d7 d6 d5", "g4 f4 e4", "d1 d2 d3"):
        assert frozenset(connector.split()) in mills
    assert frozenset({"a7", "b6", "c5"}) not in mills
    assert not b.adjacency[b.index_of["a7"]] >> b.index_of["b6"] & 1  # corners not joined
    assert len(b.edges) == 32


def test_diagonal_board_adds_four_diagonal_mills():
    b = BOARDS["nine-diagonal"]
    mills = {frozenset(b.points[p] for p in m) for m in b.mills}
    assert len(mills) == 20
    for diagonal in ("a1 b2 c3", "a7 b6 c5", "g7 f6 e5", "g1 f2 e3"):
        assert frozenset(diagonal.split()) in mills
    assert mills > {frozenset(b.points[p] for p in m) for m in BOARDS["nine"].mills}


def test_six_and_three_boards():
    six = BOARDS["six"]
    assert set(six.points) == {f"{f}{r}" for f in "abcde" for r in "12345"} - {
        "a2", "a4", "b1", "b5", "c3", "d1", "d5", "e2", "e4",
    }  # fmt: skip
    assert len(six.mills) == 8
    three = BOARDS["three"]
    assert set(three.points) == {f"{f}{r}" for f in "abc" for r in "123"}
    assert len(three.mills) == 8
    centre = three.index_of["b2"]
    assert int(three.adjacency[centre]).bit_count() == 8
