"""The engine's strengths and the fallible players it is measured against: ``ultra``
keeps the result on every move and sets the most traps; the opponents are reproducible
from a seed; benchmarks/bench_strength.py plays, checks and reports at a small size."""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from morris_solver.play.engine import STRENGTHS, Engine
from morris_solver.play.opponents import player
from morris_solver.query.probe import Tablebase
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position
from morris_solver.rules.rules import legal_moves, play, terminal
from morris_solver.rules.values import Result
from morris_solver.solving.generate import solve

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_strength  # noqa: E402
from test_draw_rules import random_moving_positions  # noqa: E402

ORDER = {Result.WIN: 0, Result.DRAW: 1, Result.LOSS: 2}
KEEPING = ("ultra", "perfect", "strong")


@pytest.fixture(scope="module")
def six_rules(table_paths, tmp_path_factory) -> Path:
    """Six Men's Morris moving sectors up to 4 stones a side with the 100-ply rule."""
    path = tmp_path_factory.mktemp("strength") / "six.h5"
    shutil.copy(table_paths["six"], path)
    solve("six", path, phase="moving", max_stones=4, draw_rules=100, show_progress=False,
          log=lambda s: None)
    return path


def result_now(tb: Tablebase, game: Game, rules: bool) -> Result:
    end = game.outcome()
    if end is not None:
        return end.result
    if rules:
        return tb.rule_probe(game.position, game.quiet_moving_plies(), game.move_limit).result
    return tb.probe(game.position).result


def walk(tb: Tablebase, game: Game, engine: Engine, plies: int, rng: random.Random,
         rules: bool) -> int:
    """Play ``plies`` plies, the engine against random moves, asserting that no engine
    move makes its result worse; returns the engine moves checked."""
    checked = 0
    for ply in range(plies):
        if game.outcome() is not None:
            break
        if ply % 2:
            game.play(rng.choice(game.legal_moves()))
            continue
        before = result_now(tb, game, rules)
        game.play(engine.choose(game))
        after = result_now(tb, game, rules).flipped()
        assert ORDER[after] <= ORDER[before], (engine.strength, str(game.history[-1][0]))
        checked += 1
    return checked


@pytest.mark.parametrize("strength", [*KEEPING, "ultra-replies", "ultra-sectors",
                                      "ultra-fresh-replies", "ultra-model-1-0.3"])
def test_the_result_is_kept_on_every_move(table_paths, six_whole_path, six_rules, strength):
    """Over games from the start of Three and Six and from random positions of the small
    Nine and Six sectors, with and without the draw rules (under the 100-ply rule where
    the file holds it), every engine move keeps the result for its side."""
    rng = random.Random(7)
    checked = 0
    cases = [(table_paths["three"], None, False), (six_whole_path, None, False),
             (six_whole_path, None, True), (table_paths["nine"], 3, False),
             (six_rules, 4, True)]
    for path, stones, rules in cases:
        tb = Tablebase.open(path)
        engine = player(strength, tb, 3)
        starts = (random_moving_positions(tb.variant.name, 6, 5, stones) if stones
                  else [None] * 4)
        for start in starts:
            game = Game(tb.variant, start, draw_rules=rules)
            assert engine.under_rules(game) is (rules and path == six_rules)
            checked += walk(tb, game, engine, 60, rng, rules and path == six_rules)
    assert checked > 100


def trap_shares(tb: Tablebase, pos) -> dict:
    """For each move keeping the result (by the game's values), the share of the
    opponent's replies that give up their value, computed from ``Tablebase.moves``."""
    moves = tb.moves(pos)
    shares = {}
    for mv in moves:
        if mv.value.result is not moves[0].value.result:
            continue
        after = play(pos, mv.move)
        replies = tb.moves(after)
        shares[mv.move] = 0.0 if not replies else sum(
            ORDER[r.value.result] > ORDER[replies[0].value.result] for r in replies
        ) / len(replies)
    return shares


