"""Game codes held in less memory: as bytes where they fit (half the memory of the
probe's cache and of the distance search's leaves), and as results packed four to a
byte (the leaves of the win/draw/loss search).

Every distance of Nine Men's Morris fits a byte (the longest is 203 plies), so its
whole moving phase takes 8.6 GiB in memory instead of 17.1, which the distance search
needs to hold at once. A byte array marks padding as ``BYTE_PAD``; the kernels read
both forms through ``probe_kernels.code_at``. A search that proves only win, draw or
loss needs two bits a position: Nine's moving phase in 2.1 GiB, Morabaraba's (17
billion slots) in 4 GiB instead of 16 (``pack_results``, read by
``probe_kernels.packed_result_at``).
"""

from __future__ import annotations

import numpy as np

from ..rules.values import PAD

# a position's result for the side to move, two bits in ``pack_results``
PACKED_DRAW, PACKED_WIN, PACKED_LOSS, PACKED_PAD = 0, 1, 2, 3

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


def pack_results(codes: np.ndarray) -> np.ndarray:
    """The results of game codes (uint16, or bytes as ``compact_codes`` or
    ``drawrules.result_bytes`` give them) four to a byte, slot ``i`` in bits
    ``2 * (i % 4)`` of byte ``i // 4``: ``PACKED_DRAW`` (code 0), ``PACKED_WIN`` (an even
    code), ``PACKED_LOSS`` (odd) or ``PACKED_PAD``."""
    pad = PAD if codes.dtype == np.uint16 else BYTE_PAD
    out = np.zeros((len(codes) + 3) // 4, np.uint8)
    for lo in range(0, len(codes), _STEP):  # _STEP is a multiple of 4
        part = codes[lo : lo + _STEP]
        results = np.where(part == 0, PACKED_DRAW,
                           np.where(part == pad, PACKED_PAD,
                                    np.where(part % 2 == 0, PACKED_WIN, PACKED_LOSS)))
        results = np.concatenate([results.astype(np.uint8),
                                  np.zeros(-len(part) % 4, np.uint8)]).reshape(-1, 4)
        out[lo // 4 : lo // 4 + len(results)] = (results[:, 0] | results[:, 1] << 2
                                                 | results[:, 2] << 4 | results[:, 3] << 6)
    return out
