"""Checks of the reference solver itself: hand-verified positions, the published Nine
Men's Morris 3-vs-3 statistics, and a Bellman check of stored values against a second,
plain-Python reading of the rules (``python_moves``). The reference is only useful as an
oracle for the fast solver if these hold."""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference_solver import (
    LOSS_NOW,
    python_moves,
    python_terminal,
    solve_reference,
)

from morris_solver.rules.variants import VARIANTS, Variant

NINE, SIX, THREE = VARIANTS["nine"], VARIANTS["six"], VARIANTS["three"]
SIX_MOVING_ROOTS = [(4, 4, 0, 0), (4, 3, 0, 0), (3, 4, 0, 0), (3, 3, 0, 0)]


def _win(plies: int) -> int:
    assert plies % 2 == 1
    return plies + 1


def _loss(plies: int) -> int:
    assert plies % 2 == 0
    return plies + 1


def _pref(code: int) -> tuple:
    """Sort key of a successor code for the player moving into it (smaller is better)."""
    if code == 0:
        return (1, 0)
    return (0, code) if code % 2 == 1 else (2, -code)


def _expected_code(variant, results, sector, mover, other) -> int:
    """The code a position must have given its successors' stored codes."""
    terminal = python_terminal(variant, sector, mover, other)
    if terminal is not None:
        return terminal
    moves = python_moves(variant, sector, mover, other)
    if not moves:
        full = sector[0] + sector[1] == variant.board.n
        return 0 if variant.full_board_draw and full else LOSS_NOW
    codes = []
    for succ, new_mover, new_other in moves:
        if succ[0] + succ[2] < 3:
            codes.append(LOSS_NOW)
        else:
            codes.append(results[succ].code_of(new_mover, new_other))
    best = min(codes, key=_pref)
    return 0 if best == 0 else best + 1


def _check_bellman(variant, results, sample: int | None = None, seed: int = 0) -> int:
    """Every checked position's code equals the best of its successors' (plus one ply)."""
    rng = np.random.default_rng(seed)
    checked = 0
    for sector, sv in sorted(results.items()):
        indices = np.arange(len(sv))
        if sample is not None and len(sv) > sample:
            indices = rng.choice(len(sv), sample, replace=False)
        for i in indices:
            mover, other = int(sv.mover[i]), int(sv.other[i])
            expected = _expected_code(variant, results, sector, mover, other)
            assert int(sv.code[i]) == expected, (
                sector,
                variant.board.names(mover),
                variant.board.names(other),
            )
            checked += 1
    return checked


def _check_complete(variant, results) -> None:
    """Each sector lists every pair of disjoint masks with its popcounts, sorted."""
    n = variant.board.n
    for (w, b, _, _), sv in results.items():
        assert len(sv) == math.comb(n, w) * math.comb(n - w, b)
        assert (np.bitwise_count(sv.mover) == w).all()
        assert (np.bitwise_count(sv.other) == b).all()
        assert (sv.mover & sv.other == 0).all()
        assert (np.diff(sv.keys) > 0).all()
        assert sv.code.dtype == np.uint16


@pytest.fixture(scope="module")
def six_small():
    """The moving sectors with 3..4 stones a side plus a small placement closure."""
    return solve_reference(SIX, SIX_MOVING_ROOTS + [(2, 2, 1, 1)])


# --------------------------------------------------------------------------- Three


def test_three_closure_and_start_value(reference_three):
    assert set(reference_three) == {
        (0, 0, 3, 3), (0, 1, 3, 2), (1, 1, 2, 2), (1, 2, 2, 1),
        (2, 2, 1, 1), (2, 3, 1, 0), (3, 3, 0, 0),
    }  # fmt: skip
    _check_complete(THREE, reference_three)
    start = reference_three[(0, 0, 3, 3)]
    assert len(start) == 1
    # Three Men's Morris is a first-player win: White completes a line on ply 9.
    assert start.code_of(0, 0) == _win(9)


