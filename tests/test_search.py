"""The search route (alpha-beta over the placement phase, moving-phase tables at the
leaves) against the table route, on Three and Six Men's Morris from the empty board and
on placement positions of all three games: the WDL search gives the tables' result, the
DTM search their result and distance."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.check.known import known_results
from morris_solver.core.errors import MorrisError
from morris_solver.query.probe import Tablebase
from morris_solver.rules.position import Position
from morris_solver.rules.rules import legal_moves, play, terminal
from morris_solver.rules.sectors import reachable_sectors
from morris_solver.rules.values import Result, Value
from morris_solver.rules.variants import get_variant
from morris_solver.search import search as search_module
from morris_solver.search.search import (
    BIG,
    DEFAULT_ETC_PLIES,
    DEFAULT_ORDER,
    PlacementSearch,
    _back,
    _forward,
    score_of,
    search_start_value,
    search_value,
    value_of,
)
from morris_solver.solving.generate import solve

# Nine Men's Morris placement sectors whose searches reach only moving sectors up to 4-4
# (at most 3 placement plies); solving the first solves the others on the way.
NINE_SECTORS = [(2, 3, 2, 1), (3, 3, 1, 1), (2, 3, 1, 1), (3, 4, 1, 0), (3, 3, 1, 0), (2, 3, 1, 0)]


def _solved(folder: Path, variant: str, **options) -> Path:
    path = folder / f"{variant}.h5"
    solve(variant, path, show_progress=False, log=lambda s: None, **options)
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("search")


@pytest.fixture(scope="module")
def three(table_paths) -> Tablebase:
    return Tablebase.open(table_paths["three"])


@pytest.fixture(scope="module")
def six(six_whole_path) -> Tablebase:
    return Tablebase.open(six_whole_path)


@pytest.fixture(scope="module")
def nine(folder) -> Tablebase:
    return Tablebase.open(_solved(folder, "nine", sector=NINE_SECTORS[0]))


def _every_value(max_plies: int = 60) -> list[Value]:
    return (
        [Value(Result.WIN, p) for p in range(1, max_plies, 2)]
        + [Value(Result.DRAW)]
        + [Value(Result.LOSS, p) for p in range(0, max_plies, 2)]
    )


def test_scores_order_like_values_and_shift_exactly():
    values = _every_value()
    scores = [score_of(v) for v in values]
    assert sorted(values, key=Value.sort_key) == [value_of(s) for s in sorted(scores)[::-1]]
    assert len(set(scores)) == len(scores)
    for v, s in zip(values, scores, strict=True):
        assert value_of(s) == v
        assert _back(s) == score_of(v.after_move())
    # the child's window bound selects exactly the scores the parent's bound selects
    bounds = [*range(-BIG - 3, -BIG + 63), *range(-4, 5), *range(BIG - 63, BIG + 3)]
    for t in bounds:
        child = _forward(t)
        for s in scores:
            assert (s <= child) == (-_back(s) <= t)
            assert (s >= child) == (-_back(s) >= t)


def test_three_from_the_empty_board(three):
    found = search_start_value(three)
    assert found.value == three.probe(Position.start("three"))
    # the published result; its length, 9 plies, is our own figure (known_results.toml)
    assert found.value.result.value == known_results()["three"]["start"]
    assert found.value.plies == 9
    assert found.nodes > 0 and found.tt_entries > 0
    assert found.seconds >= found.load_seconds > 0  # a new session loads its tables


def test_three_positions_and_a_finished_game(three):
    for pos in _placement_positions("three", games=40, seed=3):
        assert search_start_value(three, pos).value == three.probe(pos), pos
    lined_up = Position.parse("W:a1,a2,a3 B:b1,c2 b h:0,1", "three")
    assert search_start_value(three, lined_up).value == Value(Result.LOSS, 0)


def test_six_from_the_empty_board(six):
    found = search_start_value(six)
    assert found.value == six.probe(Position.start("six"))
    assert found.value.result.value == known_results()["six"]["start"]


def test_a_full_transposition_table_costs_nodes_not_correctness(three):
    full = search_start_value(three)
    reports = []
    capped = search_start_value(
        three, max_tt_entries=10, progress=lambda n, tt: reports.append((n, tt)),
        progress_seconds=0.0,
    )
    assert capped.value == full.value == Value(Result.WIN, 9)
    assert capped.tt_entries == 10 < full.tt_entries and capped.nodes > full.nodes
    assert reports[-1] == (capped.nodes, capped.tt_entries)  # the last report: the end
    assert reports == sorted(reports) and all(tt <= 10 for _, tt in reports)


def test_a_growing_transposition_table_keeps_every_entry(six):
    """The table starts at 4,096 slots and doubles while the search runs: the same
    search with a table that never grows must find exactly as many nodes."""
    grown = search_start_value(six)
    assert grown.tt_entries > search_module._MIN_TT_SLOTS
    saved = search_module._MIN_TT_SLOTS
    try:
        search_module._MIN_TT_SLOTS = 1 << 20
        fixed = search_start_value(six)
    finally:
        search_module._MIN_TT_SLOTS = saved
    assert (fixed.value, fixed.nodes, fixed.tt_entries) == (grown.value, grown.nodes,
                                                            grown.tt_entries)


def test_six_positions(six):
    positions = sorted(_placement_positions("six", games=40, seed=6), key=str)
    for pos in random.Random(6).sample(positions, 12):
        assert search_start_value(six, pos).value == six.probe(pos), pos


def test_nine_late_placement(nine):
    v = get_variant("nine")
    assert set(NINE_SECTORS) <= reachable_sectors(v)
    rng = random.Random(9)
    longest: dict[Result, int] = {}
    for W, B, WF, BF in NINE_SECTORS:
        sampled = []
        for _ in range(300):
            points = rng.sample(range(24), W + B)
            mover = sum(1 << p for p in points[:W])
            other = sum(1 << p for p in points[W:])
            pos = Position.from_sides(v, mover, other, WF, BF, WF == BF)
            value = nine.probe(pos)
            sampled.append((value.sort_key(), value.result, pos))
        sampled.sort(key=lambda item: item[0])
        # per result the first and the last by value: shortest and longest wins and losses
        ends = {}
        for _, result, pos in sampled:
            ends.setdefault(result, []).append(pos)
        for group in ends.values():
            for pos in {group[0], group[-1]}:
                expected = nine.probe(pos)
                assert search_start_value(nine, pos).value == expected, pos
                longest[expected.result] = max(longest.get(expected.result, 0), expected.plies or 0)
    assert set(longest) == set(Result) and min(longest[Result.WIN], longest[Result.LOSS]) > 9


# ---------------------------------------------------------------- the WDL metric


def _wdl(value: Value) -> Value:
    """What the WDL search reports for a position of that value: the result alone."""
    return Value(value.result)


def test_wdl_from_the_empty_board(three, six):
    for tb, name in ((three, "three"), (six, "six")):
        found = search_value(tb)
        assert found.value == _wdl(tb.probe(Position.start(name))), name
        assert found.value.plies is None and found.nodes > 0 and found.tt_entries > 0


def test_wdl_three_positions(three):
    positions = sorted(_placement_positions("three", games=60, seed=33), key=str)
    results = set()
    for pos in positions:
        expected = _wdl(three.probe(pos))
        assert search_value(three, pos).value == expected, pos
        results.add(expected.result)
    assert results == set(Result)
    lined_up = Position.parse("W:a1,a2,a3 B:b1,c2 b h:0,1", "three")
    assert search_value(three, lined_up).value == Value(Result.LOSS)


def test_wdl_six_positions(six):
    positions = sorted(_placement_positions("six", games=80, seed=66), key=str)
    results = set()
    for pos in random.Random(66).sample(positions, 150):
        expected = _wdl(six.probe(pos))
        assert search_value(six, pos).value == expected, pos
        results.add(expected.result)
    assert results == set(Result)


def test_win_first_tests_give_the_tables_value(three, six):
    """"A win?" then "a loss?" with null windows: the value of one (-1, 1) search,
    wins, draws and losses alike, from one session's table as from a fresh one."""
    for tb, name, games in ((three, "three", 40), (six, "six", 30)):
        positions = sorted(_placement_positions(name, games=games, seed=5), key=str)
        session = PlacementSearch(tb, win_first=True)
        results = set()
        for pos in [Position.start(name), *random.Random(5).sample(positions, 60)]:
            expected = _wdl(tb.probe(pos))
            assert search_value(tb, pos, win_first=True).value == expected, pos
            assert session.search(pos).value == expected, pos
            results.add(expected.result)
        assert results == set(Result), name


