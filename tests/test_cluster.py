"""Solving on a Dask cluster (solver/solving/cluster.py): the same tables as the serial solve,
code for code (Six Men's Morris whole, Nine Men's Morris up to 5 stones a side); resuming
across modes; a worker killed mid-task loses nothing."""

from __future__ import annotations

import os
from functools import partial

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
from distributed import Client, LocalCluster, WorkerPlugin  # noqa: E402

from morris_solver.solving.cluster import solve_on_cluster  # noqa: E402
from morris_solver.solving.generate import solve  # noqa: E402
from morris_solver.tables.storage import TableFile  # noqa: E402

quiet = {"show_progress": False, "log": lambda s: None}


def local_cluster() -> LocalCluster:
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=0,
                        dashboard_address=":0")


@pytest.fixture(scope="module")
def client():
    with local_cluster() as cluster, Client(cluster) as c:
        yield c


def assert_same_tables(path, reference, sectors=None) -> None:
    ours, theirs = TableFile.open(path), TableFile.open(reference)
    wanted = sectors if sectors is not None else theirs.sector_set()
    assert ours.sector_set() == set(wanted)
    theirs_attrs, ours_attrs = theirs.sectors(), ours.sectors()
    for s in wanted:
        assert np.array_equal(ours.read_sector(s), theirs.read_sector(s)), s
        for key in ("positions", "wins", "draws", "losses", "max_win_plies", "max_loss_plies"):
            assert ours_attrs[s][key] == theirs_attrs[s][key], (s, key)


def test_the_cluster_gives_the_serial_tables(client, six_whole_path, tmp_path):
    path = tmp_path / "six.h5"
    report = solve_on_cluster("six", path, client=client, **quiet)
    assert len(report.solved) > 10
    assert_same_tables(path, six_whole_path)


def test_nine_up_to_five_stones_as_the_serial_solve(client, tmp_path):
    """The moving twins up to 5-5, then the placement sectors within 4 stones a side
    (those within 5 double the test's time): groups of both phases, several independent
    at a time, each read from the others' results."""
    serial, cluster = tmp_path / "serial.h5", tmp_path / "cluster.h5"
    for path, run in ((serial, solve), (cluster, partial(solve_on_cluster, client=client))):
        moving = run("nine", path, phase="moving", max_stones=5, **quiet)
        placement = run("nine", path, max_stones=4, **quiet)
        assert len(moving.solved) == 6 and len(placement.solved) == 7
    assert_same_tables(cluster, serial)


def test_a_solve_resumes_across_modes(client, six_whole_path, tmp_path):
    path = tmp_path / "six.h5"
    solve("six", path, phase="moving", max_stones=3, **quiet)  # started serially
    report = solve_on_cluster("six", path, client=client, phase="moving", **quiet)
    assert report.skipped >= 1 and report.solved
    solve("six", path, **quiet)  # and finished serially
    assert_same_tables(path, six_whole_path)


class KillOnce(WorkerPlugin):
    """Kills its worker's process the first time a solve task starts executing on any
    worker (the marker file records that it happened)."""

    def __init__(self, marker: str):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("solve-") and not os.path.exists(
                self.marker):
            open(self.marker, "w").close()
            os._exit(1)


def test_a_worker_killed_mid_task_loses_nothing(six_whole_path, tmp_path):
    path = tmp_path / "six.h5"
    marker = tmp_path / "killed"
    said: list[str] = []
    with local_cluster() as cluster, Client(cluster) as c:
        c.register_plugin(KillOnce(str(marker)))
        solve_on_cluster("six", path, client=c, phase="moving", show_progress=False,
                         log=said.append)
    assert marker.exists()  # a worker did die, and its task ran again elsewhere
    lost = [line for line in said if " lost while running solve-" in line]
    assert len(lost) == 1 and lost[0].endswith("run again on another worker"), said
    moving = {s for s in TableFile.open(six_whole_path).sector_set() if s[2] == s[3] == 0}
    assert_same_tables(path, six_whole_path, moving)
    assert not list((tmp_path / ".morris-scratch").glob("*"))  # nothing left behind