def test_ultra_takes_the_move_with_the_most_traps(six_whole_path):
    """In drawn and lost positions ``ultra`` (by the replies alone) plays a move whose
    share of losing replies is the greatest among the moves that keep the result; in
    won positions, the fastest win."""
    tb = Tablebase.open(six_whole_path)
    engine = Engine(tb, "ultra", random.Random(1), "replies")
    rng = random.Random(2)
    seen = {Result.WIN: 0, Result.DRAW: 0, Result.LOSS: 0}
    for _ in range(12):
        game = Game("six")
        for _ in range(rng.randrange(8, 40)):
            if game.outcome() is not None:
                break
            pos = game.position
            value = tb.probe(pos)
            move = engine.choose(game)
            if value.result is Result.WIN:
                assert move == tb.best_move(pos)
            else:
                shares = trap_shares(tb, pos)
                assert shares[move] == max(shares.values()), str(pos)
            seen[value.result] += 1
            game.play(move if rng.random() < 0.5 else rng.choice(game.legal_moves()))
    assert all(seen.values()), seen


def test_one_move_of_the_model_is_the_trap_count(six_whole_path):
    """Looking one move ahead in a drawn position, the score expected against the
    model is a draw's 1/2 plus the opponent's error rate times half the share of its
    replies that lose (a win 1): the one-ply trap count, and so ``ultra-model-1``
    plays a move of the greatest share. Two moves ahead it expects no less of its
    move than of any other, and never less than a draw."""
    tb = Tablebase.open(six_whole_path)
    rng = random.Random(4)
    engines = [Engine(tb, "ultra", random.Random(1), "model", error, 1)
               for error in (0.1, 0.4)]
    deeper = Engine(tb, "ultra", random.Random(1), "model", 0.1, 2)
    drawn = 0
    for _ in range(8):
        game = Game("six")
        for _ in range(rng.randrange(4, 30)):
            if game.outcome() is not None:
                break
            if tb.probe(game.position).result is Result.DRAW:
                drawn += 1
                shares = trap_shares(tb, game.position)
                for engine in engines:
                    keep = [c for c in engine.choices(game) if c.result is Result.DRAW]
                    for c in keep:
                        assert engine.expected(game, c) == pytest.approx(
                            0.5 + engine.model_error * shares[c.move] / 2)
                    assert shares[engine.choose(game)] == max(shares.values())
                keep = [c for c in deeper.choices(game) if c.result is Result.DRAW]
                chosen = deeper.choose(game)
                rated = {c.move: deeper.expected(game, c) for c in keep}
                assert min(rated.values()) >= 0.5 - 1e-12
                assert rated[chosen] == pytest.approx(max(
                    rated[c.move] for c in deeper._candidates(game, keep, 2)))
            game.play(rng.choice(game.legal_moves()))
    assert drawn > 20


def test_the_model_opponent_is_checked():
    with pytest.raises(ValueError, match="error rate"):
        Engine(None, "ultra", random.Random(), "model", 1.0)
    with pytest.raises(ValueError, match="look-ahead"):
        Engine(None, "ultra", random.Random(), "model", 0.1, 0)
    with pytest.raises(ValueError, match="bad player"):
        player("ultra-model-x", None, 1)


def test_the_baselines_play_as_described(six_whole_path):
    """``trap1`` plays a move with the greatest share of losing replies among those
    keeping the result (a fastest win when winning), ``perfect-random`` a move keeping
    the best result; both pick among equals at random, so seeds differ somewhere."""
    tb = Tablebase.open(six_whole_path)
    rng = random.Random(4)
    varied = {"trap1": False, "perfect-random": False}
    for _ in range(10):
        game = Game("six")
        for _ in range(rng.randrange(8, 40)):
            if game.outcome() is not None:
                break
            pos = game.position
            moves = tb.moves(pos)
            best = moves[0].value
            shares = trap_shares(tb, pos)
            for name in varied:
                chosen = {player(name, tb, seed).choose(game) for seed in range(6)}
                varied[name] |= len(chosen) > 1
                for move in chosen:
                    value = next(mv.value for mv in moves if mv.move == move)
                    if best.result is not Result.DRAW or name == "trap1":
                        assert value.result is best.result, (name, str(pos))
                    if best.result is Result.WIN or (name == "perfect-random"
                                                     and best.result is Result.LOSS):
                        assert value == best, (name, str(pos))
                    elif name == "trap1":
                        assert shares[move] == max(shares.values()), str(pos)
                    else:
                        assert value.result is Result.DRAW, str(pos)
            game.play(rng.choice(game.legal_moves()))
    assert all(varied.values()), varied


