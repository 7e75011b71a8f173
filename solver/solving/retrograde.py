"""Retrograde analysis of one group of sectors (a moving-phase twin, or a placement
sector) as Numba kernels (docs/architecture.md).

Values are uint16 codes (see ``values``): 0 draw/undecided, ``plies + 1`` otherwise.

1. *Init*: every slot generates its moves once. Padding is marked; a blocked position is
   a loss in 0; moves that leave the group (captures, placements) are looked up in the
   already-solved target sectors. A slot whose moves all leave the group is final at
   once: that is the whole algorithm for placement sectors (``placement_pass`` walks them
   by the opponent's stones, for cache locality). Otherwise the slot keeps a
   *trigger* (the code its best exit gives it) and a *count* of its distinct successors
   inside the group. Quiet moves (no mill closed) are only counted, not generated, when
   no symmetry can make two of them lead to the same position (``gen_successors``).
2. *Levels* ``c = 2, 3, ...`` (code ``c`` = ``c - 1`` plies): slots holding ``c - 1`` are
   the frontier. At even ``c`` (wins) every undecided predecessor of a frontier loss is
   a win at ``c``: plain idempotent writes. At odd ``c`` (losses) every frontier win
   decrements the count of each distinct predecessor with an atomic decrement; a count
   reaching zero means every move loses, so the slot is lost at ``c`` (or at its
   trigger level, if an exit loses more slowly). Triggers make exits enter at their
   own level. A level visits only the blocks of slots that can hold work for it: those
   written at the level before (marked as they are written) and those whose init codes
   or triggers fall on it (``block_events``).
3. What stays undecided is a draw.

We measured the alternative the design suggests first, a forward check of every
candidate at loss levels instead of counts: it re-generates every successor of every
candidate and was 20-60x slower on twins with a flying side (NMM 3-5: 128 s vs 2 s).
"""

from __future__ import annotations

import numpy as np
from numba import get_thread_id, njit, prange

from ..core.bits import atomic_decrement, prefetch, trailing_zeros
from ..index.indexing import (
    canonical_index,
    free_places,
    index_batch,
    index_in_class,
    insertion_base,
    insertion_index,
    mover_class,
    next_in_class,
    unrank,
)
from ..index.movegen import MAX_MOVES, MAX_UNMOVES, WIN_NOW, gen_successors, gen_unmoves, has_mill

PAD = 0xFFFF
NO_EVENT = 0xFFFF  # a chunk with nothing left to do at any level (codes stop at 0xFFFE)

NO_FRONTIER = 0xFFFE  # a level's frontier code when it has none (no slot holds it)


def frontier_of(c: int, win_delay: int) -> int:
    """The code whose slots level ``c`` expands. In the game of the tables (``win_delay``
    0) a win at c comes from a loss at c - 1 and a loss at c from wins at c - 1. In the
    draw-rule game (``win_delay`` 2, codes ``2 Z + loss``: see ``rules``) both a win and
    a loss are one ply longer than their successors, so the win level 2 Z reads the
    losses 2 Z - 1 and the loss level 2 Z + 1 reads the wins 2 Z - 2 (none below 2)."""
    if win_delay == 0 or c % 2 == 0:
        return c - 1
    return c - 3 if c >= 5 else NO_FRONTIER


# columns of the sector-info table SI[k]
W_, B_, WF_, BF_, TARGET0, IN_GROUP, PARTNER = 0, 1, 2, 3, 4, 7, 8
SI_COLUMNS = 9
TERMINAL = -1  # target "sector" of a move after which the opponent has lost


@njit(cache=True, inline="always")
def sort_unique(buf, n):
    """Sort ``buf[:n]`` in place (insertion sort: n is at most a few dozen) and move the
    distinct values to the front; returns how many there are."""
    for i in range(1, n):
        x = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > x:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = x
    m = 0
    for i in range(n):
        if m == 0 or buf[i] != buf[m - 1]:
            buf[m] = buf[i]
            m += 1
    return m


