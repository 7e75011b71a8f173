"""The stored code and the one order of values (solver/rules/values.py), which the probe, the
verifier and the search all rank moves by."""

from __future__ import annotations

import pytest

from morris_solver.rules.values import (
    BIG,
    DRAW_CODE,
    MAX_PLIES,
    PAD,
    Result,
    Value,
    code_of_score,
    move_score,
    negamax_of_code,
)

# every code near both ends; the largest leaves room for one more ply (after_move)
CODES = [*range(0, 300), *range(MAX_PLIES - 300, MAX_PLIES + 1)]


def by_hand(value: Value) -> tuple:
    """The order spelled out: shortest win, then draws, then longest loss."""
    if value.result is Result.WIN:
        return (0, value.plies)
    if value.result is Result.DRAW:
        return (1, 0)
    return (2, -value.plies)


def test_codes_round_trip_and_wins_are_odd():
    for code in CODES:
        value = Value.from_code(code)
        assert value.to_code() == code
        if code != DRAW_CODE:
            assert value.plies == code - 1
            assert (value.result is Result.WIN) == (value.plies % 2 == 1)
    with pytest.raises(ValueError):
        Value.from_code(PAD)


def test_sort_key_and_move_score_order_as_spelled_out():
    values = [Value.from_code(c) for c in CODES]
    assert sorted(values, key=Value.sort_key) == sorted(values, key=by_hand)
    # a move is worth what its successor's value is worth one ply earlier
    for code in CODES:
        moved = Value.from_code(code).after_move()
        assert move_score(code) == moved.sort_key()
        assert code_of_score(move_score(code)) == moved.to_code()
        assert Value.from_score(moved.sort_key()) == moved


def test_negamax_is_the_same_order_reversed():
    values = [Value.from_code(c) for c in CODES]
    negamax = [negamax_of_code(v.to_code()) for v in values]
    keys = [v.sort_key() for v in values]
    for a, ka in zip(negamax, keys, strict=True):
        for b, kb in zip(negamax[::37], keys[::37], strict=True):
            assert (a > b) == (ka < kb)
    assert all(abs(s) <= BIG for s in negamax)
    assert [s for s in negamax if s == 0] == [0]  # only the draw scores 0
