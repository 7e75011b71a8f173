"""Keep Numba's on-disk kernel cache consistent with the package's sources.

Numba keys a ``cache=True`` kernel on its own source file only. Our kernels inline
functions from other modules (``unrank``, ``gen_unmoves`` ...), so after an update that
changes only, say, ``movegen.py``, the kernels of ``retrograde.py`` would load stale
machine code from the cache: silently wrong tables (a documented Numba limitation,
numba/numba#1833). Instead the whole package's cache is keyed on a hash of all its
sources, and dropped when that changes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

STAMP = "kernel-sources.sha256"


def sources_digest(package: Path) -> str:
    """Hash of every Python source of ``package`` (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def drop_stale_kernels(package: Path, cache: Path | None = None) -> bool:
    """Delete the cached kernels in ``cache`` (default: ``package/__pycache__``) unless
    they were compiled from the sources ``package`` holds now; returns whether it did.
    A cache that cannot be written is left to Numba, which then compiles in memory."""
    cache = cache if cache is not None else package / "__pycache__"
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
