"""Solving on a Dask distributed cluster (``morris solve --scheduler ADDRESS`` or
``--workers N``): each group of sectors is a task, submitted as soon as the sectors it
needs are in the table file, so independent groups run at the same time.

A task runs on a worker the same kernels as a serial solve (``generate.solve_one_group``),
reading the sectors it needs from the table file, which the workers reach at the same
path (one machine, or a shared folder), and writes its result to a file of its own in a
scratch folder beside the table file. Only this process, the client, writes the table
file: it commits each finished group sector by sector, as the serial solve does, so a
sector in the file is complete or absent whatever happens to the workers. A worker killed
in the middle of a task loses only that attempt: the scheduler runs the task again
elsewhere, and the half-written scratch file of the attempt is never committed. If the
client dies, the same command resumes from the file, in either mode.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import h5py
import numpy as np
from tqdm import tqdm

from ..core.errors import MorrisError, quoted
from ..rules.sectors import Sector, dependencies, sector_key, sector_name
from ..rules.variants import Variant
from ..tables.storage import TableFile
from .generate import (
    SolveReport,
    commit,
    exit_cache,
    prepare_solve,
    set_threads,
    solve_one_group,
    summary,
)

SCRATCH = ".morris-scratch"  # beside the table file: where tasks leave their results


# a scheduler's address as Dask takes it: [tcp:// or tls://]host:port, an IPv6 host in []
SCHEDULER = re.compile(r"(?:(?:tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})")


def scheduler_address(address: str) -> str:
    """``address`` if it names a scheduler as Dask takes it, else one line: a malformed
    one raised ``ValueError`` deep in Dask, after the table file was made."""
    found = SCHEDULER.fullmatch(address)
    if not found or not 1 <= int(found[2]) <= 65535:
        raise MorrisError(
            f"the scheduler's address must be like tcp://host:8786, not {quoted(address)}"
        )
    return address


def solve_on_cluster(
    variant: Variant | str,
    path: str | Path | None = None,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    client=None,
    threads: int = 1,
    show_progress: bool = True,
    log: Callable[[str], None] = print,
    **selection,
):
    """``generate.solve`` on a Dask cluster: the existing one at ``scheduler``, a local
    one of ``workers`` processes, or ``client``'s. ``threads``: Numba threads per task.
    ``selection``: ``solve``'s phase, max_stones, sector, draw_rules and share_with."""
    if scheduler is not None:
        scheduler_address(scheduler)
    try:
        from distributed import Client, LocalCluster
    except ModuleNotFoundError:
        raise MorrisError(
            "solving on a cluster needs Dask: pip install 'morris-tablebase[cluster]'"
        ) from None
    set_threads(threads)
    if client is None and scheduler is not None:
        # connected before the table file is made: an unreachable scheduler leaves nothing
        with Client(scheduler) as own:
            return solve_on_cluster(variant, path, client=own, threads=threads,
                                    show_progress=show_progress, log=log, **selection)
    job = prepare_solve(variant, path, log=log, **selection)
    if not job.todo:
        return job.report
    if client is not None:
        return _run(job, client, threads, show_progress, log)
    # a worker's memory is its groups' (up to ~12 GiB for Nine Men's Morris): no limit,
    # which would have Dask pause or restart a worker in the middle of a group
    with LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True,
                      memory_limit=0, dashboard_address=":0") as cluster, Client(cluster) as own:
        return _run(job, own, threads, show_progress, log)


def solve_task(variant: Variant, table_path: str, group: tuple[Sector, ...],
               draw_rules: int | None, threads: int, scratch: str) -> tuple[str, dict, object]:
    """On a worker: solve one group from the sectors it needs, read from the table file,
    and leave the codes in a new file in ``scratch``; returns its path, the sectors'
    attributes and the group's report. Nothing here writes the table file."""
    set_threads(threads)
    table = TableFile.open(table_path)
    cache = exit_cache(table, draw_rules)
    codes, attrs, report = solve_one_group(variant, table, group, cache, draw_rules)
    out = Path(scratch) / f"{uuid.uuid4().hex}.h5"
    partial = out.with_suffix(".partial")
    with h5py.File(partial, "w") as f:
        for s, sector_codes in codes.items():
            f.create_dataset(sector_key(s), data=sector_codes)
    os.replace(partial, out)  # a result file is whole or absent
    return str(out), attrs, report


