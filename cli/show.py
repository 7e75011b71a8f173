"""``morris show``: a position's diagram, phase, hands and legal moves, no tables needed."""

from __future__ import annotations

import json

import click

from morris_solver.rules.rules import legal_moves, phase, terminal
from morris_solver.rules.values import Result

from .common import load_position


@click.command()
@click.argument("variant")
@click.argument("position", default="")
@click.option("--json", "as_json", is_flag=True, help="Print the same facts as one JSON object.")
def show(variant: str, position: str, as_json: bool) -> None:
    """Show POSITION of VARIANT: diagram, phase, side to move and every legal move.

    POSITION is position text such as "W:a7,d7 B:a1,g1 w h:7,7" or a move list from the
    start such as "d6 d5 a1"; without it, the start position is shown.
    """
    pos = load_position(variant, position)
    board = pos.board
    end = terminal(pos)
    moves = [move.text(board) for move in legal_moves(pos)]
    side = "white" if pos.white_to_move else "black"
    if as_json:
        facts = {
            "variant": pos.variant.name,
            "position": str(pos),
            "phase": phase(pos),
            "to_move": side,
            "hand": {"white": pos.white_hand, "black": pos.black_hand},
            "moves": moves,
            "outcome": end.result.value if end else None,
            "reason": end.reason if end else None,
        }
        click.echo(json.dumps(facts))
        return
    click.echo(pos.diagram())
    click.echo()
    click.echo(f"{pos.variant.name}: {pos}")
    click.echo(
        f"{pos.mover_name} to move ({phase(pos)}); in hand: White {pos.white_hand}, "
        f"Black {pos.black_hand}"
    )
    if end:
        who = "" if end.result is Result.DRAW else f" for {pos.mover_name}"
        click.echo(f"Game over: {end.result.value}{who} ({end.reason})")
    else:
        click.echo(f"{len(moves)} legal moves: {' '.join(moves)}")
