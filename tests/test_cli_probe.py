"""``morris probe``, ``bestmove``, ``value`` and ``play`` through click's runner, on
positions whose values are known by hand."""

from __future__ import annotations

import json
import random

import click
import pytest
from click.testing import CliRunner

from morris_cli.main import main
from morris_solver.play.engine import Engine
from morris_solver.query.probe import Tablebase
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position
from morris_solver.rules.rules import legal_moves, play
from morris_solver.rules.values import Result

# White (3 stones, flying) closes a7-d7-g7 and leaves Black with 2 stones: win in 1.
MILL_NOW = "W:a7,d7,c3 B:a1,b4,f2 w"
# White's four corners are hemmed in by Black on the four side midpoints: lost now.
BLOCKED_SIX = "W:a1,a5,e5,e1 B:a3,c5,e3,c1 w"
# Column a for White on the fifth placement.
THREE_WIN = "a1\nc3\na2\nc2\na3\n"
# Three placements each without a line, then both sides shuffle back and forth.
THREE_PLACED = "a1 b2 c1 b1 b3 a3".split()
THREE_SHUFFLE = "c1-c2 a3-a2 c2-c1 a2-a3".split()


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def json_of(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_probe_immediate_mill_wins_in_one(table_paths):
    facts = json_of("probe", "nine", MILL_NOW, "--db", str(table_paths["nine"]))
    assert list(facts) == ["result", "plies", "moves"]
    assert (facts["result"], facts["plies"]) == ("win", 1)
    assert facts["moves"][:3] == [
        {"move": f"c3-g7x{p}", "result": "win", "plies": 1} for p in ("a1", "b4", "f2")
    ]
    assert len(facts["moves"]) == 3 * 18 + 2  # 3 stones fly to 18 empty points; g7 x3
    assert all(set(m) == {"move", "result", "plies"} for m in facts["moves"])
    assert facts["moves"][-1]["result"] == "loss"


def test_probe_text_output(table_paths):
    result = run("probe", "nine", MILL_NOW, "--db", str(table_paths["nine"]))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("7 W-----------W-----------.")
    assert "White to move: win in 1 plies" in result.output
    assert "56 moves, valued for White:" in result.output
    assert "  c3-g7xa1  win in 1 plies" in result.output


def test_probe_blocked_side_is_lost_now(table_paths):
    facts = json_of("probe", "six", BLOCKED_SIX, "--db", str(table_paths["six"]))
    assert facts == {"result": "loss", "plies": 0, "moves": []}
    text = run("probe", "six", BLOCKED_SIX, "--db", str(table_paths["six"])).output
    assert "White to move: loss in 0 plies (game over: no legal move)" in text
    result = run("bestmove", "six", BLOCKED_SIX, "--db", str(table_paths["six"]))
    assert_one_line_error(result, "no move: the game is over", "no legal move")


def test_bestmove(table_paths):
    result = run("bestmove", "nine", MILL_NOW, "--db", str(table_paths["nine"]))
    assert result.exit_code == 0 and result.output == "c3-g7xa1\n"  # first of three in order
    start = run("bestmove", "three", "W: B: w h:3,3", "--db", str(table_paths["three"]))
    assert start.exit_code == 0
    tb = Tablebase.open(table_paths["three"])
    position = Position.start("three")
    assert start.output.strip() == tb.best_move(position).text(position.board)


def test_bestmove_against_a_named_opponent(six_whole_path):
    """``--against noisy:E``: ultra's move for that opponent (by seed), one that keeps the
    result; a bad model or one beside --draw-rules is a one-line usage error."""
    tb = Tablebase.open(six_whole_path)
    game = Game("six")
    for k in (0, 5, 2):
        game.play(game.legal_moves()[k])
    text = str(game.position)
    for against, seed in (("noisy:0.1", 3), ("noisy:0.4", 5)):
        found = run("bestmove", "six", text, "--db", str(six_whole_path), "--against", against,
                    "--seed", str(seed))
        assert found.exit_code == 0, found.output
        engine = Engine(tb, "ultra", random.Random(seed), model_error=float(against[6:]))
        expected = engine.choose(Game("six", game.position))
        assert found.output == expected.text(game.position.board) + "\n"
        best = tb.moves(game.position)[0].value.result
        assert {mv.text: mv.value.result for mv in tb.moves(game.position)}[
            found.output.strip()] is best
    for args, words in ((["--against", "noisy:0"], "is not an opponent"),
                        (["--against", "perfect"], "is not an opponent"),
                        (["--against", "noisy:0.1", "--draw-rules"], "drop --draw-rules")):
        bad = run("bestmove", "six", text, "--db", str(six_whole_path), *args)
        assert bad.exit_code == 2 and words in bad.output and "Traceback" not in bad.output
    refused = run("play", "six", "--db", str(six_whole_path), "--strength", "strong",
                  "--against", "noisy:0.1")
    assert refused.exit_code == 2 and "only the ultra engine" in refused.output


def test_three_start_is_a_first_player_win(table_paths):
    db = str(table_paths["three"])
    facts = json_of("probe", "three", "W: B: w h:3,3", "--db", db)
    assert (facts["result"], facts["plies"]) == ("win", 9)
    expected = {"variant": "three", "result": "win", "plies": 9}
    assert json_of("value", "three", "--db", db) == expected
    assert run("value", "three", "--db", db).output == "three: first player wins in 9 plies\n"


def test_move_list_positions(table_paths):
    # a move list from the start: after a1 b2 (Black centre) White to move
    facts = json_of("probe", "three", "a1 b2", "--db", str(table_paths["three"]))
    listed = {m["move"] for m in facts["moves"]}
    assert listed == {"a2", "a3", "b1", "b3", "c1", "c2", "c3"}


@pytest.mark.parametrize(
    "args, fragments",
    [
        (("probe", "ten", MILL_NOW), ["unknown variant 'ten'"]),
        (("probe", "nine", "W:a1,z9 B: w"), ["bad position", "unknown point 'z9'"]),
        (("bestmove", "nine", "a1 a1"), ["bad position", "a1 is occupied"]),
        (("probe", "nine", MILL_NOW, "--db", "missing.h5"), ["no table file at missing.h5"]),
        (("value", "nine", "--db", "missing.h5"), ["no table file at missing.h5"]),
    ],
)
def test_bad_inputs_are_one_line(args, fragments):
    assert_one_line_error(run(*args), *fragments)


def test_table_errors_are_one_line(table_paths):
    nine, three = str(table_paths["nine"]), str(table_paths["three"])
    assert_one_line_error(
        run("probe", "three", "a1", "--db", nine), "holds tables of nine, not of three"
    )
    assert_one_line_error(
        run("probe", "nine", "W:a1,d7,g4,b2 B:a4,g1,d5 w", "--db", nine),
        "sector 4-3-0-0 is not in",
        "morris solve nine --sector 4-3",
    )
    assert_one_line_error(run("value", "nine", "--db", nine), "sector 0-0-9-9", "--phase all")
    assert_one_line_error(run("value", "nine", "--db", three), "holds tables of three")


def test_default_table_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(
        run("value", "three"), "no table file at data/three.h5", "run 'morris solve three'"
    )


def test_play_a_few_moves_then_quit(table_paths):
    db = str(table_paths["three"])
    result = run("play", "three", "--db", db, "--seed", "1", input="b2\nhelp\n?\nquit\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Engine (Black) plays") == 1
    assert "Commands:" in result.output
    assert "White to move:" in result.output and "moves, valued for White" in result.output
    assert result.output.rstrip().endswith("Bye.")


def test_play_as_black_undo_and_bad_moves(table_paths):
    db = str(table_paths["three"])
    start = Position.start("three")
    opening = Tablebase.open(db).best_move(start)
    reply = legal_moves(play(start, opening))[0].text(start.board)
    result = run(
        "play", "three", "--db", db, "--color", "black",
        input=f"undo\nzz\n{reply}\nundo\nquit\n",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.index("nothing to undo") < out.index("cannot read move 'zz'")
    assert out.count(f"Engine (White) plays {opening.text(start.board)}") == 1
    assert out.count("Engine (White) plays") == 2  # the opening and the answer to our move
    assert out.count("took back") == 2 and f"took back {reply}" in out


def test_play_ends_cleanly_at_end_of_input(table_paths):
    result = run("play", "three", "--db", str(table_paths["three"]), input="b2\n")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert result.output.rstrip().endswith("Game abandoned.")


def test_play_ctrl_c_is_clean(table_paths, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(click, "prompt", interrupt)
    result = run("play", "three", "--humans")
    assert result.exit_code == 0 and "Game abandoned." in result.output


def test_play_two_humans_to_a_win(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no tables anywhere: humans need none
    result = run("play", "three", "--humans", input="?\n" + THREE_WIN)
    assert result.exit_code == 0, result.output
    assert "no evaluation: no table file at data/three.h5" in result.output
    assert "Engine" not in result.output
    assert "Game over: White wins (line of three)." in result.output


def test_play_without_tables_searches_and_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a fresh clone: no data/nine.h5
    result = run("play", "nine", "--color", "black", "--strength", "strong", "--seed", "3",
                 input="d6\nquit\n")
    assert result.exit_code == 0, result.output
    assert ("note: no tables of nine (data/nine.h5): the computer searches up to 4 plies ahead"
            in result.output)
    assert "'morris solve nine --phase moving' gives it perfect play" in result.output
    assert result.output.count("Engine (White) plays") == 2  # the opening and its answer
    # a named file that is missing is an error, not a silent fallback
    missing = run("play", "nine", "--db", "missing.h5")
    assert_one_line_error(missing, "no table file at missing.h5")


def test_play_humans_undo_and_draw_rules():
    moves = THREE_PLACED + ["undo", THREE_PLACED[-1]] + THREE_SHUFFLE * 2
    result = run("play", "three", "--humans", "--draw-rules", input="\n".join(moves) + "\n")
    assert result.exit_code == 0, result.output
    assert "took back a3" in result.output
    assert "Game over: draw (threefold repetition)." in result.output
    without = run("play", "three", "--humans", input="\n".join(THREE_PLACED + THREE_SHUFFLE * 2))
    assert "Game over" not in without.output and "Game abandoned." in without.output


def test_play_needs_the_start_sector(table_paths):
    result = run("play", "nine", "--db", str(table_paths["nine"]))
    assert_one_line_error(result, "sector 0-0-9-9 is not in")


def test_strong_engine_keeps_the_result_and_converts_a_win(table_paths):
    tb = Tablebase.open(table_paths["nine"])
    engine = Engine(tb, "strong", random.Random(5))
    game = Game("nine", start=Position.parse("W:a1,d7,g4 B:a4,g1,d5 w", "nine"))
    assert tb.probe(game.position).result is Result.WIN
    choices = set()
    for _ in range(30):
        move = engine.choose(game)
        choices.add(move)
        values = {mv.move: mv.value for mv in tb.moves(game.position)}
        assert values[move].result is Result.WIN
    assert len(choices) > 1  # random among the winning moves
    # once a position repeats, only the fastest wins
    for _ in range(2):
        for move in ("a1-b2", "a4-b4", "b2-a1", "b4-a4"):
            game.play(move)
    fastest = {mv.move for mv in tb.moves(game.position) if mv.value == tb.probe(game.position)}
    assert {engine.choose(game) for _ in range(20)} <= fastest