def test_fresh_replies_prefer_a_position_not_seen(six_whole_path):
    """In a drawn game under the draw rules, ``ultra`` moves to a position the game has
    seen least often, among the drawing moves."""
    tb = Tablebase.open(six_whole_path)
    engine = Engine(tb, "ultra", random.Random(1), "fresh-replies")
    rng = random.Random(4)
    tested = 0
    for _ in range(6):
        game = Game("six", draw_rules=True)
        while game.outcome() is None and len(game.history) < 120:
            pos = game.position
            if tb.probe(pos).result is Result.DRAW and len(game.history) >= 12:
                seen = [before for before, _ in game.history]
                drawing = [mv.move for mv in tb.moves(pos) if mv.value.result is Result.DRAW]
                least = min(seen.count(play(pos, m)) for m in drawing)
                move = engine.choose(game)
                assert seen.count(play(pos, move)) == least
                tested += least > 0 or len(drawing) > 1
            else:  # a random move keeping the value, so that games differ
                moves = tb.moves(pos)
                move = rng.choice([mv.move for mv in moves if mv.value.result is
                                   moves[0].value.result])
            game.play(move)
    assert tested > 20


def test_a_third_repetition_counts_as_the_draw_it_is(six_whole_path):
    """With the draw rules, a move that repeats a position a third time is listed as a
    draw, whatever the tables say of the position it leads to; without them, not."""
    tb = Tablebase.open(six_whole_path)
    start = random_moving_positions("six", 1, 3, 4)[0]
    for rules in (True, False):
        game = Game("six", start, draw_rules=rules)
        move = game.legal_moves()[0]
        game.history += [(play(start, move), move)] * 2  # as if it had occurred twice
        results = {c.move: c.result for c in Engine(tb, "perfect", random.Random()).choices(game)}
        if rules:
            assert results[move] is Result.DRAW
        else:
            assert results[move] is tb.probe(play(start, move)).result.flipped()


def test_unknown_strengths_and_criteria_are_refused():
    with pytest.raises(ValueError, match="unknown criterion"):
        Engine(None, "ultra", random.Random(), "taste")
    with pytest.raises(ValueError, match="unknown strength"):
        Engine(None, "clever", random.Random())


def ref_value(reference: dict, pos: Position) -> tuple[Result, int | None]:
    """The reference solver's result and distance for the side to move of ``pos``."""
    if terminal(pos) is not None:
        return Result.LOSS, 0
    sector = (pos.mover.bit_count(), pos.other.bit_count(), pos.mover_hand, pos.other_hand)
    code = reference[sector].code_of(pos.mover, pos.other)
    if code == 0:
        return Result.DRAW, None
    return (Result.WIN if (code - 1) % 2 else Result.LOSS), code - 1


def played_value(reference: dict, pos: Position, move) -> tuple[Result, int | None]:
    """The reference's value of ``move`` for the side that plays it."""
    result, plies = ref_value(reference, play(pos, move))
    return result.flipped(), None if plies is None else plies + 1


def test_each_strength_plays_as_described_by_the_reference(table_paths, reference_three):
    """Along random games of Three, by the brute-force reference's values: ``perfect``
    keeps the exact value (the fastest win, the slowest loss), ``ultra`` and ``strong``
    the result; ``easy`` gives the result away at half the rate of a random move (20
    picks a position)."""
    tb = Tablebase.open(table_paths["three"])
    engines = {name: player(name, tb, 5) for name in STRENGTHS}
    rng = random.Random(6)
    drops = expected = checked = 0
    for _ in range(30):
        game = Game("three")
        while game.outcome() is None and len(game.history) < 16:
            pos = game.position
            value = ref_value(reference_three, pos)
            assert played_value(reference_three, pos, engines["perfect"].choose(game)) == value
            for name in ("ultra", "strong"):
                got = played_value(reference_three, pos, engines[name].choose(game))
                assert got[0] is value[0], (name, str(pos))
            legal = game.legal_moves()
            dropping = sum(played_value(reference_three, pos, m)[0] is not value[0]
                           for m in legal)
            drops += sum(played_value(reference_three, pos, engines["easy"].choose(game))[0]
                         is not value[0] for _ in range(20))
            expected += 20 * 0.5 * dropping / len(legal)
            checked += 1
            game.play(rng.choice(legal))
    assert checked > 200 and expected > 500
    # a sum of independent Bernoulli draws: within 5 of its standard deviations
    # (at most sqrt(expected)) of its mean
    assert abs(drops - expected) < 5 * expected**0.5, (drops, expected)


