"""``solver.kernelcache``: cached kernels are dropped exactly when any source changes."""

from __future__ import annotations

from solver.kernelcache import STAMP, drop_stale_kernels, sources_digest


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
    assert drop_stale_kernels(package)  # no stamp yet: nothing is trusted
    for name in ("retrograde.level_pass-1.py311.nbi", "retrograde.level_pass-1.py311.1.nbc"):
        (cache / name).write_bytes(b"machine code")
    assert not drop_stale_kernels(package)  # same sources: the kernels stay
    assert len(_kernels(cache)) == 2

    # a change in a module the kernels only inline from, not in their own file
    (package / "movegen.py").write_text("def gen(): return 2\n")
    assert drop_stale_kernels(package)
    assert _kernels(cache) == []
    assert (cache / STAMP).read_text() == sources_digest(package)
    assert not drop_stale_kernels(package)


def test_a_new_module_changes_the_digest_and_other_files_are_kept(tmp_path):
    package, cache = _package(tmp_path)
    (cache / "movegen.cpython-311.pyc").write_bytes(b"bytecode")
    before = sources_digest(package)
    (package / "bits.py").write_text("")
    assert sources_digest(package) != before
    drop_stale_kernels(package)
    assert (cache / "movegen.cpython-311.pyc").exists()


def test_an_unwritable_cache_is_not_an_error(tmp_path):
    package, _ = _package(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert drop_stale_kernels(package, blocker / "cache")
