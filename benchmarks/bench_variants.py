"""The house-rule variants end to end, one after another: solve (moving and placement
phases, sharing what another variant's file holds), verify every sector, the start
position's value from the tables and, independently, by search over the placement
phase from the moving-phase tables; the per-sector statistics (``data/stats``); how
many positions change their result against the standard game (``data/nine.h5``,
``data/three.h5``); a report of each run's time, memory and size.

No flying, the double mill, the Diagonalmühle and Morabaraba (``twelve``,
``MOVING_ONLY``) are valued from their moving phase alone, each in one run from an
empty disk: their moving sectors solved and verified (the double mill's are the
standard game's, solved as that game's and checked against its published statistics
instead), then the start by the search, which runs in a thread of its own beside the
verification where it proves win, draw or loss alone (``StartSearch``), and whose proof
of the first ``BOOK_PLIES`` plies it keeps in the table file as its search book (so
that a game's first placements are answered at once); their sectors
are compared with the statistics of the game they change (Morabaraba's with at most 9
stones a side with the Diagonalmühle's, solved apart in an earlier run).

    python benchmarks/bench_variants.py nine-nocapture-placement nine-noflying \\
        nine-doublemill nine-diagonal three-holes
    python benchmarks/bench_variants.py twelve

Every step resumes: the solve from the table file, the search from what it saved beside
it (``search_files``), the rest from ``benchmarks/out/variants_state.json`` (a variant's
verification sector by sector). What
the report says about a variant is kept in ``benchmarks/variants/VARIANT.json``, a
record meant to be committed: the report is built from those records alone, so a
variant finished on one machine keeps its row after the tables are gone, and a variant
whose record is complete is not run again (delete the record to redo it). The report is
``benchmarks/variants_report.md``. A long run shares the cores with whatever else runs:
its times are then upper bounds, and ``--note`` says so in the report.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its siblings bench_*

import numpy as np  # noqa: E402
from bench_report import GiB, command_line, hms, machine  # noqa: E402
from bench_state import (  # noqa: E402
    check_table_identity,
    load_state,
    save_merged,
    save_state,
    toolkit_commit,
    verify_sectors,
)

from morris_solver.check.known import known_results  # noqa: E402
from morris_solver.check.stats import (  # noqa: E402
    compare_statistics,
    load_statistics,
    published_statistics,
    table_statistics,
)
from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.query.probe import Tablebase  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.sectors import (  # noqa: E402
    Sector,
    is_moving,
    parse_sector_key,
    sector_key,
    sector_name,
    twin,
)
from morris_solver.rules.values import PAD  # noqa: E402
from morris_solver.rules.variants import get_variant  # noqa: E402
from morris_solver.search.search import Metric, PlacementSearch, search_book  # noqa: E402
from morris_solver.search.search_limits import SearchTimeout  # noqa: E402
from morris_solver.solving.generate import solve  # noqa: E402
from morris_solver.tables.storage import SearchBook, TableFile, default_table_path  # noqa: E402

STATE = Path("benchmarks/out/variants_state.json")
REPORT = Path("benchmarks/variants_report.md")
RECORDS = Path("benchmarks/variants")
STATS = Path("data/stats")
# the house-rule variants, in the report's order, each with the game it changes, whose
# tables the comparison reads
STANDARD = {"nine-nocapture-placement": "nine", "nine-noflying": "nine",
            "nine-doublemill": "nine", "nine-diagonal": "nine", "three-holes": "three",
            "twelve": "nine-diagonal"}
# valued from the moving phase and the search, without placement tables (one run each
# fits a session); the double mill's moving sectors are the standard game's own
MOVING_ONLY = frozenset({"nine-noflying", "nine-diagonal", "nine-doublemill", "twelve"})
MOVING_FROM_STANDARD = frozenset({"nine-doublemill"})
_STEP = 1 << 24
# the largest moving phase whose codes the distance search holds at once, a byte a slot
DISTANCE_SEARCH_BYTES = 12 * GiB
# The start search's transposition table: 2**28 slots (4 GiB), so Morabaraba's search
# stays under 12 GiB with its leaves (4 GiB packed); written out this often.
SEARCH_TT_ENTRIES = 3 << 26
SEARCH_SAVE_SECONDS = 20 * 60
# the plies from the start whose proof the table file keeps as its search book
BOOK_PLIES = 16
RESULTS = ("draw", "win", "loss")


def run_variant(name: str, state: dict, threads: int | None) -> None:
    """Solve, verify, value and compare one variant, recording each result in
    ``state[name]``, and write its per-sector statistics to ``data/stats/NAME.json``."""
    finished = load_record(name)
    if finished is not None and is_complete(finished):
        print(f"{name}: finished, recorded in {record_path(name)} (table created "
              f"{finished['table_created']}); delete the record to run it again")
        return
    variant = get_variant(name)
    path = default_table_path(variant)
    done = state.setdefault(name, {})

    def save() -> None:  # this variant's entry is ours
        save_merged(STATE, state, name)
        if "solve" in done:
            write_record(name, state, path)

    moving_only = name in MOVING_ONLY
    standard = get_variant(STANDARD[name])
    standard_path = default_table_path(standard)
    if "solve" not in done:
        start = time.perf_counter()
        if name in MOVING_FROM_STANDARD:  # linked below, not solved again
            solve(standard, standard_path, phase="moving", threads=threads)
        report = solve(variant, path, phase="moving" if moving_only else "all",
                       threads=threads)
        done["solve"] = {"seconds": time.perf_counter() - start, "groups": len(report.solved),
                         "shared": report.shared, "toolkit": toolkit_commit()}
        save()
    table = TableFile.open(path)
    # the distance needs every moving code in memory as a byte; beyond the budget
    # (Morabaraba's 17 billion) win/draw/loss alone, two bits a position
    moving = sum(st["positions"] for s, st in table.sectors().items() if is_moving(s))
    metric: Metric = "dtm" if moving <= DISTANCE_SEARCH_BYTES else "wdl"
    # beside the verifier only with its leaves packed (Morabaraba's 4.3 GB: both together
    # peaked at 11.25 GiB); the distance's bytes (Nine's 8.6 GiB) wait for it to end
    search = StartSearch(path, metric) if "search" not in done and metric == "wdl" else None
    verified = done.setdefault("verify", {})
    # a linked sector is another variant's, verified in that variant's own file
    own = table.sector_set() - set(table.shared_sectors())
    verify_sectors(path, sorted(own), verified, save, threads)
    if name in MOVING_FROM_STANDARD:
        if "stats_check" not in done:
            done["stats_check"] = check_published(standard_path)
            save()
        if done["stats_check"]["problems"]:
            raise SystemExit(f"{standard_path} disagrees with the published statistics: "
                             + "; ".join(done["stats_check"]["problems"][:3]))
    else:
        verify_linked(table, state, threads)
    write_record(name, state, path)
    STATS.mkdir(parents=True, exist_ok=True)
    (STATS / f"{name}.json").write_text(json.dumps(table_statistics(table), indent=2) + "\n")
    if "value" not in done and not moving_only:
        done["value"] = str(Tablebase.open(path).probe(Position.start(variant)))
        save()
    if search is None and "search" not in done:
        search = StartSearch(path, metric)
    if search is not None:
        search.finish(done, save)
    if moving_only:  # the comparison comes from the statistics (the report's)
        return
    if "changes" not in done:
        if standard.board_name != variant.board_name:
            # other points: no slot holds the same position in both
            changes = {"board": variant.board_name}
        elif standard_path.exists():
            changes = value_changes(TableFile.open(standard_path), table)
        else:
            changes = None
        if changes is not None:
            done["changes"] = changes
            save()


def check_published(path: Path) -> dict:
    """The moving-phase sectors of the table file ``path`` against the published
    statistics of its game (every count and longest result of every sector): what stands
    for verifying them where another machine verified the published file."""
    start = time.perf_counter()
    table = TableFile.open(path)
    published = published_statistics(table.variant.name)
    moving = {k: v for k, v in published["sectors"].items() if is_moving(parse_sector_key(k))}
    problems = compare_statistics({**published, "sectors": moving}, table_statistics(table))
    # the file may hold the placement phase too: only the moving sectors are compared
    problems = [p for p in problems if "not in the statistics" not in p]
    return {"against": f"data/stats/{table.variant.name}.json", "sectors": len(moving),
            "positions": sum(v["positions"] for v in moving.values()),
            "problems": problems, "seconds": time.perf_counter() - start}


def sector_comparison(stats: dict, standard: dict) -> list[dict]:
    """Per sector both statistics list, moving sectors first, each by stones: the
    variant's positions, and its wins, draws and losses each as the change from the
    standard game's published count, and both longest wins (plies), so a reader sees
    where the house rule moves results without either table file."""
    rows = []
    for key in sorted(stats["sectors"], key=lambda k: (not is_moving(parse_sector_key(k)),
                                                       sum(parse_sector_key(k)), k)):
        sector = parse_sector_key(key)
        if key not in standard["sectors"]:
            continue
        mine, theirs = stats["sectors"][key], standard["sectors"][key]
        rows.append({"sector": sector_name(sector), "positions": mine["positions"],
                     **{f"{k}_change": mine[k] - theirs[k] for k in ("wins", "draws", "losses")},
                     "longest_win": mine["max_win_plies"],
                     "standard_longest_win": theirs["max_win_plies"]})
    return rows


def verify_linked(table: TableFile, state: dict, threads: int | None) -> None:
    """Verify the sectors ``table`` links to in the files that hold them (with those
    files' rules, which ``sharing`` found equal on them), each sector once however many
    variants link it: a file's verdicts are kept under ``state["linked FILE"]``, tied to
    that file's creation stamp."""
    by_file: dict[Path, list[Sector]] = {}
    for sector, target in table.shared_sectors().items():
        by_file.setdefault(target, []).append(sector)
    for target, sectors in sorted(by_file.items()):
        key = f"linked {target.name}"
        entry = state.setdefault(key, {})
        check_table_identity(entry, target)
        verify_sectors(target, sorted(sectors), entry.setdefault("verify", {}),
                       lambda key=key: save_merged(STATE, state, key), threads)


def add_notes(name: str, notes: list[str]) -> None:
    """Keep ``notes`` in variant ``name``'s record (not twice); nothing without a record."""
    record = load_record(name)
    if record is None:
        return
    record["notes"] = record.get("notes", []) + [n for n in notes
                                                 if n not in record.get("notes", [])]
    save_state(record_path(name), record)


def record_path(name: str) -> Path:
    return RECORDS / f"{name}.json"


# what write_record always writes, and the report and the skip read
RECORD_KEYS = frozenset({"table_created", "updated", "machine", "solve", "verify", "links",
                         "sectors", "file_bytes", "peak_rss_bytes", "group_seconds", "totals"})


def load_record(name: str) -> dict | None:
    """Variant ``name``'s record, or None if it has none; a record that is not one (damaged,
    or from an older version of this script) stops the run with one line."""
    path = record_path(name)
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{path}: not a variant record ({exc}); delete it and run "
                         f"{name} again") from None
    missing = RECORD_KEYS - record.keys() if isinstance(record, dict) else RECORD_KEYS
    if missing:
        raise SystemExit(f"{path}: not a variant record (no {', '.join(sorted(missing))}); "
                         f"delete it and run {name} again")
    return record


