"""Generate tables: schedule the groups of sectors, solve each in memory, commit it.

``solve`` is what ``morris solve`` runs. Groups are solved in dependency order (see
``sectors.solve_plan``); groups already in the file are skipped, so an interrupted
run resumes where it stopped.
"""

from __future__ import annotations

import fcntl
import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
from numba.typed import List
from tqdm import tqdm

from ..core.errors import MorrisError
from ..index.index_format import index_tables, sector_slots
from ..index.movegen import rule_tables
from ..rules.drawrules import check_limit, exit_view, to_bytes
from ..rules.drawrules import statistics as rule_statistics
from ..rules.sectors import (
    Sector,
    dependencies,
    is_moving,
    reachable_sectors,
    sector_name,
    solve_plan,
    successors,
)
from ..rules.sharing import shared
from ..rules.values import MAX_PLIES
from ..rules.variants import VARIANTS, Variant, get_variant
from ..tables.sector_cache import SectorCache
from ..tables.storage import SECTORS, TableFile, default_table_path, rule_layer
from .checkpoint import GroupCheckpoint, GroupState
from .retrograde import (
    BUCKET_ROOM,
    BUCKET_SHIFT,
    IN_GROUP,
    PAD,
    PARTNER,
    SI_COLUMNS,
    TARGET0,
    TERMINAL,
    block_events,
    codes_present,
    frontier_of,
    init_pass,
    level_pass,
    max_code,
    placement_pass,
    sector_statistics,
    write_buffers,
)

# the level passes' writes grouped by destination (``retrograde.level_pass``): buckets of
# 2^18 slots, 65,536 pending writes a bucket shared out among the threads (module
# constants, so that a test can make them small enough to exercise every path)
WRITE_BUCKET_SHIFT = BUCKET_SHIFT
WRITE_ROOM = BUCKET_ROOM
_CHUNK = 2048  # slots per parallel work item (a multiple of MARK_BLOCK)
CHECKPOINT_INTERVAL = 900.0  # seconds of level passes between two snapshots of a group


@dataclass
class GroupReport:
    sectors: tuple[Sector, ...]
    positions: int
    slots: int
    seconds: float
    levels: int
    peak_rss_bytes: int

    @property
    def positions_per_second(self) -> float:
        return self.positions / self.seconds if self.seconds > 0 else float("inf")


@dataclass
class GroupSolution:
    codes: dict[Sector, np.ndarray]
    levels: int
    init_seconds: float
    level_seconds: float
    earlier_seconds: float = 0.0  # of the runs before, when it continued from a snapshot


@dataclass
class SolveReport:
    path: Path
    solved: list[GroupReport] = field(default_factory=list)
    skipped: int = 0
    shared: int = 0  # sectors linked to another variant's file (``sharing``)