# Positions of Three where the moves keeping the result differ in the share of the
# opponent's replies that give up their value, the greatest share belonging to one move
# that is not ``perfect``'s: after 1. a1 (drawn), Black's b2 leaves White five losing
# replies of seven; a lost position of the moving phase, where a3-a2 leaves four of five.
TRAPS = [("W:a1 B: b h:2,3", "b2"), ("W:b1,c2,c3 B:a1,a3,b3 b", "a3-a2")]


@pytest.mark.parametrize("text,expected", TRAPS)
def test_ultra_sets_the_most_traps_by_the_reference(table_paths, reference_three, text,
                                                    expected):
    """The share of losing replies computed here from the reference's values: the
    expected move has the unique greatest one, ``ultra`` plays it (either criterion that
    ranks replies) and ``perfect`` does not, so the trap count is what decides."""
    tb = Tablebase.open(table_paths["three"])
    pos = Position.parse(text, "three")
    value = ref_value(reference_three, pos)[0]
    shares = {}
    for move in legal_moves(pos):
        if played_value(reference_three, pos, move)[0] is not value:
            continue
        after = play(pos, move)
        replies = [ORDER[played_value(reference_three, after, r)[0]] for r in legal_moves(after)]
        shares[move.text(pos.board)] = sum(r > min(replies) for r in replies) / len(replies)
    assert len(shares) > 1 and value is not Result.WIN
    top = max(shares.values())
    assert [m for m, share in shares.items() if share == top] == [expected], shares
    game = Game("three", pos)
    for criterion in ("replies", "fresh-replies"):
        assert Engine(tb, "ultra", random.Random(1), criterion).choose(game).text(
            pos.board) == expected
    assert Engine(tb, "perfect", random.Random(1)).choose(game).text(pos.board) != expected


@pytest.mark.parametrize("name", ["random", "noisy-0.1", "alphabeta-2", "strong", "easy",
                                  "ultra", "perfect", "trap1", "perfect-random"])
def test_players_are_reproducible_from_their_seed(six_whole_path, name):
    """The same seed replays the same game; against an opponent of a fixed seed, another
    seed of a player that draws at random plays another game, while ``ultra`` and
    ``perfect`` draw nothing at random and play the same whatever their seed."""
    tb = Tablebase.open(six_whole_path)

    def game_of(seed: int) -> list[str]:
        me, other = player(name, tb, seed), player("noisy-0.3", tb, 99)
        game = Game("six", draw_rules=True)
        while game.outcome() is None and len(game.history) < 80:
            game.play((me if game.position.white_to_move else other).choose(game))
        return [move.text(before.board) for before, move in game.history]

    first = game_of(11)
    assert game_of(11) == first
    if name in ("ultra", "perfect"):
        assert all(game_of(seed) == first for seed in (12, 13))
    else:
        assert any(game_of(seed) != first for seed in (12, 13, 14))


def test_an_alphabeta_name_may_carry_a_node_budget(six_whole_path):
    tb = Tablebase.open(six_whole_path)
    budgeted, plain = player("alphabeta-4-600", tb, 1), player("alphabeta-4", tb, 1)
    assert (budgeted.depth, budgeted.node_budget) == (4, 600)
    assert (plain.depth, plain.node_budget) == (4, None)


@pytest.mark.parametrize("name,words", [
    ("noisy-2", "between 0 and 1"), ("noisy-x", "bad player"), ("alphabeta-0", "bad player"),
    ("alphabeta-3-0", "node budget"), ("alphabeta-3-x", "bad player"),
    ("clever", "unknown player"),
])
def test_bad_player_names_are_refused(six_whole_path, name, words):
    with pytest.raises(ValueError, match=words):
        player(name, Tablebase.open(six_whole_path), 1)