def _verdicts(verified: dict, keys: list[str]) -> dict:
    """The verify step's verdicts on the sectors ``keys``, summed."""
    found = [verified[k] for k in keys if k in verified]
    return {"sectors": len(keys), "verified": len(found), "ok": sum(v["ok"] for v in found),
            "positions": sum(v["positions"] for v in found),
            "seconds": sum(v["seconds"] for v in found),
            "failed": [k for k in keys if k in verified and not verified[k]["ok"]]}


def write_record(name: str, state: dict, path: Path) -> None:
    """Write what the report says about variant ``name``: its run's results so far (from
    ``state``) and what its table file holds (sizes, counts, the solve's peak memory)."""
    done = state[name]
    table = TableFile.open(path)
    links = table.shared_sectors()
    stats = table.sectors()
    own = sorted(set(stats) - set(links))
    # what this run solved: its own sectors, and the standard game's it checked and linked
    solved = own + (sorted(links) if "stats_check" in done else [])
    linked = {}
    for target in sorted(set(links.values())):
        keys = [sector_key(s) for s, t in links.items() if t == target]
        if "stats_check" in done:  # checked against the published statistics instead
            linked[target.name] = _checked(done["stats_check"], keys)
        else:
            linked[target.name] = _verdicts(
                state.get(f"linked {target.name}", {}).get("verify", {}), keys)
    record = {
        "variant": name, "table_created": str(table.attrs["created"]),
        "updated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "solve": done["solve"],
        "verify": _verdicts(done.get("verify", {}), [sector_key(s) for s in own]),
        "links": linked, "sectors": len(stats), "file_bytes": os.path.getsize(path),
        # the peak of each group's own solve, as the file records it
        "peak_rss_bytes": max((stats[s]["peak_rss_bytes"] for s in solved), default=0),
        # each group's solve time as the file records it (a twin's on both sectors): the
        # whole solve's, however many runs it took, without their start-up and linking
        "group_seconds": sum(stats[s]["solve_seconds"] for s in own if s == min(twin(s))),
        # the same for the sectors linked from a file this run solved too
        "linked_group_seconds": sum(stats[s]["solve_seconds"] for s in solved
                                    if s in links and s == min(twin(s))),
        "totals": _totals(table),
        "pipeline": "moving" if name in MOVING_ONLY else "all",
        "notes": (load_record(name) or {}).get("notes", []),  # kept (``add_notes``)
    } | {k: done[k] for k in ("value", "search", "changes") if k in done}
    effort = search_files(path)[1]
    if "search" not in done and (so_far := search_effort(effort)) is not None:
        record["search_so_far"] = so_far  # an unfinished search's, or one found meanwhile
    record["pipeline_seconds"] = pipeline_seconds(record)
    save_state(record_path(name), record)


