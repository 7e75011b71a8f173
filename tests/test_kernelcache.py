"""``morris_solver.core.kernelcache``: cached kernels are dropped exactly when any source changes;
they are cached in the user's cache folder (``morris_solver.core.cachedir``), never the
installed package, in a folder of the name the package was imported under; and
importing the package changes nothing of the process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import morris_solver
from morris_solver.core.cachedir import cache_dir
from morris_solver.core.kernelcache import STAMP, drop_stale_kernels, sources_digest

PACKAGE = Path(morris_solver.__file__).resolve().parent


def _package(tmp_path):
    """A package laid out in layers, as ours: the kernels of one subpackage inline a
    function of another."""
    package = tmp_path / "pkg"
    cache = package / "__pycache__"
    cache.mkdir(parents=True)
    for layer in ("index", "solving"):
        (package / layer).mkdir()
    (package / "index" / "movegen.py").write_text("def gen(): return 1\n")
    (package / "solving" / "retrograde.py").write_text("from ..index.movegen import gen\n")
    return package, cache


def _kernels(cache):
    return sorted(p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc"))


def test_a_change_in_any_source_drops_every_cached_kernel(tmp_path):
    package, cache = _package(tmp_path)
    assert drop_stale_kernels(package, cache)  # no stamp yet: nothing is trusted
    for name in ("retrograde.level_pass-1.py311.nbi", "retrograde.level_pass-1.py311.1.nbc"):
        (cache / name).write_bytes(b"machine code")
    assert not drop_stale_kernels(package, cache)  # same sources: the kernels stay
    assert len(_kernels(cache)) == 2

    # a change in a module the kernels only inline from, not in their own file, nor in
    # their own subpackage
    (package / "index" / "movegen.py").write_text("def gen(): return 2\n")
    assert drop_stale_kernels(package, cache)
    assert _kernels(cache) == []
    assert (cache / STAMP).read_text() == sources_digest(package)
    assert not drop_stale_kernels(package, cache)


def test_a_new_module_changes_the_digest_and_other_files_are_kept(tmp_path):
    package, cache = _package(tmp_path)
    (cache / "movegen.cpython-311.pyc").write_bytes(b"bytecode")
    before = sources_digest(package)
    (package / "core").mkdir()
    (package / "core" / "bits.py").write_text("")
    assert sources_digest(package) != before
    # a module moved to another subpackage, the same source
    moved = sources_digest(package)
    (package / "core" / "bits.py").rename(package / "index" / "bits.py")
    assert sources_digest(package) not in (before, moved)
    drop_stale_kernels(package, cache)
    assert (cache / "movegen.cpython-311.pyc").exists()


def test_an_unwritable_cache_is_not_an_error(tmp_path):
    package, _ = _package(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert drop_stale_kernels(package, blocker / "cache")


def test_every_kernel_of_the_package_uses_its_locator():
    """``bits`` installs the locator; a kernel module that defined a kernel before
    importing it would cache where Numba chooses (the installed package, say)."""
    import importlib

    from morris_solver.core.kernelcache import PackageLocator, kernel_cache

    # the package's one cache folder, whichever subpackage defines the kernel
    folder = kernel_cache(PackageLocator._folder, "morris_solver")
    found, layers = 0, set()
    for module in sorted(PACKAGE.rglob("*.py")):
        if "cache=True" not in module.read_text() or module.stem == "kernelcache":
            continue
        name = ".".join(["morris_solver", *module.relative_to(PACKAGE).with_suffix("").parts])
        loaded = importlib.import_module(name)
        for value in vars(loaded).values():
            cache = getattr(value, "_cache", None)
            if isinstance(value, numba.core.registry.CPUDispatcher) and hasattr(cache, "_impl"):
                assert isinstance(cache._impl.locator, PackageLocator), (module, value)
                assert cache._cache_path == str(folder), (module, value)
                found += 1
                layers.add(module.parent.name)
    assert found > 50
    assert {"index", "tables", "solving", "search", "play", "check"} <= layers


def test_the_kernel_modules_have_distinct_file_names():
    """Numba names a cached kernel by its module's file name and the function, not by the
    folder, and the package's kernels share one cache folder: two kernel modules of one
    name in two subpackages would overwrite each other's kernels."""
    modules = [path for path in PACKAGE.rglob("*.py") if "cache=True" in path.read_text()]
    names = [path.name for path in modules]
    assert len(names) == len(set(names)) > 5, sorted(names)


