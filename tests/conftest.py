"""What the tests share, built once per session: small solved tables (Three Men's Morris
whole, Six Men's Morris moving sectors up to 4 stones a side, Nine Men's Morris 3-vs-3;
Six Men's Morris whole, placement included), the reference solver's values of Three
Men's Morris and of the 3-vs-3 sector, and published figures to compare with."""

from __future__ import annotations

from pathlib import Path

import pytest
from reference_solver import solve_reference

from morris_solver.check.known import known_results
from morris_solver.core.threads import use_workqueue
from morris_solver.rules.variants import get_variant
from morris_solver.solving.generate import solve

use_workqueue()  # as the morris command does, before the fixtures' first parallel kernel

TABLES = {
    "three": {},
    "six": {"phase": "moving", "max_stones": 4},
    "nine": {"phase": "moving", "max_stones": 3},
}


@pytest.fixture(scope="session")
def table_paths(tmp_path_factory) -> dict[str, Path]:
    """Paths of the solved test tables by variant name (read-only: copy to modify)."""
    folder = tmp_path_factory.mktemp("tables")
    paths = {}
    for name, options in TABLES.items():
        paths[name] = folder / f"{name}.h5"
        solve(name, paths[name], show_progress=False, log=lambda s: None, **options)
    return paths


@pytest.fixture(scope="session")
def six_whole_path(tmp_path_factory) -> Path:
    """Six Men's Morris solved whole, moving and placement phases (read-only)."""
    path = tmp_path_factory.mktemp("six-whole") / "six.h5"
    solve("six", path, show_progress=False, log=lambda s: None)
    return path


@pytest.fixture(scope="session")
def published_nine_33() -> dict:
    """The published statistics of Nine Men's Morris' 3-vs-3 sector (Gasser; Malom), as
    ``solver/check/known_results.toml`` gives them: the figures a test compares with."""
    return known_results()["nine"]["sectors"]["3_3_0_0"]


@pytest.fixture(scope="session")
def reference_three() -> dict:
    """The reference solver's values of Three Men's Morris, every sector."""
    return solve_reference(get_variant("three"), [(0, 0, 3, 3)])


@pytest.fixture(scope="session")
def reference_nine_33() -> dict:
    """The reference solver's values of Nine Men's Morris' 3-vs-3 sector."""
    return solve_reference(get_variant("nine"), [(3, 3, 0, 0)])