def search_files(table: Path) -> tuple[Path, Path, Path]:
    """Where an unfinished start search keeps what it learnt (``PlacementSearch.save``)
    and its effort so far, and a finished win/draw/loss search its book, beside the
    table: all go once its value is recorded and the book is in the table file."""
    return (table.with_name(table.stem + ".search.npz"),
            table.with_name(table.stem + ".search.json"),
            table.with_name(table.stem + ".search-book.npz"))


def save_book(book: SearchBook, path: Path) -> None:
    """``book`` to ``path``, whole or not at all: the search thread cannot write the
    table file while the verifier reads it, so the main thread moves it there later."""
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as out:
        np.savez(out, keys=book.keys, lower=book.lower, upper=book.upper,
                 about=np.frombuffer(json.dumps(book.about).encode(), np.uint8))
    os.replace(partial, path)


def load_book(path: Path) -> SearchBook:
    """What ``save_book`` wrote; a file that is not that stops the run with one line."""
    try:
        with np.load(path) as saved:
            return SearchBook(saved["keys"], saved["lower"], saved["upper"],
                              json.loads(saved["about"].tobytes()))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise SystemExit(f"{path} is not a saved search book ({e}); delete it to go on "
                         "without one ('morris value VARIANT --search --book PLIES' "
                         "writes one)") from None