@pytest.mark.parametrize(
    ("order", "etc_plies"),
    [(0, 99), (1, 99), (31, 99), (1, 3), (DEFAULT_ORDER, DEFAULT_ETC_PLIES)],
)
def test_every_move_order_and_cut_off_gives_the_tables_value(six, order, etc_plies):
    """Move order and the transposition cut-offs change the nodes, never the value,
    in either metric."""
    positions = sorted(_placement_positions("six", games=20, seed=7), key=str)
    for pos in [Position.start("six"), *random.Random(7).sample(positions, 12)]:
        expected = six.probe(pos)
        for metric, want in (("wdl", _wdl(expected)), ("dtm", expected)):
            found = search_value(six, pos, metric=metric, order=order, etc_plies=etc_plies)
            assert found.value == want, (pos, metric)


def test_wdl_with_a_full_transposition_table(six):
    full = search_value(six)
    capped = search_value(six, max_tt_entries=100)
    assert capped.value == full.value == Value(Result.DRAW)
    assert capped.tt_entries == 100 < full.tt_entries and capped.nodes > full.nodes


def test_a_full_table_keeps_the_positions_with_most_stones_in_hand(six):
    """At its cap the table replaces positions with fewer stones in hand: the start,
    stored last, is kept (a table refusing new positions when full never held it)."""
    start = Position.start("six")
    session = PlacementSearch(six, max_tt_entries=100)
    assert session.search(start).value == Value(Result.DRAW)
    assert session.tt_entries == 100 and session.stored_upper_bound(start) == 0
    assert session.search(start).nodes == 1  # the second search: the stored draw


