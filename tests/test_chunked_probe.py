"""Point probes read only the HDF5 chunks they need, and answer exactly what probes of
whole loaded sectors answer.

Six Men's Morris is solved whole (placement included) into a file with 512-slot chunks,
so that nearly every sector has more than the four chunks below which a sector is
loaded whole at once; the same file is then probed chunk by chunk and whole.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from morris_solver.index.index_format import sector_slots
from morris_solver.query import game_values
from morris_solver.query.probe import Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.rules import legal_moves, play, terminal
from morris_solver.solving.generate import solve
from morris_solver.tables import storage

CHUNK = 512


@pytest.fixture(scope="module")
def six_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("chunked") / "six.h5"
    saved = storage._CHUNK
    storage._CHUNK = CHUNK
    try:
        solve("six", path, show_progress=False, log=lambda s: None)
    finally:
        storage._CHUNK = saved
    return path


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions of random games from the start, placement and moving phase alike."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = Position.start("six")
        for _ in range(rng.randrange(24)):
            moves = legal_moves(position)
            if not moves:
                break
            position = play(position, rng.choice(moves))
        found.append(position)
    return found


def test_chunk_wise_probes_equal_whole_sector_probes(six_path):
    chunked = Tablebase.open(six_path, whole_sector_after=10**9)
    whole = Tablebase.open(six_path, whole_sector_after=0)
    positions = random_positions(300, seed=3)
    assert sum(p.mover_hand + p.other_hand > 0 for p in positions) > 100
    for position in positions:
        assert chunked.probe(position) == whole.probe(position), position
        assert chunked.moves(position) == whole.moves(position), position
        if terminal(position) is None:
            assert chunked.best_move(position) == whole.best_move(position), position
    T = chunked._game.T
    # only sectors of at most four chunks were loaded whole; the others were read in
    # chunks, and not all of them
    assert all(sector_slots(T, s[0], s[1]) <= 4 * CHUNK for s in chunked._game.cache.sectors())
    read = {s: n for s, n in chunked._game.chunk_reads.items() if n}
    assert len(read) > 10
    assert sum(n < -(-sector_slots(T, s[0], s[1]) // CHUNK) for s, n in read.items()) > 10


def test_a_cold_probe_reads_few_chunks(six_path):
    tb = Tablebase.open(six_path)
    position = Position.parse("W:a1,c1,e3 B:a5,c5 w h:3,3", "six")
    sector = (3, 2, 3, 3)
    tb.moves(position)
    tb.probe(position)
    T = tb._game.T
    slots = {s: sector_slots(T, s[0], s[1]) for s in tb._game.chunk_reads}
    assert tb._game.chunk_reads, "every sector was loaded whole"
    for s, n in tb._game.chunk_reads.items():
        # a move list needs at most one chunk per successor, and the probe one more
        assert n <= len(legal_moves(position)) + (s == sector)
        assert n * CHUNK < slots[s]


def test_a_sector_read_often_is_loaded_whole(six_path):
    tb = Tablebase.open(six_path, whole_sector_after=8)
    positions = [p for p in random_positions(400, seed=11) if p.mover_hand == 1]
    for position in positions:
        tb.moves(position)
    promoted = [s for s in tb._game.chunk_reads if s in tb._game.cache.sectors()]
    assert promoted, "no sector was promoted after eight chunk reads"
    # once loaded whole, a sector's chunks leave the cache
    assert not any(key[0] in tb._game.cache.sectors() for key in tb._game.cache.chunks())


def test_chunks_and_sectors_share_the_byte_bound(six_path):
    tb = Tablebase.open(six_path, cache_bytes=4 * CHUNK * 2, whole_sector_after=10**9)
    for position in random_positions(100, seed=5):
        tb.probe(position)
        assert tb.cached_bytes <= max(tb.cache_bytes, max(
            (codes.nbytes for codes in tb._game.cache.sectors().values()), default=0
        ))
        assert tb.cached_bytes == sum(c.nbytes for c in tb._game.cache.chunks().values()) + sum(
            c.nbytes for c in tb._game.cache.sectors().values()
        )


@pytest.mark.parametrize("chunk_wise", [True, False])
def test_plain_python_answers_equal_the_kernels(six_path, monkeypatch, chunk_wise):
    """The first queries of a Tablebase run in plain Python (no Numba for a cold
    probe), the later ones in the kernels: both must give the same answers."""
    after = 10**9 if chunk_wise else 0
    positions = random_positions(150, seed=8)
    monkeypatch.setattr(game_values, "_kernels_imported", lambda: False)
    monkeypatch.setattr(game_values, "_PLAIN_QUERIES", 10**9)
    plain = Tablebase.open(six_path, whole_sector_after=after)
    plain_answers = [(plain.probe(p), plain.moves(p), plain.best_move(p)) for p in positions]
    assert plain._game.kernels is None
    monkeypatch.setattr(game_values, "_PLAIN_QUERIES", 0)
    fast = Tablebase.open(six_path, whole_sector_after=after)
    fast_answers = [(fast.probe(p), fast.moves(p), fast.best_move(p)) for p in positions]
    assert fast._game.kernels is not None
    assert plain_answers == fast_answers


def test_plain_index_equals_the_kernels():
    from morris_solver.index import index_format, indexing
    from morris_solver.rules.variants import get_variant

    rng = random.Random(4)
    for name in ("three", "six", "nine"):
        variant = get_variant(name)
        T = index_format.index_tables(variant.board, variant.stones)
        for _ in range(2000):
            W = rng.randint(0, variant.stones)
            B = rng.randint(0, min(variant.stones, variant.board.n - W))
            points = rng.sample(range(variant.board.n), W + B)
            mover = sum(1 << p for p in points[:W])
            other = sum(1 << p for p in points[W:])
            assert index_format.canonical_index(T, W, B, mover, other) == (
                indexing.canonical_index(T, W, B, mover, other)
            ), (name, W, B, mover, other)


def test_a_command_line_probe_does_not_load_numba(six_path):
    script = (
        "import sys\n"
        "from morris_cli.main import main\n"
        f"try:\n    main(['probe', 'six', 'W:a1 B:e5 w h:5,5', '--db', {str(six_path)!r}])\n"
        "except SystemExit as e:\n    assert not e.code, e.code\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout
    assert "moves, valued for White" in out.stdout


def test_a_cache_smaller_than_a_chunk_still_answers(six_path):
    tiny = Tablebase.open(six_path, cache_bytes=1, whole_sector_after=10**9)
    whole = Tablebase.open(six_path, whole_sector_after=0)
    for position in random_positions(60, seed=13):
        assert tiny.moves(position) == whole.moves(position), position
        assert tiny.probe(position) == whole.probe(position), position