_EFFORT_KEYS = frozenset({"nodes", "seconds", "saves", "load_seconds"})


def search_effort(effort: Path) -> dict | None:
    """What ``search_start`` wrote to ``effort``, or None if nothing; a file that is not
    one stops the run with one line."""
    if not effort.exists():
        return None
    try:
        found = json.loads(effort.read_text())
        if isinstance(found, dict) and _EFFORT_KEYS <= found.keys():
            return found
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass
    raise SystemExit(f"{effort}: not a start search's record; delete it and the search's "
                     "saved table beside it to search afresh")


def search_start(path: Path, metric: Metric) -> dict:
    """The start's value by the search over the placement phase, as the record's
    ``search`` entry. A search longer than a session stops every ``SEARCH_SAVE_SECONDS``
    to write what it learnt and its effort so far (``search_files``), then goes on from
    the root: a later run restores them and searches again from there, the positions
    already settled read from the table. The value, once found, is written there too, so
    that a run stopped before the rest of it ends does not search again. Win/draw/loss
    asks "a win?" before "a loss?" (``PlacementSearch``'s ``win_first``): a won start
    needs only the first test."""
    saved, effort, book = search_files(path)
    earlier = search_effort(effort)
    if earlier is not None and "found" in earlier:
        return earlier["found"]
    session = PlacementSearch(Tablebase.open(path, cache_bytes=12 * GiB), metric=metric,
                              max_tt_entries=SEARCH_TT_ENTRIES, win_first=metric == "wdl")
    so_far = {"nodes": 0, "seconds": 0.0, "saves": 0, "load_seconds": 0.0}
    if saved.exists():
        began = time.perf_counter()
        session.restore(saved)
        so_far = earlier or so_far
        so_far["load_seconds"] += time.perf_counter() - began  # the restore: minutes
        print(f"search: resumed from {saved} ({session.tt_entries:,} positions, "
              f"{so_far['nodes']:,} nodes, {hms(so_far['seconds'])} so far)", flush=True)
    start = Position.start(session.tb.variant)
    so_far["load_seconds"] += session.load(start)

    def progress(nodes: int, entries: int) -> None:
        print(f"search: {time.strftime('%H:%M:%S')} {so_far['nodes'] + nodes:,} nodes, "
              f"{entries:,} positions in the table", flush=True)

    while True:
        began = time.perf_counter()
        try:
            found = session.search(start, deadline=time.monotonic() + SEARCH_SAVE_SECONDS,
                                   progress=progress, progress_seconds=60)
        except SearchTimeout:
            session.save(saved)
            so_far["nodes"] += session.nodes
            so_far["seconds"] += time.perf_counter() - began
            so_far["saves"] += 1
            save_state(effort, so_far)
            continue
        so_far["nodes"] += found.nodes
        so_far["seconds"] += found.seconds
        break
    so_far["found"] = {"value": str(found.value), "nodes": so_far["nodes"],
                       "seconds": so_far["seconds"] + so_far["load_seconds"],
                       "load_seconds": so_far["load_seconds"], "metric": metric,
                       "tt_entries": found.tt_entries, "saves": so_far["saves"]}
    if metric == "wdl":  # the first plies' proof, for probes of the unsolved placement
        whole = replace(found, nodes=so_far["nodes"], seconds=so_far["found"]["seconds"])
        save_book(search_book(session, start, whole, BOOK_PLIES), book)
    save_state(effort, so_far)
    return so_far["found"]


