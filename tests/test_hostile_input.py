"""Hostile input to the command line, the web API and the table reader: numbers in
Unicode digits or in thousands of digits, text of 10,000 characters, damaged table
files, a FIFO given as a table file, and nan or inf for a number option. Each is one
line and a non-zero exit (a 400 on the web), never a traceback; valid input reads as
before."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from morris_cli.common import FiniteFloat, WholeNumber
from morris_cli.main import main
from morris_solver.check.stats import table_statistics
from morris_solver.core.errors import MorrisError, PositionError, quoted, whole_number
from morris_solver.query.probe import Tablebase
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position, split_count
from morris_solver.rules.rules import legal_moves, parse_move, play
from morris_solver.rules.sectors import parse_sector
from morris_solver.rules.variants import get_variant
from morris_solver.tables.storage import TableError, TableFile

HUGE = "9" * 5000
# Six Men's Morris position text whose hands are not 1 to 6 ASCII digits
BAD_HANDS = [
    f"W:a1 B:b2 w h:{HUGE},1",  # int() refuses more than 4,300 digits
    "W: B: w h:²,²",  # str.isdigit() accepts it, int() refuses it
    "W: B: w h:٦,٦",  # Arabic-Indic six: int() reads it as 6
    "W: B: w h:1000000,1000000",  # seven digits
]
BAD_COUNTS = [f"W: B: w h:6,6 c:{HUGE}", "W: B: w h:6,6 c:²", "W: B: w h:6,6 c:٣"]
LONG = 10_000
# Text of 10,000 characters that each parser repeats in its error
LONG_POSITIONS = ["x" * LONG, "W: B: w " + "q" * LONG, "W:" + "z" * LONG + " B: w",
                  "W: B: w h:" + "7" * LONG]
BLOCKED_SIX = "W:a1,a5,e5,e1 B:a3,c5,e3,c1 w"  # White to move cannot: the game is over


def error_line(result) -> str:
    """The one line a command printed for bad input, after checking it is all it did."""
    assert result.exit_code not in (0, None), result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


# -- item 9: one digits-only rule ------------------------------------------------------


def test_whole_number_is_ascii_digits_only():
    assert whole_number("0") == 0 and whole_number("123456") == 123456
    for text in ["", "-1", "+1", " 7", "7 ", "1_0", "٣", "²", "𝟙", "1234567", HUGE, "0x10"]:
        assert whole_number(text) is None, text
    assert whole_number("12345678", max_digits=8) == 12345678


@pytest.mark.parametrize("text", BAD_HANDS)
def test_hands_must_be_ascii_digits(text):
    with pytest.raises(PositionError, match="bad stones in hand"):
        Position.parse(text, "six")


@pytest.mark.parametrize("text", BAD_COUNTS)
def test_the_count_must_be_ascii_digits(text):
    with pytest.raises(PositionError, match="not a number of plies"):
        split_count(text)


def test_valid_numbers_read_as_before():
    assert Position.parse("W: B: w h:6,6", "six") == Position.start("six")
    assert str(Position.parse("W:a1 B:b2 w h:5,5", "six")) == "W:a1 B:b2 w h:5,5"
    assert split_count("W: B: w h:6,6 c:37") == ("W: B: w h:6,6", 37)
    with pytest.raises(PositionError, match="cannot be negative"):
        Position.parse("W:a1 B:b2 w h:-1,0", "six")
    assert parse_sector("5-4") == (5, 4, 0, 0) and parse_sector("1_2_3_4") == (1, 2, 3, 4)


@pytest.mark.parametrize("text", ["a٣", "a" + HUGE, "a1234567", "d٦-d5"])
def test_move_text_must_be_ascii_digits(text):
    with pytest.raises(MorrisError, match="cannot read move"):
        parse_move(text, Position.start("nine"))


@pytest.mark.parametrize("text", ["٣-٣", "3-٣-0-0", f"{HUGE}-1", "1234567-1"])
def test_sector_text_must_be_ascii_digits(text):
    with pytest.raises(ValueError, match="bad sector"):
        parse_sector(text)


@pytest.mark.parametrize("command", ["probe", "bestmove", "show"])
@pytest.mark.parametrize("text", BAD_HANDS)
def test_bad_hands_are_one_line_in_every_command(command, text, tmp_path):
    db = ["--db", str(tmp_path / "none.h5")] if command != "show" else []
    assert "bad stones in hand" in error_line(run(command, "six", text, *db))


@pytest.mark.parametrize("command", ["probe", "bestmove"])
@pytest.mark.parametrize("text", BAD_COUNTS)
def test_bad_counts_are_one_line(command, text, tmp_path):
    line = error_line(run(command, "six", text, "--draw-rules", "--db", str(tmp_path / "x.h5")))
    assert "not a number of plies" in line


@pytest.fixture(scope="module")
def strict_client():
    """The web app with no tables (bad text is refused before any table is read), its
    server errors raised in the test instead of answered with a 500."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from morris_cli.web.app import create_app

    return TestClient(create_app({}), raise_server_exceptions=True)


WEB_CALLS = [("/api/probe", "position"), ("/api/game", "start"), ("/api/review", "start"),
             ("/api/engine", "start")]


