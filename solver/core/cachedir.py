"""Where the package keeps what it derives at run time: the index tables
(``index_format``) and Numba's compiled kernels (``kernelcache``). Never inside the
installed package, which may be read-only (a root-owned site-packages, an image): a
per-user cache folder, ``$MORRIS_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/morris-tablebase``, else ``%LOCALAPPDATA%\\morris-tablebase`` on
Windows, else ``~/.cache/morris-tablebase``. Everything in it is rebuilt when missing,
so it may be deleted at any time.
"""

from __future__ import annotations

import os
from pathlib import Path

NAME = "morris-tablebase"


def cache_dir() -> Path:
    """The cache folder (not created here: its users create what they write)."""
    chosen = os.environ.get("MORRIS_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():  # the XDG rule: a relative path is ignored
        return Path(xdg) / NAME
    local = os.environ.get("LOCALAPPDATA")
    if os.name == "nt" and local:
        return Path(local) / NAME
    return Path.home() / ".cache" / NAME