def test_three_hand_checked(reference_three):
    board = THREE.board
    m = board.mask
    moving = reference_three[(3, 3, 0, 0)]
    # c2-c3 completes the diagonal a1-b2-c3.
    assert moving.code_of(m(["a1", "b2", "c2"]), m(["a2", "a3", "b1"])) == _win(1)
    # The other side already has a line: the game is over.
    assert moving.code_of(m(["a2", "b2", "c3"]), m(["a1", "b1", "c1"])) == LOSS_NOW
    # Placing c3 completes the diagonal.
    placing = reference_three[(2, 2, 1, 1)]
    assert placing.code_of(m(["a1", "b2"]), m(["a2", "b1"])) == _win(1)


def test_three_bellman_everywhere(reference_three):
    assert _check_bellman(THREE, reference_three) == sum(len(sv) for sv in reference_three.values())


# --------------------------------------------------------------------------- Nine 3-3


def _orbit_representatives(board, sv):
    """Mask selecting one position per symmetry orbit (the one with the smallest key)."""
    tables = board.sym_byte_tables

    def image(g, masks):
        out = np.zeros_like(masks)
        for k in range(tables.shape[1]):
            out |= tables[g, k][(masks >> (8 * k)) & 255]
        return out

    canonical = sv.keys.copy()
    for g in range(len(tables)):
        np.minimum(canonical, (image(g, sv.mover) << 32) | image(g, sv.other), out=canonical)
    return canonical == sv.keys


def test_nine_33_published_statistics(reference_nine_33, published_nine_33):
    """Gasser / Malom (known_results.toml): positions up to symmetry, wins, losses and
    draws for the side to move, the longest win and loss."""
    assert set(reference_nine_33) == {(3, 3, 0, 0)}
    sv = reference_nine_33[(3, 3, 0, 0)]
    assert len(sv) == 2_691_920
    codes = sv.code[_orbit_representatives(NINE.board, sv)].astype(np.int64)
    wins = codes[(codes > 0) & (codes % 2 == 0)]
    losses = codes[codes % 2 == 1]
    found = {"positions": len(codes), "wins": len(wins), "losses": len(losses),
             "draws": int((codes == 0).sum()), "max_win_plies": int(wins.max() - 1),
             "max_loss_plies": int(losses.max() - 1)}
    assert found == published_nine_33


def test_nine_33_hand_checked(reference_nine_33):
    sv = reference_nine_33[(3, 3, 0, 0)]
    m = NINE.board.mask
    # Flying g7 to a7 closes a1-a4-a7 and leaves the other side with two stones.
    assert sv.code_of(m(["a1", "a4", "g7"]), m(["b4", "d6", "f4"])) == _win(1)
    # No two mover stones share a mill, and the other side threatens both a4 and d1:
    # one block is all the mover has, so it loses after the other side's reply.
    assert sv.code_of(m(["d6", "f4", "c3"]), m(["a1", "a7", "g1"])) == _loss(2)


def test_nine_33_bellman_sample(reference_nine_33):
    _check_bellman(NINE, reference_nine_33, sample=300)


# --------------------------------------------------------------------------- Six


def test_six_closure(six_small):
    assert set(six_small) == set(SIX_MOVING_ROOTS) | {(2, 2, 1, 1), (2, 3, 1, 0)}
    _check_complete(SIX, six_small)


def test_six_blocked_is_lost(six_small):
    m = SIX.board.mask
    corners, midpoints = m(["a1", "a5", "e5", "e1"]), m(["a3", "c5", "e3", "c1"])
    assert six_small[(4, 4, 0, 0)].code_of(corners, midpoints) == LOSS_NOW


def test_six_bellman_sample(six_small):
    _check_bellman(SIX, six_small, sample=300)


# --------------------------------------------------------------------------- other rules


@pytest.mark.parametrize(
    "variant",
    [
        # Captures, flying, two removals for a double mill, a 9-point board that fills up.
        Variant("t-double", "three", 5, double_mill_removes=2),
        Variant("t-quiet", "three", 5, flying=False, placement_captures=False),
        Variant("t-fullboard", "three", 5, flying=False, full_board_draw=True),
    ],
    ids=lambda v: v.name,
)
def test_rule_flags_bellman_everywhere(variant):
    """Tiny games on the 3x3 board exercise every rule branch (removal protection,
    double removal, no placement captures, full-board draws) in a few thousand positions."""
    results = solve_reference(variant, [(0, 0, 5, 5)])
    _check_complete(variant, results)
    _check_bellman(variant, results)