@njit(cache=True, inline="always")
def distinct(T, fixed_class, buf, n):
    """How many distinct indices ``buf[:n]`` holds (moved to the front), for the
    neighbours of one position that all share one side's stone set, of class
    ``fixed_class``: its successors (which share its other side) or predecessors (its
    side to move). Distinct moves give distinct masks, and two of them can share a
    canonical index only through a symmetry that fixes the shared set: when that set's
    class has no symmetry of its own, nothing needs sorting. That skips the sort for
    nearly every position, and the sort was 45 % of the init pass of the flying 5-3 twin
    (dozens of moves a position)."""
    if T.class_stab[fixed_class] == 0:
        return n
    return sort_unique(buf, n)


SLOT_BATCH = 32  # slots whose exits are indexed (and prefetched) before any is read
EXIT_ROOM = 2 * MAX_MOVES  # a batch's exits: flushed once past MAX_MOVES, so one more fits


@njit(cache=True, inline="always")
def slot_scratch(n):
    """One worker's scratch arrays for ``classify_slot`` and ``settle_batch``: the
    successors (mover, other, kind) and the indices of those inside the group; the
    ranks of ``insertion_base`` (``n``: the board's points); a batch's exits (kind,
    index) and per slot of the batch its index, its best win so far, its count of
    distinct successors inside the group and where its exits end."""
    moves = np.empty((4, MAX_MOVES), np.int64)
    exits = np.empty((2, EXIT_ROOM), np.int64)
    batch = np.empty((4, SLOT_BATCH), np.int64)
    return (moves[0], moves[1], moves[2], moves[3], np.empty(n + 1, np.int64), exits[0],
            exits[1], batch[0], batch[1], batch[2], batch[3])


@njit(cache=True, inline="always")
def classify_slot(R, T, SI, k, v, i, mover, other, quiet_inside, quiet_exits, out_mover,
                  out_other, out_kind, inside, base, exit_kind, exit_index, fill):
    """The init pass's work for slot ``i`` of group sector k, holding the canonical
    position (mover, other), up to the reads of its exits' codes: its moves, the indices
    of those that leave the group (appended to the batch's exits from ``fill`` on, each
    prefetched) and the count of its distinct successors inside. Returns ``(end of its
    exits, best win so far, count)``, or a count of -1 when its code is final already
    (written). The scratch arrays come unpacked (``slot_scratch``): unpacking them
    here, once a slot, took and dropped a reference to each."""
    W, B, WF = SI[k, W_], SI[k, B_], SI[k, WF_]
    if R.line_wins and has_mill(R, other):
        v[i] = 1
        return fill, 0, -1
    # every quiet successor has our `other` as its mover: classify it once
    quiet_class, quiet_sym = mover_class(T, B, other)
    # without a symmetry of that class, quiet successors cannot share an index
    # (see `distinct`): counting them is enough, and gen_successors skips them
    count_quiet = quiet_inside and T.class_stab[quiet_class] == 0
    # quiet exits share our `other` as their mover and our stones plus one
    image = insertion_base(T, quiet_class, quiet_sym, mover, base) if quiet_exits else 0
    n, n_inside = gen_successors(
        R, mover, other, W, WF, count_quiet, out_mover, out_other, out_kind
    )
    if n + n_inside == 0:
        full = (mover | other) == R.full
        v[i] = 0 if (R.full_board_draw and full) else 1
        return fill, 0, -1
    best_win = 0
    for j in range(n):
        kind = out_kind[j]
        if kind == WIN_NOW:
            best_win = 2
            continue
        tk = SI[k, TARGET0 + kind]
        if tk == TERMINAL:
            best_win = 2
        elif SI[tk, IN_GROUP]:
            inside[n_inside] = index_in_class(T, B, W, quiet_class, quiet_sym, out_other[j])
            n_inside += 1
        else:
            # a quiet exit (a placement) has our `other` as its mover: classified above
            if kind == 0:
                idx = insertion_index(
                    T, B, SI[tk, B_], quiet_class, quiet_sym, image, base,
                    trailing_zeros(out_other[j] ^ mover), out_other[j],
                )
            else:
                idx = canonical_index(T, SI[tk, W_], SI[tk, B_], out_mover[j], out_other[j])
            exit_kind[fill] = kind
            exit_index[fill] = idx
            fill += 1
    count = distinct(T, quiet_class, inside, n_inside) if n_inside else 0
    return fill, best_win, count