def test_a_full_table_makes_room_for_a_deeper_position_whose_probe_starts_empty():
    """A new position whose probe begins at an empty slot of a full table replaces the
    shallowest one just after it (the start of Morabaraba's search was dropped so),
    and every other position stays where its probe finds it."""
    from numba.typed import List

    from morris_solver.search.search import _tt_find, _tt_get, _tt_home, _tt_put

    rng = random.Random(5)
    for trial in range(200):
        holder = List([np.zeros((16, 2), np.int64)])
        state = np.zeros(5, np.int64)
        shallow = []
        while state[1] < 12:  # stones in hand 1 or 2: fields WF and BF of the key
            key = rng.randrange(1, 1 << 20) << 20 | rng.choice((1, 2, 33))
            if key not in shallow:
                shallow.append(key)
                _tt_put(holder, key, -1, 1 if len(shallow) % 2 else 0, state, 12)
        tt = holder[0]
        deep = next(k for k in (rng.randrange(1, 1 << 20) << 20 | 12 << 5 | 12
                                for _ in range(1000)) if tt[_tt_home(tt, k), 0] == 0)
        _tt_put(holder, deep, 1, 1, state, 12)
        assert state[1] == 12 and _tt_get(holder[0], deep) == (1, 1), trial
        kept = [k for k in shallow if holder[0][_tt_find(holder[0], k), 0] == k + 1]
        assert len(kept) == 11  # one shallow position gave way, the others are found
        for k in kept:
            assert _tt_get(holder[0], k)[1] == (1 if (shallow.index(k) + 1) % 2 else 0)


def test_a_saved_search_goes_on_in_another_session(six, tmp_path):
    start, saved = Position.start("six"), tmp_path / "six.search.npz"
    first = PlacementSearch(six)
    late = min((p for p in _placement_positions("six", 3, seed=7) if p.mover_hand == 2),
               key=str)
    assert first.search(late).nodes > 1
    first.save(saved)
    again = PlacementSearch(six)
    again.restore(saved)
    assert again.tt_entries == first.tt_entries > 0
    assert again.search(late).nodes == 1  # its value stored at the root
    assert again.search(start).value == Value(Result.DRAW)
    with pytest.raises(MorrisError, match="holds a search of .*'wdl'.* not .*'dtm'"):
        PlacementSearch(six, metric="dtm").restore(saved)
    saved.write_bytes(saved.read_bytes()[:1000])
    with pytest.raises(MorrisError, match="is not a saved search"):
        PlacementSearch(six).restore(saved)


def test_wdl_nine_late_placement(nine):
    v = get_variant("nine")
    rng = random.Random(99)
    results = set()
    for W, B, WF, BF in NINE_SECTORS:
        for _ in range(40):
            points = rng.sample(range(24), W + B)
            mover = sum(1 << p for p in points[:W])
            other = sum(1 << p for p in points[W:])
            pos = Position.from_sides(v, mover, other, WF, BF, WF == BF)
            expected = _wdl(nine.probe(pos))
            assert search_value(nine, pos).value == expected, pos
            results.add(expected.result)
    assert results == set(Result)


