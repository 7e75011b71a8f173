"""The public Python API as docs/api.md describes it: its example runs and prints what
the page says; a ``Tablebase`` is a context manager and closes for good; every error a
user can meet is exported from ``morris_solver``, each from the module that defines it."""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shutil
from pathlib import Path

import pytest

import morris_solver
from morris_solver import (
    MissingSectorError,
    MorrisError,
    Position,
    Result,
    Tablebase,
    TableError,
    Value,
)

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api.md"


def _blocks(language: str) -> list[str]:
    """The code blocks of docs/api.md fenced as ``language``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", API.read_text(), re.S | re.M)


def test_the_example_of_docs_api_prints_what_the_page_says(table_paths, tmp_path, monkeypatch):
    [example] = _blocks("python")
    [printed] = _blocks("text")
    (tmp_path / "data").mkdir()
    shutil.copy(table_paths["three"], tmp_path / "data" / "three.h5")
    monkeypatch.chdir(tmp_path)  # the example reads data/three.h5, as after `morris solve three`
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(API), "exec"), {"__name__": "docs_api_example"})
    assert out.getvalue() == printed


def test_a_tablebase_is_a_context_manager_that_closes_it(table_paths):
    start = Position.start("three")
    with Tablebase.open(table_paths["three"]) as tb:
        assert not tb.closed
        assert tb.probe(start) == Value(Result.WIN, 9)
        assert tb.cached_bytes > 0
    assert tb.closed and tb.cached_bytes == 0
    assert tb.variant.name == "three" and tb.path == table_paths["three"]  # still answer
    assert "closed" in repr(tb)


def test_an_error_in_the_block_closes_it_and_goes_through(table_paths):
    with pytest.raises(KeyError), Tablebase.open(table_paths["three"]) as tb:
        raise KeyError("inside")
    assert tb.closed


def test_every_query_after_close_raises_a_clear_table_error(table_paths):
    tb = Tablebase.open(table_paths["three"])
    pos = Position.parse("b2 a1", "three")
    assert tb.best_move(pos) is not None
    tb.close()
    tb.close()  # closing again does nothing
    assert tb.closed
    queries = {
        "probe": lambda: tb.probe(pos), "moves": lambda: tb.moves(pos),
        "best_move": lambda: tb.best_move(pos), "evaluate": lambda: tb.evaluate(pos),
        "value_from_successors": lambda: tb.value_from_successors(pos),
        "rule_limits": tb.rule_limits, "rule_probe": lambda: tb.rule_probe(pos),
        "rule_moves": lambda: tb.rule_moves(pos), "rule_best_move": lambda: tb.rule_best_move(pos),
        "sector_statistics": tb.sector_statistics,
        "sector_codes": lambda: tb.sector_codes((1, 1, 2, 2)),
        "may_search": tb.may_search, "warm_up": tb.warm_up,
        "placement_search": lambda: tb.placement_search,
    }
    for name, query in queries.items():
        with pytest.raises(TableError) as closed:
            query()
        assert type(closed.value) is TableError, name  # not a missing sector
        assert str(closed.value) == (f"the Tablebase of {table_paths['three']} is closed: "
                                     "open the file again to query it"), name
    with pytest.raises(TableError, match="is closed"), tb:
        pass  # a closed one cannot be entered either


def test_closing_lets_go_of_what_was_loaded(table_paths):
    tb = Tablebase.open(table_paths["three"])
    tb.sector_codes((1, 1, 2, 2))
    tb.sector_statistics()
    tb.close()
    assert not {"_game", "_rules"} & set(vars(tb))
    assert "search" not in vars(tb._route)


# the errors a user can meet, by the module that defines each (docs/api.md, "Errors")
ERRORS = {
    "MorrisError": "core.errors",
    "PositionError": "core.errors",
    "IllegalMoveError": "core.errors",
    "UnknownVariantError": "rules.variants",
    "TableError": "tables.storage",
    "MissingSectorError": "tables.storage",
    "SearchStopped": "search.search_limits",
    "SearchTimeout": "search.search_limits",
    "SearchCancelled": "search.search_limits",
}


def test_every_error_a_user_can_meet_is_exported():
    for name, module in ERRORS.items():
        error = getattr(morris_solver, name)
        assert error.__module__ == f"morris_solver.{module}", name
        assert issubclass(error, MorrisError) and issubclass(error, ValueError), name
        assert name in morris_solver.__all__
    assert issubclass(MissingSectorError, TableError)
    assert issubclass(morris_solver.SearchTimeout, morris_solver.SearchStopped)
    # no error class of the library is left out: every subclass of MorrisError that a
    # module of solver/ defines (read from the source, nothing imported)
    assert _error_classes() == {name: f"morris_solver.{module}" for name, module in ERRORS.items()}


def _error_classes() -> dict[str, str]:
    """Every class under solver/ that derives from ``MorrisError``, by name, with its
    module's installed name."""
    bases: dict[str, tuple[str, set[str]]] = {}
    for path in (ROOT / "solver").rglob("*.py"):
        parts = path.relative_to(ROOT / "solver").with_suffix("").parts
        module = ".".join(["morris_solver", *parts])
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = (module.removesuffix(".__init__"),
                                    {ast.unparse(base).rpartition(".")[2] for base in node.bases})
    found = {"MorrisError"}
    while grown := {name for name, (_, of) in bases.items() if of & found} - found:
        found |= grown
    return {name: bases[name][0] for name in found}


def test_the_errors_are_raised_where_docs_api_says(table_paths, tmp_path):
    with pytest.raises(morris_solver.UnknownVariantError):
        morris_solver.get_variant("ten")
    with pytest.raises(morris_solver.PositionError):
        Position.parse("W:a1 B:a1 w", "three")
    with pytest.raises(morris_solver.IllegalMoveError):
        morris_solver.Game("three").play("z9")
    with pytest.raises(TableError) as missing_file:
        Tablebase.open(tmp_path / "none.h5")
    assert type(missing_file.value) is TableError
    with Tablebase.open(table_paths["six"]) as six:  # the moving sectors up to 4 stones
        with pytest.raises(MissingSectorError, match="morris solve six") as missing:
            six.probe(Position.parse("W:a1,c1,e1,a3,b2 B:a5,c5,e5 w h:0,0", "six"))
        assert missing.value.sector == (5, 3, 0, 0)
        with pytest.raises(MissingSectorError) as no_rule:
            six.rule_probe(Position.parse("W:a1,c1,e1 B:a5,c5,e5 w h:0,0", "six"))
        assert no_rule.value.sector is None
