"""The fast solver against the independent reference solver, position by position.

Every position the reference lists (all of them, no symmetry) is looked up in the fast
solver's tables through its canonical index; value and distance must agree exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_solver import solve_reference

from morris_solver.index.index_format import index_tables
from morris_solver.index.indexing import canonical_indices
from morris_solver.rules.sectors import solve_plan
from morris_solver.rules.variants import VARIANTS, Variant
from morris_solver.solving.generate import solve
from morris_solver.tables.storage import TableFile


def _compare(variant, path, reference):
    table = TableFile.open(path)
    stored = table.sectors()
    T = index_tables(variant.board, variant.stones)
    checked = 0
    for sector, ref in reference.items():
        assert sector in stored, f"fast solver did not produce sector {sector}"
        codes = table.read_sector(sector)
        idx = canonical_indices(T, sector[0], sector[1], ref.mover, ref.other)
        fast = codes[idx]
        bad = np.nonzero(fast != ref.code)[0]
        if len(bad):
            i = bad[0]
            pytest.fail(
                f"{variant.name} sector {sector}: {len(bad)} of {len(ref.code)} positions differ; "
                f"first mover={variant.board.names(int(ref.mover[i]))} "
                f"other={variant.board.names(int(ref.other[i]))}: "
                f"fast {fast[i]} reference {ref.code[i]}"
            )
        checked += len(ref.code)
    return checked


def test_three_mens_morris_whole_game_agrees(table_paths, reference_three):
    variant = VARIANTS["three"]
    assert set(reference_three) == {s for g in solve_plan(variant) for s in g}
    assert _compare(variant, table_paths["three"], reference_three) > 1000


def test_six_mens_morris_moving_sectors_up_to_four_agree(table_paths):
    variant = VARIANTS["six"]  # the session's table: moving sectors up to 4 stones a side
    reference = solve_reference(variant, [(4, 4, 0, 0), (4, 3, 0, 0), (3, 4, 0, 0)])
    assert _compare(variant, table_paths["six"], reference) == 1_861_860


def test_six_mens_morris_late_placement_sectors_agree(tmp_path):
    variant = VARIANTS["six"]
    path = tmp_path / "six.h5"
    roots = [(2, 4, 2, 1), (2, 3, 1, 1)]  # Black to move / White to move, stones captured
    reference = solve_reference(variant, roots)
    for root in roots:
        solve(variant, path, sector=root, show_progress=False, log=lambda s: None)
    assert _compare(variant, path, reference) > 100_000


@pytest.mark.parametrize("name", ["nine-doublemill", "nine-noflying", "nine-diagonal"])
def test_rule_variants_three_three_agree(tmp_path, name):
    variant = VARIANTS[name]
    path = tmp_path / f"{name}.h5"
    solve(variant, path, max_stones=3, phase="moving", show_progress=False, log=lambda s: None)
    reference = solve_reference(variant, [(3, 3, 0, 0)])
    assert _compare(variant, path, reference) == 2_691_920


@pytest.mark.parametrize(
    "variant",
    [
        VARIANTS["three-holes"],  # Nine Holes: every stone flies, no diagonal lines
        # every rule flag on the 3x3 board with 5 stones a side, whole games: removal
        # protection, double removals, no captures while placing, full-board draws
        Variant("t-double", "three", 5, double_mill_removes=2),
        Variant("t-quiet", "three", 5, flying=False, placement_captures=False),
        Variant("t-fullboard", "three", 5, flying=False, full_board_draw=True),
    ],
    ids=lambda v: v.name,
)
def test_small_variants_whole_game_agree(tmp_path, variant):
    path = tmp_path / f"{variant.name}.h5"
    solve(variant, path, show_progress=False, log=lambda s: None)
    reference = solve_reference(variant, [(0, 0, variant.stones, variant.stones)])
    # the reference also solves sectors no game reaches (it allows a double removal with
    # fewer than 5 stones): compare every sector of the plan
    plan = {s for g in solve_plan(variant) for s in g}
    assert plan <= set(reference)
    assert _compare(variant, path, {s: reference[s] for s in plan}) > 1000


def test_nine_mens_morris_three_three_agrees_and_matches_published_figures(
    table_paths, reference_nine_33, published_nine_33
):
    variant = VARIANTS["nine"]
    path = table_paths["nine"]  # the session's table: the 3-vs-3 sector
    stats = TableFile.open(path).sectors()[(3, 3, 0, 0)]
    assert {k: stats[k] for k in published_nine_33} == published_nine_33
    assert _compare(variant, path, reference_nine_33) == 2_691_920
