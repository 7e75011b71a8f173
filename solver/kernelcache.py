"""Keep Numba's on-disk kernel cache consistent with the package's sources, and out of
the installed package.

Numba keys a ``cache=True`` kernel on its own source file only. Our kernels inline
functions from other modules (``unrank``, ``gen_unmoves`` ...), so after an update that
changes only, say, ``movegen.py``, the kernels of ``retrograde.py`` would load stale
machine code from the cache: silently wrong tables (a documented Numba limitation,
numba/numba#1833). Instead the whole package's cache is keyed on a hash of all its
sources, stored beside the cached kernels, and the kernels are dropped when it changes.

Where the kernels are: Numba caches a module's kernels in the first of these folders it
can write (``numba.core.caching._CacheImpl._locator_classes``): ``$NUMBA_CACHE_DIR/
<folder>_<sha1 of the folder's path>``, the ``__pycache__`` beside the module, the same
sub-folder of its own user-wide cache. So that nothing is written into the installed
package, ``import morris_solver`` sets ``NUMBA_CACHE_DIR`` to the package's cache folder's
``numba/`` (``cachedir``) unless the user chose one; the hash guards the folder Numba
will pick, whichever it is.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

from .cachedir import cache_dir

STAMP = "kernel-sources.sha256"


def sources_digest(package: Path) -> str:
    """Hash of every Python source of ``package`` (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def numba_cache_root() -> str:
    """The folder Numba caches kernels under (``NUMBA_CACHE_DIR``): the user's choice,
    else set here to ``cachedir``'s ``numba/``, before Numba reads it (or into Numba's
    configuration, if Numba was imported first)."""
    numba = sys.modules.get("numba")
    chosen = getattr(getattr(numba, "config", None), "CACHE_DIR", None)
    if chosen is None:  # Numba not imported: it will read the environment
        chosen = os.environ.get("NUMBA_CACHE_DIR", "")
    if not chosen:
        chosen = str(cache_dir() / "numba")
        os.environ["NUMBA_CACHE_DIR"] = chosen
        if numba is not None:
            numba.config.CACHE_DIR = chosen
    return chosen


def _writable(folder: str) -> bool:
    """Numba's test of a cache folder (``_CacheLocator.ensure_cache_path``)."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _numba_user_cache() -> str:
    """Numba's own user-wide cache folder (``numba.misc.appdirs``, ``user_cache_dir``)."""
    if sys.platform == "win32":
        return os.path.join(os.environ.get("LOCALAPPDATA", ""), "numba", "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/numba")
    return os.path.join(os.getenv("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "numba")


def kernel_cache(package: str | Path, root: str) -> Path | None:
    """The folder where Numba caches the kernels of the modules in ``package`` (as their
    absolute, unresolved path names it), with ``root`` its ``NUMBA_CACHE_DIR``: the first
    it can write of its candidates; None if none (it then compiles in memory)."""
    folder = os.path.abspath(package)
    # _CacheLocator.get_suitable_cache_subpath
    subpath = f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"
    candidates = [os.path.join(root, subpath)] if root else []
    candidates += [os.path.join(folder, "__pycache__"),
                   os.path.join(_numba_user_cache(), subpath)]
    return next((Path(c) for c in candidates if _writable(c)), None)


def drop_stale_kernels(package: Path, cache: Path | None = None) -> bool:
    """Delete the cached kernels in ``cache`` unless they were compiled from the sources
    ``package`` holds now; returns whether it did. By default ``cache`` is the folder
    Numba will use for ``package`` (``kernel_cache``), after pointing Numba's cache at the
    user's cache folder (``numba_cache_root``). A cache that cannot be written is left to
    Numba, which then compiles in memory."""
    if cache is not None:
        return _drop_stale(cache, sources_digest(package))
    root = numba_cache_root()
    # Numba names a module's folder by the path it was imported from, which may differ
    # from ``package`` (resolved by the caller) through a link: guard both
    forms = {os.path.abspath(package)}
    here = os.path.dirname(os.path.abspath(__file__))
    if Path(here).resolve() == Path(package).resolve():
        forms.add(here)
    caches = {kernel_cache(form, root) for form in forms} - {None}
    digest = sources_digest(package)
    return any([_drop_stale(cache, digest) for cache in sorted(caches)])


def _drop_stale(cache: Path, digest: str) -> bool:
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
