"""Game codes held as bytes where they fit: half the memory of the probe's cache and of
the search's leaves.

Every distance of Nine Men's Morris fits a byte (the longest is 203 plies), so its
whole moving phase takes 8.6 GiB in memory instead of 17.1, which the start-value
search needs to hold at once. A byte array marks padding as ``BYTE_PAD``; the kernels
read both forms through ``probe_kernels.code_at``.
"""

from __future__ import annotations

import numpy as np

from .values import PAD

BYTE_PAD = PAD & 0xFF  # PAD as a byte: what ``astype(np.uint8)`` turns it into
_STEP = 1 << 24  # bounded temporaries for sectors of a billion slots


def compact_codes(codes: np.ndarray) -> np.ndarray:
    """The uint16 codes as bytes (padding as ``BYTE_PAD``) when they all fit, else
    unchanged."""
    for lo in range(0, len(codes), _STEP):
        part = codes[lo : lo + _STEP]
        if ((part >= BYTE_PAD) & (part != PAD)).any():
            return codes
    return codes.astype(np.uint8)


def widen_codes(codes: np.ndarray) -> np.ndarray:
    """``compact_codes`` undone: uint16 codes, padding as ``PAD``."""
    if codes.dtype == np.uint16:
        return codes
    wide = codes.astype(np.uint16)
    wide[codes == BYTE_PAD] = PAD
    return wide
