"""The limits of a placement search: a deadline and a cancel flag, and the errors that
stop it. Apart from ``search`` (which loads Numba) so that the probe, which catches
them, imports them without the kernels."""

from __future__ import annotations

import threading
import time

from ..core.errors import MorrisError


class SearchStopped(MorrisError):
    """A placement search stopped before its answer (it never answers a guess)."""


class SearchTimeout(SearchStopped):
    """A placement search ran past its time budget (``Tablebase.search_limits``)."""


class SearchCancelled(SearchStopped):
    """A placement search was cancelled (a web client that left)."""


def check_limits(deadline: float | None, cancel: threading.Event | None, nodes: int) -> None:
    """Raise ``SearchCancelled`` once ``cancel`` is set, ``SearchTimeout`` past
    ``deadline`` (a ``time.monotonic()`` time); ``nodes`` searched so far, for the
    message."""
    if cancel is not None and cancel.is_set():
        raise SearchCancelled(f"the search was cancelled after {nodes:,} nodes")
    if deadline is not None and time.monotonic() >= deadline:
        raise SearchTimeout(f"the search ran out of time after {nodes:,} nodes")