def _in_a_new_process(code: str, tmp_path: Path, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("NUMBA_CACHE_DIR", "MORRIS_CACHE_DIR", "XDG_CACHE_HOME",
                          "NUMBA_THREADING_LAYER")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env={**clean, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


# where Numba caches a kernel of morris_solver.index.indexing, asked of Numba; where the stamp is
KERNEL_AND_STAMP = """
import os, morris_solver.index.indexing as ix
from pathlib import Path
from morris_solver.core.kernelcache import STAMP
cache = Path(ix.canonical_indices._cache._cache_path)
print(cache)
print((cache / STAMP).is_file())
"""


@pytest.mark.parametrize("numba_first", [False, True])
def test_the_kernels_cache_in_the_cache_folder(tmp_path, numba_first):
    code = ("import numba\n" if numba_first else "") + KERNEL_AND_STAMP
    cache, stamped = _in_a_new_process(code, tmp_path, MORRIS_CACHE_DIR=str(tmp_path / "c"))
    assert Path(cache).parent == tmp_path / "c" / "numba"
    assert Path(cache).name.startswith("morris_solver_")
    assert stamped == "True"


def test_a_users_numba_cache_dir_is_kept(tmp_path):
    cache, stamped = _in_a_new_process(
        KERNEL_AND_STAMP, tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "mine"),
        MORRIS_CACHE_DIR=str(tmp_path / "c"),
    )
    assert Path(cache).parent == tmp_path / "mine"
    assert stamped == "True"


SETTINGS = """
import os, numba
before = dict(os.environ), numba.config.THREADING_LAYER, numba.config.CACHE_DIR
import morris_solver, morris_solver.solving.generate
from morris_solver import Position
after = dict(os.environ), numba.config.THREADING_LAYER, numba.config.CACHE_DIR
print(before == after)
"""


def test_importing_the_package_changes_no_setting_of_the_process(tmp_path):
    assert _in_a_new_process(SETTINGS, tmp_path) == ["True"]


# a kernel whose cached index names the package's modules (its IndexTables argument)
RUN_KERNEL = """
import importlib, sys
import numpy as np
name = sys.argv[1]
if name == "solver":
    sys.path.insert(0, sys.argv[2])
ix = importlib.import_module(name + ".index.indexing")
variant = importlib.import_module(name + ".rules.variants").get_variant("three")
index_format = importlib.import_module(name + ".index.index_format")
T = index_format.index_tables(variant.board, variant.stones)
ix.canonical_indices(T, 1, 1, np.array([1], np.uint64), np.array([2], np.uint64))
print(ix.canonical_indices._cache._cache_path)
"""


def test_a_kernel_cached_under_another_module_name_is_not_loaded(tmp_path):
    """The checkout's ``solver/`` imported as ``solver`` caches kernels that refer to
    ``solver.index.index_format``: ``morris_solver`` must not load them (it failed with
    ``No module named 'solver'``)."""
    env = {"MORRIS_CACHE_DIR": str(tmp_path / "c")}
    checkout = str(PACKAGE.parent)
    [as_solver] = _in_a_new_process(RUN_KERNEL.replace("sys.argv[1]", "'solver'").replace(
        "sys.argv[2]", repr(checkout)), tmp_path, **env)
    [as_package] = _in_a_new_process(RUN_KERNEL.replace("sys.argv[1]", "'morris_solver'"),
                                     tmp_path, **env)
    assert as_solver != as_package
    assert Path(as_solver).parent == Path(as_package).parent


def test_the_cache_folder(monkeypatch, tmp_path):
    for name in ("MORRIS_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if os.name != "nt":
        assert cache_dir() == tmp_path / "home" / ".cache" / "morris-tablebase"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # ignored, as the XDG rules say
    if os.name != "nt":
        assert cache_dir() == tmp_path / "home" / ".cache" / "morris-tablebase"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "morris-tablebase"
    monkeypatch.setenv("MORRIS_CACHE_DIR", str(tmp_path / "chosen"))
    assert cache_dir() == tmp_path / "chosen"


def test_index_tables_are_kept_in_the_cache_folder(monkeypatch, tmp_path):
    from morris_solver.index.index_format import index_tables
    from morris_solver.rules.variants import get_variant

    monkeypatch.setenv("MORRIS_CACHE_DIR", str(tmp_path))
    board = get_variant("three").board
    built = index_tables.__wrapped__(board, 3)  # past the in-memory cache
    [stored] = (tmp_path / "index").glob("index-*.npz")
    loaded = index_tables.__wrapped__(board, 3)
    assert all((a == b).all() for a, b in zip(built[1:], loaded[1:], strict=True))
    assert stored.exists()


def test_use_workqueue_selects_the_layer_unless_the_user_chose_one(monkeypatch):
    import numba

    from morris_solver.core.threads import use_workqueue

    monkeypatch.setenv("NUMBA_THREADING_LAYER", "omp")
    use_workqueue()
    assert os.environ["NUMBA_THREADING_LAYER"] == "omp"
    monkeypatch.delenv("NUMBA_THREADING_LAYER")
    monkeypatch.setattr(numba.config, "THREADING_LAYER", "default")
    use_workqueue()
    assert os.environ["NUMBA_THREADING_LAYER"] == "workqueue"
    assert numba.config.THREADING_LAYER == "workqueue"
