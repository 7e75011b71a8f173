"""Perfect play from the tables: the value of a position and of every legal move.

``Tablebase.open(path)`` reads only the file's attributes. A sector is first read chunk
by chunk: a probe decompresses only the HDF5 chunks that hold the position or its
successors, so one question about a sector of 600 million positions reads a few MB. A
sector that is used more (``whole_sector_after`` chunk reads, or a small one at once) is
loaded whole, after which a probe is one Numba call and a move list one more; whole
sectors and chunks share one least-recently-used cache bounded in bytes (per-element
HDF5 reads cost ~10 µs uncompressed and 100+ µs from a cold compressed chunk, far too
slow for search). Positions that are already over are answered by the rules, so their
sectors (fewer than 3 stones) need no table.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import numpy as np
from numba import njit

from .generate import default_table_path
from .indexing import IndexTables, canonical_index, index_tables, sector_slots
from .movegen import MAX_MOVES, WIN_NOW, gen_moves, has_mill, kernel_tables, split_tables
from .position import Position
from .rules import Move, terminal
from .sectors import Sector, is_moving, reachable_sectors, sector_key
from .storage import TableError, TableFile
from .values import PAD, Result, Value
from .variants import VARIANTS, Variant

DEFAULT_CACHE_BYTES = 4 << 30
# Chunk reads of one sector after which it is loaded whole (when it fits the cache): a
# cold probe reads a few chunks, a game or a search soon many more.
DEFAULT_WHOLE_SECTOR_AFTER = 64
_NO_CODES = np.empty(0, dtype=np.uint8)
_BYTE_PAD = PAD & 0xFF  # PAD as a byte: what ``astype(np.uint8)`` turns it into
_DRAW_SCORE = 1 << 17
_LOSS_SCORE = 1 << 18


class MissingSectorError(TableError):
    """A sector the query needs is not in the table file."""

    def __init__(self, message: str, sector: Sector):
        super().__init__(message)
        self.sector = sector


@dataclass(frozen=True)
class MoveValue:
    """A legal move, its notation, and the value it leads to for the side that plays it."""

    move: Move
    text: str
    value: Value


@njit(cache=True)
def _fits_in_bytes(codes):
    """Whether every code is padding or below the byte's padding mark."""
    for c in codes:
        if _BYTE_PAD <= c < PAD:
            return False
    return True


def compact_codes(codes: np.ndarray) -> np.ndarray:
    """The codes as bytes (padding as ``_BYTE_PAD``) when they all fit, else unchanged:
    half the memory for the cache. Every distance of Nine Men's Morris fits (the longest
    is 203 plies), so its whole moving phase takes 8.6 GiB in memory instead of 17.1,
    which the start-value search needs to hold at once."""
    return codes.astype(np.uint8) if _fits_in_bytes(codes) else codes


def widen_codes(codes: np.ndarray) -> np.ndarray:
    """``compact_codes`` undone: uint16 codes, padding as ``PAD``."""
    if codes.dtype == np.uint16:
        return codes
    wide = codes.astype(np.uint16)
    wide[codes == _BYTE_PAD] = PAD
    return wide


@njit(cache=True, inline="always")
def code_at(codes, i):
    """``codes[i]`` as a full code, for uint16 codes and for ``compact_codes`` bytes."""
    code = np.int64(codes[i])
    if codes.itemsize == 1 and code == _BYTE_PAD:
        return np.int64(PAD)
    return code


@njit(cache=True)
def _probe_code(codes, W, B, mover, other, *tables):
    """The stored code of (mover, other) in a sector of (W, B) stones (``tables``: see
    ``kernel_tables``)."""
    _, T = split_tables(tables)
    return code_at(codes, canonical_index(T, W, B, mover, other))


@njit(cache=True)
def _probe_index(W, B, mover, other, *tables):
    """The slot of (mover, other) in a sector of (W, B) stones."""
    _, T = split_tables(tables)
    return canonical_index(T, W, B, mover, other)


