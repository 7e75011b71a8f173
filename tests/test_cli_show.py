"""``morris show`` through click's runner: output, JSON, and one-line errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from morris_cli.main import main

POSITION = "W:a7,d7 B:a1,g1 w h:7,7"


def run(*args: str):
    return CliRunner().invoke(main, ["show", *args])


def test_show_prints_diagram_and_every_placement():
    result = run("nine", POSITION)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("7 W-----------W-----------.")
    assert lines[12].startswith("1 B-----------.-----------B")
    assert "a   b   c   d   e   f   g" in lines[13]
    assert "White to move (placement); in hand: White 7, Black 7" in result.output
    moves = result.output.split("legal moves: ")[1].split()
    # 20 empty points; g7 closes a7-d7-g7 and so comes with either removal.
    assert len({m.split("x")[0] for m in moves}) == 20
    assert {"g7xa1", "g7xg1", "a4", "d3"} <= set(moves) and "g7" not in moves


def test_show_json():
    result = run("nine", POSITION, "--json")
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output)
    assert facts["variant"] == "nine"
    assert facts["position"] == POSITION
    assert facts["phase"] == "placement"
    assert facts["to_move"] == "white"
    assert facts["hand"] == {"white": 7, "black": 7}
    assert len(facts["moves"]) == 21
    assert facts["outcome"] is None


def test_show_terminal_position_and_move_list():
    blocked = run("nine", "W:a1,a7,g7,g1 B:a4,d7,g4,d1 w", "--json")
    assert json.loads(blocked.output)["outcome"] == "loss"
    assert json.loads(blocked.output)["moves"] == []
    text = run("nine", "W:a1,a7,g7,g1 B:a4,d7,g4,d1 w")
    assert "Game over: loss for White (no legal move)" in text.output
    full = "W:a1,a7,g7,g1,b4,f4,d6,d2,c3,e5,c5,e3 B:a4,d7,g4,d1,b2,b6,f6,f2,c4,e4,d5,d3 w"
    assert "Game over: draw (full board)" in run("twelve", full).output
    start = run("three", "--json")
    assert json.loads(start.output)["position"] == "W: B: w h:3,3"
    replay = run("six", "a1 e5 c1", "--json")
    assert json.loads(replay.output)["position"] == "W:a1,c1 B:e5 b h:4,5"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("ten", POSITION), "unknown variant 'ten'"),
        (("nine", "W:a7,z9 B:a1,g1 w h:7,7"), "unknown point 'z9'"),
        (("nine", "d6 d6"), "d6 is occupied"),
        (("nine", "W:a7,d7 B:a1,g1 w h:8,8"), "White has 10 stones"),
        (("nine", "W:a7,d7 B:a1,g1 w h:7,6"), "impossible hands"),
        (("nine", "a1 d5 a4 d6 a7"), "closes a mill"),
        (("nine", "W:a7 B:a1 w h:x"), "bad stones in hand"),
        (("nine", "W:a7 B:a1"), "lacks w or b"),
        (("three", "a1 a1"), "a1 is occupied"),
        (("nine", POSITION, "--bogus"), "No such option"),
    ],
)
def test_bad_input_is_one_line_and_nonzero_exit(args, message):
    result = run(*args)
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and message in errors[0], result.output
    if args[-1] != "--bogus":
        assert result.output.strip() == errors[0]
