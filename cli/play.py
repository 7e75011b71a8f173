"""``morris play``: a game in the terminal against the engine, or between two humans.

Input is read with ``click.prompt``, so tests drive a whole game through ``CliRunner``.
"""

from __future__ import annotations

import random
from pathlib import Path

import click

from morris_solver.core.errors import MorrisError
from morris_solver.play.engine import SEARCH_DEPTHS, STRENGTHS, Engine, SearchEngine
from morris_solver.play.opponent_model import DEFAULT_MODEL_ERROR
from morris_solver.query.probe import Tablebase
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position
from morris_solver.rules.rules import phase
from morris_solver.rules.values import Result
from morris_solver.tables.storage import default_table_path

from .common import WholeNumber, against_option, load_variant
from .probe import db_option, echo_evaluation, move_limit_option, open_tablebase

HELP = """Commands:
  d6, d6-d5, d6-d5xa1   play a move: place, move (slide or fly), and remove a stone
  ? or eval             the engine's evaluation of this position and of every move
  undo                  take back the last move (against the engine: your last move)
  help                  this text
  quit                  leave the game"""


class Session:
    """One game at the terminal: ``engine`` plays the sides not in ``humans``."""

    def __init__(
        self,
        game: Game,
        humans: set[bool],
        engine: Engine | SearchEngine | None,
        tables: Tablebase | Path | None,
    ):
        self.game = game
        self.humans = humans  # white_to_move values of the sides a human plays
        self.engine = engine
        self.tables = tables  # a Tablebase, or the file to open for `eval`

    def run(self) -> None:
        game = self.game
        shown = None
        while (end := game.outcome()) is None:
            pos = game.position
            if self.engine is not None and pos.white_to_move not in self.humans:
                move = self.engine.choose(game)
                click.echo(f"Engine ({pos.mover_name}) plays {move.text(pos.board)}")
                game.play(move)
                continue
            if shown is not pos:
                self._show(pos)
                shown = pos
            line = click.prompt(pos.mover_name, default="", show_default=False, prompt_suffix="> ")
            if self._command(line.strip().lower()) == "quit":
                click.echo("Bye.")
                return
        self._show(game.position)
        if end.result is Result.DRAW:
            click.echo(f"Game over: draw ({end.reason}).")
        else:
            click.echo(f"Game over: {game.position.other_name} wins ({end.reason}).")

    def _command(self, line: str) -> str | None:
        game = self.game
        if line in ("quit", "exit", "q"):
            return "quit"
        if line in ("help", "h"):
            click.echo(HELP)
        elif line in ("?", "eval"):
            self._evaluate()
        elif line == "undo":
            self._undo()
        elif line:
            try:
                game.play(line)
            except MorrisError as err:
                click.echo(f"{err} (type 'help' for commands)")
        return None

    def _show(self, pos: Position) -> None:
        click.echo()
        click.echo(pos.diagram())
        click.echo(
            f"{pos.mover_name} to move ({phase(pos)}); in hand: White {pos.white_hand}, "
            f"Black {pos.black_hand}"
        )

    def _evaluate(self) -> None:
        if not isinstance(self.tables, Tablebase):
            try:
                self.tables = open_tablebase(self.game.variant, self.tables)
            except click.ClickException as err:
                click.echo(f"no evaluation: {err.message}")
                return
            except MorrisError as err:  # a --db file that is missing, damaged or a FIFO
                click.echo(f"no evaluation: {err}")
                return
        pos = self.game.position
        try:
            echo_evaluation(pos, self.tables.evaluate(pos))
        except MorrisError as err:
            click.echo(f"no evaluation: {err}")

    def _undo(self) -> None:
        history = self.game.history
        if not any(before.white_to_move in self.humans for before, _ in history):
            click.echo("nothing to undo")
            return
        while True:  # back to the last position a human moved in
            move = self.game.undo()
            click.echo(f"took back {move.text(self.game.position.board)}")
            if self.game.position.white_to_move in self.humans:
                return


@click.command()
@click.argument("variant")
@db_option
@click.option(
    "--strength",
    type=click.Choice(tuple(STRENGTHS)),
    default="ultra",
    show_default=True,
    help="; ".join(f"{name}: {what}" for name, what in STRENGTHS.items())
    + " (measured in benchmarks/strength_report.md). Without a table file the computer "
    "searches instead, not perfectly: "
    + ", ".join(f"{name} {depth} plies" for name, depth in SEARCH_DEPTHS.items())
    + " (fewer where the moves are too many for a move's search budget).",
)
@click.option(
    "--color",
    type=click.Choice(["white", "black"]),
    default="white",
    show_default=True,
    help="Your side (White moves first).",
)
@click.option("--humans", is_flag=True, help="Two humans at one terminal; no tables needed.")
@click.option(
    "--draw-rules",
    is_flag=True,
    help="Third repetition and --move-limit moving plies without capture are draws; the "
    "engine plays by the values under that rule when the table file holds them "
    "(morris solve VARIANT --draw-rules --move-limit N).",
)
@move_limit_option
@against_option
@click.option("--seed", type=WholeNumber(0, 2**64 - 1), default=None,
              help="Seed of the engine's random choices.")
def play(
    variant: str,
    db: Path | None,
    strength: str,
    color: str,
    humans: bool,
    draw_rules: bool,
    move_limit: int,
    against: float | None,
    seed: int | None,
) -> None:
    """Play VARIANT in the terminal against the engine (which reads the tables; without
    data/VARIANT.h5 it searches a few plies instead, and says so), or between two
    humans. Type moves in notation (d6, d6-d5, d6-d5xa1), '?' for the engine's
    evaluation, 'undo', 'help' or 'quit'."""
    if against is not None and (strength != "ultra" or humans):
        raise click.UsageError("--against shapes only the ultra engine's choice")
    v = load_variant(variant)
    game = Game(v, draw_rules=draw_rules, move_limit=move_limit)
    path = db if db is not None else default_table_path(v)
    if humans:
        session = Session(game, {True, False}, None, db)
    elif db is None and not path.exists():  # a fresh clone: the table-free engine
        searcher = SearchEngine(v, strength, random.Random(seed))
        click.echo(f"note: {searcher.note(path)}")
        if against is not None:
            click.echo("note: without tables --against has no effect")
        session = Session(game, {color == "white"}, searcher, db)
    else:
        tb = open_tablebase(v, db)
        tb.probe(game.position)  # fail now, not mid-game, if the tables lack the start
        engine = Engine(tb, strength, random.Random(seed),
                        model_error=DEFAULT_MODEL_ERROR if against is None else against)
        if draw_rules and not engine.under_rules(game):
            click.echo(f"note: {tb.path} holds no values under the {move_limit}-ply rule, "
                       "so the engine plays by the game's values")
        session = Session(game, {color == "white"}, engine, tb)
    click.echo(f"{v.name}: type a move, '?' to evaluate, 'help' or 'quit'.")
    try:
        session.run()
    except (click.Abort, KeyboardInterrupt):
        click.echo("\nGame abandoned.")
