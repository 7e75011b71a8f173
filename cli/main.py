"""The ``morris`` command: a thin layer over the ``solver`` API.

Each sub-command is a click command in a module of this package, registered in
``COMMANDS`` by name. A module is imported only when its command runs or its help is
asked for, so ``morris --help`` and ``morris show`` start without loading Numba and the
kernels. ``MorrisGroup.invoke`` is the one place where user errors (``MorrisError``) and
file errors (``OSError``, which h5py raises too) become one line and a non-zero exit,
never a traceback.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading

import click

from morris_solver.core.errors import MorrisError
from morris_solver.core.threads import use_workqueue

# name: (module, attribute, the line `morris --help` shows); in the order listed there
COMMANDS: dict[str, tuple[str, str, str]] = {
    "show": (".show", "show", "A position's diagram, phase and legal moves (no tables)."),
    "solve": (".solve", "solve_command", "Solve a variant into a table file (resumable)."),
    "info": (".info", "info_command", "What a table file holds, sector by sector."),
    "probe": (".probe", "probe", "A position's value and every move's value."),
    "bestmove": (".probe", "bestmove", "One perfect move in a position."),
    "value": (".value", "value", "The value of a variant's start position."),
    "play": (".play", "play", "Play against the engine, or two humans at one terminal."),
    "verify": (".verify", "verify", "Re-derive every stored value independently."),
    "reproduce": (".reproduce", "reproduce_command",
                  "Solve, verify and compare with published results."),
    "serve": (".serve", "serve", "An analysis board in the browser over the tables."),
}


# commands that resume where an interrupted run stopped; Ctrl-C ends them at once
RESUMABLE = ("solve", "reproduce")
INTERRUPTED = "interrupted; rerun the same command to resume"


def _exit_interrupted(signum: int, frame: object) -> None:
    """SIGINT in a resumable command: one line and exit 130, at once. Not a
    KeyboardInterrupt: one raised while Numba loads a cached kernel lands in llvmlite's
    ctypes callback (``_raw_object_cache_notify``), which drops it, and the solve ran
    on to exit 0; and unwinding can free HDF5 objects in a state that crashes. Nothing
    is lost: a solve works in memory, and its writes defer this handler until the file
    is closed (``storage._writing``)."""
    os.write(2, f"\n{INTERRUPTED}\n".encode())
    os._exit(130)


def _process_settings(args: list[str]) -> None:
    """What the ``morris`` process sets for itself (a library import sets nothing):
    Numba's ``workqueue`` threading layer unless the user chose one (docs/architecture.md,
    "Compiled kernels"), and for a resumable command Ctrl-C as ``_exit_interrupted``."""
    use_workqueue()
    command = next((a for a in args if not a.startswith("-")), None)
    if command in RESUMABLE and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _exit_interrupted)


def _one_line(err: OSError) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


class MorrisGroup(click.Group):
    """The command group: lazy sub-commands from ``COMMANDS`` and the error boundary."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[cmd_name]
        return getattr(importlib.import_module(module, __package__), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary) for name, (_, _, summary) in COMMANDS.items()])

    def main(self, args=None, *rest, **options):
        """The command line's entry: its process settings, undone when it returns (a
        test's ``CliRunner`` runs it inside another process)."""
        words = list(sys.argv[1:] if args is None else args)
        own = threading.current_thread() is threading.main_thread()
        previous = signal.getsignal(signal.SIGINT) if own else None
        _process_settings(words)
        try:
            return super().main(words, *rest, **options)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MorrisError as err:
            raise click.ClickException(str(err)) from None
        except BrokenPipeError:
            raise  # the reader of the output went away (`morris ... | head`): no file error
        except OSError as err:
            raise click.ClickException(_one_line(err)) from None


@click.group(cls=MorrisGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="morris-tablebase")
def main() -> None:
    """Strongly solve the Mill family of games and play perfectly from the tables.

    \b
    Typical use:
      morris show nine "W:a7,d7 B:a1,g1 w h:7,7"   diagram and legal moves
      morris solve three                          build data/three.h5
      morris value three                          value of the start position
      morris probe six "W:a1,c1 B:e5 b h:4,5"      value and every move's value

    Variants: nine, nine-noflying, nine-nocapture-placement, nine-doublemill,
    nine-diagonal, twelve, six, three, three-holes. Positions are written
    "W:<points> B:<points> <w|b> [h:<white in hand>,<black in hand>]" or as a
    space-separated move list from the start.
    """
