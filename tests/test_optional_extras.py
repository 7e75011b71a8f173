"""The suite collects with only the base dependencies and the ``test`` extra: a test that
needs an optional package (the web, redis, cluster, bench or dev extras) asks for it with
``pytest.importorskip``, so that a plain checkout runs what it can and says what it skipped.
Under CI (``CI=true``) every optional package must be installed, so that nothing is
skipped there for want of one."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

# run in a fresh interpreter: refuses every import of the hidden top-level names, then
# collects the suite
COLLECT_WITHOUT = """
import importlib.abc, sys
hidden = set(sys.argv[1].split())

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

for name in [m for m in sys.modules if m.partition(".")[0] in hidden]:
    del sys.modules[name]
sys.meta_path.insert(0, Hide())
import pytest
sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tests"]))
"""


def _distributions(requirements: list[str]) -> set[str]:
    """The distributions these requirements name, with those their extras add
    (``dask[distributed]`` adds ``distributed``); this project's own extras left out."""
    names = set()
    for text in requirements:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if name == canonicalize_name(PYPROJECT["name"]):
            continue
        names.add(name)
        try:
            declared = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # not installed: its extras' packages cannot be installed either
        for extra in requirement.extras:
            for sub in map(Requirement, declared):
                marker = str(sub.marker or "")
                if "extra" in marker and sub.marker.evaluate({"extra": extra}):
                    names.add(canonicalize_name(sub.name))
    return names


def optional_distributions() -> set[str]:
    """Every distribution an extra adds beyond the base dependencies and the test extra."""
    extras = PYPROJECT["optional-dependencies"]
    optional = set().union(*(_distributions(reqs) for name, reqs in extras.items()
                             if name != "test"))
    return optional - _distributions(PYPROJECT["dependencies"] + extras["test"])


def test_the_suite_collects_without_the_optional_packages():
    """Collection with every optional package hidden: no module may import one unguarded
    (directly or through the package it tests), and those that need one are skipped."""
    optional = optional_distributions()
    hidden = sorted(top for top, dists in metadata.packages_distributions().items()
                    if any(canonicalize_name(d) in optional for d in dists))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # an optional package's plugin is hidden too
    done = subprocess.run([sys.executable, "-c", COLLECT_WITHOUT, " ".join(hidden)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "could not import" in done.stdout  # the web tests skipped, not collected


@pytest.mark.skipif(os.environ.get("CI", "").lower() != "true", reason="CI=true only")
def test_ci_has_every_optional_package():
    """Under CI the web, browser, redis and cluster tests run: nothing they import may be
    missing there (CI installs the dev extra)."""
    missing = []
    for name in sorted(optional_distributions()):
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    assert not missing, f"CI=true but not installed: {', '.join(missing)}"
