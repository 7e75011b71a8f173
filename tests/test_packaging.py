"""The package as users install it: the wheel carries every module, the published
results and statistics, which load from the installed copy in any folder, and its
license; the public names of ``solver`` import on first use."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import solver

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the sources (the build writes into its tree)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for package in ("solver", "cli", "web", "data/stats"):
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
    for package in ("solver", "cli", "web"):
        for path in (ROOT / package).glob("*.py"):
            assert f"{package}/{path.name}" in names
    assert "solver/known_results.toml" in names
    for path in (ROOT / "web" / "static").iterdir():
        assert f"web/static/{path.name}" in names  # the page works from an installed copy
    assert not any(name.endswith(".h5") for name in names)


def test_the_wheel_ships_the_published_statistics_once(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    published = sorted(path.name for path in (ROOT / "data" / "stats").glob("*.json"))
    assert {"six.json", "nine.json", "three.json"} <= set(published)
    shipped = sorted(name.removeprefix("solver/published_stats/") for name in names
                     if name.startswith("solver/published_stats/") and name.endswith(".json"))
    assert shipped == published
    assert not (ROOT / "solver" / "published_stats").exists()  # mapped, not copied


def test_the_wheel_installs_exactly_the_intended_import_names(wheel):
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        [top_level] = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        listed = set(whl.read(top_level).decode().split())
    tops = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert tops == listed == {"solver", "cli", "web"}


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


def test_the_installed_package_reads_its_results_from_any_folder(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
         str(target), str(wheel)],
        check=True, capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("import solver.known as k; r = k.known_results(); "
            "print(k.__file__); print(r['three']['start'], r['six']['start'])")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True,
        check=True, env={**os.environ, "PYTHONPATH": str(target)},
    )
    module_file, starts = done.stdout.splitlines()
    assert Path(module_file).is_relative_to(target)
    assert starts == "win draw"


def test_one_copy_of_the_published_results():
    assert not (ROOT / "data" / "known_results.toml").exists()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["setuptools"]["package-data"]["solver"] == ["known_results.toml"]
    assert not config["project"]["requires-python"].count("<")


def test_public_names_import_on_first_use():
    from solver import Position, Tablebase, solve

    assert Tablebase.__module__ == "solver.probe"
    assert Position.__module__ == "solver.position"
    assert solve.__module__ == "solver.generate"
    assert set(solver.__all__) <= set(dir(solver))
    for name in solver.__all__:
        assert getattr(solver, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        solver.nothing  # noqa: B018