@njit(cache=True, inline="always")
def _locate_successors(R, T, mover, other, W, B, WF, BF, out_mover, out_other, out_kind,
                       out_index):
    """Every successor of (mover, other) and where its code is stored: ``out_kind[j]``
    is the number of stones the move removes, or -1 when it ends the game (the opponent
    is left with fewer than 3 stones, or a line of three wins); ``out_index[j]`` is the
    successor's slot in the sector of (B - kind, W or W + 1) stones. Returns the count,
    0 exactly when the position is terminal."""
    if W + WF < 3 or (R.line_wins != 0 and has_mill(R, other)):
        return 0
    count = gen_moves(R, mover, other, W, WF, out_mover, out_other, out_kind)
    to_B = W + 1 if WF > 0 else W
    for j in range(count):
        kind = out_kind[j]
        if kind == WIN_NOW or B - kind + BF < 3:
            out_kind[j] = -1
        else:
            out_index[j] = canonical_index(T, B - kind, to_B, out_mover[j], out_other[j])
    return count


@njit(cache=True, inline="always")
def _score(code):
    """A successor's code as a score for the side to move now, ordered like
    ``Value.sort_key`` (smaller is better): a code c != 0 gives the mover a result c
    plies away, a win if c is odd (the successor is lost), a loss if c is even."""
    return _DRAW_SCORE if code == 0 else code if code & 1 else _LOSS_SCORE - code


@njit(cache=True)
def _scored_successors(
    mover, other, W, B, WF, BF, codes0, codes1, codes2, out_mover, out_other, out_kind,
    out_index, out_score, *tables,
):
    """Every successor of (mover, other) and its ``_score``, reading the code of a move
    removing ``k`` stones from ``codes<k>`` (1, lost in 0, after a move that ends the
    game). Returns ``(count, missing, damaged)``: ``count`` is 0 exactly when the
    position is terminal; ``missing`` and ``damaged`` are bit sets of the ``k`` whose
    codes were needed but not given (empty), or hold a padding code."""
    R, T = split_tables(tables)
    count = _locate_successors(R, T, mover, other, W, B, WF, BF, out_mover, out_other,
                               out_kind, out_index)
    missing = 0
    damaged = 0
    for j in range(count):
        kind = out_kind[j]
        code = 1
        if kind >= 0:
            # no "codes = codes0 if ... else ...": the three may differ in dtype
            size = len(codes0) if kind == 0 else len(codes1) if kind == 1 else len(codes2)
            if size == 0:
                missing |= 1 << kind
                continue
            i = out_index[j]
            code = (code_at(codes0, i) if kind == 0 else
                    code_at(codes1, i) if kind == 1 else code_at(codes2, i))
            if code == PAD:
                damaged |= 1 << kind
                continue
        out_score[j] = _score(code)
    return count, missing, damaged


