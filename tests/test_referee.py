"""The referee (``morris_cli.web.referee``) alone: each action decided and applied, the
clocks, every ending it reports, the refusals with their statuses, and move ids (one
per game, seat and move) on Three Men's Morris with hand-checked sequences."""

from __future__ import annotations

import pytest

from morris_cli.web.referee import RoomRecord, RoomState, replay
from morris_cli.web.room_errors import RoomError, http_status

# White b2 a2 c1, Black a1 c2 a3: no line, both sides can move (White c1-b1, Black c2-c3)
PLACED = ["b2", "a1", "a2", "c2", "c1", "a3"]


class Room:
    """A room whose host plays White first; ``play`` decides and applies at a time."""

    def __init__(self, draw_rules: bool = True, move_limit: int = 100) -> None:
        self.record = RoomRecord("r" * 22, "three", draw_rules, move_limit, "white", 0)
        self.state = RoomState(self.record)
        self.events: list[dict] = []

    def event(self, event: dict) -> None:
        self.state.apply(event)
        self.events.append(event)

    def join(self, at: int = 1000) -> None:
        self.event({"kind": "join", "v": self.state.version + 1, "at": at, "seat": "guest"})

    def play(self, seat: str, action: str, move: str | None = None,
             move_id: str | None = None, at: int = 0) -> dict | int:
        decided = self.state.decide(seat, action, move, move_id, at)
        if isinstance(decided, dict):
            self.event(decided)
        return decided

    def moves(self, *moves: str, at: int = 2000) -> None:
        for move in moves:
            self.play(self.state.seat_of(self.state.to_move()), "move", move, at=at)


def refused(room: Room, seat: str | None, action: str, move: str | None = None,
            move_id: str | None = None) -> tuple[int, str]:
    version = room.state.version
    with pytest.raises(RoomError) as e:
        room.state.decide(seat, action, move, move_id, 5)
    assert room.state.version == version and "\n" not in str(e.value)
    return http_status(e.value), str(e.value)


def test_a_move_is_decided_as_an_event_and_applied_with_the_clocks():
    room = Room()
    room.join(at=1000)
    assert room.state.as_json()["status"] == "playing" and room.state.turn_since == 1000
    event = room.play("host", "move", " B2 ", "m1", at=1500)
    assert event == {"kind": "move", "v": 2, "at": 1500, "seat": "host", "color": "white",
                     "move": "b2", "id": "m1"}
    room.play("guest", "move", "a1", at=2200)
    assert room.state.elapsed == {"white": 500, "black": 700}
    assert room.state.moves() == ["b2", "a1"] and room.state.to_move() == "white"
    # the state rebuilt from the events is the same
    again = replay(room.record, room.events)
    assert again.as_json(now=1) == room.state.as_json(now=1)


def test_refusals_and_their_statuses():
    room = Room()
    assert refused(room, "host", "move", "b2")[0] == 409  # the guest has not joined
    room.join()
    assert refused(room, None, "move", "b2")[0] == 403  # a watcher
    assert refused(room, "referee", "resign")[0] == 403
    assert refused(room, "host", "dance")[0] == 400
    assert refused(room, "guest", "move", "a1") == (409, "not your turn")
    assert refused(room, "host", "move", None)[0] == 400
    assert "unknown point" in refused(room, "host", "move", "z9")[1]
    assert "illegal move" in refused(room, "host", "move", "b2-b3")[1]
    assert refused(room, "host", "rematch")[0] == 409  # not over
    assert refused(room, "host", "accept_draw")[0] == 409  # nothing offered
    assert refused(room, "host", "decline_draw")[0] == 409
    room.play("host", "resign", at=3000)
    status, message = refused(room, "guest", "move", "a1")
    assert status == 409 and "over" in message
    assert refused(room, "guest", "offer_draw")[0] == 409


def test_draw_offer_decline_accept_and_a_move_answering_an_offer():
    room = Room()
    room.join()
    room.play("host", "offer_draw")
    assert room.state.draw_offer == "white"
    assert refused(room, "host", "offer_draw")[0] == 409  # already offered
    assert refused(room, "host", "accept_draw")[0] == 409  # not offered to the host
    room.play("guest", "decline_draw")
    assert room.state.draw_offer is None
    room.play("guest", "offer_draw")
    room.moves("b2")  # White plays on: the offer lapses
    assert room.state.draw_offer is None
    room.play("host", "offer_draw", at=4000)
    room.play("guest", "accept_draw", at=4500)
    assert room.state.over == {"winner": None, "reason": "draw agreed", "result": "draw"}
    # Black to move since White's move at 2000
    assert room.state.turn_since is None and room.state.elapsed["black"] == 2500


