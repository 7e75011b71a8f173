"""Independent forward verification of a table file (``morris verify``, docs/verification.md).

For every slot of a sector the verifier asks the shared index whether the slot is
canonical (padding must be exactly the non-canonical slots) and recomputes every
canonical position's value from the *stored* codes of its successors, with a forward
move generator written here from the rules of docs/rules.md. It shares the board's
tables (``movegen.rule_tables``: adjacency, mills, rule flags) and the index with the
solver, never its move generator or retrograde kernels, so a bug there shows up here as
a mismatch instead of being repeated. It also
recounts each sector's statistics attributes, and reading a dataset checks HDF5's
fletcher32 checksum.

Why checking each position against its successors is enough. The recomputed value is
the best successor for the side to move: the shortest win (the smallest odd, i.e. lost,
successor code, plus 1), else a draw if any successor is drawn, else the longest loss
(the largest successor code, plus 1). So equality with the stored code *is* the strict
distance equations we also want: a stored win with code c has a successor stored at
exactly c - 1 and none lost sooner; a stored loss with c > 1 has only won successors,
one of them at exactly c - 1; code 1 only comes from a position with no move (or, in
Three Men's Morris, whose opponent has a line). These equations admit no cycle of
positions "confirming" one another: every win points to a loss at a strictly smaller
code, and every loss only to smaller wins. By induction on the code, every stored win or
loss is true and every true win or loss at distance d is stored as d + 1, so a stored
draw cannot hide a win (its lost successor would make it a win) and a stored win or loss
cannot hide a draw. That is why the extra checks asked of a verifier, "a win has a
successor at c - 1" and "a loss > 1 has only won successors, one at c - 1", are no
separate pass: the equality check is those checks. The argument covers a whole file;
verifying one sector (``--sector``) assumes the sectors it leads to are right.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange
from tqdm import tqdm

from ..core.bits import prefetch, trailing_zeros
from ..core.errors import MorrisError
from ..index.index_format import IndexTables, index_tables, sector_slots
from ..index.indexing import (
    canonical_index,
    free_places,
    index_in_class,
    mover_class,
    next_in_class,
    permute,
    unrank,
)
from ..index.movegen import RuleTables, rule_tables
from ..rules.drawrules import RULE_PAD, move_scores
from ..rules.drawrules import code_of_score as rule_code_of_score
from ..rules.drawrules import statistics as rule_statistics
from ..rules.position import Position
from ..rules.sectors import Sector, is_moving, sector_name, successors
from ..rules.values import LOSS_SCORE, PAD, Value, code_of_score, move_score
from ..rules.variants import Variant
from ..tables.sector_cache import SectorCache
from ..tables.storage import SECTORS, STAT_KEYS, TableError, TableFile, rule_layer

# Successors are ranked by ``values.move_score`` (smaller is better for the side to move);
# a position without a move keeps this key, above every score
_NO_MOVE = LOSS_SCORE + 1
# Recomputed "codes" that mean the value could not be recomputed (they never match).
MISSING_SECTOR = -1  # a move leads to a sector that was not loaded
PADDED_SUCCESSOR = -2  # a successor's canonical slot holds the padding mark

_CHUNK = 4096  # slots per parallel work item
_CACHE_BYTES = 2 << 30  # sectors kept loaded beyond those the current sector needs

@njit(cache=True, inline="always")
def _has_line(mill_masks, stones):
    found = False
    for m in mill_masks:
        found |= (stones & m) == m
    return found


@njit(cache=True, inline="always")
def _unprotected(mill_masks, stones):
    """Stones that may be taken: those outside the owner's complete mills, or any if
    every stone stands in one."""
    in_mills = np.int64(0)
    for m in mill_masks:
        if (stones & m) == m:
            in_mills |= m
    free = stones & ~in_mills
    return free if free else stones


_key_of = njit(inline="always")(move_score)
_code_of_key = njit(inline="always")(code_of_score)
_rule_code_of_key = njit(inline="always")(rule_code_of_score)


# Successors whose codes are still to be read: the move loops queue them, each slot's
# cache line prefetched, and ``_drain`` reads them, so that the reads' cache misses
# overlap (verifying a placement sector waited on one miss at a time). An entry is
# ``slot << 2 | stones removed``; the queue is drained once it holds more than
# ``_QUEUE_LENGTH``, before a landing, which adds at most B * B entries.
_QUEUE_LENGTH = 256


@njit(cache=True, inline="always")
def _drain(r0, r1, r2, queue, size, best, scored):
    """``best`` lowered by the keys of the ``size`` queued successors (``r0``, ``r1``,
    ``r2``: the codes of the sectors reached by removing 0, 1, 2 stones)."""
    for j in range(size):
        slot = queue[j] >> 2
        removed = queue[j] & 3
        if removed == 0:
            code = np.int64(r0[slot])
        elif removed == 1:
            code = np.int64(r1[slot])
        else:
            code = np.int64(r2[slot])
        key = code if scored else _key_of(code)  # draw-rule successors come as scores
        best = min(best, PADDED_SUCCESSOR if code == PAD else key)
    return best


@njit(cache=True, inline="always")
def _queue(codes, removed, slot, queue, size):
    """Queue slot ``slot`` of ``codes``, the sector reached by removing ``removed``
    stones, and prefetch its cache line; returns the new size."""
    prefetch(codes, slot)
    queue[size] = slot << 2 | removed
    return size + 1


@njit(cache=True, inline="always")
def _known_key(stones, codes):
    """The key of every successor whose mover has ``stones`` stones (on the board and in
    hand), in the sector ``codes``, if no read is needed: 1 for fewer than 3 stones
    (lost), ``MISSING_SECTOR`` if the sector is not loaded (no sector holds zero slots);
    else 0."""
    if stones < 3:
        return np.int64(1)
    if codes.shape[0] == 0:
        return np.int64(MISSING_SECTOR)
    return np.int64(0)


@njit(cache=True)
def expected_codes(R, T, W, B, WF, BF, nexts, movers, others, out, rule_limit):
    """What the positions (``movers[k]``, ``others[k]``) of sector (W, B, WF, BF) must
    hold, into ``out[k]``: the value recomputed from the successors' stored codes (or a
    negative error mark, see ``MISSING_SECTOR``).

    A successor's mover is our other side less the stones removed, ``B - removed`` of
    them with ``BF`` in hand, and its other side our mover after the move, ``W`` stones
    (plus 1 when placing): its sector and whether it needs a read depend on the number
    removed only. Numba takes and drops a reference to each array a function or an
    inlined helper is passed (a tuple: to each of its arrays), with atomic
    instructions, and removes such pairs only where the code is simple. A call per slot
    (R, T, ``nexts``: 18 arrays) and helpers that took T and the sectors' codes did
    that in the move loops, and the verifier ran at a third of the solver's speed;
    hence one call for many positions, tables unpacked once, and the index computed in
    the move loops themselves (the generated code shows no such pair left there)."""
    r0, r1, r2 = nexts
    scored = rule_limit > 0  # the draw-rule values: ``nexts`` hold ``move_scores``
    mill_masks = R.mill_masks
    point_mills = R.point_mills
    adjacency = R.adjacency
    full = R.full
    line_wins = R.line_wins != 0
    twice = R.double_removes == 2
    placing = WF > 0
    # a placement captures nothing, or a line wins at once: no move removes a stone
    never_captures = line_wins or (placing and not R.placement_captures)
    fly = not placing and R.flying != 0 and W == 3
    one = np.int64(1)
    after = W + placing  # our stones on the board after a move
    known0 = _known_key(B + BF, r0)
    known1 = _known_key(B - 1 + BF, r1)
    known2 = _known_key(B - 2 + BF, r2)
    queue = np.empty(_QUEUE_LENGTH + B * B + 1, np.int64)
    # what depends on the other side alone, kept while it stays (``_check_values``
    # passes the positions of one other set one after another)
    last_other = np.int64(-1)
    capturable = qc = qs = np.int64(0)
    for k in range(out.shape[0]):
        mover, other = movers[k], others[k]
        if line_wins and _has_line(mill_masks, other):
            out[k] = 1
            continue
        quiet_only = never_captures or other == 0
        if other != last_other:
            last_other = other
            capturable = _unprotected(mill_masks, other)
            qc, qs = mover_class(T, B, other)  # every quiet successor has ``other`` as its mover
        empty = full & ~(mover | other)
        size = 0
        best = np.int64(_NO_MOVE)
        # a placement moves a stone from outside the board: one "origin", sb = 0
        stones = one if placing else mover
        while stones and best > 1:  # nothing beats a successor lost in 0
            sb = 0 if placing else stones & -stones
            stones &= stones - 1
            spots = empty if placing or fly else adjacency[trailing_zeros(sb)] & empty
            while spots and best > 1:
                if size > _QUEUE_LENGTH:
                    best = _drain(r0, r1, r2, queue, size, best, scored)
                    size = 0
                t = trailing_zeros(spots)
                spots &= spots - 1
                moved = (mover ^ sb) | (one << t)
                mills = 0
                for j in range(point_mills.shape[1]):
                    m = point_mills[t, j]
                    if m != 0 and (moved & m) == m:
                        mills += 1
                if mills and line_wins:
                    best = one  # a completed line wins at once
                elif mills == 0 or quiet_only:
                    if known0:
                        best = min(best, known0)
                    else:
                        slot = index_in_class(T, B, after, qc, qs, moved)
                        size = _queue(r0, 0, slot, queue, size)
                elif twice and mills >= 2:  # two stones, protection re-evaluated between
                    first = capturable
                    while first and best > 1:
                        x = first & -first
                        first ^= x
                        rest = other ^ x
                        if rest == 0:  # the last stone on the board went first
                            if known1:
                                best = min(best, known1)
                            else:
                                slot = canonical_index(T, B - 1, after, rest, moved)
                                size = _queue(r1, 1, slot, queue, size)
                        elif known2:
                            best = min(best, known2)
                        else:
                            second = _unprotected(mill_masks, rest)
                            while second:
                                y = second & -second
                                second ^= y
                                slot = canonical_index(T, B - 2, after, rest ^ y, moved)
                                size = _queue(r2, 2, slot, queue, size)
                elif known1:
                    best = min(best, known1)
                else:
                    first = capturable
                    while first:
                        x = first & -first
                        first ^= x
                        slot = canonical_index(T, B - 1, after, other ^ x, moved)
                        size = _queue(r1, 1, slot, queue, size)
        if best > 1:
            best = _drain(r0, r1, r2, queue, size, best, scored)
        if best == _NO_MOVE:
            out[k] = 0 if (R.full_board_draw and (mover | other) == full) else 1
        elif best < 0:
            out[k] = best
        else:
            out[k] = _rule_code_of_key(best, rule_limit) if scored else _code_of_key(best)


@njit(cache=True, inline="always")
def _is_canonical(T, W, B, idx):
    """Whether slot ``idx`` of sector (W, B) holds a canonical position (else padding);
    only a slot whose mover class has a symmetry of its own can be padding."""
    if T.class_stab[T.class_off[W] + idx // T.binom[T.n - W, B]] == 0:
        return True
    mover, other = unrank(T, W, B, idx)
    return canonical_index(T, W, B, mover, other) == idx


@njit(parallel=True, cache=True)
def _check_slots(T, codes, W, B, lo, hi, bad_count, bad_first, tally):
    """Slots [lo, hi) in chunks of ``_CHUNK``: per chunk, the number of non-canonical
    slots not holding ``PAD``, the first few of them, and a recount (positions, wins,
    draws, losses, longest win, longest loss) of the stored codes of canonical slots."""
    nchunks = (hi - lo + _CHUNK - 1) // _CHUNK
    for ci in prange(nchunks):
        start = lo + ci * _CHUNK
        nbad = 0
        positions = wins = draws = losses = 0
        max_win = max_loss = -1
        for i in range(start, min(hi, start + _CHUNK)):
            stored = np.int64(codes[i])
            if not _is_canonical(T, W, B, i):
                if stored != PAD:
                    if nbad < bad_first.shape[1]:
                        bad_first[ci, nbad] = i
                    nbad += 1
                continue
            positions += 1
            if stored == PAD:  # a canonical slot: ``_check_values`` reports it
                continue
            if stored == 0:
                draws += 1
            elif stored & 1:
                losses += 1
                max_loss = max(max_loss, stored - 1)
            else:
                wins += 1
                max_win = max(max_win, stored - 1)
        bad_count[ci] = nbad
        tally[ci, 0] = positions
        tally[ci, 1] = wins
        tally[ci, 2] = draws
        tally[ci, 3] = losses
        tally[ci, 4] = max_win
        tally[ci, 5] = max_loss


def walk_length(T: IndexTables, W: int, B: int) -> int:
    """Positions ``_check_values`` walks for sector (W, B): every class of the other
    side's set times every mover set on the points it leaves free."""
    return sector_slots(T, B, W)