def reset_peak_rss() -> None:
    """Start measuring the peak resident memory afresh, so that each group reports its
    own peak (Linux: writing 5 to clear_refs resets VmHWM). Elsewhere the peak stays the
    process's since it started."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def peak_rss_bytes() -> int:
    """Peak resident memory since ``reset_peak_rss`` (or since the process started)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def solve_group(
    variant: Variant,
    group: tuple[Sector, ...],
    exits: dict[Sector, np.ndarray],
    progress: Callable[[int], None] | None = None,
    level_callback: Callable[[int], None] | None = None,
    rule_limit: int | None = None,
    checkpoint: GroupCheckpoint | None = None,
) -> GroupSolution:
    """Solve one group given the codes of the sectors its exits reach. With
    ``rule_limit`` L it solves the draw-rule game instead (``drawrules``): ``exits`` are
    then the exit sectors' rule views, the codes are ``2 Z + loss`` and the levels stop
    at Z = L; the kernels are the same. With ``checkpoint``, a moving-phase group
    continues from the snapshot of its last solve, if there is one, and saves one
    between levels whenever the checkpoint is due."""
    R = rule_tables(variant)
    T = index_tables(variant.board, variant.stones)
    order, SI = sector_info(variant, group, exits)
    resumed = checkpoint.load() if checkpoint and is_moving(group[0]) else None
    vals, trig, counts = List(), List(), List()
    for k, s in enumerate(group):
        if resumed:
            vals.append(resumed.vals[k])
            trig.append(resumed.trig[k])
            counts.append(resumed.counts[k])
            continue
        slots = sector_slots(T, s[0], s[1])
        vals.append(np.zeros(slots, dtype=np.uint16))
        # placement sectors have no moves inside their group: no triggers, no counts
        trig.append(np.zeros(slots if is_moving(s) else 1, dtype=np.uint16))
        counts.append(np.zeros(slots if is_moving(s) else 1, dtype=np.uint8))
    for s in order[len(group) :]:
        vals.append(exits[s])

    started = time.perf_counter()
    if resumed:
        highest, init_seconds = resumed.highest, resumed.init_seconds
        if progress:
            progress(sum(len(vals[k]) for k in range(len(group))))
    else:
        _init_passes(R, T, SI, vals, trig, counts, group, progress)
        highest = max(max(max_code(vals[k]), max_code(trig[k])) for k in range(len(group)))
        init_seconds = time.perf_counter() - started
    trigger_levels = [codes_present(trig[k]) for k in range(len(group))]
    if highest > MAX_PLIES + 1:
        raise MorrisError("a distance exceeds the 16-bit value code; this game needs wider codes")
    levels = resumed.levels if resumed else 0
    earlier_levels = resumed.level_seconds if resumed else 0.0
    # the draw-rule game: wins and losses at every distance, so a loss level reads the
    # wins two codes below (``frontier_of``), and nothing beyond Z = L is kept
    win_delay = 0 if rule_limit is None else 2
    last = MAX_PLIES + 1 if rule_limit is None else 2 * rule_limit + 1
    if any(is_moving(s) for s in group):
        events, marks = List(), List()
        for k in range(len(group)):
            events.append(resumed.events[k] if resumed else
                          block_events(vals[k], trig[k], win_delay))
            for j in range(4):  # append: extend() takes a reflected list, which Numba deprecates
                marks.append(resumed.marks[4 * k + j] if resumed else
                             np.zeros(len(events[k]), np.uint16))
        threads = numba.get_num_threads()
        largest = max(len(vals[k]) for k in range(len(group)))
        pending, fills = write_buffers(largest, threads, WRITE_BUCKET_SHIFT, WRITE_ROOM)
        c = resumed.c if resumed else 2
        before = resumed.before if resumed else 1  # slots written by the level before
        levels_started = time.perf_counter()
        while True:
            if checkpoint and checkpoint.due():
                checkpoint.save(GroupState(
                    [vals[k] for k in range(len(group))], list(trig), list(counts),
                    list(events), list(marks), c, before, highest, levels, init_seconds,
                    earlier_levels + time.perf_counter() - levels_started,
                ))
            fresh = frontier_of(c, win_delay)
            written = sum(
                level_pass(
                    R, T, SI, vals, trig, counts, events, marks, k, c, fresh, win_delay,
                    trigger_levels[k][c], _CHUNK, threads, WRITE_BUCKET_SHIFT, pending, fills,
                )
                for k in range(len(group))
            )
            levels += 1
            if level_callback:
                level_callback(c)
            # done once no level is left with a frontier: the game's next level reads
            # this one; the rule game's next two read this one and the one before
            idle = written == 0 and (win_delay == 0 or (before == 0 and c % 2 == 1))
            if (idle and c > highest) or c == last:
                break
            before = written
            c += 1
            if c > MAX_PLIES + 1:
                raise MorrisError("a distance exceeds the 16-bit value code")
    level_seconds = earlier_levels + time.perf_counter() - started
    if not resumed:
        level_seconds -= init_seconds
    return GroupSolution({s: vals[k] for k, s in enumerate(group)}, levels, init_seconds,
                         level_seconds, earlier_levels + init_seconds if resumed else 0.0)


