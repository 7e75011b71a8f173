"""The ``morris`` command's start-up and error boundary: commands are registered in one
table and loaded on demand, ``--help`` and ``show`` run without Numba, and errors from
any command become one line and a non-zero exit."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from morris_cli.main import COMMANDS, main
from morris_solver.core.errors import MorrisError

# Runs the CLI in a fresh interpreter and prints which heavy modules it loaded.
PROBE = """
import sys
from morris_cli.main import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code or 0
print("exit", code)
print("loaded", *sorted(m for m in ("numba", "llvmlite", "h5py") if m in sys.modules))
"""


def _fresh_run(*args: str) -> tuple[str, int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True
    )
    *_, exit_line, loaded_line = done.stdout.splitlines()
    return done.stdout, int(exit_line.split()[1]), set(loaded_line.split()[1:])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--help",), "reproduce"),
        (("show", "three"), "9 legal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3"),
        (("show", "nine", "W:a7,d7 B:a1,g1 w h:7,7", "--json"), '"phase": "placement"'),
    ],
)
def test_help_and_show_do_not_load_numba(args, expected):
    output, code, loaded = _fresh_run(*args)
    assert code == 0, output
    assert expected in output
    assert loaded == set(), f"{' '.join(args)} loaded {loaded}"


def test_solving_does_load_the_kernels():
    """The check above can fail: solving imports Numba in the same harness (a cold
    probe does not: see test_chunked_probe.py)."""
    _, code, loaded = _fresh_run("solve", "nonsense")
    assert code != 0
    assert "numba" in loaded


def test_every_registered_command_loads_under_its_name():
    for name, (module, attribute, summary) in COMMANDS.items():
        command = main.get_command(click.Context(main), name)
        assert isinstance(command, click.Command), (module, attribute)
        assert command.name == name
        assert summary and len(summary) < 70
    help_text = CliRunner().invoke(main, ["--help"]).output
    for name, (_, _, summary) in COMMANDS.items():
        assert f"{name}  " in help_text and summary in help_text
    assert main.get_command(click.Context(main), "nonsense") is None


@click.command("boom")
@click.argument("kind")
def boom(kind: str) -> None:
    """Raise the error KIND, as a command deep inside the solver might."""
    errors = {
        "morris": MorrisError("sector 9-9-0-0 of x.h5 is damaged"),
        "h5py": OSError("Unable to synchronously open file (file signature not found)\nmore"),
        "missing": FileNotFoundError(2, "No such file or directory", "/no/such.h5"),
        "bug": KeyError("a programming error"),
    }
    raise errors[kind]


@pytest.mark.parametrize(
    ("kind", "line"),
    [
        ("morris", "Error: sector 9-9-0-0 of x.h5 is damaged"),
        ("h5py", "Error: Unable to synchronously open file (file signature not found)"),
        ("missing", "Error: [Errno 2] No such file or directory: '/no/such.h5'"),
    ],
)
def test_the_boundary_turns_user_and_file_errors_into_one_line(monkeypatch, kind, line):
    monkeypatch.setitem(COMMANDS, "boom", (__name__, "boom", "Raise an error."))
    result = CliRunner().invoke(main, ["boom", kind])
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    assert result.output.strip() == line


def test_the_boundary_lets_programming_errors_through(monkeypatch):
    monkeypatch.setitem(COMMANDS, "boom", (__name__, "boom", "Raise an error."))
    result = CliRunner().invoke(main, ["boom", "bug"])
    assert isinstance(result.exception, KeyError)


@pytest.mark.parametrize(
    "args",
    [
        ("info", "{notes}"),
        ("verify", "{notes}"),
        ("probe", "three", "", "--db", "{notes}"),
        ("solve", "three", "--quiet", "--out", "{notes}/three.h5"),
    ],
)
def test_file_errors_of_real_commands_are_one_line(tmp_path, args):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a table\n")
    result = CliRunner().invoke(main, [a.format(notes=notes) for a in args])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and str(notes) in lines[0]