class StartSearch:
    """``search_start`` in a thread of its own, beside the verification: the search is
    one thread, so on 2 cores it runs in the time the verifier's threads share, and the
    pipeline's wall time is the longer of the two rather than their sum. Only the main
    thread touches the run's state; the search writes its own files."""

    def __init__(self, path: Path, metric: Metric):
        self.path, self.began = path, time.perf_counter()
        self.ended: float | None = None
        self.result: dict | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(metric,), daemon=True,
                                        name="start-search")
        self._thread.start()

    def _run(self, metric: Metric) -> None:
        try:
            self.result = search_start(self.path, metric)
        except BaseException as e:  # raised in the main thread by ``finish``
            self.error = e
        self.ended = time.perf_counter()

    def finish(self, done: dict, save: Callable[[], None]) -> None:
        """Wait for the search (rewriting the record with its effort every save
        interval), then record its value, and how long it ran beside the rest of the
        run (``beside_seconds``, summed over the runs that got this far)."""
        rest_ended = time.perf_counter()
        done["search_beside"] = done.get("search_beside", 0.0) + (
            min(rest_ended, self.ended or rest_ended) - self.began)
        save()
        while self._thread.is_alive():
            self._thread.join(SEARCH_SAVE_SECONDS)
            save()
        if self.error is not None:
            raise self.error
        assert self.result is not None
        book = search_files(self.path)[2]
        if book.exists():  # the verifier is done with the table file
            TableFile.open(self.path).write_search_book(load_book(book))
        done["search"] = self.result | {"beside_seconds": done.pop("search_beside")}
        save()
        for leftover in search_files(self.path):
            leftover.unlink(missing_ok=True)


def _search_so_far_text(so_far: dict | None) -> str:
    """The search cell of a run whose start search has not finished, or has and waits
    for the rest of its run."""
    if so_far and "found" in so_far:
        found = so_far["found"]
        return (f"{found['value']} (recorded once the verification ends): "
                f"{found['nodes']:,}, {found['seconds']:.0f} s |")
    if not so_far or not so_far["saves"]:
        return "- |"
    return (f"not finished: {so_far['nodes']:,} nodes in {hms(so_far['seconds'])}, "
            f"{so_far['saves']} saves |")