def sector_info(variant: Variant, group: tuple[Sector, ...],
                exits: dict[Sector, np.ndarray]) -> tuple[list[Sector], np.ndarray]:
    """The kernels' view of a group: its sectors then its exit sectors (the order of
    their codes in the kernels' lists), and the sector-info table ``SI`` (one row a
    sector: stones, where each kind of move leads, in the group or not, its partner)."""
    order = list(group) + [s for s in exits if s not in group]
    where = {s: i for i, s in enumerate(order)}
    SI = np.full((len(order), SI_COLUMNS), -2, dtype=np.int64)
    for i, s in enumerate(order):
        SI[i, :4] = s
        SI[i, IN_GROUP] = int(i < len(group))
    for i, s in enumerate(group):
        for r, nxt in successors(variant, s).items():
            SI[i, TARGET0 + r] = TERMINAL if nxt is None else where[nxt]
        SI[i, PARTNER] = where[(s[1], s[0], 0, 0)] if is_moving(s) else i
    return order, SI


def _init_passes(R, T, SI, vals, trig, counts, group, progress) -> None:
    """The init pass of every sector of ``group`` (a placement sector's whole solve)."""
    for k, s in enumerate(group):
        size = len(vals[k])
        if is_moving(s):
            block = max(1 << 18, size // 64)
            for lo in range(0, size, block):
                hi = min(size, lo + block)
                init_pass(R, T, SI, vals, trig, counts, k, lo, hi, _CHUNK, numba.get_num_threads())
                if progress:
                    progress(hi - lo)
            continue
        # a placement sector is walked by the opponent's set classes; progress is
        # reported as their share of the sector's slots
        vals[k][:] = PAD
        classes = int(T.class_off[s[1] + 1] - T.class_off[s[1]])
        # at most 64 calls (the progress bar's steps), and none for fewer than 2^18 slots:
        # a parallel call costs about 0.3 ms to start, which was most of the time of
        # Six Men's Morris' placement sectors (3,273 calls for 2 s of solving)
        calls = max(1, min(64, size >> 18))
        step = -(-classes // calls)
        reported = 0
        for lo in range(0, classes, step):
            hi = min(classes, lo + step)
            placement_pass(R, T, SI, vals, trig, counts, k, lo, hi, numba.get_num_threads())
            if progress:
                done = size * hi // classes
                progress(done - reported)
                reported = done


def statistics(codes: np.ndarray) -> dict:
    positions, wins, draws, losses, max_win, max_loss = sector_statistics(codes)
    return {
        "positions": int(positions),
        "wins": int(wins),
        "draws": int(draws),
        "losses": int(losses),
        "max_win_plies": int(max_win),
        "max_loss_plies": int(max_loss),
        "slots": int(len(codes)),
    }


class SolveLock:
    """The one solve writing a table file: an exclusive ``flock`` on ``FILE.lock``
    beside it, held for the whole solve, so that a second solve of the same file is
    refused instead of solving everything again into it. The kernel releases a flock
    when its process dies, so a killed solve's lock file never blocks the next one."""

    def __init__(self, table_path: Path):
        self._fd: int | None = None
        target = Path(os.path.realpath(table_path))  # two links to one file: one lock
        target.parent.mkdir(parents=True, exist_ok=True)
        self.path = target.with_name(target.name + ".lock")
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise MorrisError(f"another solve is writing {table_path} (it holds "
                                  f"{self.path}); wait for it to end or stop it") from None
            try:  # the lock file may have been removed by the solve that just ended
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                return
            os.close(fd)

    def release(self) -> None:
        """Remove the lock file, then unlock it (a waiting solve then retries)."""
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None

    __del__ = release  # a job dropped without ``close`` (``cluster``'s) unlocks too


@dataclass
class SolveJob:
    """What a solve has left to do: the table file, the groups still missing in the
    order they can be solved, and the layer they go to."""

    variant: Variant
    table: TableFile
    todo: list[tuple[Sector, ...]]
    slots: list[int]  # per group of ``todo``
    draw_rules: int | None
    report: SolveReport
    lock: SolveLock | None = None  # released when the job is done (``close``)

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()

    @property
    def layer(self) -> str:
        return solve_layer(self.draw_rules)

    def cache(self) -> SectorCache:
        return exit_cache(self.table, self.draw_rules)


def solve_layer(draw_rules: int | None) -> str:
    """The layer a solve writes: the game's sectors, or the rule values of a limit."""
    return SECTORS if draw_rules is None else rule_layer(draw_rules)


def exit_cache(table: TableFile, draw_rules: int | None) -> SectorCache:
    """A cache of only what the group being solved needs: its exit sectors' codes (in
    the rule game, their results: ``exit_view``)."""
    prepare = None if draw_rules is None else exit_view
    return SectorCache(table, budget=0, prepare=prepare, layer=solve_layer(draw_rules))


def solve(
    variant: Variant | str,
    path: str | Path | None = None,
    *,
    phase: str = "all",
    max_stones: int | None = None,
    sector: Sector | None = None,
    threads: int | None = None,
    draw_rules: int | None = None,
    share_with: list[Path] | None = None,
    show_progress: bool = True,
    log: Callable[[str], None] = print,
    checkpoint_interval: float = CHECKPOINT_INTERVAL,
) -> SolveReport:
    """Solve the variant's sectors into ``path`` (default ``data/VARIANT.h5``), resuming.
    Moving-phase sectors that another variant's table file holds with the same values
    (``sharing``) are linked instead of solved: those of ``share_with``, by default
    the other variants' files in the folder of ``path`` (``[]``: none). With
    ``draw_rules`` L, add the values under the draw rule of an L-ply move limit
    (``drawrules``) for every sector of the selection already solved in the file. A
    moving-phase group saves a snapshot every ``checkpoint_interval`` seconds of its
    level passes, and a solve that was stopped in the middle of a group continues from
    it (``checkpoint``)."""
    set_threads(threads)
    job = prepare_solve(variant, path, phase=phase, max_stones=max_stones, sector=sector,
                        draw_rules=draw_rules, share_with=share_with, log=log)
    try:
        return _solve_job(job, show_progress, log, checkpoint_interval)
    finally:
        job.close()


def _solve_job(job: SolveJob, show_progress: bool, log: Callable[[str], None],
               checkpoint_interval: float) -> SolveReport:
    """``solve``'s groups, one after another, committed as they are solved."""
    if not job.todo:
        return job.report
    cache = job.cache()
    # the whole run's bar: its rate is the average over the groups finished so far
    # (smoothing=0), so its estimate of the time left is for the whole solve
    overall = tqdm(
        total=sum(job.slots), desc=f"{job.variant.name}, {len(job.todo)} groups", unit="pos",
        unit_scale=True, smoothing=0, disable=not show_progress, position=0,
        dynamic_ncols=True,
    )
    with overall:
        for group, slots in zip(job.todo, job.slots, strict=True):
            with tqdm(
                total=slots, desc="+".join(sector_name(s) for s in group), unit="pos",
                unit_scale=True, disable=not show_progress, leave=False, dynamic_ncols=True,
                position=1,
            ) as bar:
                checkpoint = group_checkpoint(job, group, checkpoint_interval)
                saved = checkpoint.saved_level() if is_moving(group[0]) else None
                if saved is not None:
                    note = (f"{'+'.join(sector_name(s) for s in group)}: continuing from "
                            f"its snapshot at level {saved - 1} plies")
                    if show_progress:
                        overall.write(note)
                    else:
                        log(note)
                codes, attrs, done = solve_one_group(
                    job.variant, job.table, group, cache, job.draw_rules, bar, checkpoint
                )
            commit(job.table, codes, attrs, job.layer)
            checkpoint.clear()
            if checkpoint.error:
                note = f"warning: {checkpoint.error}; the solve went on without one"
                if show_progress:
                    overall.write(note)
                else:
                    log(note)
            job.report.solved.append(done)
            overall.update(slots)
            if show_progress:
                overall.write(summary(done))
    return job.report


def group_checkpoint(job: SolveJob, group: tuple[Sector, ...], interval: float
                     ) -> GroupCheckpoint:
    """The snapshot of ``group``'s solve beside the job's table file."""
    key = {"variant": job.variant.name, "group": [sector_name(s) for s in group],
           "draw_rules": job.draw_rules}
    return GroupCheckpoint(job.table.path, key, interval)


def set_threads(threads: int | None) -> None:
    """Numba's threads for the kernels (None: all cores); a MorrisError beyond them."""
    if threads is not None:
        if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
            raise MorrisError(f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}")
        numba.set_num_threads(threads)


def prepare_solve(
    variant: Variant | str,
    path: str | Path | None = None,
    *,
    phase: str = "all",
    max_stones: int | None = None,
    sector: Sector | None = None,
    draw_rules: int | None = None,
    share_with: list[Path] | None = None,
    log: Callable[[str], None] = print,
) -> SolveJob:
    """Everything a solve does before solving (``solve``'s arguments): check the
    selection, open or create the table file, link the shared sectors, and find the
    groups left to solve."""
    variant = get_variant(variant)
    path = Path(path) if path is not None else default_table_path(variant)
    if draw_rules is not None:
        try:
            check_limit(draw_rules)
        except ValueError as e:
            raise MorrisError(str(e)) from None
    if phase not in ("moving", "placement", "all"):
        raise MorrisError(f"unknown phase {phase!r} (moving, placement or all)")
    if sector is not None and sector not in reachable_sectors(variant):
        raise MorrisError(f"{sector_name(sector)} is not a sector of {variant.name}")
    plan = solve_plan(variant, "moving" if phase == "moving" else "all", max_stones, sector)
    if phase == "placement":
        table_now = TableFile.open(path) if path.exists() else None
        have = set(table_now.sectors()) if table_now else set()
        missing = [s for g in plan if is_moving(g[0]) for s in g if s not in have]
        if missing:
            raise MorrisError(
                f"the placement phase needs the moving-phase tables; run "
                f"'morris solve {variant.name} --phase moving' first"
            )
    if draw_rules is not None:
        plan = _solved_part(variant, path, plan, log)
    lock = SolveLock(path)  # before the file is touched: it discards half-written sectors
    try:
        table = TableFile.create_or_open(path, variant)
        report = SolveReport(path)
        if draw_rules is None:
            report.shared = _link_shared(variant, table, plan, share_with, log)
        done = table.sector_set(SECTORS if draw_rules is None else rule_layer(draw_rules))
        todo = [g for g in plan if not all(s in done for s in g)]
        report.skipped = len(plan) - len(todo)
        if not todo:
            log(f"nothing to do: all {len(plan)} groups of this selection are already in "
                f"{path}")
        T = index_tables(variant.board, variant.stones)
        slots = [sum(sector_slots(T, s[0], s[1]) for s in g) for g in todo]
    except BaseException:
        lock.release()
        raise
    return SolveJob(variant, table, todo, slots, draw_rules, report, lock)


def _link_shared(
    variant: Variant,
    table: TableFile,
    plan: list[tuple[Sector, ...]],
    sources: list[Path] | None,
    log: Callable[[str], None],
) -> int:
    """Link the moving-phase groups of ``plan`` not yet in ``table`` that a file of
    ``sources`` (default: the other variants' files, ``VARIANT.h5``, in the folder of
    ``table``) holds with the same values; returns the sectors linked."""
    if sources is None:
        folder, here = table.path.parent, table.path.resolve()
        sources = [folder / f"{name}.h5" for name in VARIANTS if name != variant.name]
        sources = [p for p in sources if p.exists() and p.resolve() != here]
    have = table.sector_set()
    linked = 0
    for source_path in sources:
        source = TableFile.open(source_path)
        theirs = source.sector_set()
        now = 0
        for group in plan:
            if not is_moving(group[0]) or all(s in have for s in group):
                continue
            if all(s in theirs and shared(variant, source.variant, s) for s in group):
                for s in group:
                    table.link_sector(s, source)
                    have.add(s)
                now += len(group)
        if now:
            log(f"{now} sectors shared with {source_path} ({source.variant.name}): linked, "
                "not solved again")
        linked += now
    return linked


def _solved_part(
    variant: Variant, path: Path, plan: list[tuple[Sector, ...]], log: Callable[[str], None]
) -> list[tuple[Sector, ...]]:
    """The groups of ``plan`` whose game values are in the file (the draw-rule values
    are computed from them): every moving group must be, placement groups may not be."""
    have = TableFile.open(path).sector_set() if path.exists() else set()
    missing = [g for g in plan if not all(s in have for s in g)]
    if any(is_moving(g[0]) for g in missing):
        raise MorrisError(
            f"the draw-rule values need the game's moving-phase tables first: run "
            f"'morris solve {variant.name} --phase moving'"
        )
    if missing:
        log(f"{len(missing)} placement groups are not solved yet; their draw-rule values "
            "follow once they are")
    return [g for g in plan if g not in missing]


def summary(g: GroupReport) -> str:
    """One line on a solved group, as the solve prints it."""
    return (
        f"{'+'.join(sector_name(s) for s in g.sectors)}: {g.positions:,} positions in "
        f"{g.seconds:,.1f} s ({g.positions_per_second:,.0f}/s), {g.levels} levels, "
        f"peak RSS {g.peak_rss_bytes / 2**30:.2f} GiB"
    )


def solve_one_group(
    variant: Variant,
    table: TableFile,
    group: tuple[Sector, ...],
    cache: SectorCache,
    draw_rules: int | None = None,
    bar: tqdm | None = None,
    checkpoint: GroupCheckpoint | None = None,
) -> tuple[dict[Sector, np.ndarray], dict[Sector, dict], GroupReport]:
    """Solve one group from the sectors it needs (loaded through ``cache``, which keeps
    those later groups still need): the codes to store per sector, their attributes,
    and the group's report. The game's values, or with ``draw_rules`` the values under
    that move limit. Its seconds are those of the runs that made it (``checkpoint``)."""
    exits = cache.load(dependencies(variant, group))
    reset_peak_rss()  # the group's peak includes the exit sectors just loaded
    start = time.perf_counter()
    solution = solve_group(
        variant, group, exits, progress=bar.update if bar else None,
        level_callback=(lambda c: bar.set_postfix_str(f"level {c - 1} plies")) if bar else None,
        rule_limit=draw_rules, checkpoint=checkpoint,
    )
    seconds = time.perf_counter() - start + solution.earlier_seconds
    if draw_rules is None:
        codes = solution.codes
        stats = {s: statistics(codes[s]) for s in group}
    else:
        codes = {s: to_bytes(solution.codes[s]) for s in group}
        stats = {s: rule_statistics(table.read_sector(s), codes[s]) for s in group}
    positions = sum(st["positions"] for st in stats.values())
    slots = sum(len(codes[s]) for s in group)
    peak = peak_rss_bytes()
    attrs = {s: {**stats[s], "solve_seconds": seconds, "peak_rss_bytes": peak} for s in group}
    return codes, attrs, GroupReport(group, positions, slots, seconds, solution.levels, peak)


def commit(table: TableFile, codes: dict[Sector, np.ndarray], attrs: dict[Sector, dict],
           layer: str) -> None:
    """Write a solved group's sectors to the file, each complete or absent."""
    for s, sector_codes in codes.items():
        table.write_sector(s, sector_codes, attrs[s], layer)
