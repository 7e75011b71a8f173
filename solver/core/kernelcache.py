"""Where this package's Numba kernels are cached, and keeping that cache consistent
with the package's sources.

Where: the kernels of a package (this one) are cached by ``PackageLocator``, a Numba
cache locator that claims only the functions defined in that package's folder or its
subpackages' folders, all in one ``<root>/<package name>_<sha1 of the folder's path>``,
with ``root`` the user's ``NUMBA_CACHE_DIR`` if set, else the cache folder's ``numba/``
(``cachedir``). So nothing is written into an installed, read-only package (``.ci/run``
checks it), the same through the ``morris`` command and the Python API, and nothing of
the process is changed (no environment variable, no Numba setting): other code's kernels cache where
Numba puts them. Numba's own folder name is the path alone; the package's name is in
ours because a cached kernel refers to the package's modules by name: after the
checkout's ``solver/`` was imported as ``solver``, every kernel loaded by
``morris_solver`` from the shared folder failed (``No module named 'solver'``).
``install`` puts the locator first in Numba's list; ``bits`` calls it, which every
kernel module imports before it defines a kernel (``tests/test_kernelcache.py``).

Consistency: Numba keys a ``cache=True`` kernel on its own source file only. Our kernels
inline functions from other modules (``unrank``, ``gen_unmoves`` ...), so after an
update that changes only, say, ``movegen.py``, the kernels of ``retrograde.py`` would
load stale machine code: silently wrong tables (numba/numba#1833). Instead each cache
folder keeps a hash of all the package's sources (its subpackages' included), and its
kernels are dropped when the hash changes, before the first kernel of the process is
looked up there. Numba names a cached kernel by its file's name, not its folder's, so
two modules of the package that define kernels must not share a file name
(``tests/test_kernelcache.py``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core import config
from numba.core.caching import CacheImpl, _CacheLocator, _SourceFileBackedLocatorMixin

from .cachedir import cache_dir

STAMP = "kernel-sources.sha256"
_checked: set[Path] = set()  # cache folders whose stamp this process has checked


def sources_digest(package: Path) -> str:
    """Hash of every Python source in the folder ``package`` and its subfolders (paths
    relative to it, and contents)."""
    digest = hashlib.sha256()
    sources = {path.relative_to(package).as_posix(): path for path in package.rglob("*.py")}
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name].read_bytes() + b"\0")
    return digest.hexdigest()


def kernel_cache(package: str | Path, name: str) -> Path:
    """The folder where the kernels of ``package`` (a folder) imported under the name
    ``name`` are cached."""
    folder = os.path.abspath(package)
    root = config.CACHE_DIR or str(cache_dir() / "numba")
    return Path(root) / f"{name}_{hashlib.sha1(folder.encode()).hexdigest()}"


def _within(path: str, folder: str) -> bool:
    """Whether the file ``path`` is in ``folder`` or a folder below it."""
    try:
        return os.path.commonpath([os.path.abspath(path), folder]) == folder
    except ValueError:  # on another drive (Windows)
        return False


class PackageLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """Numba's cache locator for the kernels of this package, its subpackages' included:
    ``kernel_cache`` of the package's folder and the name the package was imported as."""

    # this module is in the package's subpackage core/
    _folder = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        # the defining module's name less a part for each folder below the package's
        # (morris_solver.index.indexing -> morris_solver)
        depth = len(Path(os.path.relpath(os.path.abspath(py_file), self._folder)).parts)
        package = py_func.__module__.rsplit(".", depth)[0]
        self._cache_path = kernel_cache(self._folder, package)

    def get_cache_path(self) -> str:
        return str(self._cache_path)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _within(py_file, cls._folder):
            return None  # not this package's: Numba's own locators decide
        self = super().from_function(py_func, py_file)
        if self is not None and self._cache_path not in _checked:
            _checked.add(self._cache_path)
            drop_stale_kernels(Path(cls._folder), self._cache_path)
        return self


def install() -> None:
    """Have Numba cache this package's kernels with ``PackageLocator`` (once)."""
    if PackageLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, PackageLocator)


def drop_stale_kernels(package: Path, cache: Path) -> bool:
    """Delete the cached kernels in ``cache`` unless they were compiled from the sources
    ``package`` holds now; returns whether it did. A cache that cannot be written is
    left alone (Numba then finds no kernel there, or compiles in memory)."""
    digest = sources_digest(package)
    stamp = cache / STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        for path in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            path.unlink(missing_ok=True)
        cache.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return True
