"""The values under the draw rule of a move limit (solver/rules/drawrules.py): the rule tables
against a brute-force reference that carries the count in the state, at small limits
where cursed wins are common; their verification; probes, moves and the engine."""

from __future__ import annotations

import json
import random
import shutil

import h5py
import numpy as np
import pytest
import reference_rules
from click.testing import CliRunner
from reference_solver import solve_rule_reference

from morris_cli.main import main
from morris_solver.check.verify import verify_table
from morris_solver.index.index_format import index_tables
from morris_solver.index.indexing import canonical_indices, unrank
from morris_solver.play.engine import Engine
from morris_solver.query.probe import Tablebase
from morris_solver.rules.drawrules import (
    CLASSES,
    SCORE_DRAW,
    code_of_score,
    move_scores,
    result_at,
    rule_class,
)
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position, split_count
from morris_solver.rules.rules import legal_moves, play, terminal
from morris_solver.rules.sectors import sector_key
from morris_solver.rules.values import PAD, Result
from morris_solver.rules.variants import VARIANTS
from morris_solver.search.search import search_value
from morris_solver.solving.generate import solve
from morris_solver.solving.retrograde import NO_FRONTIER, frontier_of
from morris_solver.tables.storage import TableFile, rule_layer

LIMITS = (6, 10, 20)
QUIET = {"show_progress": False, "log": lambda s: None}


@pytest.fixture(scope="module")
def six(table_paths, tmp_path_factory) -> dict:
    """Six Men's Morris moving sectors up to 4 stones a side with their rule values at
    each of ``LIMITS`` and at 100."""
    path = tmp_path_factory.mktemp("rules") / "six.h5"
    shutil.copy(table_paths["six"], path)
    for limit in (*LIMITS, 100):  # 100: the limit of the engine's games
        solve("six", path, phase="moving", max_stones=4, draw_rules=limit,
              show_progress=False, log=lambda s: None)
    return path


@pytest.fixture(scope="module")
def three(table_paths, tmp_path_factory):
    """Three Men's Morris whole, with its rule values at a limit of 6 plies (no capture
    ever resets the count there, so long wins turn into cursed wins)."""
    path = tmp_path_factory.mktemp("rules3") / "three.h5"
    shutil.copy(table_paths["three"], path)
    solve("three", path, draw_rules=6, show_progress=False, log=lambda s: None)
    return path


def random_moving_positions(variant: str, count: int, seed: int, max_stones: int):
    """Random moving-phase positions with 3 to ``max_stones`` stones a side (drawn
    directly, not played to: random games rarely capture that much), not over yet."""
    rng = random.Random(seed)
    board = Position.start(variant).board
    found = []
    while len(found) < count:
        white, black = rng.randint(3, max_stones), rng.randint(3, max_stones)
        points = rng.sample(range(board.n), white + black)
        pos = Position(Position.start(variant).variant, sum(1 << p for p in points[:white]),
                       sum(1 << p for p in points[white:]), 0, 0, rng.random() < 0.5)
        try:
            pos.validate()
        except ValueError:
            continue
        if terminal(pos) is None:
            found.append(pos)
    return found


def cursed_wins(path, limit: int, count: int) -> list[Position]:
    """Up to ``count`` cursed wins at ``limit`` from each moving sector of the file: won
    in the game (an even code), no result under the rule (code 0)."""
    table = TableFile.open(path)
    variant = table.variant
    T = index_tables(variant.board, variant.stones)
    found = []
    for sector in sorted(table.sector_set(rule_layer(limit))):
        game = table.read_sector(sector).astype(np.int64)
        rule = table.read_sector(sector, rule_layer(limit))
        slots = np.flatnonzero((rule == 0) & (game != 0) & (game % 2 == 0) & (game != PAD))
        for i in slots[:count].tolist():
            mover, other = unrank(T, sector[0], sector[1], i)
            found.append(Position.from_sides(variant, int(mover), int(other), 0, 0, True))
    assert found, "no cursed win in the file"
    return found