@njit(parallel=True, cache=True)
def _check_values(R, T, codes, W, B, WF, BF, nexts, lo, hi, bad_count, bad_first,
                  rule_limit):
    """Positions [lo, hi) of the walk by the other side's set, in chunks of ``_CHUNK``:
    per chunk, the number whose stored code (at their canonical slot) differs from the
    recomputed one, and the first few of those slots.

    The walk is the slot order of the index of sector (B, W): each class of the other
    side's set, with every mover set on the points it leaves free. Every quiet
    successor of the positions that share an other set lies in the block of one mover
    class of its sector (the captures of one stone in one more each), so the reads stay
    in the cache; in slot order they fall anywhere in the successor sector and wait on
    memory (benchmarks/solver_report.md, "Walk orders", has both timed). A position whose
    other set has a symmetry of its own is met once per such symmetry; only its smallest
    mover image is checked, so each canonical slot once."""
    nchunks = (hi - lo + _CHUNK - 1) // _CHUNK
    per_class = T.binom[T.n - B, W]
    for ci in prange(nchunks):
        start = lo + ci * _CHUNK
        n = min(_CHUNK, hi - start)
        movers = np.empty(n, np.int64)
        others = np.empty(n, np.int64)
        slots = np.empty(n, np.int64)
        m = 0
        places = 0
        for j in range(start, start + n):
            c = T.class_off[B] + j // per_class
            # consecutive positions of one class: the next mover set, not a search for it
            if j == start or j % per_class == 0:
                other, mover = unrank(T, B, W, j)
                places = free_places(T, c, mover)
            else:
                places, mover = next_in_class(T, c, places)
            stab = T.class_stab[c]
            smallest = True
            while stab:
                smallest &= permute(T, trailing_zeros(stab), mover) >= mover
                stab &= stab - 1
            if smallest:
                movers[m] = mover
                others[m] = other
                slot = canonical_index(T, W, B, mover, other)
                slots[m] = slot
                # read after the recomputation below: by then the line is in the cache
                prefetch(codes, slot)
                m += 1
        expected = np.empty(m, np.int64)
        expected_codes(R, T, W, B, WF, BF, nexts, movers[:m], others[:m], expected,
                       rule_limit)
        nbad = 0
        for k in range(m):
            if expected[k] != np.int64(codes[slots[k]]):
                if nbad < bad_first.shape[1]:
                    bad_first[ci, nbad] = slots[k]
                nbad += 1
        bad_count[ci] = nbad


