"""A game as the pages draw it, said once for the analysis API (``app``) and the live
rooms' state (``referee``): the position, the stones, the hands, whose turn, and moves
as the pages enter them by clicks."""

from __future__ import annotations

from morris_solver.rules.game import Game
from morris_solver.rules.rules import Move, phase


def game_json(game: Game, played_key: str = "moves") -> dict:
    """The position of ``game`` and the moves played to it, under ``played_key`` (the
    analysis API's ``moves`` are the legal moves with their values, so it names the
    played ones ``moves_played``)."""
    pos = game.position
    board = pos.board
    return {
        "position": str(pos),
        played_key: played_moves(game),
        "white": board.names(pos.white),
        "black": board.names(pos.black),
        "hands": {"white": pos.white_hand, "black": pos.black_hand},
        "phase": phase(pos),
        "to_move": "white" if pos.white_to_move else "black",
        "quiet_plies": game.quiet_moving_plies(),
    }


def played_moves(game: Game) -> list[str]:
    """The moves of ``game`` so far, in notation."""
    board = game.position.board
    return [move.text(board) for _, move in game.history]


def move_json(move: Move, names: tuple[str, ...]) -> dict:
    """A move as the pages enter it by clicks: its origin, target and removed stones."""
    return {
        "origin": names[move.origin] if move.origin is not None else None,
        "target": names[move.target],
        "removed": [names[p] for p in move.removed],
    }