@pytest.mark.parametrize("epsilon", [0.1, 0.3])
def test_the_noisy_player_errs_at_its_rate(six_whole_path, epsilon):
    """At error rate E a move is uniformly random with probability E, else a random one
    of the moves keeping the best result: in a position where K of the N legal moves keep
    it, a pick outside them is a Bernoulli draw of p = E x (N - K) / N, so over 1500
    picks the count lies within 5 standard deviations of 1500 p; and every legal move
    turns up, the best ones more often than the others."""
    tb = Tablebase.open(six_whole_path)
    rng = random.Random(3)
    game = Game("six")
    while True:  # a drawn position of a seeded game where few moves keep the draw
        found = [mv for mv in tb.moves(game.position)]
        keep = {mv.move for mv in found if mv.value.result is found[0].value.result}
        if found[0].value.result is Result.DRAW and 2 <= len(keep) <= len(found) // 2:
            break
        game.play(rng.choice(game.legal_moves()))
        assert game.outcome() is None
    noisy = player(f"noisy-{epsilon}", tb, 5)
    legal = game.legal_moves()
    picks = [noisy.choose(game) for _ in range(1500)]
    p = epsilon * (len(legal) - len(keep)) / len(legal)
    mean, sd = len(picks) * p, (len(picks) * p * (1 - p)) ** 0.5
    off = sum(move not in keep for move in picks)
    assert abs(off - mean) < 5 * sd, (off, mean, sd)
    assert set(picks) == set(legal)
    assert min(picks.count(m) for m in keep) > max(picks.count(m) for m in legal
                                                    if m not in keep)