def describe(code: int) -> str:
    """A stored or recomputed code in words."""
    if code == PAD:
        return "padding"
    if code == MISSING_SECTOR:
        return "unknown (a move leads to a sector not in the file)"
    if code == PADDED_SUCCESSOR:
        return "unknown (a successor's slot is marked as padding)"
    return str(Value.from_code(code))


@dataclass
class Mismatch:
    """A slot whose stored code differs from what its successors imply (codes as stored;
    the recomputed one may be ``PAD`` or an error mark, see ``describe``)."""

    position: str
    stored: int
    recomputed: int

    def __str__(self) -> str:
        stored, recomputed = describe(self.stored), describe(self.recomputed)
        return f"{self.position}: stored {stored}, recomputed {recomputed}"


@dataclass
class SectorResult:
    """One sector's verdict; only the first few mismatches are kept, all are counted."""

    sector: Sector
    positions: int = 0
    seconds: float = 0.0
    mismatch_count: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)  # the first few
    problems: list[str] = field(default_factory=list)  # statistics, missing sectors, sizes

    @property
    def ok(self) -> bool:
        return self.mismatch_count == 0 and not self.problems

    def to_dict(self) -> dict:
        return {
            "sector": sector_name(self.sector),
            "ok": self.ok,
            "positions": self.positions,
            "seconds": self.seconds,
            "mismatch_count": self.mismatch_count,
            "mismatches": [
                {
                    "position": m.position,
                    "stored": describe(m.stored),
                    "recomputed": describe(m.recomputed),
                    "stored_code": m.stored,
                    "recomputed_code": m.recomputed,
                }
                for m in self.mismatches
            ],
            "problems": self.problems,
        }