def _checked(check: dict, keys: list[str]) -> dict:
    """The linked sectors ``keys`` as verdicts of the statistics check ``check``."""
    ok = not check["problems"]
    return {"sectors": len(keys), "verified": len(keys), "ok": len(keys) if ok else 0,
            "positions": check["positions"], "seconds": check["seconds"],
            "failed": [] if ok else ["the published statistics"], "by": check["against"]}


def pipeline_seconds(record: dict) -> float:
    """The run's steps summed: solve, verification (or the statistics check) and the
    search, less the time the search ran beside the others; an interrupted run's
    start-ups between its steps are not in it, and neither is the time beside the others
    of a run stopped before the verification ended (so it errs long). A solve resumed by
    a later run timed only its last part, so it counts at least the seconds its own
    groups took (Morabaraba's: 1:38:25 timed, 1:58:55 in its groups)."""
    solve = max(record["solve"]["seconds"], record.get("group_seconds", 0.0))
    search = record.get("search", {})
    return (solve + record["verify"]["seconds"]
            + sum(v["seconds"] for v in record["links"].values())
            + search.get("seconds", 0.0) - search.get("beside_seconds", 0.0))


def is_complete(record: dict) -> bool:
    """Every sector verified OK (linked ones in their files, or checked against published
    statistics) and the start valued by the search, and from the tables where the run
    solves the placement phase: nothing left to run. (The slot-by-slot comparison with
    the standard game is made where both files are on the disk, not waited for.)"""
    verdicts = [record["verify"], *record["links"].values()]
    steps = ("search",) if record.get("pipeline") == "moving" else ("value", "search")
    return all(v["ok"] == v["sectors"] for v in verdicts) and all(k in record for k in steps)


def _results(codes: np.ndarray) -> np.ndarray:
    """0 draw, 1 win, 2 loss for the side to move; -1 for padding."""
    c = codes.astype(np.int32)
    return np.where(c == PAD, -1, np.where(c == 0, 0, np.where(c % 2 == 0, 1, 2)))


def value_changes(standard: TableFile, table: TableFile) -> dict | None:
    """Position by position, the sectors ``table`` holds with its own values (not linked
    from ``standard``, on the same board): how many positions of each phase change their
    result from the standard game's, by (standard result, variant result). None while the
    standard file lacks one of those sectors (its placement phase not solved yet, say):
    a partial comparison would be recorded as the whole one."""
    common = sorted(table.sector_set() - set(table.shared_sectors()))
    if not set(common) <= standard.sector_set():
        return None
    out = {phase: {"sectors": 0, "positions": 0, "changed": 0, "by_change": {}}
           for phase in ("moving", "placement")}
    for sector in common:
        row = out["moving" if is_moving(sector) else "placement"]
        row["sectors"] += 1
        before, after = standard.read_sector(sector), table.read_sector(sector)
        for lo in range(0, len(before), _STEP):
            a, b = _results(before[lo : lo + _STEP]), _results(after[lo : lo + _STEP])
            real = a >= 0
            row["positions"] += int(real.sum())
            moved = real & (a != b)
            row["changed"] += int(moved.sum())
            pairs = np.bincount(a[moved] * 3 + b[moved], minlength=9)
            for k in np.flatnonzero(pairs).tolist():
                key = f"{RESULTS[k // 3]}->{RESULTS[k % 3]}"
                row["by_change"][key] = row["by_change"].get(key, 0) + int(pairs[k])
    return out


def _totals(table: TableFile) -> dict:
    sectors = table.sectors().values()
    return {k: sum(st[k] for st in sectors) for k in ("positions", "wins", "draws", "losses")} | {
        "longest_win": max(st["max_win_plies"] for st in sectors)}


def _changes_text(name: str, changes: dict | None) -> str:
    standard = STANDARD[name]
    if changes is None:
        return (f"- **{name}**: not compared yet (needs every sector it has in "
                f"`data/{standard}.h5`).")
    if "board" in changes:
        return (f"- **{name}**: another board ({changes['board']}) than {standard}'s, so no "
                "position-by-position comparison; the value and counts above compare.")
    parts = []
    for phase, row in changes.items():
        if not row["sectors"]:
            continue
        share = row["changed"] / row["positions"] if row["positions"] else 0.0
        detail = ", ".join(f"{k} {v:,}" for k, v in sorted(row["by_change"].items()))
        parts.append(f"{phase}: {row['changed']:,} of {row['positions']:,} positions "
                     f"({share:.2%}) in {row['sectors']} sectors change their result"
                     + (f" ({detail})" if detail else ""))
    return f"- **{name}** against {standard}: " + ("; ".join(parts) or "nothing compared") + "."


