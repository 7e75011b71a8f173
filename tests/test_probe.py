"""The query API against the rules: perfect play keeps every promise the tables make.

Positions are sampled at random from Three Men's Morris (the whole game, placement
included), Six Men's Morris moving sectors up to 4 stones a side and Nine Men's Morris
3-vs-3 (see ``conftest.py``), bucketed by their value so draws are covered too.
"""

from __future__ import annotations

import random
import shutil

import h5py
import numpy as np
import pytest
from numba import njit

from morris_solver.core.errors import MorrisError
from morris_solver.query import game_values
from morris_solver.query.probe import MissingSectorError, Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.rules import legal_moves, play, successors, terminal
from morris_solver.rules.values import PAD, Result, Value
from morris_solver.rules.variants import get_variant
from morris_solver.solving.generate import solve
from morris_solver.tables.compact import (
    PACKED_DRAW,
    PACKED_LOSS,
    PACKED_PAD,
    PACKED_WIN,
    compact_codes,
    pack_results,
)
from morris_solver.tables.probe_kernels import packed_result_at
from morris_solver.tables.storage import TableError

STONES = {"three": None, "six": (3, 4), "nine": (3,)}  # None: random games from the start
PER_RESULT = 40


def random_position(name: str, rng: random.Random) -> Position:
    variant = get_variant(name)
    if STONES[name] is None:
        position = Position.start(variant)
        for _ in range(rng.randrange(20)):
            moves = legal_moves(position)
            if not moves:
                break
            position = play(position, rng.choice(moves))
        return position
    W, B = rng.choice(STONES[name]), rng.choice(STONES[name])
    points = rng.sample(range(variant.board.n), W + B)
    mover = sum(1 << p for p in points[:W])
    other = sum(1 << p for p in points[W:])
    return Position.from_sides(variant, mover, other, 0, 0, rng.random() < 0.5)


def sample(tb: Tablebase, name: str, seed: int) -> dict[Result, list[Position]]:
    """Up to PER_RESULT non-terminal positions of each result."""
    rng = random.Random(seed)
    found: dict[Result, list[Position]] = {r: [] for r in Result}
    for _ in range(50000):
        position = random_position(name, rng)
        bucket = found[tb.probe(position).result]
        if len(bucket) < PER_RESULT and terminal(position) is None:
            bucket.append(position)
        if all(len(b) == PER_RESULT for b in found.values()):
            break
    return found


@pytest.fixture(scope="module")
def tablebases(table_paths):
    return {name: Tablebase.open(path) for name, path in table_paths.items()}


@pytest.fixture(scope="module")
def samples(tablebases):
    return {name: sample(tb, name, seed=7) for name, tb in tablebases.items()}


def test_samples_cover_every_result(samples):
    for name, found in samples.items():
        assert len(found[Result.WIN]) == len(found[Result.LOSS]) == PER_RESULT, name
    assert all(len(samples[name][Result.DRAW]) == PER_RESULT for name in ("six", "nine"))


@pytest.mark.parametrize("name", sorted(STONES))
def test_perfect_play_ends_exactly_when_promised(tablebases, samples, name):
    """Both sides playing best_move: the winner hurries, the loser delays, and the game
    ends after exactly the promised number of plies, lost by the predicted side."""
    tb = tablebases[name]
    for start in samples[name][Result.WIN] + samples[name][Result.LOSS]:
        value = tb.probe(start)
        loser = start.white_to_move == (value.result is Result.LOSS)
        position, plies = start, 0
        while terminal(position) is None:
            position = play(position, tb.best_move(position))
            plies += 1
        assert plies == value.plies, f"{start}: promised {value}, ended after {plies} plies"
        assert terminal(position).result is Result.LOSS
        assert position.white_to_move == loser