def test_resignation_settles_the_clock_of_the_side_to_move():
    room = Room()
    room.join(at=1000)
    room.moves("b2", at=1100)
    room.play("host", "resign", at=1600)  # White resigns on Black's turn
    assert room.state.over == {"winner": "black", "reason": "white resigned",
                               "result": "black wins"}
    assert room.state.elapsed == {"white": 100, "black": 500}


def test_a_line_of_three_wins():
    room = Room()
    room.join()
    room.moves("a1", "b1", "a2", "b2", "a3")
    assert room.state.over == {"winner": "white", "reason": "line of three",
                               "result": "white wins"}
    assert room.state.as_json()["legal"] == []


def test_threefold_repetition_and_the_move_limit_are_draws():
    room = Room()
    room.join()
    room.moves(*PLACED, "c1-b1", "c2-c3", "b1-c1", "c3-c2", "c1-b1", "c2-c3", "b1-c1")
    assert room.state.over is None
    room.moves("c3-c2")  # the position after the placement, a third time
    assert room.state.over["reason"] == "threefold repetition"
    assert room.state.over["winner"] is None
    short = Room(move_limit=2)
    short.join()
    short.moves(*PLACED, "c1-b1", "c2-c3")
    assert short.state.over["reason"] == "2 moving plies without capture"
    plain = Room(draw_rules=False)
    plain.join()
    plain.moves(*PLACED, "c1-b1", "c2-c3", "b1-c1", "c3-c2", "c1-b1", "c2-c3", "b1-c1",
                "c3-c2")
    assert plain.state.over is None  # without the draw rules, play goes on


def test_a_rematch_needs_both_seats_and_swaps_the_colours():
    room = Room()
    room.join()
    room.moves("a1", "b1", "a2", "b2", "a3")
    room.play("guest", "rematch")
    assert room.state.rematch_offer == "guest"
    assert refused(room, "guest", "rematch")[0] == 409  # asked already
    room.play("host", "rematch", at=9000)
    state = room.state
    assert state.number == 2 and state.over is None and state.moves() == []
    assert state.color_of("guest") == "white" and state.turn_since == 9000
    assert [(g.number, g.white, g.moves) for g in state.finished] == [
        (1, "host", ["a1", "b1", "a2", "b2", "a3"])]
    assert refused(room, "host", "move", "b2") == (409, "not your turn")


def test_a_move_id_is_one_move_of_one_game():
    room = Room()
    room.join()
    assert room.play("host", "move", "b2", "g-1")["v"] == 2
    assert room.play("host", "move", "b2", "g-1") == 2  # a retry: the same version
    assert room.play("host", "move", " B2", "g-1") == 2  # the same move, written loosely
    room.play("guest", "move", "a1", "g-1")  # ids are per seat
    status, message = refused(room, "host", "move", "c3", "g-1")
    assert (status, message) == (409, "move id 'g-1' was already used for b2 in this game")
    # the next game: the same id is a new move (it was acknowledged and lost before)
    room.play("host", "resign")
    room.play("host", "rematch")
    room.play("guest", "rematch")
    event = room.play("guest", "move", "a1", "g-1")  # the guest is White now
    assert isinstance(event, dict) and room.state.moves() == ["a1"]
    assert room.play("guest", "move", "a1", "g-1") == event["v"]
    # rebuilt from the events, the ids are the same
    assert replay(room.record, room.events).move_ids == room.state.move_ids


def _a_game_ending_by(reason: str, seed: int) -> list[str]:
    """The moves of a random game of Six Men's Morris that ends by ``reason`` (the rules'
    own end, so no draw rules), found by playing seeded random games."""
    import random

    from morris_solver.rules.game import Game
    from morris_solver.rules.variants import get_variant

    rng = random.Random(seed)
    six = get_variant("six")
    for _ in range(2000):
        game = Game(six, draw_rules=False)
        while game.outcome() is None and len(game.history) < 200:
            game.play(rng.choice(game.legal_moves()))
        end = game.outcome()
        if end is not None and end.reason == reason:
            board = game.position.board
            return [move.text(board) for _, move in game.history]
    raise AssertionError(f"no random game of six ended by {reason}")


@pytest.mark.parametrize("reason", ["fewer than 3 stones", "no legal move"])
def test_the_side_that_leaves_the_other_without_a_game_wins(reason):
    """Down to two stones, or without a legal move, the side to move has lost: the side
    that made the last move wins, whichever seat it is."""
    moves = _a_game_ending_by(reason, seed=7)
    room = Room()
    room.record = RoomRecord("r" * 22, "six", False, 100, "white", 0)
    room.state = RoomState(room.record)
    room.join()
    room.moves(*moves)
    last_mover = "white" if len(moves) % 2 else "black"
    assert room.state.over == {"winner": last_mover, "reason": reason,
                               "result": f"{last_mover} wins"}
    assert room.play(room.state.seat_of(last_mover), "rematch")  # the game is over