def _run(job, client, threads: int, show_progress: bool, log) -> SolveReport:
    """Submit every group once the sectors it needs are committed, commit the results
    as they come, until none is left."""
    from distributed import as_completed

    table, variant = job.table, job.variant
    scratch = table.path.resolve().parent / SCRATCH
    scratch.mkdir(exist_ok=True)
    # what a client that died left, and a killed attempt's half-written file
    for stale in [*scratch.glob("*.h5"), *scratch.glob("*.partial")]:
        stale.unlink()
    committed = table.sector_set(job.layer)  # what the tasks may read
    waiting = dict(zip(job.todo, job.slots, strict=True))
    running: dict = {}  # future -> group
    bar = tqdm(total=sum(job.slots), desc=f"{variant.name}, {len(job.todo)} groups",
               unit="pos", unit_scale=True, smoothing=0, disable=not show_progress,
               dynamic_ncols=True)
    finished = as_completed()
    lost: list[str] = []  # the scheduler's word of workers that left with tasks running

    def status() -> None:
        again = f", {len(lost)} run again after a lost worker" if lost else ""
        bar.set_postfix_str(f"{len(running)} running, {len(waiting)} waiting{again}")

    def worker_removed(event) -> None:
        """The scheduler's "remove-worker" event: say which tasks it had, which the
        scheduler now runs elsewhere (called on the client's event-loop thread)."""
        message = event[1]
        if not isinstance(message, dict) or message.get("action") != "remove-worker":
            return
        tasks = sorted(str(k) for k in message.get("processing-tasks", ()))
        if not tasks:
            return
        lost.extend(tasks)
        note = (f"worker {message.get('worker')} lost while running "
                f"{', '.join(tasks)}: run again on another worker")
        if show_progress:
            bar.write(note)
        else:
            log(note)
        status()

    def submit_ready() -> None:
        ready = [g for g in waiting if dependencies(variant, g) <= committed]
        for group in sorted(ready, key=lambda g: -waiting[g]):  # the largest first
            future = client.submit(
                solve_task, variant, str(table.path.resolve()), group,
                job.draw_rules, threads, str(scratch), pure=False,
                key=f"solve-{'+'.join(sector_name(s) for s in group)}-{uuid.uuid4().hex[:8]}",
            )
            running[future] = group
            finished.add(future)
            del waiting[group]
        status()

    client.subscribe_topic("all", worker_removed)
    try:
        with bar:
            submit_ready()
            if not running and waiting:
                raise MorrisError("no group can start: the sectors they need are missing")
            for future in finished:
                group = running.pop(future)
                result_path, attrs, report = future.result()
                codes = _read_result(Path(result_path), group)
                commit(table, codes, attrs, job.layer)
                Path(result_path).unlink()
                committed.update(group)
                job.report.solved.append(report)
                bar.update(report.slots)
                if show_progress:
                    bar.write(summary(report))
                submit_ready()
                if not running and waiting:
                    raise MorrisError("no group can start: the sectors they need are missing")
    finally:
        client.unsubscribe_topic("all")
    for stale in scratch.glob("*.partial"):  # an attempt killed while writing its result
        stale.unlink()
    if not any(scratch.iterdir()):
        scratch.rmdir()
    log(f"{len(job.report.solved)} groups solved on "
        f"{len(client.scheduler_info()['workers'])} workers")
    return job.report


def _read_result(path: Path, group: tuple[Sector, ...]) -> dict[Sector, np.ndarray]:
    with h5py.File(path, "r") as f:
        return {s: f[sector_key(s)][...] for s in group}