@pytest.mark.parametrize(("endpoint", "field"), WEB_CALLS)
@pytest.mark.parametrize("text", BAD_HANDS)
def test_bad_numbers_are_a_400_on_the_web(strict_client, endpoint, field, text):
    answer = strict_client.get(endpoint, params={"variant": "six", field: text})
    assert answer.status_code == 400
    assert "bad stones in hand" in answer.json()["error"]


# -- item 16: an error quotes a bounded prefix -------------------------------------------


def test_quoted_is_one_bounded_line():
    assert quoted("d6") == "'d6'"
    assert quoted("a\nb") == "'a\\nb'"
    long = quoted("x" * LONG)
    assert long == f"{'x' * 60!r}… (10,000 characters)"


def assert_bounded(message: str) -> None:
    assert len(message) < 600 and " characters)" in message and "…" in message, message[:200]


@pytest.mark.parametrize("text", LONG_POSITIONS)
def test_long_position_text_is_quoted_short(text):
    assert_bounded(error_line(run("show", "six", text)))
    with pytest.raises(PositionError) as err:
        Position.parse(text, "six")
    assert_bounded(str(err.value))


def test_long_text_elsewhere_is_quoted_short(tmp_path):
    assert_bounded(error_line(run("show", "v" * LONG)))
    assert_bounded(error_line(run("probe", "six", "c:" + "7" * LONG, "--draw-rules")))
    six = Position.start("six")
    for bad in ["x" * LONG, "a" + "1" * LONG, "d6" + "xa1" * LONG]:
        with pytest.raises(MorrisError) as err:
            parse_move(bad, six)
        assert_bounded(str(err.value))
    with pytest.raises(MorrisError) as err:
        Game("six", Position.parse(BLOCKED_SIX, "six")).play("d" * LONG)
    assert_bounded(str(err.value))
    with pytest.raises(ValueError) as err:
        parse_sector("4-" * LONG)
    assert_bounded(str(err.value))


@pytest.mark.parametrize(("endpoint", "field"), WEB_CALLS)
def test_long_text_is_quoted_short_on_the_web(strict_client, endpoint, field):
    for params in ({field: "x" * LONG}, {"moves": "a" + "1" * LONG}):
        answer = strict_client.get(endpoint, params={"variant": "six", **params})
        assert answer.status_code == 400 and len(answer.json()["error"]) < 600


# -- item 10: a damaged table file -------------------------------------------------------


def damaged_copies(source: Path, folder: Path, count: int, seed: int) -> list[Path]:
    """Copies of ``source`` with 4 KB zeroed at random (every sixth one truncated)."""
    rng = random.Random(seed)
    original = source.read_bytes()
    copies = []
    for i in range(count):
        data = bytearray(original)
        start = rng.randrange(len(data))
        if i % 6 == 5:
            del data[start:]
        else:
            data[start : start + 4096] = bytes(len(data[start : start + 4096]))
        path = folder / f"damaged-{i}.h5"
        path.write_bytes(bytes(data))
        copies.append(path)
    return copies


def three_positions() -> list[Position]:
    rng = random.Random(5)
    found = []
    for _ in range(12):
        pos = Position.start("three")
        for _ in range(rng.randrange(0, 10)):
            if not (moves := legal_moves(pos)):
                break
            pos = play(pos, rng.choice(moves))
        found.append(pos)
    return found


def what_the_commands_read(path: Path, positions: list[Position]):
    """What ``info``, ``probe`` and ``value`` read of a table file, through their API."""
    table = TableFile.open(path)
    facts = (table_statistics(table), table.shared_sectors(), table.layers())
    tb = Tablebase.open(path)
    tb.search = False
    values = [tb.evaluate(pos).as_json() for pos in positions]
    return facts, values, tb.probe(Position.start("three"))


def test_a_damaged_file_reads_right_or_is_one_line(table_paths, tmp_path):
    positions = three_positions()
    expected = what_the_commands_read(table_paths["three"], positions)
    outcomes = {"read right": 0, "refused": 0}
    for path in damaged_copies(table_paths["three"], tmp_path, 24, seed=10):
        try:
            found = what_the_commands_read(path, positions)
        except TableError as e:
            message = str(e)
            assert "\n" not in message and str(path) in message, message
            assert "damaged" in message or "not a readable HDF5 table file" in message, message
            outcomes["refused"] += 1
        else:
            assert found == expected, path
            outcomes["read right"] += 1
    assert outcomes["refused"] > 0


@pytest.mark.parametrize("command", [["info", "{path}"], ["probe", "three", "a1", "--db", "{path}"],
                                     ["value", "three", "--db", "{path}"]])
def test_a_damaged_file_is_one_line_in_the_commands(table_paths, tmp_path, command):
    for path in damaged_copies(table_paths["three"], tmp_path, 6, seed=11):
        result = run(*(a.format(path=path) for a in command))
        if result.exit_code != 0:
            assert str(path) in error_line(result)