@pytest.mark.parametrize("name", sorted(STONES))
def test_best_move_wins_in_time_against_random_replies(tablebases, samples, name):
    tb = tablebases[name]
    rng = random.Random(1)
    for start in samples[name][Result.WIN]:
        promised = tb.probe(start).plies
        winner = start.white_to_move
        position, plies = start, 0
        while terminal(position) is None:
            mine = position.white_to_move == winner
            move = tb.best_move(position) if mine else rng.choice(legal_moves(position))
            position = play(position, move)
            plies += 1
        assert plies <= promised and position.white_to_move != winner, str(start)


@pytest.mark.parametrize("name", sorted(STONES))
def test_best_move_never_loses_a_draw_against_any_reply(tablebases, samples, name):
    tb = tablebases[name]
    rng = random.Random(2)
    for start in samples[name][Result.DRAW]:
        side = start.white_to_move
        position = start
        for _ in range(12):
            if terminal(position) is not None:
                assert position.white_to_move != side, f"{start}: our side lost"
                break
            if position.white_to_move == side:
                position = play(position, tb.best_move(position))
                assert tb.probe(position).result is not Result.WIN, str(start)
                continue
            replies = successors(position)
            for _, after in replies:
                assert tb.probe(after).result is not Result.LOSS, f"{start}: a reply wins"
            position = rng.choice(replies)[1]


@pytest.mark.parametrize("name", sorted(STONES))
def test_moves_agree_with_probing_each_successor(tablebases, samples, name):
    tb = tablebases[name]
    for position in (p for bucket in samples[name].values() for p in bucket):
        moves = tb.moves(position)
        assert {mv.move for mv in moves} == set(legal_moves(position))
        assert len(moves) == len(legal_moves(position))
        for mv in moves:
            assert mv.text == mv.move.text(position.board)
            assert mv.value == tb.probe(play(position, mv.move)).after_move(), mv.text
        keys = [(mv.value.sort_key(), mv.text) for mv in moves]
        assert keys == sorted(keys)
        assert tb.probe(position) == moves[0].value
        assert tb.best_move(position) == moves[0].move


def test_terminal_positions(tablebases):
    tb = tablebases["nine"]
    # fewer than 3 stones: never stored, answered by the rules
    two = Position.parse("W:a1,d7,g4 B:a4,g1 b", "nine")
    assert tb.probe(two) == Value(Result.LOSS, 0)
    assert tb.moves(two) == [] and tb.best_move(two) is None
    # White is blocked with 4 stones; sector 4_4 is not in the 3-vs-3 file
    blocked = Position.parse("W:a1,a7,g7,g1 B:a4,d7,g4,d1 w", "nine")
    assert tb.probe(blocked) == Value(Result.LOSS, 0)
    assert tb.moves(blocked) == [] and tb.best_move(blocked) is None


def test_three_start_is_a_first_player_win(tablebases):
    tb = tablebases["three"]
    start = Position.start("three")
    value = tb.probe(start)
    assert value.result is Result.WIN
    move = tb.best_move(start)
    assert move in legal_moves(start)
    assert tb.probe(play(start, move)) == Value(Result.LOSS, value.plies - 1)


def test_bounded_cache_evicts_least_recently_used(table_paths, samples):
    unbounded = Tablebase.open(table_paths["six"])
    small = Tablebase.open(table_paths["six"], cache_bytes=1)
    positions = [p for bucket in samples["six"].values() for p in bucket]
    for position in positions:
        assert small.probe(position) == unbounded.probe(position)
        assert small.moves(position) == unbounded.moves(position)
        assert len(small._game.cache.sectors()) == 1  # each load evicts all others
    assert small.cached_bytes == next(iter(small._game.cache.sectors().values())).nbytes


def test_missing_file(tmp_path):
    with pytest.raises(TableError, match="no table file at .*nothing.h5"):
        Tablebase.open(tmp_path / "nothing.h5")


def test_not_a_table_file(tmp_path):
    path = tmp_path / "text.h5"
    path.write_text("hello")
    with pytest.raises(TableError, match="not a readable HDF5 table file"):
        Tablebase.open(path)