def compare_with_reference(path, reference, limit: int) -> int:
    """Every position the reference lists, at every count, against the rule codes of
    the file (read through the canonical index); the positions compared."""
    table = TableFile.open(path)
    variant = table.variant
    T = index_tables(variant.board, variant.stones)
    checked = 0
    for sector, ref in reference.items():
        codes = table.read_sector(sector, rule_layer(limit)).astype(np.int64)
        code = codes[canonical_indices(T, sector[0], sector[1], ref.mover, ref.other)]
        placing = bool(sector[2] or sector[3])
        for count, want in enumerate(ref.results):
            within = (code != 0) & (placing or (code // 2 <= limit - count))
            fast = np.where(within, np.where(code & 1, -1, 1), 0)
            bad = np.flatnonzero(fast != want)
            if len(bad):
                i = bad[0]
                pytest.fail(
                    f"{variant.name} {sector} at count {count}, limit {limit}: {len(bad)} of "
                    f"{len(code)} differ; first mover={variant.board.names(int(ref.mover[i]))}"
                    f" other={variant.board.names(int(ref.other[i]))}: code {code[i]}, "
                    f"reference {want[i]}")
        checked += len(code)
    return checked


@pytest.mark.parametrize("limit", LIMITS)
def test_six_up_to_four_stones_agrees_with_the_reference_everywhere(six, limit):
    """Every position of Six Men's Morris' moving sectors up to 4 stones a side, at
    every count, against the reference that carries the count in the state."""
    roots = [(4, 4, 0, 0), (4, 3, 0, 0), (3, 4, 0, 0)]
    reference = solve_rule_reference(VARIANTS["six"], roots, limit)
    assert compare_with_reference(six, reference, limit) == 1_861_860


def test_six_late_placement_agrees_with_the_reference(tmp_path):
    """Placement sectors (count 0, captures while placing) and the moving sectors they
    lead to."""
    path = tmp_path / "six.h5"
    roots = [(2, 4, 2, 1), (2, 3, 1, 1)]
    for root in roots:
        solve("six", path, sector=root, **QUIET)
        solve("six", path, sector=root, draw_rules=10, **QUIET)
    reference = solve_rule_reference(VARIANTS["six"], roots, 10)
    assert any(s[2] for s in reference)
    assert compare_with_reference(path, reference, 10) > 100_000


def test_nine_three_against_three_agrees_with_the_reference_everywhere(table_paths, tmp_path):
    path = tmp_path / "nine.h5"
    shutil.copy(table_paths["nine"], path)  # the session's table: the 3-vs-3 sector
    solve("nine", path, phase="moving", max_stones=3, draw_rules=10, **QUIET)
    reference = solve_rule_reference(VARIANTS["nine"], [(3, 3, 0, 0)], 10)
    assert compare_with_reference(path, reference, 10) == 2_691_920


def test_the_frontier_of_each_level():
    assert [frontier_of(c, 0) for c in range(2, 7)] == [1, 2, 3, 4, 5]
    # the rule game: a win level reads the losses one code below, a loss level the wins
    # three below (both one ply shorter), and the first loss level has none to read
    assert [frontier_of(c, 2) for c in range(2, 8)] == [1, NO_FRONTIER, 3, 2, 5, 4]


def test_codes_scores_and_classes():
    limit = 10
    for code in range(0, 2 * limit + 2):
        for count in range(limit + 1):
            result = result_at(code, count, limit, placing=False)
            z = code // 2
            want = "draw" if code == 0 or z > limit - count else ("loss" if code & 1 else "win")
            assert result == want
    # a quiet ply adds one to Z, and the best score turns back into the code
    codes = np.arange(0, 2 * limit, dtype=np.uint8)
    scores = move_scores(codes, quiet=True)
    for code, score in zip(codes.tolist(), scores.tolist(), strict=True):
        if code == 0:
            assert score == SCORE_DRAW and code_of_score(score, limit) == 0
        else:  # the successor's loss is our win one ply later, and the other way round
            back = code_of_score(int(score), limit)
            assert back == 0 or (back // 2 == code // 2 + 1 and back % 2 != code % 2)
    assert rule_class(4, 0) == "cursed-win" and rule_class(3, 0) == "blessed-loss"
    assert rule_class(0, 0) == "draw" and rule_class(4, 6) == "win" and rule_class(5, 7) == "loss"


def test_three_agrees_with_the_reference_placement_included(three):
    tb = Tablebase.open(three)
    reference_rules.clear()
    rng = random.Random(2)
    seen = set()
    for _ in range(60):
        pos = Position.start("three")
        for _ in range(rng.randrange(0, 12)):
            if terminal(pos):
                break
            pos = play(pos, rng.choice(legal_moves(pos)))
        if terminal(pos) or pos in seen:
            continue
        seen.add(pos)
        placing = pos.white_hand or pos.black_hand
        for count in [0] if placing else range(7):
            want = reference_rules.rule_result(pos, count, 6)
            assert tb.rule_probe(pos, count, 6).result is want, (str(pos), count)
    start = tb.rule_probe(Position.start("three"), 0, 6)
    assert start.result is reference_rules.rule_result(Position.start("three"), 0, 6)
    reference_rules.clear()


def test_a_position_and_its_moves_agree(six):
    tb = Tablebase.open(six)
    for pos in random_moving_positions("six", 60, seed=9, max_stones=4):
        for count in (0, 5, 9):
            value = tb.rule_probe(pos, count, 10)
            moves = tb.rule_moves(pos, count, 10)
            assert moves and moves[0].result is value.result
            assert value.rule_class in CLASSES
            if value.result is not Result.DRAW and count == 0:
                assert value.plies_to_capture == moves[0].plies_to_capture
            assert tb.rule_best_move(pos, count, 10) == moves[0].move


def test_the_rule_values_verify_and_damage_is_caught(six, tmp_path):
    report = verify_table(six, progress=False, draw_rules=10)
    assert report.ok, [(r.sector, r.mismatches, r.problems) for r in report.sectors if not r.ok]
    damaged = tmp_path / "six.h5"
    shutil.copy(six, damaged)
    with h5py.File(damaged, "a") as f:
        ds = f[rule_layer(10)][sector_key((4, 4, 0, 0))]
        codes = ds[...]
        i = int(np.flatnonzero(codes == 0)[0])  # a position without a result: claim a win
        codes[i] = 4
        ds[...] = codes
    report = verify_table(damaged, sector=(4, 4, 0, 0), progress=False, draw_rules=10)
    assert not report.ok and report.sectors[0].mismatch_count >= 1


def test_a_cursed_win_is_held_to_the_limit(six):
    """The defender of a cursed win (at a limit of 6) plays the rule's best moves, the
    attacker the game's: the attacker never wins, and the count runs out."""
    tb = Tablebase.open(six)
    limit = 6
    cursed = cursed_wins(six, limit, 5)
    assert all(tb.rule_probe(p, 0, limit).rule_class == "cursed-win" for p in cursed)
    for start in cursed:
        pos, count, attacker = start, 0, start.white_to_move
        for _ in range(200):
            if terminal(pos) is not None or count >= limit:
                break
            if pos.white_to_move == attacker:
                move = tb.best_move(pos)
            else:
                move = tb.rule_best_move(pos, count, limit)
            count = 0 if move.removed else count + 1
            pos = play(pos, move)
        end = terminal(pos)
        attacker_won = end is not None and end.result is Result.LOSS and (
            pos.white_to_move != attacker)
        assert not attacker_won, str(start)


@pytest.mark.parametrize("limit", [10, 100])
@pytest.mark.parametrize("defender", ["random", "dtm-greedy"])
def test_the_engine_keeps_a_rule_win(six, limit, defender):
    """From positions won under the rule, the perfect engine wins the game played under
    the draw rules (a repetition or the move limit would draw it) against a random
    defender and against one that delays the loss as the game's tables do. At a limit of
    10 most long wins are cursed, so the wins kept there are short only under the rule."""
    tb = Tablebase.open(six)
    positions = random_moving_positions("six", 80, seed=4, max_stones=4)
    won = [p for p in positions if tb.rule_probe(p, 0, limit).result is Result.WIN][:6]
    assert len(won) == 6
    rng = random.Random(1)
    for pos in won:
        game = Game("six", pos, draw_rules=True, move_limit=limit)
        engine = Engine(tb, "perfect", rng)
        assert engine.under_rules(game)
        winner = pos.white_to_move
        while game.outcome() is None:
            if game.position.white_to_move == winner:
                game.play(engine.choose(game))
            elif defender == "random":
                game.play(rng.choice(game.legal_moves()))
            else:
                game.play(tb.best_move(game.position))
        end = game.outcome()
        assert end.result is Result.LOSS and game.position.white_to_move != winner, end


def test_probe_and_bestmove_under_the_rule_on_the_command_line(six):
    pos = random_moving_positions("six", 1, seed=3, max_stones=4)[0]
    runner = CliRunner()
    out = runner.invoke(main, ["probe", "six", f"{pos} c:4", "--db", str(six), "--draw-rules",
                               "--move-limit", "10", "--json"])
    assert out.exit_code == 0, out.output
    body = json.loads(out.output)
    want = Tablebase.open(six).rule_probe(pos, 4, 10)
    assert body["rule_result"] == want.result.value and body["rule_class"] == want.rule_class
    assert body["count"] == 4 and body["move_limit"] == 10 and body["moves"]
    assert {"rule_result", "plies_to_capture"} <= set(body["moves"][0])
    best = runner.invoke(main, ["bestmove", "six", f"{pos} c:4", "--db", str(six),
                                "--draw-rules", "--move-limit", "10"])
    assert best.exit_code == 0 and best.output.strip() == body["moves"][0]["move"]
    plain = runner.invoke(main, ["probe", "six", f"{pos} c:4", "--db", str(six)])
    assert plain.exit_code != 0 and "--draw-rules" in plain.output
    missing = runner.invoke(main, ["probe", "six", str(pos), "--db", str(six), "--draw-rules",
                                   "--move-limit", "50"])
    assert missing.exit_code != 0 and "--move-limit 50" in missing.output


def test_the_count_in_position_text():
    assert split_count("W:a1 B:b2 w c:37") == ("W:a1 B:b2 w", 37)
    assert split_count("W:a1 B:b2 w") == ("W:a1 B:b2 w", None)
    with pytest.raises(ValueError):
        split_count("W:a1 B:b2 w c:x")


@pytest.fixture(scope="module")
def six_whole_rules(six_whole_path, tmp_path_factory):
    """Six Men's Morris whole, with its rule values at a limit of 10, placement too."""
    path = tmp_path_factory.mktemp("six-rules") / "six.h5"
    shutil.copy(six_whole_path, path)
    solve("six", path, draw_rules=10, **QUIET)
    return path


def test_the_search_under_the_rule_agrees_with_the_tables(six_whole_rules):
    """The search over the placement phase, at its leaves the moving sectors' results at
    count 0, against the placement sectors' rule values: from the start and from
    random placement positions."""
    tb = Tablebase.open(six_whole_rules)
    rng = random.Random(5)
    by_result = {Result.WIN: [], Result.DRAW: [Position.start("six")], Result.LOSS: [],
                 "cursed": []}
    for _ in range(3000):
        pos = Position.start("six")
        for _ in range(rng.randrange(1, 12)):
            pos = play(pos, rng.choice(legal_moves(pos)))
            if terminal(pos):
                break
        if not terminal(pos) and (pos.mover_hand or pos.other_hand):
            rule = tb.rule_probe(pos, 0, 10)
            # the draws the rule makes of won or lost games, apart: they tell the
            # rule's leaves from the game's
            cursed = rule.rule_class in ("cursed-win", "blessed-loss")
            found = by_result["cursed" if cursed else rule.result]
            if len(found) < 8:
                found.append(pos)
    assert all(by_result.values()), {r: len(p) for r, p in by_result.items()}
    for want, positions in by_result.items():
        for pos in positions:
            result = search_value(tb, pos, draw_rules=10).value.result
            assert result is (Result.DRAW if want == "cursed" else want), str(pos)


def test_the_start_under_the_rule_by_search_on_the_command_line(six_whole_rules):
    runner = CliRunner()
    db = ["--db", str(six_whole_rules)]
    tables = runner.invoke(main, ["value", "six", *db, "--draw-rules", "--move-limit", "10",
                                  "--json"])
    searched = runner.invoke(main, ["value", "six", *db, "--search", "--draw-rules",
                                    "--move-limit", "10", "--json"])
    assert tables.exit_code == 0 and searched.exit_code == 0, searched.output
    assert json.loads(searched.stdout)["rule_result"] == json.loads(tables.output)["rule_result"]
    missing = runner.invoke(main, ["value", "six", *db, "--search", "--draw-rules",
                                   "--move-limit", "50"])
    assert missing.exit_code != 0
    assert "--draw-rules --move-limit 50" in missing.output and "Traceback" not in missing.output