def test_a_damaged_file_is_one_line_in_serve(table_paths, tmp_path, monkeypatch):
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    monkeypatch.setattr("morris_cli.serve.run_server", lambda *a, **k: None)
    for path in damaged_copies(table_paths["three"], tmp_path, 4, seed=12):
        result = run("serve", "--db", str(path))
        if result.exit_code != 0:
            assert str(path) in error_line(result)


def test_a_zeroed_attribute_heap_is_refused_not_looped_on(table_paths, tmp_path):
    """HDF5 loops forever reading an attribute whose global heap holds a zeroed object
    header (4 KB zeroed at byte 2263 of a six.h5 did it); in a child process, so that
    a regression fails on the timeout instead of hanging the tests."""
    data = bytearray(table_paths["three"].read_bytes())
    heap = data.index(b"GCOL\x01")
    data[heap + 16 : heap + 32] = bytes(16)  # the heap's first object header
    path = tmp_path / "three.h5"
    path.write_bytes(bytes(data))
    script = ("import sys; from click.testing import CliRunner; from morris_cli.main import main; "
              "print(CliRunner().invoke(main, ['info', sys.argv[1]]).output)")
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == (f"Error: {path} is a damaged table file (a global heap of "
                                   f"its attributes is zeroed at byte {heap + 16})")


# -- item 11: only a regular file is a table file ----------------------------------------

FIFO_SCRIPT = """
import os, sys
from click.testing import CliRunner
from morris_cli.main import main
fifo = sys.argv[1]
for args in (["info", fifo], ["probe", "three", "a1", "--db", fifo],
             ["value", "three", "--db", fifo], ["verify", fifo],
             ["play", "three", "--db", fifo]):
    result = CliRunner().invoke(main, args, input="quit\\n")
    print(result.exit_code, result.output.strip().replace("\\n", " | "))
"""


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    """In a child process: before the fix every command waited forever on the FIFO."""
    fifo = tmp_path / "fifo.h5"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(FIFO_SCRIPT), str(fifo)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 5
    for line in lines:
        assert line == f"1 Error: {fifo} is a FIFO, not a table file", line


def test_a_directory_or_device_is_refused(tmp_path):
    with pytest.raises(TableError, match="is a directory, not a table file"):
        TableFile.open(tmp_path)
    with pytest.raises(TableError, match="is a device, not a table file"):
        TableFile.open("/dev/null")
    assert "is a device" in error_line(run("value", "three", "--db", "/dev/null"))
    with pytest.raises(TableError, match="cannot read"):
        TableFile.open(tmp_path / ("n" * 300))  # a name too long for the file system


def test_a_fifo_as_statistics_file_is_refused(table_paths, tmp_path):
    fifo = tmp_path / "stats.json"
    os.mkfifo(fifo)
    line = error_line(run("info", str(table_paths["three"]), "--check-stats", str(fifo)))
    assert "is not a regular file" in line


# -- item 14: numbers in options ---------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["value", "three", "--search", "--cache-gib", value]
        for value in ["nan", "inf", "-inf", "1e300", "2000", "0", "-1", "٣", "1_0", ""]
    ]
    + [["value", "three", "--search", "--tt-entries", value]
       for value in ["0", "٣", "99999999999999999999", "1e3"]]
    + [["probe", "three", "a1", "--move-limit", value] for value in ["0", "128", "٣", HUGE]]
    + [["verify", "x.h5", "--threads", value] for value in ["0", "٣", "-1"]]
    + [["verify", "x.h5", "--move-limit", "1_0"], ["play", "three", "--seed", "٣"],
       ["play", "three", "--seed", "-1"]],
)
def test_bad_numbers_in_options_are_usage_errors(args):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "Invalid value for" in result.output


def test_number_types_read_valid_values():
    gib = FiniteFloat(0, 1024, low_open=True)
    assert gib.convert("0.0009765625", None, None) == 1 / 1024
    assert gib.convert("8.6", None, None) == 8.6 and gib.convert("1024", None, None) == 1024
    assert gib.convert("1e-3", None, None) == 0.001 and gib.convert(4.0, None, None) == 4.0
    for bad in ["nan", "inf", "0", "1025", "٣", "1e999"]:
        with pytest.raises(click.BadParameter):
            gib.convert(bad, None, None)
    limit = WholeNumber(1, 127)
    assert limit.convert("100", None, None) == 100 and limit.convert(100, None, None) == 100
    for bad in ["0", "128", "١٠", " 10", "1_0", "10.0"]:
        with pytest.raises(click.BadParameter):
            limit.convert(bad, None, None)


def test_unknown_variant_still_names_it():
    with pytest.raises(MorrisError, match="unknown variant 'ten'"):
        get_variant("ten")


def test_play_with_humans_says_why_a_db_cannot_evaluate(tmp_path):
    fifo = tmp_path / "fifo.h5"
    os.mkfifo(fifo)
    for db, why in [(tmp_path / "missing.h5", "no table file at"), (fifo, "is a FIFO")]:
        result = CliRunner().invoke(main, ["play", "three", "--humans", "--db", str(db)],
                                    input="?\nquit\n")
        assert result.exit_code == 0, result.output
        line = next(x for x in result.output.splitlines() if "no evaluation: " in x)
        assert why in line and str(db) in line