def _by_sector_text(name: str) -> list[str]:
    """The per-sector comparison of a variant's statistics with the standard game's."""
    path = STATS / f"{name}.json"
    if not path.exists():
        return [f"- **{name}**: no statistics yet ({path}).", ""]
    rows = sector_comparison(load_statistics(path), published_statistics(STANDARD[name]))
    changed = [r for r in rows if r["wins_change"] or r["draws_change"] or r["losses_change"]
               or r["longest_win"] != r["standard_longest_win"]]
    if not changed:
        return [f"- **{name}**: all {len(rows)} sectors both list equal "
                f"{STANDARD[name]}'s (`data/stats/{STANDARD[name]}.json`), count for count.",
                ""]
    total = {k: sum(r[k] for r in rows) for k in ("wins_change", "draws_change",
                                                  "losses_change")}
    return [f"- **{name}** against {STANDARD[name]}: {len(changed)} of {len(rows)} sectors "
            f"both list differ; over all of "
            f"them wins {total['wins_change']:+,}, draws {total['draws_change']:+,}, losses "
            f"{total['losses_change']:+,}.", "",
            "<details><summary>the sectors that differ</summary>", "",
            "| sector | positions | wins | draws | losses | longest win (standard) |",
            "|---|---:|---:|---:|---:|---:|",
            *(f"| {r['sector']} | {r['positions']:,} | {r['wins_change']:+,} | "
              f"{r['draws_change']:+,} | {r['losses_change']:+,} | "
              f"{_plies(r['longest_win'])} ({_plies(r['standard_longest_win'])}) |"
              for r in changed),
            "", "</details>", ""]


def _for_white(result: str) -> str:
    """A start's result as the first player's: "a draw", "first player wins"."""
    return {"draw": "a draw", "win": "first player wins", "loss": "first player loses"}[result]


def published(game: str) -> str:
    """The start's published value of ``game`` for White, or "none" if none is known."""
    entry = known_results().get(game, {})
    return _for_white(entry["start"]) if "start" in entry else "none"


def _plies(longest: int) -> str:
    """A longest win as the statistics give it: -1 when the sector has no win."""
    return "-" if longest < 0 else str(longest)


def _verdicts_text(v: dict, where: str = "") -> str:
    """"K of N OK (H:MM:SS)", saying which failed or how many are still to verify."""
    by = f" by {v['by']}" if "by" in v else ""
    text = f"{v['ok']} of {v['sectors']} OK{where}{by} ({hms(v['seconds'])})"
    if v["failed"]:
        text += f", **FAILED: {', '.join(v['failed'])}**"
    elif v["verified"] < v["sectors"]:
        text += f", {v['sectors'] - v['verified']} not verified yet"
    return text