def _codes_of(codes: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``code_at`` over many slots from Python: full int64 codes, padding as ``PAD``."""
    found = codes[indices].astype(np.int64)
    if codes.dtype == np.uint8:
        found[found == _BYTE_PAD] = PAD
    return found


class Tablebase:
    """Read-only access to a variant's solved tables. Not thread-safe (it reuses move
    buffers between calls): open one per thread."""

    def __init__(
        self,
        table: TableFile,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        whole_sector_after: int = DEFAULT_WHOLE_SECTOR_AFTER,
    ):
        self._table = table
        self.cache_bytes = cache_bytes
        self.whole_sector_after = whole_sector_after
        self._cache: OrderedDict[Sector, np.ndarray] = OrderedDict()  # whole sectors
        self._chunks: OrderedDict[tuple[Sector, int], np.ndarray] = OrderedDict()
        self._chunk_slots: dict[Sector, int] = {}  # per sector read chunk-wise
        self._chunk_reads: dict[Sector, int] = {}
        self._cached_bytes = 0
        v = table.variant
        self._variant = VARIANTS[v.name] if VARIANTS.get(v.name) == v else v  # fast `is` check
        self._buffers = tuple(np.empty(MAX_MOVES, np.int64) for _ in range(5))

    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        whole_sector_after: int = DEFAULT_WHOLE_SECTOR_AFTER,
    ) -> Tablebase:
        """Open a table file (only its attributes are read now). ``cache_bytes`` bounds
        the memory of loaded sectors and chunks (the sector in use is kept even if
        larger). A sector is read chunk by chunk until ``whole_sector_after`` of its
        chunks have been read, then loaded whole if it fits ``cache_bytes`` (0: load
        every sector whole at once). Raises ``TableError`` if the file is missing or not
        a table file."""
        return cls(TableFile.open(path), cache_bytes, whole_sector_after)

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def path(self) -> Path:
        return self._table.path

    @property
    def cached_bytes(self) -> int:
        """Bytes held by the sectors and chunks now in the cache."""
        return self._cached_bytes

    def probe(self, position: Position) -> Value:
        """The value of ``position`` for the side to move. Raises ``TableError`` for a
        position of another variant or a damaged sector, ``MissingSectorError`` when its
        sector is not in the file."""
        self._check_variant(position)
        mover, other = position.mover, position.other
        W = mover.bit_count()
        if W + position.mover_hand < 3:
            return Value(Result.LOSS, 0)
        B = other.bit_count()
        sector = (W, B, position.mover_hand, position.other_hand)
        codes = self._cached(sector)
        try:
            if len(codes):
                code = _probe_code(codes, W, B, mover, other, *self._tables)
            else:
                index = _probe_index(W, B, mover, other, *self._tables)
                code = int(self._codes_at(sector, np.array([index]))[0])
        except MissingSectorError:
            end = terminal(position)  # a game that is over needs no table
            if end is None:
                raise
            return Value(end.result, 0 if end.result is Result.LOSS else None)
        if code == PAD:
            raise self.damaged(sector)
        return _value_of_code(code)

    def value_from_successors(self, position: Position) -> Value:
        """The value of ``position`` as the best of its successors' stored values, in one
        Numba call. It needs only the sectors the moves lead to, not the position's own:
        the last placement before the moving phase, say, when only the moving phase is
        solved (what the start-value search relies on)."""
        self._check_variant(position)
        scores = self._successors(position)[2]
        if len(scores) == 0:
            end = terminal(position)  # over, or no legal move
            return Value(end.result, 0 if end.result is Result.LOSS else None)
        return _value_of_score(int(scores.min()))

    def moves(self, position: Position) -> list[MoveValue]:
        """Every legal move with the value it leads to for the side to move, best first:
        shortest win, draws, longest loss; ties in order of the move text. Empty when
        the game is over."""
        self._check_variant(position)
        succ_mover, succ_other, scores = self._successors(position)
        mover, other, board = position.mover, position.other, position.board
        seen: set[tuple[int, int]] = set()
        ranked = []
        successors = zip(succ_mover.tolist(), succ_other.tolist(), scores.tolist(), strict=True)
        for m, o, score in successors:
            if (m, o) in seen:  # a double mill may remove the same two stones in either order
                continue
            seen.add((m, o))
            move = _move_from_masks(mover, other, m, o)
            ranked.append((score, move.text(board), move))
        ranked.sort(key=lambda item: item[:2])
        return [MoveValue(move, text, _value_of_score(score)) for score, text, move in ranked]

    def best_move(self, position: Position) -> Move | None:
        """A perfect move (the first of ``moves``), or None when the game is over."""
        self._check_variant(position)
        succ_mover, succ_other, scores = self._successors(position)
        if len(scores) == 0:
            return None
        scores = scores.tolist()
        best = min(scores)
        tied = [j for j, score in enumerate(scores) if score == best]
        mover, other = position.mover, position.other
        if len(tied) > 1:  # the first in notation order; texts without building Moves
            names = position.board.points
            texts = [
                _text_from_masks(names, mover, other, int(succ_mover[j]), int(succ_other[j]))
                for j in tied
            ]
            tied = [tied[texts.index(min(texts))]]
        return _move_from_masks(mover, other, int(succ_mover[tied[0]]), int(succ_other[tied[0]]))

    # -- internals ------------------------------------------------------------------

    @cached_property
    def _T(self) -> IndexTables:
        """The index tables, built on first use (about a second for Nine Men's Morris)."""
        return index_tables(self._variant.board, self._variant.stones)

    @cached_property
    def _tables(self) -> tuple:
        """Rule and index tables as the kernels' trailing arguments (``kernel_tables``)."""
        return kernel_tables(self._variant)

    def _check_variant(self, position: Position) -> None:
        if position.variant is not self._variant and position.variant != self._variant:
            raise TableError(
                f"{self.path} holds tables of {self._variant.name}, "
                f"not of {position.variant.name} (the position's variant)"
            )

    def _successors(self, position: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Successor masks (side to move first) and scores (see ``_scored_successors``),
        as views of buffers the next call overwrites. With every sector the moves lead
        to loaded whole this is one Numba call; otherwise the codes of the other sectors
        are read chunk by chunk (``_codes_at``)."""
        out_mover, out_other, out_kind, out_index, out_score = self._buffers
        mover, other = position.mover, position.other
        W, B = mover.bit_count(), other.bit_count()
        WF, BF = position.mover_hand, position.other_hand
        if WF:
            targets = [(B - k, W + 1, BF, WF - 1) for k in range(3)]
        else:
            targets = [(B - k, W, 0, 0) for k in range(3)]
        count, missing, damaged = _scored_successors(
            mover, other, W, B, WF, BF, *(self._cached(s) for s in targets), out_mover,
            out_other, out_kind, out_index, out_score, *self._tables,
        )
        if damaged:
            raise self.damaged(targets[(damaged & -damaged).bit_length() - 1])
        if missing:
            kinds, indices = out_kind[:count], out_index[:count]
            codes = np.ones(count, np.int64)  # a move that ends the game: lost in 0
            for k in np.unique(kinds[kinds >= 0]).tolist():
                chosen = kinds == k
                codes[chosen] = self._codes_at(targets[k], indices[chosen])
                if (codes[chosen] == PAD).any():
                    raise self.damaged(targets[k])
            out_score[:count] = np.where(
                codes == 0, _DRAW_SCORE, np.where(codes & 1, codes, _LOSS_SCORE - codes)
            )
        return out_mover[:count], out_other[:count], out_score[:count]

    def _cached(self, sector: Sector) -> np.ndarray:
        """The sector's codes if cached (now most recently used), else an empty array."""
        codes = self._cache.get(sector)
        if codes is None:
            return _NO_CODES
        self._cache.move_to_end(sector)
        return codes

    def _codes(self, sector: Sector) -> np.ndarray:
        """The sector's codes, from the cache or loaded whole, evicting the least
        recently used chunks and sectors while the cache would exceed ``cache_bytes``."""
        codes = self._cache.get(sector)
        if codes is not None:
            self._cache.move_to_end(sector)
            return codes
        if not self._table.has_sector(sector):
            raise self._missing(sector)
        codes = self._table.read_sector(sector)
        slots = sector_slots(self._T, sector[0], sector[1])
        if codes.dtype != np.uint16 or codes.shape != (slots,):
            raise TableError(
                f"sector {sector_key(sector)} of {self.path} holds {codes.shape} {codes.dtype} "
                f"codes, not the {slots} uint16 codes of its index"
            )
        codes = compact_codes(codes)
        for key in [key for key in self._chunks if key[0] == sector]:
            self._cached_bytes -= self._chunks.pop(key).nbytes
        self._make_room(codes.nbytes)
        self._cache[sector] = codes
        self._cached_bytes += codes.nbytes
        return codes

    def _codes_at(self, sector: Sector, indices: np.ndarray) -> np.ndarray:
        """The codes of slots ``indices`` of a sector (int64, padding as ``PAD``): from
        the sector if it is loaded whole or should now be (small, or read often enough:
        see ``open``), else from its HDF5 chunks, read as needed and kept in the cache."""
        codes = self._cache.get(sector)
        if codes is None and self._load_whole(sector):
            codes = self._codes(sector)
        if codes is not None:
            self._cache.move_to_end(sector)
            return _codes_of(codes, indices)
        step = self._chunk_slots[sector]
        chunks = indices // step
        wanted = [c for c in np.unique(chunks).tolist() if (sector, c) not in self._chunks]
        if wanted:
            slots = sector_slots(self._T, sector[0], sector[1])
            for c, part in self._table.read_chunks(sector, wanted, slots).items():
                self._make_room(part.nbytes)
                self._chunks[(sector, c)] = part
                self._cached_bytes += part.nbytes
            self._chunk_reads[sector] = self._chunk_reads.get(sector, 0) + len(wanted)
        found = np.empty(len(indices), np.int64)
        for c in np.unique(chunks).tolist():
            part = self._chunks[(sector, c)]
            self._chunks.move_to_end((sector, c))
            chosen = chunks == c
            found[chosen] = part[indices[chosen] - c * step]
        return found

    def _load_whole(self, sector: Sector) -> bool:
        """Whether a sector not yet loaded whole should be now: when it has at most four
        chunks (they cost no more than the chunks a probe reads), or when
        ``whole_sector_after`` of its chunks have been read and it fits the cache."""
        step = self._chunk_slots.get(sector)
        if step is None:
            step = self._table.chunk_slots(sector)
            if step is None:
                raise self._missing(sector)
            self._chunk_slots[sector] = step
        slots = sector_slots(self._T, sector[0], sector[1])
        if slots <= 4 * step or self.whole_sector_after <= 0:
            return True
        return (
            self._chunk_reads.get(sector, 0) >= self.whole_sector_after
            and slots <= self.cache_bytes  # as bytes (``compact_codes``), it fits
        )

    def _make_room(self, nbytes: int) -> None:
        """Evict the least recently used chunks, then sectors, until ``nbytes`` more fit
        within ``cache_bytes`` (or nothing is left to evict)."""
        while self._cached_bytes + nbytes > self.cache_bytes and (self._chunks or self._cache):
            old = (self._chunks or self._cache).popitem(last=False)[1]
            self._cached_bytes -= old.nbytes

    def sector_codes(self, sector: Sector) -> np.ndarray:
        """The codes of a sector as the kernels read them (``code_at``): bytes when they
        fit (``compact_codes``), else uint16. Loaded into the cache if needed. Raises
        ``MissingSectorError`` or ``TableError`` like ``probe``."""
        return self._codes(sector)

    def _missing(self, sector: Sector) -> MissingSectorError:
        name = self._variant.name
        if sector not in reachable_sectors(self._variant):
            return MissingSectorError(
                f"no game of {name} reaches sector {sector_key(sector)} (that many captures "
                "cannot happen with the stones placed), so no table holds it",
                sector,
            )
        if is_moving(sector):
            command = f"morris solve {name} --sector {sector[0]}-{sector[1]}"
        else:
            present = set(self._table.sectors())
            moving = {s for s in reachable_sectors(self._variant) if is_moving(s)}
            command = f"morris solve {name} --phase {'placement' if moving <= present else 'all'}"
        if self.path.resolve() != default_table_path(self._variant).resolve():
            command += f" --out {self.path}"
        return MissingSectorError(
            f"sector {sector_key(sector)} is not in {self.path}; run '{command}' to generate it",
            sector,
        )

    def damaged(self, sector: Sector) -> TableError:
        """The error for a sector whose canonical slot reads as padding (also raised by
        the search, which reads the codes in its own kernel)."""
        return TableError(
            f"sector {sector_key(sector)} of {self.path} is damaged "
            "(a canonical position reads as a padding slot)"
        )


def _move_from_masks(mover: int, other: int, succ_mover: int, succ_other: int) -> Move:
    """The move that turns (mover, other) into the successor (succ_mover, succ_other)."""
    origin = mover & ~succ_other
    removed = other & ~succ_mover
    return Move(
        origin.bit_length() - 1 if origin else None,
        (succ_other & ~mover).bit_length() - 1,
        tuple(p for p in range(removed.bit_length()) if removed >> p & 1) if removed else (),
    )


def _text_from_masks(
    names: tuple[str, ...], mover: int, other: int, succ_mover: int, succ_other: int
) -> str:
    """``Move.text`` of ``_move_from_masks(mover, other, succ_mover, succ_other)``."""
    origin = mover & ~succ_other
    removed = other & ~succ_mover
    text = names[(succ_other & ~mover).bit_length() - 1]
    if origin:
        text = f"{names[origin.bit_length() - 1]}-{text}"
    while removed:
        low = removed & -removed
        text += "x" + names[low.bit_length() - 1]
        removed ^= low
    return text


@cache
def _value_of_code(code: int) -> Value:
    return Value.from_code(code)


@cache
def _value_of_score(score: int) -> Value:
    """The value for the side to move that a successor's score (see
    ``_scored_successors``) stands for."""
    if score == _DRAW_SCORE:
        return Value(Result.DRAW, None)
    if score < _DRAW_SCORE:
        return Value(Result.WIN, score)
    return Value(Result.LOSS, _LOSS_SCORE - score)