def test_wrong_variant(tablebases):
    with pytest.raises(TableError, match="holds tables of three, not of nine"):
        tablebases["three"].probe(Position.parse("W:a1,d7,g4 B:a4,g1,d5 w", "nine"))
    assert issubclass(TableError, MorrisError)


def test_missing_moving_sector(tablebases):
    tb = tablebases["nine"]
    position = Position.parse("W:a1,d7,g4,b2 B:a4,g1,d5 w", "nine")
    with pytest.raises(MissingSectorError) as err:
        tb.probe(position)
    assert err.value.sector == (4, 3, 0, 0)
    assert str(err.value) == (
        f"sector 4-3-0-0 is not in {tb.path}; "
        f"run 'morris solve nine --sector 4-3 --out {tb.path}' to generate it"
    )
    # moves() needs only the sectors the moves lead to: here 3_4 (quiet moves)
    with pytest.raises(MissingSectorError, match="sector 3-4-0-0 is not in"):
        tb.moves(position)
    with pytest.raises(MissingSectorError, match="sector 3-4-0-0 is not in"):
        tb.best_move(position)


def test_missing_placement_sector(tablebases, tmp_path):
    nine = tablebases["nine"]
    with pytest.raises(MissingSectorError, match=r"sector 0-0-9-9 .* --phase all"):
        nine.probe(Position.start("nine"))
    path = tmp_path / "three-moving.h5"
    solve("three", path, phase="moving", show_progress=False, log=lambda s: None)
    # without the search (with it, the moving phase answers: test_search_without_placement)
    with pytest.raises(MissingSectorError, match=r"sector 0-0-3-3 .* --phase placement"):
        Tablebase.open(path, search=False).probe(Position.start("three"))


def _copy(table_paths, tmp_path, name):
    path = tmp_path / f"{name}.h5"
    shutil.copy(table_paths[name], path)
    return path