def report(command: str) -> None:
    """Every house-rule variant's row from its committed record, whichever of them this
    command ran and whichever machine ran them."""
    results = [
        "| variant | start (tables) | start (search) | published | positions | wins | draws "
        "| losses | longest win |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    runs = [
        "| variant | pipeline | solve | of which groups | verified | peak RSS GiB | file GB "
        "| sectors (shared) | search nodes, time |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    comparisons, by_sector, provenance, notes = [], [], [], []
    for name in STANDARD:
        record = load_record(name)
        if record is None:
            results.append(f"| {name} | not run | | {published(name)} | | | | | |")
            runs.append(f"| {name} | not run | | | | | | | |")
            continue
        search = record.get("search")
        t = record["totals"]
        tables_value = record.get("value", "- (no placement tables)"
                                  if record.get("pipeline") == "moving" else "-")
        results.append(
            f"| {name} | {tables_value} | {search['value'] if search else '-'} | "
            f"{published(name)} | {t['positions']:,} | {t['wins']:,} | {t['draws']:,} | "
            f"{t['losses']:,} | {t['longest_win']} |")
        verified = "; links: ".join([
            _verdicts_text(record["verify"]),
            *(_verdicts_text(v, f" in {target}") for target, v in record["links"].items())])
        shared = sum(v["sectors"] for v in record["links"].values())
        pipeline = record.get("pipeline_seconds")
        runs.append(
            f"| {name} | {hms(pipeline) if pipeline is not None else '-'} | "
            f"{hms(record['solve']['seconds'])} | "
            f"{hms(record['group_seconds'] + record.get('linked_group_seconds', 0))} | "
            f"{verified} | "
            f"{record['peak_rss_bytes'] / GiB:.2f} | {record['file_bytes'] / 1e9:.3g} | "
            f"{record['sectors']} ({shared}) | "
            + (f"{search['nodes']:,}, {search['seconds']:.0f} s |" if search
               else _search_so_far_text(record.get("search_so_far"))))
        by_sector += _by_sector_text(name)
        if record.get("pipeline") != "moving":
            comparisons.append(_changes_text(name, record.get("changes")))
        notes += [f"{name}: {note}" for note in record.get("notes", [])]
        provenance.append(f"- {name}: {'finished' if is_complete(record) else 'in progress'}, "
                          f"recorded {record['updated']} on {record['machine']}, table created "
                          f"{record['table_created']}"
                          + (f", solved by toolkit {record['solve']['toolkit']}"
                             if "toolkit" in record["solve"] else "") + ".")
    lines = [
        "# The house-rule variants, end to end", "",
        f"Produced by `{command}` from the records in `{RECORDS}/`, one per variant run.", "",
        "Values are for the side to move at the start (White); positions are canonical "
        "(symmetry-reduced), counted over every sector, wins/draws/losses for the side to "
        "move; the longest win is in plies, over all sectors. Each variant's per-sector "
        "statistics are in `data/stats/VARIANT.json`.", "",
        "## Results", "", *results, "",
        "The published column is the start's value in `solver/check/known_results.toml` (its "
        "source is there); the games the variants change: "
        + ", ".join(f"{game} {published(game)}" for game in sorted(set(STANDARD.values())))
        + ".", "",
        "## Runs", "",
        "The pipeline's time is its steps' summed (solve, verification or the check "
        "against published statistics, the search), each in the run that finished it, "
        "less the time the search (one thread) ran beside the verification, as a "
        "win/draw/loss search does since 2026-12-07. "
        "The solve's wall time in the run that finished it (shared sectors are linked, not "
        "solved) and the time of its groups as the file records them (over every run "
        "that solved some of them, without start-up and linking; for the double mill the "
        "standard game's groups its run solved), the verifier's "
        "time summed over the file's own sectors and, apart, over the sectors it links "
        "to (verified in the file holding them, once for all variants linking them), the "
        "largest peak RSS of one group's solve, the file's size (links take no room), "
        "and the opening search's effort.", "",
        *runs, "",
        "## Against the standard game", "",
        "Positions whose result for the side to move differs from the standard game's, "
        "read slot by slot from both files in the sectors each holds with its own values.",
        "", *comparisons, "",
        "## Sector by sector, from the statistics", "",
        "Per sector the variant and the standard game both list (moving sectors first): "
        "the variant's wins, draws and losses (side to move, canonical positions) minus "
        "the standard game's published counts (`data/stats/STANDARD.json`), and the "
        "longest win in plies of both. No table file is needed; on another board the "
        "same stone counts are compared.", "", *(by_sector or ["- none run yet"]), "",
        "## Where each ran", "", *(provenance or ["- nothing run yet"]),
    ]
    if notes:
        lines += ["", "## Notes", "", *[line for note in notes for line in (note, "")]]
    while lines[-1] == "":
        lines.pop()
    REPORT.write_text("\n".join(lines) + "\n")
    print(f"wrote {REPORT}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+", choices=list(STANDARD),
                        help="the variants to run; the report covers all of them")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--note", action="append", default=[],
                        help="a note kept in the records of the variants named (and so in "
                        "the report), e.g. what else shared the cores")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    command = command_line("benchmarks/bench_variants.py",
                           argv if argv is not None else sys.argv[1:])
    try:
        state = load_state(STATE, {"benchmark": "variants"})
        if not args.report_only:
            for name in args.variants:
                run_variant(name, state, args.threads)
        for name in args.variants if args.note else ():
            add_notes(name, args.note)
        report(command)
    except MorrisError as e:
        raise SystemExit(f"error: {e}") from None


if __name__ == "__main__":
    main()
