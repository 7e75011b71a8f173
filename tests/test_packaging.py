"""The package as users install it: the wheel carries every module, the published
results and statistics, which load from the installed copy in any folder, its license
and its type hints' marker; an installed copy that cannot be written runs and writes
nothing into itself; the public names of ``morris_solver`` import on first use; an
editable install leads static tools to the repository's files."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import morris_solver

ROOT = Path(__file__).resolve().parent.parent
INSTALLED = {"solver": "morris_solver", "cli": "morris_cli", "cli/web": "morris_cli/web"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the sources (the build writes into its tree)."""
    # built offline with this environment's setuptools: the license fields need 77 (PEP 639)
    pytest.importorskip("setuptools", minversion="77")
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for package in ("solver", "cli", "data/stats"):
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(src)],
        check=True, capture_output=True,
    )
    return next(out.glob("*.whl"))


def test_the_wheel_holds_every_module_and_the_published_results(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, package in INSTALLED.items():
        for path in (ROOT / folder).glob("*.py"):
            assert f"{package}/{path.name}" in names
    modules = sorted((ROOT / "solver").glob("*/*.py"))  # the library's layers
    assert len(modules) > 45
    for path in modules:
        assert f"morris_solver/{path.relative_to(ROOT / 'solver').as_posix()}" in names
    assert "morris_solver/check/known_results.toml" in names
    assert {"morris_solver/py.typed", "morris_cli/py.typed"} <= names  # PEP 561
    for path in (ROOT / "cli" / "web" / "static").iterdir():
        assert f"morris_cli/web/static/{path.name}" in names  # the page works when installed
    assert not any(name.endswith(".h5") for name in names)


def test_the_wheel_ships_the_published_statistics_once(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    published = sorted(path.name for path in (ROOT / "data" / "stats").glob("*.json"))
    assert {"six.json", "nine.json", "three.json"} <= set(published)
    prefix = "morris_solver/published_stats/"
    shipped = sorted(name.removeprefix(prefix) for name in names
                     if name.startswith(prefix) and name.endswith(".json"))
    assert shipped == published
    assert not (ROOT / "solver" / "published_stats").exists()  # mapped, not copied


def test_the_wheel_installs_exactly_the_intended_import_names(wheel):
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        [top_level] = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        listed = set(whl.read(top_level).decode().split())
    tops = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    # this project's own names: PyPI's web.py ships a top-level `web` and solver 0.0.4 a
    # top-level `solver`, which would overwrite ours or be overwritten
    assert tops == listed == {"morris_solver", "morris_cli"}


def test_the_wheel_carries_its_license(wheel):
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(whl.read(metadata).decode())
        [license_file] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        text = whl.read(license_file).decode()
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert text == (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the morris-tablebase" in text


def _listing(folder: Path) -> list[tuple[str, int, int, int]]:
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns,
                   p.stat().st_mode) for p in folder.rglob("*"))


def test_a_read_only_install_writes_only_into_the_cache_folder(wheel, tmp_path, table_paths):
    """Installed where it cannot write (a root-owned site-packages, an image), the package
    runs, and what it derives at run time (index tables, compiled kernels) goes to
    ``MORRIS_CACHE_DIR``: nothing new appears in the installed copy (compared file by
    file, since root, which the tests may run as, ignores the missing write bits) nor in
    the home folder."""
    site, cache, home, elsewhere = (tmp_path / n for n in ("site", "cache", "home", "elsewhere"))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
         str(site), str(wheel)],
        check=True, capture_output=True,
    )
    home.mkdir()
    elsewhere.mkdir()
    table = elsewhere / "three.h5"
    shutil.copy(table_paths["three"], table)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    # Python's own bytecode cache is not the package's doing (pip compiled it anyway)
    env.update(PYTHONPATH=str(site), MORRIS_CACHE_DIR=str(cache), HOME=str(home),
               PYTHONDONTWRITEBYTECODE="1")

    def morris(*args: str) -> str:
        done = subprocess.run([str(site / "bin" / "morris"), *args], cwd=elsewhere,
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    subprocess.run(["chmod", "-R", "a-w", str(site)], check=True)
    try:
        before = _listing(site)
        # cold: builds the index tables, compiling a kernel to do it
        assert "a3  draw" in morris("probe", "three", "W:a1 B:b2 w h:2,2", "--db", str(table))
        # the statistics the wheel ships, by the variant's name
        assert morris("info", str(table), "--check-stats", "three").startswith(
            f"{table} matches the reference statistics of three: all 7 sectors agree")
        assert _listing(site) == before
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(site)], check=True)
    assert list(home.iterdir()) == []
    # the index tables and Numba's kernels (with the hash of the sources they were
    # compiled from) are in the cache folder
    assert list((cache / "index").glob("index-*.npz"))
    [kernels] = (cache / "numba").iterdir()
    assert kernels.name.startswith("morris_solver_")
    assert (kernels / "kernel-sources.sha256").exists() and list(kernels.glob("*.nbi"))