@dataclass
class VerifyReport:
    """Every verified sector of one file; ``ok`` only if all of them are."""

    path: Path
    variant: str
    sectors: list[SectorResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.sectors)

    @property
    def positions(self) -> int:
        return sum(r.positions for r in self.sectors)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.sectors)

    @property
    def positions_per_second(self) -> float:
        return self.positions / self.seconds if self.seconds > 0 else 0.0  # JSON has no inf

    def to_dict(self) -> dict:
        return {
            "path": str(self.path),
            "variant": self.variant,
            "ok": self.ok,
            "positions": self.positions,
            "seconds": self.seconds,
            "positions_per_second": self.positions_per_second,
            "sectors": [r.to_dict() for r in self.sectors],
        }


def _open(path: Path) -> tuple[TableFile, dict[Sector, dict], IndexTables]:
    """The table, its sectors' attributes and its index; metadata that cannot be read
    (no sectors group, rules naming no known board) is a TableError, not a traceback."""
    try:
        table = TableFile.open(path)
        return table, table.sectors(), index_tables(table.variant.board, table.variant.stones)
    except MorrisError:
        raise
    except (OSError, KeyError, TypeError, ValueError) as e:
        raise TableError(f"{path} is not a readable morris tablebase file ({e})") from None


def verification_order(sector: Sector) -> tuple:
    """Twins next to each other, so the sectors they share stay in the cache."""
    W, B, WF, BF = sector
    return (WF + BF, W + B, max(W, B), W)