def test_unknown_metric(three):
    with pytest.raises(ValueError, match="metric"):
        search_value(three, metric="dtc")


@pytest.mark.parametrize(("flags", "plies"), [([], None), (["--distance"], 9)])
def test_cli_search_json_and_text(three, flags, plies):
    db = str(three.path)
    args = ["value", "three", "--db", db, "--search", *flags]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)  # the loading bar goes to stderr
    assert list(facts) == ["variant", "result", "plies", "nodes", "seconds"]
    assert facts["variant"] == "three" and (facts["result"], facts["plies"]) == ("win", plies)
    assert isinstance(facts["nodes"], int) and facts["nodes"] > 0
    assert isinstance(facts["seconds"], float)
    text = CliRunner().invoke(main, args).stdout
    in_plies = "" if plies is None else f" in {plies} plies"
    assert text.splitlines()[0] == f"three: first player wins{in_plies}"
    assert "nodes" in text.splitlines()[1]


def test_cli_distance_needs_search(three):
    result = CliRunner().invoke(main, ["value", "three", "--db", str(three.path), "--distance"])
    assert result.exit_code == 2 and "--distance goes with --search" in result.output


def test_cli_search_with_a_cache_smaller_than_the_tables(six):
    """Six's moving sectors take 2.7 MB: a 1 MiB cache keeps dropping and reloading
    them, and the answer stays the same."""
    args = ["value", "six", "--db", str(six.path), "--search"]
    small = CliRunner().invoke(main, [*args, "--cache-gib", str(1 / 1024)])
    assert small.exit_code == 0, small.output
    assert small.stdout.splitlines()[0] == "six: draw"


def _one_line_error(result) -> str:
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def test_search_refuses_without_moving_tables(table_paths):
    db = str(table_paths["nine"])  # moving sectors up to 3 stones a side only
    line = _one_line_error(CliRunner().invoke(main, ["value", "nine", "--db", db, "--search"]))
    assert "the search needs the moving-phase tables" in line
    assert f"run 'morris solve nine --phase moving --out {db}'" in line


def test_search_needs_only_moving_tables(tmp_path):
    db = str(_solved(tmp_path, "three", phase="moving"))
    line = _one_line_error(CliRunner().invoke(main, ["value", "three", "--db", db]))
    assert "morris solve three --phase placement" in line
    args = ["value", "three", "--db", db, "--search", "--distance", "--json"]
    searched = CliRunner().invoke(main, args)
    assert searched.exit_code == 0, searched.output
    assert json.loads(searched.stdout)["plies"] == 9


def _placement_positions(variant: str, games: int, seed: int) -> set[Position]:
    """Positions of random games while stones are still in hand."""
    rng = random.Random(seed)
    found = set()
    for _ in range(games):
        pos = Position.start(variant)
        while pos.mover_hand and not terminal(pos):
            found.add(pos)
            pos = play(pos, rng.choice(legal_moves(pos)))
    return found


def test_bench_search_reports_and_checks(three, tmp_path):
    """``benchmarks/bench_search.py`` searches the start with each setting and checks
    the value against the tables, where the file holds them: with the moving phase
    alone it says there is nothing to check against (not the search against itself)."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_search.py"
    def bench(*args: str, db: Path = three.path) -> str:
        return subprocess.run([sys.executable, str(script), "three", "--db", str(db),
                               *args], capture_output=True, text=True, check=True).stdout

    out = bench("--order", "0,31", "--etc-plies", "99,2", "--metric", "dtm")
    lines = [line for line in out.splitlines() if line.startswith("the start: order")]
    assert len(lines) == 4 and all("win in 9 plies = tables" in line for line in lines), out
    assert all("nodes" in line and "TT entries" in line for line in lines)
    out = bench("--after", "2,4", "--lines", "2", "--win-first", "0,1")
    lines = [line for line in out.splitlines() if line.startswith("line ")]
    # two lines, two positions each (three's placement has six plies), both settings
    assert len(lines) == 8 and all("= tables" in line for line in lines), out
    assert {line.split(":")[0] for line in lines} == {
        f"line {n} after {p} plies ({6 - p} stones in hand)" for n in (0, 1) for p in (2, 4)}
    out = bench("--after", "2", "--lines", "1", db=_solved(tmp_path, "three", phase="moving"))
    lines = [line for line in out.splitlines() if line.startswith("line ")]
    assert len(lines) == 1 and "(no table to check against)" in lines[0], out
