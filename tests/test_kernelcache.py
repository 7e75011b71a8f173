"""``morris_solver.kernelcache``: cached kernels are dropped exactly when any source changes, in
the folder Numba actually caches them in, which is the user's cache folder
(``morris_solver.cachedir``), never the installed package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest
from numba.core.caching import _CacheLocator

import morris_solver
from morris_solver.cachedir import cache_dir
from morris_solver.kernelcache import STAMP, drop_stale_kernels, kernel_cache, sources_digest

PACKAGE = Path(morris_solver.__file__).resolve().parent


def _package(tmp_path):
    package = tmp_path / "pkg"
    cache = package / "__pycache__"
    cache.mkdir(parents=True)
    (package / "movegen.py").write_text("def gen(): return 1\n")
    (package / "retrograde.py").write_text("from .movegen import gen\n")
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

    # a change in a module the kernels only inline from, not in their own file
    (package / "movegen.py").write_text("def gen(): return 2\n")
    assert drop_stale_kernels(package, cache)
    assert _kernels(cache) == []
    assert (cache / STAMP).read_text() == sources_digest(package)
    assert not drop_stale_kernels(package, cache)


def test_a_new_module_changes_the_digest_and_other_files_are_kept(tmp_path):
    package, cache = _package(tmp_path)
    (cache / "movegen.cpython-311.pyc").write_bytes(b"bytecode")
    before = sources_digest(package)
    (package / "bits.py").write_text("")
    assert sources_digest(package) != before
    drop_stale_kernels(package, cache)
    assert (cache / "movegen.cpython-311.pyc").exists()


def test_an_unwritable_cache_is_not_an_error(tmp_path):
    package, _ = _package(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert drop_stale_kernels(package, blocker / "cache")


def test_the_stamp_is_kept_where_numba_caches_the_kernels(tmp_path, monkeypatch):
    """By default the stamp guards the folder Numba picks: under its NUMBA_CACHE_DIR, in
    the sub-folder Numba names after the package's path; the package stays untouched."""
    package, in_tree = _package(tmp_path)
    root = tmp_path / "numba-cache"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(root))  # Numba is imported here
    cache = kernel_cache(package, str(root))
    numba_names = _CacheLocator.get_suitable_cache_subpath(str(package / "retrograde.py"))
    assert cache == root / numba_names
    assert drop_stale_kernels(package)
    assert (cache / STAMP).read_text() == sources_digest(package)
    assert list(in_tree.iterdir()) == []
    (cache / "retrograde.level_pass-1.py311.nbi").write_bytes(b"machine code")
    assert not drop_stale_kernels(package)
    (package / "movegen.py").write_text("def gen(): return 2\n")
    assert drop_stale_kernels(package)
    assert _kernels(cache) == []


def test_numba_falls_back_to_the_package_folder_and_so_does_the_stamp(tmp_path):
    package, in_tree = _package(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert kernel_cache(package, str(blocker)) == in_tree  # Numba's next candidate


def _in_a_new_process(code: str, tmp_path: Path, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("NUMBA_CACHE_DIR", "MORRIS_CACHE_DIR", "XDG_CACHE_HOME")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=tmp_path, env={**clean, **env})
    return done.stdout.splitlines()


# where Numba caches a kernel of morris_solver.indexing, asked of Numba; where the stamp is
KERNEL_AND_STAMP = """
import os, morris_solver.indexing as ix
from pathlib import Path
from morris_solver.kernelcache import STAMP
print(os.environ["NUMBA_CACHE_DIR"])
cache = Path(ix.canonical_indices._cache._cache_path)
print(cache)
print((cache / STAMP).is_file())
"""


@pytest.mark.parametrize("numba_first", [False, True])
def test_import_solver_points_numba_at_the_cache_folder(tmp_path, numba_first):
    code = ("import numba\n" if numba_first else "") + KERNEL_AND_STAMP
    root, cache, stamped = _in_a_new_process(code, tmp_path, MORRIS_CACHE_DIR=str(tmp_path / "c"))
    assert root == str(tmp_path / "c" / "numba")
    assert Path(cache).parent == Path(root)
    assert stamped == "True"
    assert Path(cache) == kernel_cache(PACKAGE, root)


def test_a_users_numba_cache_dir_is_kept(tmp_path):
    root, cache, stamped = _in_a_new_process(
        KERNEL_AND_STAMP, tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "mine"),
        MORRIS_CACHE_DIR=str(tmp_path / "c"),
    )
    assert root == str(tmp_path / "mine") and Path(cache).parent == Path(root)
    assert stamped == "True"


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
    from morris_solver.index_format import index_tables
    from morris_solver.variants import get_variant

    monkeypatch.setenv("MORRIS_CACHE_DIR", str(tmp_path))
    board = get_variant("three").board
    built = index_tables.__wrapped__(board, 3)  # past the in-memory cache
    [stored] = (tmp_path / "index").glob("index-*.npz")
    loaded = index_tables.__wrapped__(board, 3)
    assert all((a == b).all() for a, b in zip(built[1:], loaded[1:], strict=True))
    assert stored.exists()