def test_the_installed_package_reads_its_results_from_any_folder(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
         str(target), str(wheel)],
        check=True, capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("import morris_solver.check.known as k; r = k.known_results(); "
            "print(k.__file__); print(r['three']['start'], r['six']['start'])")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(target), MORRIS_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True,
        check=True, env=env,
    )
    module_file, starts = done.stdout.splitlines()
    assert Path(module_file).is_relative_to(target)
    assert starts == "win draw"


def test_one_copy_of_the_published_results():
    assert not (ROOT / "data" / "known_results.toml").exists()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package_data = config["tool"]["setuptools"]["package-data"]
    assert package_data["morris_solver"] == ["py.typed"]
    assert package_data["morris_solver.check"] == ["known_results.toml"]
    assert [p.relative_to(ROOT).as_posix() for p in (ROOT / "solver").rglob("*.toml")] == [
        "solver/check/known_results.toml"]
    assert not config["project"]["requires-python"].count("<")


def test_public_names_import_on_first_use():
    from morris_solver import Position, Tablebase, solve

    assert Tablebase.__module__ == "morris_solver.query.probe"
    assert Position.__module__ == "morris_solver.rules.position"
    assert solve.__module__ == "morris_solver.solving.generate"
    assert set(morris_solver.__all__) <= set(dir(morris_solver))
    assert morris_solver.__all__ == sorted(morris_solver._EXPORTS)
    for name, module in morris_solver._EXPORTS.items():
        value = getattr(morris_solver, name)
        defining = importlib.import_module(f"morris_solver.{module}")
        assert value is getattr(defining, name), name  # the module's own object
        # defined there, not re-exported from elsewhere (a constant has no __module__)
        assert getattr(value, "__module__", defining.__name__) == defining.__name__, name
        assert vars(morris_solver)[name] is value, name  # kept after the first use
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        morris_solver.nothing  # noqa: B018


def test_no_subpackage_hides_a_public_name():
    """Importing a subpackage sets it as an attribute of the package, which would hide a
    public name of the same spelling from ``__getattr__`` (a layer named ``solve`` made
    ``from morris_solver import solve`` return the subpackage)."""
    import morris_solver.solving.generate  # noqa: F401

    subpackages = {path.parent.name for path in (ROOT / "solver").glob("*/__init__.py")}
    assert len(subpackages) >= 9
    assert not subpackages & set(morris_solver._EXPORTS)
    assert morris_solver.solve.__module__ == "morris_solver.solving.generate"



def test_public_names_are_typed_for_static_tools():
    """Each name imported on first use is imported under ``TYPE_CHECKING`` too, as an
    explicit re-export, so that mypy and editors see ``morris_solver.Tablebase`` as the
    class, not as the ``object`` the module's ``__getattr__`` returns."""
    tree = ast.parse((ROOT / "solver" / "__init__.py").read_text())
    [block] = [node for node in tree.body
               if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"]
    typed = {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom)
             for alias in node.names if alias.asname == alias.name}
    assert typed == morris_solver._EXPORTS

def _editable() -> bool:
    """Whether this environment's morris-tablebase is an editable install (PEP 660: the
    ``direct_url.json`` pip wrote says so; a source tree's ``*.egg-info`` has none)."""
    for dist in importlib.metadata.distributions(name="morris-tablebase"):
        if text := dist.read_text("direct_url.json"):
            return json.loads(text).get("dir_info", {}).get("editable", False)
    return False


@pytest.mark.skipif(not _editable(), reason="morris-tablebase is not installed in editable "
                    "mode here: an installed copy is the wheel's, tested above")
def test_the_editable_install_leads_static_tools_to_the_repository():
    """mypy, editors and other static tools find a module as a file on ``sys.path`` (the
    ``.pth`` files' folders included) and run no import hook: each of the repository's
    modules must be found so, under its installed name, as the repository's own file
    (``make install``: setuptools' strict editable mode, docs/architecture.md)."""
    for top, folder in (("morris_solver", ROOT / "solver"), ("morris_cli", ROOT / "cli")):
        spec = importlib.machinery.PathFinder.find_spec(top)
        assert spec is not None and spec.origin, (
            f"no {top} on sys.path: the editable install is one that only an import hook "
            "resolves; run `make install` (setuptools' strict editable mode)")
        installed = Path(spec.origin).parent
        for path in [*folder.rglob("*.py"), folder / "py.typed"]:
            if "__pycache__" in path.parts:
                continue
            link = installed / path.relative_to(folder)
            assert link.resolve() == path.resolve(), (
                f"{link} does not lead to {path.relative_to(ROOT)}: a module added since "
                "the editable install was made? run `make install` again")
