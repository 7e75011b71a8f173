"""The index of the table format in plain Python: the tables it is computed from, kept
on disk, and the slot of one position.

``indexing`` holds the same computation as Numba kernels, which the solver and warm
probes run; this reading needs no compiler, so a cold probe of a few positions answers
without importing Numba and loading compiled kernels, which costs about 0.8 s, most of
the second it may take. Tests hold the two equal slot for slot; ``docs/format.md``
describes the index in words.
"""

from __future__ import annotations

import hashlib
import os
from collections import namedtuple
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core.cachedir import cache_dir
from ..rules.board import Board

IndexTables = namedtuple(
    "IndexTables",
    [
        "n",  # number of board points
        "binom",  # binom[n, k], int64
        "binom_t",  # binom_t[k, n] = binom[n, k]: unrank scans one k along n
        "sym_bytes",  # [g, byte, value] -> image mask
        "rank_off",  # rank_off[W]: offset of the W-stone sets in rank_class / rank_sym
        "rank_class",  # global class id of each mover set, by colex rank
        "rank_sym",  # first symmetry taking that set to its canonical form
        "class_off",  # class_off[W]: first global class id of W-stone sets
        "class_mask",  # canonical mover mask of each class
        "class_stab",  # bit mask of non-identity symmetries fixing the canonical mask
        "class_freepos",  # [class, point] -> rank of the point among the free points
        "class_freepts",  # [class, j] -> j-th free point
        "class_free",  # mask of the points free of each class's mover set
        "colex_bytes",  # [byte k, its value, points below] -> its part of a colex rank
    ],
)


@lru_cache(maxsize=8)
def index_tables(board: Board, max_stones: int) -> IndexTables:
    """Index tables for every mover-set size 0..max_stones on ``board``, built once and
    kept on disk in the user's cache folder (``cachedir``), never in the package: building
    them for Nine Men's Morris takes most of a second, loading them 20 to 50 ms."""
    # the key: what the tables are derived from (the board's symmetries come from its
    # lines and mills), and the code that derives them
    package = Path(__file__).resolve().parent.parent
    sources = ("index/index_format.py", "index/index_build.py", "index/indexing.py",
               "rules/board.py")
    digest = hashlib.sha256(b"".join((package / name).read_bytes() for name in sources))
    digest.update(repr((board.points, board.edges, board.mills, max_stones)).encode())
    path = cache_dir() / "index" / f"index-{digest.hexdigest()[:32]}.npz"
    try:
        with np.load(path) as stored:
            return IndexTables(int(stored["n"]), *(stored[f] for f in IndexTables._fields[1:]))
    except (OSError, KeyError, ValueError):
        pass
    tables = build_index_tables(board, max_stones)
    try:  # a folder that cannot be written only costs the next process the build
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")
        np.savez(partial, **tables._asdict())
        os.replace(partial, path)
    except OSError:
        pass
    return tables