def test_wilson_and_score_intervals_on_known_cases():
    """Wilson's 95 % interval of 81 in 263 is 0.2553-0.3662 (Newcombe 1998, Statistics in
    Medicine 17, example (a), method 3); of 0 in 10 it is 0 to z^2 / (10 + z^2) = 0.2775,
    of 50 in 100 symmetric around 1/2. The score of 10 wins and 10 losses is 1/2 with a
    half-width of z x 0.5 / sqrt(20)."""
    lo, hi = bench_strength.wilson(50, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    lo, hi = bench_strength.wilson(0, 10)
    assert lo == 0 and round(hi, 4) == 0.2775
    lo, hi = bench_strength.wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    mean, lo, hi = bench_strength.score_interval(10, 0, 10)
    assert mean == 0.5 and abs(hi - 0.5 - 1.959964 * 0.5 / 20**0.5) < 1e-6
    mean, lo, hi = bench_strength.score_interval(0, 7, 0)
    assert mean == lo == hi == 0.5
    diff, half, apart = bench_strength.gain({"wins": 10, "draws": 0, "losses": 10},
                                            {"wins": 0, "draws": 20, "losses": 0})
    assert diff == 0 and abs(half - 1.959964 * 0.5 / 20**0.5) < 1e-6 and not apart
    assert bench_strength.gain({"wins": 20, "draws": 0, "losses": 0},
                               {"wins": 0, "draws": 20, "losses": 0})[2]


def test_the_benchmark_plays_checks_and_reports(six_rules, tmp_path, monkeypatch):
    monkeypatch.setattr(bench_strength, "RECORDS", tmp_path / "records")
    monkeypatch.setattr(bench_strength, "REPORT", tmp_path / "report.md")
    argv = ["--db", str(six_rules), "--name", "six4", "--games", "6", "--sample-starts", "4",
            "--max-stones", "4", "--engines", "ultra", "perfect", "trap1",
            "--opponents", "random", "alphabeta-1", "--cache-gib", "0.001"]
    bench_strength.main(argv)
    tb = Tablebase.open(six_rules)
    starts = [Position.parse(line, "six") for line in
              (tmp_path / "records" / "six4_starts.txt").read_text().split("\n") if line]
    assert sorted(tb.rule_probe(p, 0, 100).result.value for p in starts) == [
        "draw", "draw", "win", "win"]
    assert all(p.mover_hand == 0 and max(p.white.bit_count(), p.black.bit_count()) <= 4
               for p in starts)
    record = json.loads((tmp_path / "records" / "six4.json").read_text())
    pairs = {(p["first"], p["second"]): p for p in record["pairings"]}
    assert set(pairs) == {("ultra", "random"), ("ultra", "alphabeta-1"),
                          ("perfect", "random"), ("perfect", "alphabeta-1"),
                          ("trap1", "random"), ("trap1", "alphabeta-1"),
                          ("ultra", "perfect")}
    for p in pairs.values():
        assert p["wins"] + p["draws"] + p["losses"] == 6
        assert p["worse_moves"][p["first"]] == 0
        assert p["checked_moves"][p["first"]] > 0
        assert p["checked_moves"][p["second"]] > 0  # the fallible side's moves too
        by_start = p["by_start"]  # [wins, draws, losses] by the first's result at the start
        assert [sum(c) for c in zip(*by_start.values(), strict=True)] == [
            p["wins"], p["draws"], p["losses"]]
        # each start is played from either side, so the first holds a won start's lost side
        # as often as its won side
        assert sum(by_start["win"]) == sum(by_start.get("loss", ())) > 0
    worse = sum(p["worse_moves"]["random"] for p in pairs.values() if p["second"] == "random")
    assert worse > 0  # a random player gives values away, and the check sees it
    report = (tmp_path / "report.md").read_text()
    assert "| ultra | random |" in report and "six4" in report
    assert "How often the fallible players keep the value" in report
    assert "| random |" in report.split("fallible players keep the value")[1]
    assert "What `ultra` gains" in report and "| ultra | perfect |" in report
    assert "By the start's value for the first player" in report
    assert "the first 3 of 4 start position(s)" in report  # 6 games reach 3 starts
    again = record["pairings"]
    bench_strength.main(argv)  # resumes: nothing left to play
    assert json.loads((tmp_path / "records" / "six4.json").read_text())["pairings"] == again


def test_a_warm_pairing_plays_the_same_games_in_a_record_of_its_own(six_rules, tmp_path,
                                                                    monkeypatch):
    monkeypatch.setattr(bench_strength, "RECORDS", tmp_path / "records")
    monkeypatch.setattr(bench_strength, "REPORT", tmp_path / "report.md")
    common = ["--db", str(six_rules), "--games", "4", "--sample-starts", "2", "--max-stones",
              "4", "--engines", "ultra", "--opponents", "noisy-0.1", "--no-ladder"]
    bench_strength.main(common + ["--name", "cold"])
    (tmp_path / "records" / "warm_starts.txt").write_text(
        (tmp_path / "records" / "cold_starts.txt").read_text())
    bench_strength.main(common + ["--name", "warm", "--warm"])
    cold, warm = (json.loads((tmp_path / "records" / f"{name}.json").read_text())
                  for name in ("cold", "warm"))
    assert warm["settings"].pop("warm") is True and "warm" not in cold["settings"]
    keys = ("wins", "draws", "losses", "plies", "endings", "by_start")
    assert [{k: p[k] for k in keys} for p in warm["pairings"]] == [
        {k: p[k] for k in keys} for p in cold["pairings"]]  # the same games, from seeds
    report = (tmp_path / "report.md").read_text()
    assert "## cold:" in report and "## warm:" in report  # not merged: other settings


def test_the_benchmark_needs_the_rule_values(table_paths, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_strength, "RECORDS", tmp_path / "records")
    with pytest.raises(SystemExit) as stop:
        bench_strength.main(["--db", str(table_paths["three"]), "--games", "2"])
    assert "--draw-rules" in str(stop.value)


def test_morris_play_offers_ultra(six_whole_path):
    from morris_cli.main import main

    result = CliRunner().invoke(main, ["play", "six", "--db", str(six_whole_path), "--color",
                                       "black", "--strength", "ultra"], input="quit\n")
    assert result.exit_code == 0, result.output
    assert "Engine (White) plays" in result.output
    help_text = CliRunner().invoke(main, ["play", "--help"]).output
    assert all(name in help_text for name in STRENGTHS)