def verify_table(
    path: str | Path,
    sector: Sector | None = None,
    progress: bool = True,
    *,
    threads: int | None = None,
    on_sector: Callable[[SectorResult], None] | None = None,
    examples: int = 5,
    draw_rules: int | None = None,
) -> VerifyReport:
    """Verify every sector of the table file at ``path`` (or only ``sector``): the
    game's values, or with ``draw_rules`` L the values under that move limit
    (``drawrules``), recomputed from the successors' stored rule codes the same way.

    Raises ``TableError`` for a missing, foreign or damaged file; mismatches and wrong
    statistics are reported per sector, ``on_sector`` receiving each result as it is done.
    ``progress`` shows a bar per sector when stderr is a terminal.
    """
    path = Path(path)
    if threads is not None:
        if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
            raise MorrisError(f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}")
        numba.set_num_threads(threads)
    table, stored, T = _open(path)
    layer = SECTORS if draw_rules is None else rule_layer(draw_rules)
    if draw_rules is not None:
        stored = table.sectors(layer)
        if not stored:
            raise TableError(f"{path} holds no draw-rule values for the limit {draw_rules}")
    if sector is not None and sector not in stored:
        raise TableError(f"{path} has no sector {sector_name(sector)}")
    todo = [sector] if sector is not None else sorted(stored, key=verification_order)
    variant = table.variant
    R = rule_tables(variant)
    cache = SectorCache(table, _CACHE_BYTES, layer=layer)
    report = VerifyReport(path, variant.name)
    for s in todo:
        result = _verify_sector(variant, R, T, s, stored, cache, progress, examples,
                                draw_rules or 0)
        report.sectors.append(result)
        if on_sector:
            on_sector(result)
    return report