@njit(cache=True, inline="always")
def settle_batch(v, tr, cnt, exit0, exit1, exit2, exit_kind, exit_index, fill, slots,
                 best_wins, counts, ends, nslots):
    """The codes of a batch of ``classify_slot``'s slots, from their exits' codes: the
    exits of every slot of the batch are prefetched first, so that their cache misses
    (random reads into sectors of up to gigabytes) overlap across slots instead of each
    slot waiting for its own few."""
    for e in range(fill):
        kind = exit_kind[e]
        prefetch(exit0 if kind == 0 else exit1 if kind == 1 else exit2, exit_index[e])
    start = 0
    for b in range(nslots):
        i = slots[b]
        best_win = best_wins[b]
        worst_loss = 0
        exit_draw = False
        for e in range(start, ends[b]):
            kind = exit_kind[e]
            idx = exit_index[e]
            code = exit0[idx] if kind == 0 else exit1[idx] if kind == 1 else exit2[idx]
            if code == 0:
                exit_draw = True
            elif code & 1:
                if best_win == 0 or code + 1 < best_win:
                    best_win = code + 1
            elif code + 1 > worst_loss:
                worst_loss = code + 1
        start = ends[b]
        settled = best_win if best_win else (0 if exit_draw else worst_loss)
        if counts[b] == 0:
            v[i] = settled
            continue
        v[i] = 0
        tr[i] = settled
        # distinct successors inside the group that must be found won by the opponent
        # before this slot is lost; an exit that is a draw or a win for us keeps the
        # count from ever reaching zero
        cnt[i] = counts[b] + (1 if (best_win or exit_draw) else 0)


@njit(cache=True, inline="always")
def add_to_batch(R, T, SI, k, v, tr, cnt, i, mover, other, exit0, exit1, exit2, quiet_inside,
                 quiet_exits, out_mover, out_other, out_kind, inside, base, exit_kind,
                 exit_index, slots, best_wins, counts, ends, fill, nslots):
    """``classify_slot`` for slot ``i``, and ``settle_batch`` when the batch is full.
    Returns the batch's ``(fill, nslots)``."""
    end, best_win, count = classify_slot(
        R, T, SI, k, v, i, mover, other, quiet_inside, quiet_exits, out_mover, out_other,
        out_kind, inside, base, exit_kind, exit_index, fill,
    )
    if count < 0:
        return fill, nslots
    slots[nslots] = i
    best_wins[nslots] = best_win
    counts[nslots] = count
    ends[nslots] = end
    nslots += 1
    if nslots == SLOT_BATCH or end > EXIT_ROOM - MAX_MOVES:
        settle_batch(v, tr, cnt, exit0, exit1, exit2, exit_kind, exit_index, end, slots,
                     best_wins, counts, ends, nslots)
        return 0, 0
    return end, nslots


@njit(cache=True, inline="always")
def exit_arrays(SI, vals, k):
    """The codes of the sectors moves removing 0, 1, 2 stones lead to from group sector
    k (typed-list lookups are slow in the inner loop; a target that is not a stored
    sector is never read), and whether quiet moves stay in the group or all leave it."""
    t0, t1, t2 = SI[k, TARGET0], SI[k, TARGET0 + 1], SI[k, TARGET0 + 2]
    v = vals[k]
    exit0 = vals[t0] if t0 >= 0 else v
    exit1 = vals[t1] if t1 >= 0 else v
    exit2 = vals[t2] if t2 >= 0 else v
    quiet_inside = t0 >= 0 and SI[t0, IN_GROUP] != 0
    quiet_exits = t0 >= 0 and not quiet_inside  # placements: each is a quiet exit
    return exit0, exit1, exit2, quiet_inside, quiet_exits


@njit(cache=True, inline="always")
def rounds_of(n, threads):
    """How many rounds a ``prange(rounds * threads)`` over ``n`` work items takes when
    ``striped`` deals them out in turn (``threads``: ``numba.get_num_threads()``, passed
    in by the caller: a kernel that reads it itself cannot be cached). Numba's
    ``workqueue`` layer gives each thread one contiguous share of a ``prange``, so in
    sector order one thread got the slots where the work gathered (a level's frontier,
    the flying or symmetric classes) while the other waited at the end of the call."""
    return (n + threads - 1) // threads