def test_flipped_byte_in_a_sector_is_detected(table_paths, tmp_path):
    path = _copy(table_paths, tmp_path, "nine")
    with h5py.File(path, "r") as f:
        chunk = f["sectors/3_3_0_0"].id.get_chunk_info(0)
    with open(path, "r+b") as f:
        f.seek(chunk.byte_offset + chunk.size // 2)
        byte = f.read(1)[0]
        f.seek(-1, 1)
        f.write(bytes([byte ^ 0x10]))
    tb = Tablebase.open(path)
    with pytest.raises(TableError, match=r"sector 3-3-0-0 of .* is damaged"):
        tb.probe(Position.parse("W:a1,d7,g4 B:a4,g1,d5 w", "nine"))


def test_flipped_byte_in_the_header_is_detected(table_paths, tmp_path):
    path = _copy(table_paths, tmp_path, "nine")
    with open(path, "r+b") as f:
        f.seek(1)
        f.write(b"X")  # the HDF5 signature
    with pytest.raises(TableError, match="not a readable HDF5 table file"):
        Tablebase.open(path)


def _rewrite_sector(path, key, change):
    with h5py.File(path, "a") as f:
        codes = change(f["sectors"][key][...])
        attrs = dict(f["sectors"][key].attrs)
        del f["sectors"][key]
        ds = f["sectors"].create_dataset(key, data=codes, fletcher32=True)
        ds.attrs.update(attrs)


def test_padding_at_a_canonical_slot_is_reported(table_paths, tmp_path):
    path = _copy(table_paths, tmp_path, "nine")
    _rewrite_sector(path, "3_3_0_0", lambda codes: np.full_like(codes, PAD))
    tb = Tablebase.open(path)
    position = Position.parse("W:a1,d7,g4 B:a4,g1,d5 w", "nine")
    with pytest.raises(TableError, match="sector 3-3-0-0 .* damaged .*padding"):
        tb.probe(position)
    with pytest.raises(TableError, match="sector 3-3-0-0 .* damaged .*padding"):
        tb.best_move(position)


def test_truncated_sector_is_reported(table_paths, tmp_path):
    path = _copy(table_paths, tmp_path, "nine")
    _rewrite_sector(path, "3_3_0_0", lambda codes: codes[:-1])
    with pytest.raises(TableError, match="sector 3-3-0-0 .* not the .* codes of its index"):
        Tablebase.open(path).probe(Position.parse("W:a1,d7,g4 B:a4,g1,d5 w", "nine"))


@pytest.mark.parametrize("name", sorted(STONES))
def test_value_from_successors_is_the_stored_value(tablebases, samples, name):
    tb = tablebases[name]
    for result, positions in samples[name].items():
        for position in positions:
            assert tb.value_from_successors(position) == tb.probe(position), (result, position)


def test_value_from_successors_of_a_finished_game(tablebases):
    over = Position.parse("W:a1,a2,a3 B:b1,c2 b h:0,1", "three")
    assert tablebases["three"].value_from_successors(over) == Value(Result.LOSS, 0)


def test_codes_are_cached_as_bytes_only_when_every_code_fits():
    fits = np.array([0, 1, 2, 254, PAD], dtype=np.uint16)
    compact = compact_codes(fits)
    assert compact.dtype == np.uint8 and compact.tolist() == [0, 1, 2, 254, 255]
    for too_long in (255, 256, 300):  # 255 would read as padding
        codes = np.array([0, too_long, PAD], dtype=np.uint16)
        assert compact_codes(codes) is codes


@pytest.mark.parametrize("length", [1, 4, 7, (1 << 24) + 5])  # the last spans two steps
def test_packed_results_read_back_slot_for_slot(length):
    rng = np.random.default_rng(length)
    codes = rng.integers(0, 300, length).astype(np.uint16)
    codes[rng.random(length) < 0.1] = PAD
    codes[rng.random(length) < 0.2] = 0
    short = np.where(codes == PAD, PAD, codes % 254).astype(np.uint16)  # fits a byte
    as_bytes = compact_codes(short)
    assert as_bytes.dtype == np.uint8
    for form, of in ((codes, codes), (short, short), (as_bytes, short)):
        packed = pack_results(form)
        assert len(packed) == (length + 3) // 4
        expected = np.where(of == 0, PACKED_DRAW, np.where(
            of == PAD, PACKED_PAD, np.where(of % 2 == 0, PACKED_WIN, PACKED_LOSS)))
        assert np.array_equal(read_packed(packed, np.arange(length)), expected)


@njit
def read_packed(packed, slots):
    out = np.empty(len(slots), np.int64)
    for k in range(len(slots)):
        out[k] = packed_result_at(packed, slots[k])
    return out


@pytest.mark.parametrize("name", ["three", "six"])
def test_byte_word_and_mixed_caches_answer_alike(table_paths, monkeypatch, name):
    """The kernels read bytes, uint16 codes, and both in one call (successor sectors of
    either kind), with the same answers."""
    positions = [p for bucket in sample(Tablebase.open(table_paths[name]), name, 7).values()
                 for p in bucket[:10]]

    def answers(compact) -> list:
        monkeypatch.setattr(game_values, "compact_codes", compact)
        tb = Tablebase.open(table_paths[name])
        found = [(tb.probe(p), [(m.text, m.value) for m in tb.moves(p)]) for p in positions]
        return found, {codes.dtype for codes in tb._game.cache.sectors().values()}

    compact = compact_codes
    as_bytes, dtypes = answers(compact)
    assert dtypes == {np.dtype(np.uint8)}
    as_words, dtypes = answers(lambda codes: codes)
    assert dtypes == {np.dtype(np.uint16)}
    loads = iter(range(1 << 30))
    mixed, dtypes = answers(lambda codes: compact(codes) if next(loads) % 2 else codes)
    assert len(dtypes) == 2
    assert as_bytes == as_words == mixed