def _verify_sector(
    variant: Variant,
    R: RuleTables,
    T: IndexTables,
    sector: Sector,
    stored: dict[Sector, dict],
    cache: SectorCache,
    progress: bool,
    examples: int,
    rule_limit: int = 0,
) -> SectorResult:
    """Verify one sector of the cache's layer: the game's values, or (``rule_limit``
    > 0) the draw-rule values at that move limit, from the successors' move scores."""
    start = time.perf_counter()
    result = SectorResult(sector)
    W, B, WF, BF = sector
    reached = successors(variant, sector)
    missing = [n for n in reached.values() if n is not None and n not in stored]
    if missing:
        result.problems += [f"moves lead to {sector_name(n)}, not in the file" for n in missing]
        return result
    needed = [sector] + [n for n in reached.values() if n is not None and n != sector]
    arrays = _load(cache, needed)
    dtype = np.uint16 if rule_limit == 0 else np.uint8
    for s, a in arrays.items():
        slots = sector_slots(T, s[0], s[1])
        if a.dtype != dtype or a.shape != (slots,):
            result.problems.append(
                f"sector {sector_name(s)} holds {a.shape} {a.dtype} codes, not {slots} "
                f"{np.dtype(dtype)}"
            )
    if result.problems:
        return result
    codes = arrays[sector]
    # the sectors reached by removing 0, 1, 2 stones; an empty array where there is none
    nexts = tuple(
        arrays[n] if n is not None else np.zeros(0, dtype=np.uint16)
        for n in (reached.get(r) for r in range(3))
    )
    if rule_limit:  # rule codes as move scores, and the sector's own as comparable codes
        quiet = is_moving(sector)
        nexts = tuple(
            move_scores(arrays[n], quiet and r == 0) if n is not None else nexts[r]
            for r, n in ((r, reached.get(r)) for r in range(3))
        )
        padded = codes == RULE_PAD
        codes = codes.astype(np.uint16)
        codes[padded] = PAD
    tally = np.zeros(6, dtype=np.int64)
    tally[4:] = -1
    size = len(codes)
    walk = walk_length(T, W, B)
    with tqdm(
        total=size + walk,
        desc=sector_name(sector),
        unit="pos",
        unit_scale=True,
        leave=False,
        disable=None if progress else True,
        dynamic_ncols=True,
    ) as bar:
        # two passes: the slots (padding, recount), then the positions' values
        bad_slots: list[int] = []
        for lo, hi, nchunks in _blocks(size):
            bad_count, bad_first = _bad_arrays(nchunks, examples)
            chunk_tally = np.zeros((nchunks, 6), dtype=np.int64)
            _check_slots(T, codes, W, B, lo, hi, bad_count, bad_first, chunk_tally)
            tally[:4] += chunk_tally[:, :4].sum(axis=0)
            tally[4:] = np.maximum(tally[4:], chunk_tally[:, 4:].max(axis=0))
            result.mismatch_count += int(bad_count.sum())
            bad_slots += bad_first[bad_first >= 0].tolist()
            bar.update(hi - lo)
        for lo, hi, nchunks in _blocks(walk):
            bad_count, bad_first = _bad_arrays(nchunks, examples)
            _check_values(R, T, codes, W, B, WF, BF, nexts, lo, hi, bad_count, bad_first,
                          rule_limit)
            result.mismatch_count += int(bad_count.sum())
            bad_slots += bad_first[bad_first >= 0].tolist()
            bar.update(hi - lo)
    for i in sorted(bad_slots)[:examples]:
        result.mismatches.append(_mismatch(variant, R, T, sector, nexts, codes, i, rule_limit))
    result.positions = int(tally[0])
    recount = dict(zip(STAT_KEYS, (int(x) for x in tally), strict=True))
    keys: tuple[str, ...] = STAT_KEYS
    if rule_limit:  # the classes need the game's codes too
        recount = rule_statistics(cache.table.read_sector(sector), arrays[sector])
        keys = tuple(k for k in recount if k != "slots")
    attrs = stored[sector]
    for key in keys:
        if key not in attrs:
            result.problems.append(f"statistics attribute {key!r} is missing")
        elif attrs[key] != recount[key]:
            result.problems.append(
                f"statistics {key}: stored {attrs[key]}, recounted {recount[key]}"
            )
    if "slots" in attrs and attrs["slots"] != size:
        result.problems.append(f"statistics slots: stored {attrs['slots']}, the index has {size}")
    result.seconds = time.perf_counter() - start
    return result


def _blocks(size: int):
    """[lo, hi) blocks of a pass over ``size`` items (a kernel call and a progress
    update each) and the number of ``_CHUNK`` work items in each."""
    block = max(1 << 18, size // 64)
    for lo in range(0, size, block):
        hi = min(size, lo + block)
        yield lo, hi, (hi - lo + _CHUNK - 1) // _CHUNK


def _bad_arrays(nchunks: int, examples: int) -> tuple[np.ndarray, np.ndarray]:
    """Per work item: the number of wrong slots and the first ``examples`` of them."""
    bad_first = np.full((nchunks, max(1, examples)), -1, dtype=np.int64)
    return np.zeros(nchunks, dtype=np.int64), bad_first


def _load(cache: SectorCache, needed: list[Sector]) -> dict[Sector, np.ndarray]:
    try:
        return cache.load(needed)
    except (OSError, KeyError) as e:  # damage outside the checksummed data
        raise TableError(f"{cache.table.path} is damaged ({e})") from None


def _mismatch(
    variant: Variant,
    R: RuleTables,
    T: IndexTables,
    sector: Sector,
    nexts: tuple[np.ndarray, ...],
    codes: np.ndarray,
    idx: int,
    rule_limit: int = 0,
) -> Mismatch:
    W, B, WF, BF = sector
    mover, other = unrank(T, W, B, idx)
    # White places first, so in the placement phase the mover is White iff hands are equal
    pos = Position.from_sides(variant, int(mover), int(other), WF, BF, white_to_move=WF == BF)
    recomputed = np.full(1, PAD, dtype=np.int64)
    if _is_canonical(T, W, B, idx):
        expected_codes(R, T, W, B, WF, BF, nexts, np.array([mover]), np.array([other]),
                       recomputed, rule_limit)
    return Mismatch(f"{pos} (slot {idx})", int(codes[idx]), int(recomputed[0]))
