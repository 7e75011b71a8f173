"""A slow but obviously-correct reference solver, for differential tests of the fast one.

It is written independently of the Numba solver and deliberately shares none of its
machinery: no symmetry reduction, no canonical index, no Numba. Every position of a
sector is listed explicitly (all pairs of disjoint masks with the sector's popcounts,
reachable or not), moves are generated with numpy over whole sectors at once, and values
come from a plain level-by-level retrograde analysis. Each piece is simple enough to be
checked by reading it; ``python_moves`` restates the rules once more with plain loops so
the tests can check the vectorized move generator against it.

Positions are normalized: ``mover`` is the side to move, ``other`` the other side, and a
sector is ``(W, B, WF, BF)`` = (stones on board of the mover, of the other side, in hand
of the mover, of the other side). Values use the codes of ``morris_solver.rules.values``: 0 = draw,
otherwise plies + 1 (wins at odd plies, losses at even plies) for the side to move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from morris_solver.rules.values import MAX_PLIES
from morris_solver.rules.variants import Variant

Sector = tuple[int, int, int, int]

LOSS_NOW = 1  # code of a position whose mover has lost (0 plies to the end)
# Code standing in for "no successor here" in the padded successor matrix: a win in 1 for
# the successor's mover is never a lost successor (so it cannot make a win) and, from
# level 2 on, always counts as an already-decided win (so it never blocks a loss).
NEUTRAL = 2
_DRAW_PREF = 1 << 17
_NO_MOVE_PREF = 3 << 17


@dataclass
class SectorValues:
    """Every position of one sector, sorted by (mover, other), with its value code."""

    mover: np.ndarray  # int64 masks of the side to move
    other: np.ndarray  # int64 masks of the other side
    code: np.ndarray  # uint16 value codes (see morris_solver.rules.values)

    def __len__(self) -> int:
        return len(self.code)

    @cached_property
    def keys(self) -> np.ndarray:
        """``mover << 32 | other``: one sorted int64 key per position, for lookups."""
        return (self.mover << 32) | self.other

    def index(self, mover: int, other: int) -> int:
        """Position of (mover, other) in the arrays; KeyError if it is not in the sector."""
        key = (int(mover) << 32) | int(other)
        i = int(np.searchsorted(self.keys, key))
        if i == len(self.keys) or int(self.keys[i]) != key:
            raise KeyError((mover, other))
        return i

    def code_of(self, mover: int, other: int) -> int:
        return int(self.code[self.index(mover, other)])


def solve_reference(variant: Variant, roots: list[Sector]) -> dict[Sector, SectorValues]:
    """Solve every sector reachable from ``roots`` (the roots included).

    Sectors whose mover has fewer than 3 stones (board + hand) are terminal losses and are
    not stored unless they are roots; moves into them are wins in 1.
    """
    return _ReferenceSolver(variant).solve([tuple(r) for r in roots])


# --------------------------------------------------------------------------- helpers


@cache
def _subsets(n: int, k: int) -> np.ndarray:
    """All k-subsets of n points as ascending int64 masks (brute force over 2^n masks)."""
    masks = np.arange(1 << n, dtype=np.int64)
    return masks[np.bitwise_count(masks) == k]


@cache
def _rank_table(n: int) -> np.ndarray:
    """``rank[mask]``: how many masks with the same popcount are smaller. Together with
    C(n, popcount) this gives each sector a simple collision-free slot for a position."""
    pc = np.bitwise_count(np.arange(1 << n, dtype=np.int64))
    rank = np.empty(1 << n, dtype=np.int32)
    for k in range(n + 1):
        idx = np.flatnonzero(pc == k)
        rank[idx] = np.arange(len(idx), dtype=np.int32)
    return rank


def _positions(n: int, w: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of disjoint masks (mover, other) with popcounts (w, b), sorted."""
    movers, others = _subsets(n, w), _subsets(n, b)
    step = max(1, 8_000_000 // max(1, len(others)))
    ms, os_ = [], []
    for lo in range(0, len(movers), step):
        chunk = movers[lo : lo + step]
        mi, oi = np.nonzero((chunk[:, None] & others[None, :]) == 0)  # row-major: sorted
        ms.append(chunk[mi])
        os_.append(others[oi])
    return np.concatenate(ms), np.concatenate(os_)


def _bit_slots(masks: np.ndarray, count: int, n: int) -> np.ndarray:
    """``out[i, j]``: the j-th smallest point set in ``masks[i]`` (each has ``count`` bits)."""
    out = np.zeros((len(masks), count), dtype=np.int8)
    filled = np.zeros(len(masks), dtype=np.int64)
    for p in range(n):
        rows = np.flatnonzero((masks >> p) & 1)
        out[rows, filled[rows]] = p
        filled[rows] += 1
    assert (filled == count).all()
    return out


def _preference(codes: np.ndarray) -> np.ndarray:
    """Order successor codes by how good they are for the player moving into them
    (smaller is better): the successor's fastest loss, then draws, then its slowest win."""
    c = codes.astype(np.int64)
    return np.where(c == 0, _DRAW_PREF, np.where(c % 2 == 1, c, 2 * _DRAW_PREF - c))


_WIN_NOW_PREF = int(_preference(np.array([LOSS_NOW]))[0])  # a move into a lost position


def _code_from_preference(pref: np.ndarray) -> np.ndarray:
    """Inverse of ``_preference``; "no successor" becomes ``NEUTRAL``."""
    code = np.where(pref < _DRAW_PREF, pref, 2 * _DRAW_PREF - pref)
    code = np.where(pref == _DRAW_PREF, 0, code)
    code = np.where(pref == _NO_MOVE_PREF, NEUTRAL, code)
    return code.astype(np.uint16)


def _compact_columns(mat: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``mat[:, keep]`` computed in place, row by row, so that the successor matrix (the
    largest array) never exists twice; the result is a view of the front columns."""
    idx = np.flatnonzero(keep)
    if len(idx) == mat.shape[1]:
        return mat
    for row in mat:
        row[: len(idx)] = row[idx]
    return mat[:, : len(idx)]


def _mover_total(sector: Sector) -> int:
    return sector[0] + sector[2]


# --------------------------------------------------------------------------- solver


@dataclass
class _SectorData:
    mover: np.ndarray
    other: np.ndarray
    slots: int  # size of the sparse slot space rank[mover] * C(n, B) + rank[other]
    values: np.ndarray | None = None  # uint16 codes by slot, once solved


class _ReferenceSolver:
    def __init__(self, variant: Variant):
        self.variant = variant
        board = variant.board
        self.n = board.n
        self.full = (1 << self.n) - 1
        self.mills = [int(m) for m in board.mill_masks]
        self.point_mills = board.point_mills
        adj = [
            [q for q in range(self.n) if int(board.adjacency[p]) >> q & 1] for p in range(self.n)
        ]
        deg = max(len(a) for a in adj)
        self.neighbours = np.full((self.n, deg), -1, dtype=np.int64)
        for p, a in enumerate(adj):
            self.neighbours[p, : len(a)] = a
        self.rank = _rank_table(self.n)
        self.sectors: dict[Sector, _SectorData] = {}

    # ---- sector graph

    def sector_successors(self, sector: Sector) -> set[Sector]:
        """Sectors a move can lead to, including terminal ones (mover total < 3)."""
        w, b, wf, bf = sector
        v = self.variant
        if w + wf < 3 or w + b >= self.n:
            return set()
        w2, wf2 = (w + 1, wf - 1) if wf > 0 else (w, wf)
        out = {(b, w2, bf, wf2)}
        if v.removes and (wf == 0 or v.placement_captures) and w2 >= 3:
            for r in range(1, min(v.double_mill_removes, b) + 1):
                out.add((b - r, w2, bf, wf2))
        return out

    def closure(self, roots: list[Sector]) -> list[Sector]:
        seen = set(roots)
        stack = list(roots)
        while stack:
            for s in self.sector_successors(stack.pop()):
                if _mover_total(s) >= 3 and s not in seen:
                    seen.add(s)
                    stack.append(s)
        return sorted(seen)

    def group_of(self, sector: Sector, closure: set[Sector]) -> tuple[Sector, ...]:
        """Sectors that must be solved together: a moving-phase twin {(a,b), (b,a)}."""
        w, b, wf, bf = sector
        twin = (b, w, 0, 0)
        if wf == 0 and bf == 0 and twin != sector and twin in closure:
            return tuple(sorted((sector, twin)))
        return (sector,)

    def solve_closure(self, roots: list[Sector]) -> list[Sector]:
        """Solve every sector reachable from ``roots``; returns them, sorted."""
        closure = self.closure(roots)
        closure_set = set(closure)
        for s in closure:
            self._ensure_solved(s, closure_set)
        return closure

    def solve(self, roots: list[Sector]) -> dict[Sector, SectorValues]:
        closure = self.solve_closure(roots)
        result = {}
        for s in closure:
            data = self.sectors[s]
            codes = data.values[self._slot(s, data.mover, data.other)]
            result[s] = SectorValues(data.mover, data.other, codes)
        return result

    def _ensure_solved(self, sector: Sector, closure: set[Sector]) -> None:
        if sector in self.sectors and self.sectors[sector].values is not None:
            return
        group = self.group_of(sector, closure)
        for s in group:
            for t in self.sector_successors(s):
                if t not in group and _mover_total(t) >= 3:
                    self._ensure_solved(t, closure)
        self._solve_group(group)

    def _data(self, sector: Sector) -> _SectorData:
        if sector not in self.sectors:
            w, b = sector[0], sector[1]
            mover, other = _positions(self.n, w, b)
            slots = math.comb(self.n, w) * math.comb(self.n, b)
            self.sectors[sector] = _SectorData(mover, other, slots)
        return self.sectors[sector]

    def _slot(self, sector: Sector, mover: np.ndarray, other: np.ndarray) -> np.ndarray:
        b = sector[1]
        return self.rank[mover].astype(np.int64) * math.comb(self.n, b) + self.rank[other]

    # ---- rules, vectorized

    def _has_mill(self, masks: np.ndarray) -> np.ndarray:
        hit = np.zeros(len(masks), dtype=bool)
        for m in self.mills:
            hit |= (masks & m) == m
        return hit

    def _in_mills(self, masks: np.ndarray) -> np.ndarray:
        """Union of the complete mills of each mask (its protected stones)."""
        out = np.zeros_like(masks)
        for m in self.mills:
            out |= np.where((masks & m) == m, m, 0)
        return out

    def _move_columns(self, movers: np.ndarray, sector: Sector):
        """The moves of each mover set as columns ``(f, t, ok)`` of per-mover-set arrays:
        move the stone on ``f`` (None for a placement) to ``t``, where ``ok`` says the
        column holds a move for that mover set. Whether ``t`` is free of the other side's
        stones is left to the caller (it depends on the position, not on the mover set)."""
        w, _, wf, _ = sector
        n = self.n
        not_mine = _bit_slots(~movers & self.full, n - w, n)
        everyone = np.ones(len(movers), dtype=bool)
        if wf > 0:
            return [(None, not_mine[:, j], everyone) for j in range(n - w)]
        stones = _bit_slots(movers, w, n)
        if self.variant.flying and w == 3:
            return [
                (stones[:, k], not_mine[:, j], everyone) for k in range(w) for j in range(n - w)
            ]
        columns = []
        for k in range(w):
            for j in range(self.neighbours.shape[1]):
                t = self.neighbours[stones[:, k], j]
                ok = (t >= 0) & (((movers >> np.maximum(t, 0)) & 1) == 0)
                columns.append((stones[:, k], t, ok))
        return columns

    def _closed_mills(self, m2: np.ndarray, t: np.ndarray) -> np.ndarray:
        """How many mills through ``t`` are complete in ``m2`` (per element)."""
        pm = self.point_mills[t]
        return ((pm != 0) & ((m2[:, None] & pm) == pm)).sum(axis=1)

    def _remove_one(self, pos, o, m2):
        """Every way to remove one more stone from ``o``: unprotected stones only, unless
        all of them stand in mills; nothing if ``o`` is empty. Positions repeat per choice."""
        done = o == 0
        out_pos, out_o, out_m2 = [pos[done]], [o[done]], [m2[done]]
        pos, o, m2 = pos[~done], o[~done], m2[~done]
        free = o & ~self._in_mills(o)
        removable = np.where(free != 0, free, o)
        for p in range(self.n):
            s = ((removable >> p) & 1) == 1
            out_pos.append(pos[s])
            out_o.append(o[s] & ~(np.int64(1) << p))
            out_m2.append(m2[s])
        return np.concatenate(out_pos), np.concatenate(out_o), np.concatenate(out_m2)

    def _successor_codes(self, sector: Sector, mover: np.ndarray, other: np.ndarray):
        """Codes of positions of an already-solved sector (or of a lost one: total < 3)."""
        if _mover_total(sector) < 3:
            return np.full(len(mover), LOSS_NOW, dtype=np.uint16)
        return self.sectors[sector].values[self._slot(sector, mover, other)]

    def _fold_captures(self, pref, pos, o, m2, closed, succ_w, sector):
        """Fold the values of the capturing moves of positions ``pos`` (victim ``o``, mover
        after the move ``m2``, ``closed`` mills) into ``pref``."""
        _, b, wf, bf = sector
        wf2 = wf - 1 if wf > 0 else wf
        removals = np.where(closed >= 2, self.variant.double_mill_removes, 1)
        for r in np.unique(removals):
            sel = removals == r
            cpos, co, cm2 = pos[sel], o[sel], m2[sel]
            if b - 1 + bf < 3:  # any single removal already leaves the victim lost
                pref[cpos] = np.minimum(pref[cpos], _WIN_NOW_PREF)
                continue
            for _ in range(int(r)):
                cpos, co, cm2 = self._remove_one(cpos, co, cm2)
            counts = np.bitwise_count(co)
            for nb in np.unique(counts):
                s = counts == nb
                codes = self._successor_codes((int(nb), succ_w, bf, wf2), co[s], cm2[s])
                np.minimum.at(pref, cpos[s], _preference(codes))

    # ---- retrograde

    def _solve_group(self, group: tuple[Sector, ...]) -> None:
        datas = [self._data(s) for s in group]
        offsets, total = {}, 0
        for s, d in zip(group, datas, strict=True):
            offsets[s] = total
            total += d.slots
        if total >= np.iinfo(np.int32).max:
            raise OverflowError("group too large for the reference solver")
        sentinel = total
        values = np.zeros(total + 1, dtype=np.uint16)
        values[sentinel] = NEUTRAL
        blocks = []
        for s, d in zip(group, datas, strict=True):
            slot = offsets[s] + self._slot(s, d.mover, d.other)
            terminal_loss, terminal_draw, mat, exit_code = self._build_block(
                s, d, group, offsets, sentinel
            )
            values[slot[terminal_loss]] = LOSS_NOW
            live = ~(terminal_loss | terminal_draw)
            blocks.append([slot[live], _compact_columns(mat, live), exit_code[live]])
            del mat  # the block holds the (compacted) matrix; keep a single copy alive
        self._retrograde(values, blocks)
        for s, d in zip(group, datas, strict=True):
            d.values = values[offsets[s] : offsets[s] + d.slots].copy()

    def _build_block(self, sector, data, group, offsets, sentinel):
        """Terminal flags, the in-group successor matrix (one row per move column, slots
        padded with the sentinel) and the best exit code of each position of a sector.

        Positions are sorted by (mover, other) and every mover set has the same number of
        other sets, so the sector is a (mover sets x other sets) matrix: a move of the
        mover set (f -> t) exists in every position of its row whose other set leaves t
        empty, and everything but that test and the successor's slot is per row."""
        v = self.variant
        w, b, wf, bf = sector
        n = self.n
        movers = _subsets(n, w)
        size = len(data.mover)
        other = data.other.reshape(len(movers), -1)
        assert (data.mover.reshape(other.shape) == movers[:, None]).all()
        terminal_loss = np.zeros(size, dtype=bool)
        terminal_draw = np.zeros(size, dtype=bool)
        pref = np.full(size, _NO_MOVE_PREF, dtype=np.int64)
        if w + wf < 3:  # rule (2) for the whole sector
            terminal_loss[:] = True
            no_matrix = np.zeros((0, size), np.int32)
            return terminal_loss, terminal_draw, no_matrix, _code_from_preference(pref)
        if v.line_wins:  # rule (1)
            terminal_loss |= self._has_mill(data.other)
        placing = wf > 0
        w2, wf2 = (w + 1, wf - 1) if placing else (w, wf)
        quiet_sector = (b, w2, bf, wf2)
        in_group = quiet_sector in group
        quiet_lost = _mover_total(quiet_sector) < 3
        may_capture = v.removes and (v.placement_captures or not placing) and b > 0
        # A full board has no move at all (and no successor sector to look values up in).
        columns = self._move_columns(movers, sector) if w + b < n else []
        mat = np.full((len(columns) if in_group else 0, size), sentinel, dtype=np.int32)
        new_mover_part = self.rank[other].astype(np.int64) * math.comb(n, w2)
        has_move = np.zeros(other.shape, dtype=bool)
        for col, (f, t, ok) in enumerate(columns):
            t = np.maximum(t, 0)
            valid = ok[:, None] & (((other >> t[:, None]) & 1) == 0)
            has_move |= valid
            m2 = movers | (np.int64(1) << t)
            if f is not None:
                m2 &= ~(np.int64(1) << f)
            closed = self._closed_mills(m2, t) if may_capture else np.zeros(len(movers), int)
            quiet = (valid & (closed == 0)[:, None]).ravel()
            if quiet_lost:
                pref[quiet] = np.minimum(pref[quiet], _WIN_NOW_PREF)
            else:
                slot = (new_mover_part + self.rank[m2][:, None]).ravel()
                if in_group:
                    mat[col] = np.where(quiet, slot + offsets[quiet_sector], sentinel)
                else:
                    codes = self.sectors[quiet_sector].values[np.where(quiet, slot, 0)]
                    pref = np.where(quiet, np.minimum(pref, _preference(codes)), pref)
            capture = valid & (closed > 0)[:, None]
            if capture.any():
                pos = np.flatnonzero(capture)
                row = pos // other.shape[1]
                self._fold_captures(pref, pos, other.ravel()[pos], m2[row], closed[row], w2, sector)
        no_move = ~has_move.ravel() & ~terminal_loss  # rule (3)
        if v.full_board_draw and w + b == n:
            terminal_draw |= no_move
        else:
            terminal_loss |= no_move
        return terminal_loss, terminal_draw, mat, _code_from_preference(pref)

    @staticmethod
    def _retrograde(values: np.ndarray, blocks: list) -> None:
        """Level by level: at odd level d a position with a successor lost in d-1 plies is
        won in d; at even level d a position whose successors are all won in at most d-1
        plies is lost in d. Exits (moves out of the group) enter as fixed codes. What is
        still undecided when nothing more can change is a draw (code 0)."""
        max_exit = max((int(bl[2].max()) for bl in blocks if len(bl[2])), default=0)
        last_change, d = 0, 0
        while any(len(bl[0]) for bl in blocks):
            d += 1
            if d - last_change > 2 and d > max_exit + 2:
                break
            if d > MAX_PLIES:
                raise OverflowError("distance does not fit the value code")
            if d % 2 == 1:
                succ_ok = values == d  # successor lost in d - 1 plies
            else:
                succ_ok = (values != 0) & (values % 2 == 0) & (values <= d)
            decided = []
            for bl in blocks:
                slots, mat, exit_code = bl
                hit = np.empty(len(slots), dtype=bool)
                step = max(1, 8_000_000 // max(1, mat.shape[0]))
                for lo in range(0, len(slots), step):
                    ok = succ_ok[mat[:, lo : lo + step]]
                    ex = exit_code[lo : lo + step]
                    if d % 2 == 1:
                        hit[lo : lo + step] = ok.any(axis=0) | (ex == d)
                    else:
                        ex_ok = (ex != 0) & (ex % 2 == 0) & (ex <= d)
                        hit[lo : lo + step] = ok.all(axis=0) & ex_ok
                if hit.any():
                    decided.append(slots[hit])
                    keep = ~hit
                    bl[0], bl[1], bl[2] = slots[keep], _compact_columns(mat, keep), exit_code[keep]
            for s in decided:
                values[s] = d + 1
            if decided:
                last_change = d


# --------------------------------------------------------------------------- plain rules


def python_terminal(variant: Variant, sector: Sector, mover: int, other: int) -> int | None:
    """The code of a terminal position by rules (1) and (2), else None (rule (3), no legal
    move, is left to the caller: it is ``python_moves`` returning nothing)."""
    if variant.line_wins and any(other & m == m for m in map(int, variant.board.mill_masks)):
        return LOSS_NOW
    if sector[0] + sector[2] < 3:
        return LOSS_NOW
    return None


def python_moves(variant: Variant, sector: Sector, mover: int, other: int) -> list:
    """Every move of a non-terminal position as (successor sector, new mover, new other),
    with plain loops: a second, literal reading of the rules."""
    board = variant.board
    n = board.n
    mills = [int(m) for m in board.mill_masks]
    w, b, wf, bf = sector
    empty = [p for p in range(n) if not (mover | other) >> p & 1]
    own = [p for p in range(n) if mover >> p & 1]
    if wf > 0:
        steps = [(None, t) for t in empty]
    elif variant.flying and w == 3:
        steps = [(f, t) for f in own for t in empty]
    else:
        steps = [(f, t) for f in own for t in empty if int(board.adjacency[f]) >> t & 1]
    out = []
    for f, t in steps:
        m2 = (mover | 1 << t) & ~(0 if f is None else 1 << f)
        w2, wf2 = (w + 1, wf - 1) if f is None else (w, wf)
        closed = sum(1 for mm in mills if mm >> t & 1 and m2 & mm == mm)
        if variant.line_wins or closed == 0 or (f is None and not variant.placement_captures):
            out.append(((b, w2, bf, wf2), other, m2))
            continue
        removals = variant.double_mill_removes if closed >= 2 else 1
        victims = {other}
        for _ in range(removals):
            nxt = set()
            for o in victims:
                if o == 0:
                    nxt.add(o)
                    continue
                protected = 0
                for mm in mills:
                    if o & mm == mm:
                        protected |= mm
                candidates = o & ~protected or o
                nxt.update(o & ~(1 << p) for p in range(n) if candidates >> p & 1)
            victims = nxt
        for o in sorted(victims):
            out.append(((o.bit_count(), w2, bf, wf2), o, m2))
    return out


# --------------------------------------------------------------------------- move limit


@dataclass
class SectorRuleResults:
    """Every position of one sector, sorted by (mover, other), with its result under the
    draw rule of a move limit at each count: ``results[c]`` is 1 (win), 0 (draw) or -1
    (loss) for the side to move at count ``c`` (0 to the limit; placement sectors have
    count 0 only, their only row)."""

    mover: np.ndarray
    other: np.ndarray
    results: np.ndarray  # int8, (counts, positions)


def solve_rule_reference(variant: Variant, roots: list[Sector], limit: int
                         ) -> dict[Sector, SectorRuleResults]:
    """Every sector reachable from ``roots`` under the draw rule of ``limit`` moving
    plies without a capture (docs/draw_rules.md), with the count an explicit part of the
    state: for each count from ``limit - 1`` down to 0 a position's result is the best of
    its captures (each worth its target's result at count 0, so sectors are solved in
    the same order as the game's), its moves into positions that end the game, and its
    quiet moves, each worth the successor's result at the next count, a draw once that
    count reaches the limit. No distance, no retrograde levels: one pass per count."""
    solver = _RuleReferenceSolver(variant, limit)
    closure = solver.solve_closure([tuple(r) for r in roots])
    out = {}
    for s in closure:
        data = solver.sectors[s]
        slot = solver._slot(s, data.mover, data.other)
        rows = solver.results[s]
        out[s] = SectorRuleResults(data.mover, data.other, rows[:, slot])
    return out


# a sector's stored values, read as exits by the sectors solved after it: its result at
# count 0 as a game code (1 lost, 2 won, 0 drawn), so that ``_build_block`` folds
# captures and moves into lost sectors exactly as it does for the game
_RULE_CODES = np.array([LOSS_NOW, 0, 2], dtype=np.uint16)  # for results -1, 0, 1


class _RuleReferenceSolver(_ReferenceSolver):
    def __init__(self, variant: Variant, limit: int):
        super().__init__(variant)
        self.limit = limit
        self.results: dict[Sector, np.ndarray] = {}  # per sector: (counts, slots) int8
        self._group: tuple[Sector, ...] = ()

    def _solve_group(self, group: tuple[Sector, ...]) -> None:
        self._group = group
        super()._solve_group(group)

    def _retrograde(self, values: np.ndarray, blocks: list) -> None:
        """Replaces the game's level-by-level analysis by the passes over the counts.
        On entry ``values`` holds 1 for the group's terminal losses, 0 elsewhere, and
        ``NEUTRAL`` in its last slot, the sentinel of the successor matrices."""
        limit = self.limit
        placing = any(s[2] or s[3] for s in self._group)
        counts = 1 if placing else limit + 1
        # a successor's result for its own side to move; the sentinel (no move) is worth
        # 2 so that its negation never wins a maximum
        fixed = np.where(values == LOSS_NOW, -1, 0).astype(np.int8)
        fixed[-1] = 2
        live = np.zeros(len(values), dtype=bool)
        for slots, _, _ in blocks:
            live[slots] = True
        rows = np.repeat(fixed[None, :], counts, axis=0)
        exit_results = [np.where(ex == 1, 1, np.where(ex == 0, 0, -1)).astype(np.int8)
                        for _, _, ex in blocks]
        # at the limit itself the game is over (drawn unless it ended): row ``limit``
        # keeps the terminal results
        for c in range(min(counts, limit) - 1, -1, -1):
            succ = fixed.copy()
            if c + 1 < min(counts, limit):
                succ[live] = rows[c + 1][live]  # else: the quiet ply reaches the limit, a draw
            for (slots, mat, _), best in zip(blocks, exit_results, strict=True):
                result = best.copy()
                step = max(1, 8_000_000 // max(1, mat.shape[0]))
                for lo in range(0, len(slots), step):
                    if mat.shape[0]:
                        quiet = -succ[mat[:, lo : lo + step]].min(axis=0)
                        result[lo : lo + step] = np.maximum(result[lo : lo + step], quiet)
                rows[c][slots] = result
        values[:-1] = _RULE_CODES[rows[0][:-1] + 1]
        offset = 0
        for s in self._group:
            size = self.sectors[s].slots
            self.results[s] = rows[:, offset : offset + size]
            offset += size