@njit(cache=True, inline="always")
def striped(j, rounds, threads):
    """The work item that iteration ``j`` of ``prange(rounds * threads)`` takes: the
    thread that runs iterations ``[t * rounds, (t + 1) * rounds)`` takes items ``t``,
    ``t + threads``, ``t + 2 threads`` ... (the caller skips those past the end)."""
    return (j % rounds) * threads + j // rounds


@njit(parallel=True, cache=True)
def init_pass(R, T, SI, vals, trig, counts, k, lo, hi, chunk, threads):
    """Init pass over slots [lo, hi) of group sector k, in slot order, chunks dealt out
    in turn to ``threads`` threads (``striped``)."""
    v = vals[k]
    tr = trig[k]
    cnt = counts[k]
    W, B = SI[k, W_], SI[k, B_]
    per_class = T.binom[T.n - W, B]
    exit0, exit1, exit2, quiet_inside, quiet_exits = exit_arrays(SI, vals, k)
    has_symmetry = T.class_stab[T.class_off[W] : T.class_off[W + 1]] != 0
    nchunks = (hi - lo + chunk - 1) // chunk
    rounds = rounds_of(nchunks, threads)
    for item in prange(rounds * threads):
        ci = striped(item, rounds, threads)
        if ci >= nchunks:
            continue
        (out_mover, out_other, out_kind, inside, base, exit_kind, exit_index, slots,
         best_wins, slot_counts, ends) = slot_scratch(T.n)
        fill = nslots = 0
        start = lo + ci * chunk
        places = 0
        for i in range(start, min(start + chunk, hi)):
            # consecutive slots of one class: the next other set, not a search for it
            if i == start or i % per_class == 0:
                mover, other = unrank(T, W, B, i)
                places = free_places(T, T.class_off[W] + i // per_class, other)
            else:
                places, other = next_in_class(T, T.class_off[W] + i // per_class, places)
            # only mover sets with a symmetry of their own leave padding slots
            if has_symmetry[i // per_class] and canonical_index(T, W, B, mover, other) != i:
                v[i] = PAD
                continue
            fill, nslots = add_to_batch(
                R, T, SI, k, v, tr, cnt, i, mover, other, exit0, exit1, exit2, quiet_inside,
                quiet_exits, out_mover, out_other, out_kind, inside, base, exit_kind,
                exit_index, slots, best_wins, slot_counts, ends, fill, nslots,
            )
        settle_batch(v, tr, cnt, exit0, exit1, exit2, exit_kind, exit_index, fill, slots,
                     best_wins, slot_counts, ends, nslots)


@njit(parallel=True, cache=True)
def placement_pass(R, T, SI, vals, trig, counts, k, lo, hi, threads):
    """The whole solve of placement sector k for the opponent's set classes [lo, hi)
    (of ``T.class_off[B + 1] - T.class_off[B]``), walked opponent-major: for each
    class's canonical set, every mover set on the points it leaves free, each written
    at its canonical slot. All quiet placements of the positions of one opponent class
    lead to one window of C(n - B, W + 1) slots of the exit sector, and their captures
    to B such windows, so the exit reads stay in the cache; in slot order they are
    random reads over the whole exit sector (benchmarks/solver_report.md, "Walk
    orders", has both timed).
    Positions whose opponent class has a symmetry are met more than once and write the
    same code; slots no position reaches are padding (the caller fills the sector with
    ``PAD`` first)."""
    v = vals[k]
    # typed-list items taken once: a lookup per position takes and drops a reference
    # to the array, atomic instructions on a counter both threads write
    tr = trig[k]
    cnt = counts[k]
    W, B = SI[k, W_], SI[k, B_]
    exit0, exit1, exit2, quiet_inside, quiet_exits = exit_arrays(SI, vals, k)
    movers = T.binom[T.n - B, W]
    rounds = rounds_of(hi - lo, threads)
    for item in prange(rounds * threads):
        oc = lo + striped(item, rounds, threads)
        if oc >= hi:
            continue
        (out_mover, out_other, out_kind, inside, base, exit_kind, exit_index, slots,
         best_wins, slot_counts, ends) = slot_scratch(T.n)
        fill = nslots = 0
        c = T.class_off[B] + oc
        other = T.class_mask[c]
        # mover sets as places among the points `other` leaves free, in colex order
        places = (np.int64(1) << W) - 1
        for m in range(movers):
            if m > 0:
                places, mover = next_in_class(T, c, places)
            else:
                mover = 0
                rest = places
                while rest:
                    mover |= np.int64(1) << T.class_freepts[c, trailing_zeros(rest)]
                    rest &= rest - 1
            i = canonical_index(T, W, B, mover, other)
            fill, nslots = add_to_batch(
                R, T, SI, k, v, tr, cnt, i, mover, other, exit0, exit1, exit2, quiet_inside,
                quiet_exits, out_mover, out_other, out_kind, inside, base, exit_kind,
                exit_index, slots, best_wins, slot_counts, ends, fill, nslots,
            )
        settle_batch(v, tr, cnt, exit0, exit1, exit2, exit_kind, exit_index, fill, slots,
                     best_wins, slot_counts, ends, nslots)


MARK_BLOCK = 64  # slots per level mark and per event (128 bytes of codes)
BUCKET_SHIFT = 18  # slots per destination bucket: 2^18, 512 KB of codes (in L2 with its counts)
BUCKET_ROOM = 1 << 16  # writes held for one bucket, shared out among the threads
WRITE_AHEAD = 16  # writes prefetched ahead of the one made


def write_buffers(slots: int, threads: int, shift: int = BUCKET_SHIFT,
                  room: int = BUCKET_ROOM) -> tuple[np.ndarray, np.ndarray]:
    """Each thread's pending predecessor writes of a level, by destination bucket of
    ``2^shift`` slots (``level_pass``), for sectors of up to ``slots`` slots, and how
    many each holds. A bucket holds ``room`` writes of 4 bytes shared out among the
    threads, so that the buffers take the same memory on any number of cores: with the
    defaults one byte a slot of the largest sector (535 MB for Nine's 9-8 twin). Made
    once per group: a fresh buffer each level would fault its pages in again."""
    if slots >= 1 << 32:
        raise ValueError(f"a sector of {slots} slots does not fit the 32-bit write buffers")
    nbuckets = max(1, (slots + (1 << shift) - 1) >> shift)
    return (np.empty((threads * nbuckets, max(1, room // threads)), np.uint32),
            np.zeros(threads * nbuckets, np.int64))


@njit(cache=True, inline="always")
def write_predecessors(targets, n, vp, cp, tp, mark_pred, c, shared=True):
    """Level ``c``'s writes to the predecessors ``targets[:n]``. At a win level each
    undecided one is won; at a loss level each takes one off its count (a predecessor
    appears once per frontier win it has as a successor) and is lost when the count
    reaches zero, unless an exit keeps it alive past this level. Returns the slots
    written.

    The targets come from one destination bucket (``level_pass``), so their lines are
    close together and stay in the cache between writes; each is prefetched
    ``WRITE_AHEAD`` writes ahead. A loss level decrements before it reads the code, and
    reads it (and the trigger) only where the count reaches zero, so that most writes
    touch one array. An undecided slot's count goes as before; a decided slot's count is
    never read again (it may even wrap around, where the init pass left it 0), and the
    code check keeps such a slot from being written.

    ``shared``: another thread may write the same slots meanwhile, so the decrements are
    atomic. A thread that owns the bucket decrements plainly: a locked decrement waits
    for its cache line before the next write can start, which undoes the point of
    prefetching in a bucket whose lines are near."""
    level = np.uint16(c)
    written = 0
    for j in range(n):
        if j + WRITE_AHEAD < n:
            if c % 2 == 0:
                prefetch(vp, targets[j + WRITE_AHEAD])
            else:
                prefetch(cp, targets[j + WRITE_AHEAD])
        idx = targets[j]
        if c % 2 == 0:
            if vp[idx] == 0:
                vp[idx] = level
                mark_pred[idx // MARK_BLOCK] = level
                written += 1
        else:
            if shared:
                last = atomic_decrement(cp, idx) == 1
            else:
                last = cp[idx] == 1
                cp[idx] -= 1
            if last and vp[idx] == 0 and tp[idx] <= c:
                vp[idx] = level
                mark_pred[idx // MARK_BLOCK] = level
                written += 1
    return written


@njit(cache=True, inline="always")
def any_equal(a, lo, hi, x):
    """Whether any of ``a[lo:hi]`` equals ``x`` (a loop the compiler vectorizes)."""
    hits = 0
    for i in range(lo, hi):
        hits += a[i] == x
    return hits != 0


@njit(cache=True, inline="always")
def next_event(v, tr, lo, hi, after, win_delay):
    """The first level after ``after`` at which slots [lo, hi) need a visit, from their
    codes alone: a decided slot is frontier at its code + 1 (a win at its code + 1 +
    ``win_delay``: see ``frontier_of``), an undecided one with a trigger at the trigger's
    code. ``NO_EVENT`` if none. Slots decided by the level passes are covered by the
    marks too; counting them here as well costs nothing."""
    first = NO_EVENT
    for i in range(lo, hi):
        x = np.int64(v[i])
        if x != 0 and x != PAD:
            at = x + 1 + (win_delay if x % 2 == 0 else 0)
        else:
            at = np.int64(tr[i]) if x == 0 else 0
        if at > after and at < first:
            first = at
    return first


@njit(parallel=True, cache=True)
def block_events(v, tr, win_delay):
    """``next_event`` after level 1 of every block of a sector, once its init pass is done."""
    nblocks = (v.shape[0] + MARK_BLOCK - 1) // MARK_BLOCK
    events = np.empty(nblocks, np.uint16)
    for b in prange(nblocks):
        events[b] = next_event(
            v, tr, b * MARK_BLOCK, min((b + 1) * MARK_BLOCK, v.shape[0]), 1, win_delay
        )
    return events


@njit(parallel=True, cache=True)
def level_pass(R, T, SI, vals, trig, counts, events, marks, k, c, fresh, win_delay, triggered,
               chunk, threads, shift, pending, fills):
    """One level for group sector k: its triggered slots at code c, and the predecessors
    (in k's partner sector) of its slots holding ``fresh`` (the frontier: c - 1, except
    for the loss levels of the draw-rule game: see ``frontier_of``). Returns the slots
    written.

    At a loss level each frontier win takes one off the count of every distinct
    predecessor (atomically); the predecessor whose count reaches zero is lost, at this
    level, or at its trigger level if an exit keeps it alive longer.

    The writes are grouped by destination: each thread appends a predecessor's slot to
    its own buffer for the predecessor's bucket of ``2^shift`` slots (``pending``,
    ``fills``: ``write_buffers``) and makes a bucket's writes when it is
    full, and the rest after the frontier's last position, bucket by bucket. The writes
    of one bucket fall in half a megabyte of codes, which stays in the cache while they
    are made, where one at a time they were random accesses to a sector of up to a
    gigabyte (twice the cost of a random read-modify-write:
    benchmarks/solve_profile.md). A full buffer's writes are made while the other
    thread may write the same bucket, with atomic decrements; after the pass each bucket
    belongs to one thread, which decrements plainly."""
    v = vals[k]
    tr = trig[k]
    cnt = counts[k]
    p = SI[k, PARTNER]
    vp = vals[p]
    tp = trig[p]
    cp = counts[p]
    ev = events[k]
    # marks[4 k + code % 4]: per block of sector k, the last level with that code modulo
    # 4 that wrote a code into it. This level reads the frontier's marks and writes its
    # own: the frontier is at most 3 codes below, so no mark changes while it is read.
    seen = marks[4 * k + fresh % 4]
    mark_own = marks[4 * k + c % 4]
    mark_pred = marks[4 * p + c % 4]
    fresh = np.uint16(fresh)
    level = np.uint16(c)
    W, B = SI[k, W_], SI[k, B_]
    per_class = T.binom[T.n - W, B]
    win_level = c % 2 == 0
    size = v.shape[0]
    nblocks = seen.shape[0]
    blocks_per_chunk = chunk // MARK_BLOCK
    nchunks = (nblocks + blocks_per_chunk - 1) // blocks_per_chunk
    nbuckets = (vp.shape[0] + (1 << shift) - 1) >> shift
    room = pending.shape[1]
    # per chunk, not a prange reduction: Numba's reduction analysis cannot follow a
    # count updated inside the nested block loop
    written = np.zeros(nchunks, np.int64)
    rounds = rounds_of(nchunks, threads)
    for item in prange(rounds * threads):
        ci = striped(item, rounds, threads)
        if ci >= nchunks:
            continue
        count = 0
        first = ci * blocks_per_chunk
        last = min(first + blocks_per_chunk, nblocks)
        # visit only the blocks written at the last level or holding an init code or a
        # trigger for this one: scanning every code at every level, at memory
        # bandwidth, took 25-40 % of a group's time (8-8, 6-6); per chunk instead of
        # per block, the thin levels of 8-8 still scanned nearly every chunk
        if not any_equal(seen, first, last, fresh) and not any_equal(ev, first, last, level):
            continue
        pred_mover = np.empty(MAX_UNMOVES, np.int64)
        pred_other = np.empty(MAX_UNMOVES, np.int64)
        pred_index = np.empty(MAX_UNMOVES, np.int64)
        pred_class = np.empty(MAX_UNMOVES, np.int64)
        pred_sym = np.empty(MAX_UNMOVES, np.int64)
        own = get_thread_id() * nbuckets  # this thread's first bucket buffer
        for b in range(first, last):
            static = ev[b] == level
            if seen[b] != fresh and not static:
                continue
            block_end = min((b + 1) * MARK_BLOCK, size)
            for i in range(b * MARK_BLOCK, block_end):
                if triggered and tr[i] == level and v[i] == 0 and (win_level or cnt[i] == 0):
                    v[i] = level
                    mark_own[b] = level
                    count += 1
                if v[i] != fresh:
                    continue
                mover, other = unrank(T, W, B, i)
                npred = gen_unmoves(R, mover, other, B, pred_mover, pred_other)
                # all predecessors' indices at once, so that the cache misses into the
                # index tables overlap (``index_batch``)
                index_batch(T, B, W, pred_mover, pred_other, npred, pred_index, pred_class,
                            pred_sym)
                if not win_level:
                    # a loss level takes one off each distinct predecessor's count
                    npred = distinct(T, T.class_off[W] + i // per_class, pred_index, npred)
                for j in range(npred):
                    idx = pred_index[j]
                    row = own + (idx >> shift)
                    f = fills[row]
                    pending[row, f] = idx
                    f += 1
                    if f == room:
                        count += write_predecessors(pending[row], f, vp, cp, tp, mark_pred, c)
                        f = 0
                    fills[row] = f
            if static:
                ev[b] = next_event(v, tr, b * MARK_BLOCK, block_end, c, win_delay)
        written[ci] = count
    # every thread's writes still pending, bucket by bucket
    flushed = np.zeros(nbuckets, np.int64)
    rounds = rounds_of(nbuckets, threads)
    for item in prange(rounds * threads):
        bucket = striped(item, rounds, threads)
        if bucket >= nbuckets:
            continue
        count = 0
        for t in range(threads):
            row = t * nbuckets + bucket
            if fills[row]:
                count += write_predecessors(pending[row], fills[row], vp, cp, tp, mark_pred, c,
                                            False)
                fills[row] = 0
        flushed[bucket] = count
    return written.sum() + flushed.sum()


@njit(cache=True)
def codes_present(v):
    """Which of the 65536 codes occur in ``v`` (a histogram without the counts)."""
    present = np.zeros(1 << 16, dtype=np.bool_)
    for x in v:
        present[x] = True
    return present


@njit(cache=True)
def max_code(v):
    """Largest non-padding code of a sector."""
    best = 0
    for x in v:
        if x != PAD and x > best:
            best = x
    return best


@njit(parallel=True, cache=True)
def sector_statistics(v):
    """(positions, wins, draws, losses, max win plies, max loss plies) of a solved sector."""
    n = v.shape[0]
    nchunks = (n + 65535) // 65536
    wins = np.zeros(nchunks, np.int64)
    draws = np.zeros(nchunks, np.int64)
    losses = np.zeros(nchunks, np.int64)
    max_win = np.full(nchunks, -1, np.int64)
    max_loss = np.full(nchunks, -1, np.int64)
    for ci in prange(nchunks):
        for i in range(ci * 65536, min((ci + 1) * 65536, n)):
            x = np.int64(v[i])
            if x == PAD:
                continue
            if x == 0:
                draws[ci] += 1
            elif x & 1:
                losses[ci] += 1
                max_loss[ci] = max(max_loss[ci], x - 1)
            else:
                wins[ci] += 1
                max_win[ci] = max(max_win[ci], x - 1)
    w, d, lo = wins.sum(), draws.sum(), losses.sum()
    return w + d + lo, w, d, lo, max_win.max() if n else -1, max_loss.max() if n else -1