def build_index_tables(board: Board, max_stones: int) -> IndexTables:
    """The index tables computed from the board (``index_tables`` keeps them on disk)."""
    from .index_build import classify_sets  # Numba

    n = board.n
    binom = np.zeros((n + 2, n + 2), dtype=np.int64)
    for i in range(n + 2):
        binom[i, 0] = 1
        for k in range(1, i + 1):
            binom[i, k] = binom[i - 1, k - 1] + binom[i - 1, k]
    sym_bytes = board.sym_byte_tables
    syms = board.symmetries
    nsyms = len(syms)
    top = min(max_stones, n)
    rank_off = np.zeros(top + 2, dtype=np.int64)
    for w in range(top + 1):
        rank_off[w + 1] = rank_off[w] + binom[n, w]
    rank_class = np.zeros(rank_off[-1], dtype=np.int32)
    rank_sym = np.zeros(rank_off[-1], dtype=np.int8)
    class_off = np.zeros(top + 2, dtype=np.int64)
    masks = []
    for w in range(top + 1):
        lo, hi = rank_off[w], rank_off[w + 1]
        out = np.zeros(hi - lo, dtype=np.int64)
        k = classify_sets(
            n, w, binom, sym_bytes, nsyms, rank_class[lo:hi], rank_sym[lo:hi], class_off[w], out
        )
        class_off[w + 1] = class_off[w] + k
        masks.append(out[:k])
    class_mask = np.concatenate(masks)
    class_stab = np.zeros(len(class_mask), dtype=np.int64)
    for g in range(1, nsyms):
        image = np.zeros_like(class_mask)
        for k in range(sym_bytes.shape[1]):
            image |= sym_bytes[g, k, (class_mask >> (8 * k)) & 255]
        class_stab |= np.where(image == class_mask, np.int64(1) << g, 0)
    free = ((class_mask[:, None] >> np.arange(n)) & 1) == 0
    class_freepos = np.where(free, np.cumsum(free, axis=1) - 1, -1).astype(np.int8)
    class_freepts = np.full((len(class_mask), n), -1, dtype=np.int8)
    for w in range(top + 1):
        rows = slice(class_off[w], class_off[w + 1])
        points = np.nonzero(free[rows])[1].reshape(-1, n - w)
        class_freepts[rows, : n - w] = points
    binom_t = np.ascontiguousarray(binom.T)
    class_free = ~class_mask & ((np.int64(1) << n) - 1)
    return IndexTables(
        n, binom, binom_t, sym_bytes, rank_off, rank_class, rank_sym, class_off, class_mask,
        class_stab, class_freepos, class_freepts, class_free, _colex_byte_table(binom, n),
    )


def _colex_byte_table(binom: np.ndarray, n: int) -> np.ndarray:
    """``table[k, byte, below]``: the colex rank terms of the points in byte ``k`` of a
    mask, ``byte`` its value, when ``below`` points of the mask lie in the bytes below
    (its points are then the ``below + 1``-th, ``below + 2``-th, ... of the set)."""
    nbytes = (n + 7) // 8
    table = np.zeros((nbytes, 256, n + 1), dtype=np.int64)
    for k in range(nbytes):
        for byte in range(256):
            points = [8 * k + b for b in range(8) if byte >> b & 1]
            if points and points[-1] >= n:
                continue  # not a set of board points
            for below in range(n + 1 - len(points)):
                table[k, byte, below] = sum(
                    binom[p, below + j] for j, p in enumerate(points, start=1)
                )
    return table


def _bits(mask: int) -> list[int]:
    """The points of a stone mask, lowest first."""
    points = []
    while mask:
        low = mask & -mask
        points.append(low.bit_length() - 1)
        mask ^= low
    return points


def _permute(T: IndexTables, g: int, mask: int) -> int:
    image = 0
    k = 0
    while mask:
        image |= int(T.sym_bytes[g, k, mask & 255])
        mask >>= 8
        k += 1
    return image


def _free_rank(T: IndexTables, c: int, other: int) -> int:
    """Colex rank of ``other`` among the points class ``c``'s mover set leaves free."""
    return sum(
        int(T.binom[T.class_freepos[c, p], i]) for i, p in enumerate(_bits(other), start=1)
    )


def canonical_index(T: IndexTables, W: int, B: int, mover: int, other: int) -> int:
    """The slot of (mover, other) in the sector of W and B stones on the board: the class
    of the mover's set times C(n - W, B), plus the smallest colex rank, among the free
    points, of the other's set under the symmetries that take the mover's set to its
    canonical form."""
    key = int(T.rank_off[W]) + sum(
        int(T.binom[p, i]) for i, p in enumerate(_bits(mover), start=1)
    )
    c, g = int(T.rank_class[key]), int(T.rank_sym[key])
    o = _permute(T, g, other)
    best = _free_rank(T, c, o)
    stab = int(T.class_stab[c])
    while stab:
        low = stab & -stab
        best = min(best, _free_rank(T, c, _permute(T, low.bit_length() - 1, o)))
        stab ^= low
    return (c - int(T.class_off[W])) * int(T.binom[T.n - W, B]) + best


def sector_slots(T: IndexTables, W: int, B: int) -> int:
    """Number of index slots (canonical positions plus padding) of sector (W, B)."""
    classes = int(T.class_off[W + 1] - T.class_off[W])
    return classes * int(T.binom[T.n - W, B])
