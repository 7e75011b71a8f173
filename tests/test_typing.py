"""Static typing: mypy finds the installed names ``morris_solver`` and ``morris_cli`` as
the repository's files (the strict editable install, docs/architecture.md) and reports
no error in them with the settings of ``[tool.mypy]`` in pyproject.toml."""

from __future__ import annotations

import importlib.machinery
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"


def _found_on_the_path(name: str) -> Path | None:
    """Where a static tool finds the package ``name``: a folder on ``sys.path``."""
    spec = importlib.machinery.PathFinder.find_spec(name)
    return Path(spec.origin).resolve().parent if spec and spec.origin else None


pytest.importorskip("mypy", reason="mypy is not installed (it is in the dev extra)")
pytestmark = pytest.mark.skipif(
    _found_on_the_path("morris_solver") != ROOT / "solver",
    reason="morris_solver on sys.path is not the repository's solver/: an installed copy, "
    "or an editable install that static tools cannot follow (tests/test_packaging.py)")


def _mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(CONFIG), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_mypy_resolves_the_installed_names_to_the_repository(tmp_path):
    """From a folder outside the checkout, as an editor or a user's project would."""
    (tmp_path / "uses.py").write_text(
        "import morris_cli.web.app\nimport morris_solver.query.probe\n")
    done = _mypy("--verbose", "--follow-imports=skip", "--cache-dir", str(tmp_path / "cache"),
                 "uses.py", cwd=tmp_path)
    found = {name: Path(path) for path, name in re.findall(
        r"(?:Skipping|Parsing) (\S+) \((morris_solver\.query\.probe|morris_cli\.web\.app)\)",
        done.stderr)}
    hint = "make install: setuptools' strict editable mode"
    assert done.returncode == 0, f"{done.stdout}\n({hint})"
    assert found.keys() == {"morris_solver.query.probe", "morris_cli.web.app"}, hint
    assert found["morris_solver.query.probe"].resolve() == ROOT / "solver" / "query" / "probe.py"
    assert found["morris_cli.web.app"].resolve() == ROOT / "cli" / "web" / "app.py"


def test_mypy_reports_no_error():
    """Every package of ``[tool.mypy]``; the errors are shown with the repository's paths
    (mypy reports the editable install's links to them)."""
    done = _mypy(cwd=ROOT)
    links = re.compile(r"^\S*build/__editable__[^/]*/(morris_solver|morris_cli)/", re.M)
    report = links.sub(lambda m: {"morris_solver": "solver/", "morris_cli": "cli/"}[m[1]],
                       done.stdout + done.stderr)
    assert done.returncode == 0, report
