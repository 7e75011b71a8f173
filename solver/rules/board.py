"""Board geometry as data: named points, adjacency, mills, and the symmetry group.

A board is described once by its points (name and grid coordinates), the lines a stone
may slide along, and the mills; everything else (numpy tables for Numba kernels, the
automorphism group) is derived from that description, so a new board is a few lines.
Point ``i`` of a board is bit ``1 << i`` of a stone mask.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class PlainTables:
    """A board's geometry as plain Python ints (``Board.plain``): numpy scalars in bit
    arithmetic are slow and would leak ``np.int64`` into positions."""

    full: int
    adjacency: tuple[int, ...]  # adjacency[p]: mask of the points one slide away
    point_mills: tuple[tuple[int, ...], ...]  # the masks of the mills through each point
    mills: tuple[int, ...]


@dataclass(frozen=True)
class Board:
    """A Mill-family board: points with names, slide edges, and mills (3-point lines)."""

    name: str
    points: tuple[str, ...]
    coords: tuple[tuple[int, int], ...]  # (column, row) on a square grid, row 0 at the bottom
    edges: tuple[tuple[int, int], ...]
    mills: tuple[tuple[int, int, int], ...]

    @property
    def n(self) -> int:
        return len(self.points)

    @cached_property
    def index_of(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.points)}

    @cached_property
    def full_mask(self) -> int:
        return (1 << self.n) - 1

    @cached_property
    def adjacency(self) -> np.ndarray:
        """``adjacency[p]``: bit mask of the points one slide away from ``p``."""
        adj = np.zeros(self.n, dtype=np.int64)
        for a, b in self.edges:
            adj[a] |= 1 << b
            adj[b] |= 1 << a
        return adj

    @cached_property
    def mill_masks(self) -> np.ndarray:
        return np.array([sum(1 << p for p in mill) for mill in self.mills], dtype=np.int64)

    @cached_property
    def point_mills(self) -> np.ndarray:
        """``point_mills[p]``: masks of the mills through ``p``, padded with 0."""
        per_point = [[m for m in self.mill_masks if (int(m) >> p) & 1] for p in range(self.n)]
        width = max(len(ms) for ms in per_point)
        table = np.zeros((self.n, width), dtype=np.int64)
        for p, ms in enumerate(per_point):
            table[p, : len(ms)] = ms
        return table

    @cached_property
    def plain(self) -> PlainTables:
        """The geometry as plain Python ints, for the rules in Python."""
        return PlainTables(
            full=self.full_mask,
            adjacency=tuple(int(a) for a in self.adjacency),
            point_mills=tuple(tuple(int(m) for m in row if m) for row in self.point_mills),
            mills=tuple(int(m) for m in self.mill_masks),
        )

    @cached_property
    def symmetries(self) -> np.ndarray:
        """The automorphism group, computed: every permutation of the points that maps
        edges to edges and mills to mills. Row ``g`` maps point ``p`` to ``symmetries[g, p]``;
        row 0 is the identity."""
        return np.array(_automorphisms(self.n, self.edges, self.mills), dtype=np.int64)

    @cached_property
    def sym_byte_tables(self) -> np.ndarray:
        """``sym_byte_tables[g, k, v]``: image under symmetry ``g`` of the stones ``v`` in
        byte ``k`` of a mask, so a mask maps with one lookup per byte."""
        nbytes = (self.n + 7) // 8
        syms = self.symmetries
        table = np.zeros((len(syms), nbytes, 256), dtype=np.int64)
        for g, perm in enumerate(syms):
            for k in range(nbytes):
                for v in range(256):
                    image = 0
                    for b in range(8):
                        p = 8 * k + b
                        if (v >> b) & 1 and p < self.n:
                            image |= 1 << int(perm[p])
                    table[g, k, v] = image
        return table

    def mask(self, names) -> int:
        """Bit mask of the named points."""
        m = 0
        for name in names:
            m |= 1 << self.index_of[name]
        return m

    def names(self, mask: int) -> list[str]:
        """Point names of a mask, in board order."""
        return [self.points[p] for p in range(self.n) if (mask >> p) & 1]


def _automorphisms(n, edges, mills):
    """All permutations preserving edges and mills, by backtracking with pruning."""
    neighbours = [set() for _ in range(n)]
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    mill_sets = {frozenset(m) for m in mills}
    mills_of = [[frozenset(m) for m in mills if p in m] for p in range(n)]
    signature = [(len(neighbours[p]), len(mills_of[p])) for p in range(n)]
    found = []
    image = [-1] * n
    used = [False] * n

    def consistent(p):
        q = image[p]
        for r in range(p):
            if (r in neighbours[p]) != (image[r] in neighbours[q]):
                return False
        for mill in mills_of[p]:
            if all(image[r] >= 0 for r in mill):
                if frozenset(image[r] for r in mill) not in mill_sets:
                    return False
        return True

    def extend(p):
        if p == n:
            found.append(list(image))
            return
        for q in range(n):
            if not used[q] and signature[q] == signature[p]:
                image[p], used[q] = q, True
                if consistent(p):
                    extend(p + 1)
                image[p], used[q] = -1, False

    extend(0)
    identity = list(range(n))
    found.sort(key=lambda perm: perm != identity)
    return found


def _ring_board(name, rings, ring_names, ring_coords, diagonals, connector_mills):
    """Concentric squares, 8 points each, clockwise from the bottom-left corner;
    even positions are corners, odd ones side midpoints."""
    points, coords, edges, mills = [], [], [], []
    for r in range(rings):
        points += ring_names[r]
        coords += ring_coords[r]
        for j in range(8):
            edges.append((8 * r + j, 8 * r + (j + 1) % 8))
        for j in range(0, 8, 2):
            mills.append((8 * r + j, 8 * r + j + 1, 8 * r + (j + 2) % 8))
    for j in range(8):
        if j % 2 == 1 or diagonals:
            chain = [8 * r + j for r in range(rings)]
            edges += list(zip(chain, chain[1:], strict=False))
            if len(chain) == 3 and (j % 2 == 0 or connector_mills):
                mills.append(tuple(chain))
    return Board(name, tuple(points), tuple(coords), tuple(edges), tuple(mills))


def _square(lo, hi):
    mid = (lo + hi) // 2
    return [(lo, lo), (lo, mid), (lo, hi), (mid, hi), (hi, hi), (hi, mid), (hi, lo), (mid, lo)]


def _named(coords):
    return ["abcdefg"[x] + str(y + 1) for x, y in coords]


_RINGS_24 = [_square(0, 6), _square(1, 5), _square(2, 4)]
_NAMES_24 = [_named(c) for c in _RINGS_24]
NINE_BOARD = _ring_board("nine", 3, _NAMES_24, _RINGS_24, False, True)
DIAGONAL_BOARD = _ring_board("nine-diagonal", 3, _NAMES_24, _RINGS_24, True, True)
_RINGS_16 = [_square(0, 4), _square(1, 3)]
SIX_BOARD = _ring_board("six", 2, [_named(c) for c in _RINGS_16], _RINGS_16, False, False)


def _three_board(name: str, diagonals: bool):
    """The 3x3 board: rows and columns, and with ``diagonals`` both diagonals, are its
    lines (each a mill, each point joined to the next along it)."""
    coords = [(x, y) for y in range(3) for x in range(3)]
    index = {c: i for i, c in enumerate(coords)}
    lines = [[(x, y) for x in range(3)] for y in range(3)]
    lines += [[(x, y) for y in range(3)] for x in range(3)]
    if diagonals:
        lines += [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]
    mills = tuple((index[a], index[b], index[c]) for a, b, c in lines)
    edges = tuple((m[k], m[k + 1]) for m in mills for k in range(2))
    return Board(name, tuple(_named(coords)), tuple(coords), edges, mills)


THREE_BOARD = _three_board("three", diagonals=True)
# Nine Holes' board: rows and columns only (Murray, A History of Board-Games other than
# Chess, 1952, p. 39)
ORTHOGONAL_THREE_BOARD = _three_board("three-orthogonal", diagonals=False)
BOARDS = {b.name: b for b in (NINE_BOARD, DIAGONAL_BOARD, SIX_BOARD, THREE_BOARD,
                              ORTHOGONAL_THREE_BOARD)}
