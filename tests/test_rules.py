"""One test per rule of docs/rules.md, named after the rule, plus notation and parse errors."""

from __future__ import annotations

import pytest

from morris_solver.core.errors import IllegalMoveError, MorrisError, PositionError
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position
from morris_solver.rules.rules import Move, legal_moves, outcome, parse_move, phase, play, terminal
from morris_solver.rules.values import Result


def position(text: str, variant: str = "nine") -> Position:
    return Position.parse(text, variant)


def texts(p: Position) -> set[str]:
    return {m.text(p.board) for m in legal_moves(p)}


def removal_options(p: Position, step: str) -> set[str]:
    """Removal suffixes of the legal moves that start with ``step`` (``d7-a7`` or ``a4``)."""
    return {t[len(step) :] for t in texts(p) if t == step or t.startswith(step + "x")}


def test_flying_only_at_exactly_three_stones():
    three_vs_four = position("W:a1,d7,f4 B:b2,c3,e5,g1 w")
    board = three_vs_four.board
    empty = board.full_mask & ~(three_vs_four.white | three_vs_four.black)
    origins = [board.index_of[name] for name in ("a1", "d7", "f4")]
    flights = {(o, t) for o in origins for t in range(board.n) if empty >> t & 1}
    assert phase(three_vs_four) == "flying"
    assert {(m.origin, m.target) for m in legal_moves(three_vs_four)} == flights
    # Black, with four stones, still slides.
    black = position("W:a1,d7,f4 B:b2,c3,e5,g1 b")
    assert phase(black) == "moving"
    assert texts(black) == {"b2-b4", "b2-d2", "c3-c4", "c3-d3", "e5-d5", "e5-e4", "g1-d1", "g1-g4"}
    # Four stones slide; three without the flying rule slide too.
    assert phase(position("W:a1,d7,f4,a7 B:b2,c3,e5,g1 w")) == "moving"
    no_flying = position("W:a1,d7,f4 B:b2,c3,e5,g1 w", "nine-noflying")
    assert phase(no_flying) == "moving"
    slides = "a1-a4 a1-d1 d7-a7 d7-d6 d7-g7 f4-f2 f4-f6 f4-g4 f4-e4"
    assert texts(no_flying) == set(slides.split())


def test_mill_protection():
    # d7-a7 closes a1-a4-a7; Black's g7-g4-g1 is a mill, d5 and e4 are not.
    p = position("W:a1,a4,d7,c3 B:g7,g4,g1,d5,e4 w")
    assert removal_options(p, "d7-a7") == {"xd5", "xe4"}
    with pytest.raises(IllegalMoveError, match="protected"):
        parse_move("d7-a7xg4", p)


def test_mill_protection_all_in_mills_exception():
    p = position("W:a1,a4,d7,c3 B:g7,g4,g1 w")
    assert removal_options(p, "d7-a7") == {"xg7", "xg4", "xg1"}


def test_double_mill_removes_one_stone():
    # a4 closes a1-a4-a7 and a4-b4-c4 at once.
    p = position("W:g7,g4,g1,d1,f2 B:a1,a7,b4,c4 b h:4,5")
    assert removal_options(p, "a4") == {"xd1", "xf2"}


def test_double_mill_variant_removes_two():
    p = position("W:g7,g4,g1,d1,f2 B:a1,a7,b4,c4 b h:4,5", "nine-doublemill")
    # d1 and f2 in either order make one move; the mill g7-g4-g1 stays protected.
    assert removal_options(p, "a4") == {"xd1xf2"}
    assert play(p, parse_move("a4xf2xd1", p)).white == p.board.mask(["g7", "g4", "g1"])
    # Protection is re-evaluated after the first removal: once d1 is gone, every
    # remaining White stone stands in a mill, so any of them may go second.
    q = position("W:a1,a7,b4,c4 B:g7,g4,g1,d1 w h:5,5", "nine-doublemill")
    assert removal_options(q, "a4") == {"xg7xd1", "xg4xd1", "xg1xd1"}
    # A single mill still removes one stone.
    assert removal_options(q, "b2") == {""}
    single = position("W:a1,a4,c3 B:g7,g1,d1 w h:6,6", "nine-doublemill")
    assert removal_options(single, "a7") == {"xg7", "xg1", "xd1"}


def test_no_removal_when_opponent_has_no_stone_on_board():
    p = position("W:a1,a4 B: w h:7,7")
    assert Move(None, p.board.index_of["a7"]) in legal_moves(p)
    assert removal_options(p, "a7") == {""}
    with pytest.raises(IllegalMoveError, match="nothing is removed"):
        parse_move("a7xd1", p)


def test_opening_and_reclosing_a_mill_counts():
    game = Game("nine", position("W:a1,a4,a7,c3 B:g7,g4,f2,e3 w"))
    game.play("a7-d7")  # opens the mill
    game.play("g4-f4")
    assert removal_options(game.position, "d7-a7") == {"xg7", "xf4", "xf2", "xe3"}
    with pytest.raises(IllegalMoveError, match="closes a mill"):
        game.play("d7-a7")
    game.play("d7-a7xf4")
    assert game.position.black == game.position.board.mask(["g7", "f2", "e3"])


def test_captures_during_placement():
    p = position("W:a1,a4 B:g7,g1 w h:7,7")
    assert removal_options(p, "a7") == {"xg7", "xg1"}
    # Mills count from the very first placements.
    first = position("a1 g7 a4 g1")
    assert removal_options(first, "a7") == {"xg7", "xg1"}


def test_no_captures_during_placement_in_nocapture_variant():
    p = position("W:a1,a4 B:g7,g1 w h:7,7", "nine-nocapture-placement")
    assert removal_options(p, "a7") == {""}
    # The mill formed while placing still captures once stones move.
    q = position("W:a1,a4,d7,c3 B:g7,g4,g1,d5,e4 w", "nine-nocapture-placement")
    assert removal_options(q, "d7-a7") == {"xd5", "xe4"}


def test_blocked_side_loses():
    # White's corners touch only Black's midpoints.
    p = position("W:a1,a7,g7,g1 B:a4,d7,g4,d1 w")
    assert legal_moves(p) == []
    assert outcome(p) is Result.LOSS
    assert terminal(p).reason == "no legal move"
    assert outcome(position("W:a1,a7,g7,g1 B:a4,d7,g4,d1 b")) is None


def test_fewer_than_three_stones_loses():
    p = position("W:a1,a4 B:g7,g4,g1 w")
    assert outcome(p) is Result.LOSS
    assert terminal(p).reason == "fewer than 3 stones"
    assert legal_moves(p) == []
    # Stones in hand count: two on the board and one in hand play on.
    assert outcome(position("W:a1,a4 B:g7,g4 w h:1,1")) is None
    # A capture down to two stones ends the game.
    after = play(*_with_move("W:a1,a4,d7,c3 B:g7,g4,g1 w", "d7-a7xg4"))
    assert outcome(after) is Result.LOSS and not after.white_to_move


def _with_move(text: str, move: str) -> tuple[Position, Move]:
    p = position(text)
    return p, parse_move(move, p)


def test_three_mens_morris_line_wins():
    p = position("W:a1,b1 B:a2,b2 w h:1,1", "three")
    assert removal_options(p, "c1") == {""}  # nothing is ever removed
    after = play(p, parse_move("c1", p))
    assert terminal(after).result is Result.LOSS
    assert terminal(after).reason == "line of three"
    assert legal_moves(after) == []
    # A line made by moving wins too; a diagonal is a line; centre touches all.
    moving = position("W:a1,b2,c2 B:a2,b3,c1 w", "three")
    assert "c2-c3" in texts(moving)
    assert outcome(play(moving, parse_move("c2-c3", moving))) is Result.LOSS
    centre = position("W:b2,a2,c3 B:a1,c1,b3 w", "three")
    assert phase(centre) == "moving" and "b2-b1" in texts(centre)


def test_threefold_repetition_draw():
    start = position("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w")
    shuffle = ["c3-d3", "e3-e4", "d3-c3", "e4-e3"]
    game = Game("nine", start, draw_rules=True)
    for move in shuffle * 2:
        assert game.outcome() is None
        game.play(move)
    assert game.position == start  # its third occurrence
    assert game.result() is Result.DRAW
    assert game.outcome().reason == "threefold repetition"
    assert game.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play("c3-d3")
    game.undo()
    assert game.outcome() is None
    # The solver's rules ignore repetition.
    plain = Game("nine", start)
    for move in shuffle * 3:
        plain.play(move)
    assert plain.outcome() is None


def test_hundred_moving_plies_without_capture_draw():
    # Both sides fly; each quiet flight goes to a position seen at most once before.
    game = Game("nine", position("W:a1,d7,g4 B:b2,f6,d3 w"), draw_rules=True)
    seen = {game.position: 1}
    for ply in range(100):
        assert game.outcome() is None, ply
        for move in game.legal_moves():
            after = play(game.position, move)
            if not move.removed and seen.get(after, 0) < 2 and terminal(after) is None:
                break
        game.play(move)
        seen[game.position] = seen.get(game.position, 0) + 1
    assert game.quiet_moving_plies() == 100
    assert game.result() is Result.DRAW
    assert game.outcome().reason == "100 moving plies without capture"
    # A capture restarts the count; placements never count.
    capture = Game("nine", position("W:a1,a4,d7,c3 B:g7,g4,f2,e3,d5 w"), draw_rules=True)
    capture.play("c3-d3")
    capture.play("d5-e5")
    capture.play("d7-a7xg7")
    assert capture.quiet_moving_plies() == 0
    placing = Game("nine", draw_rules=True)
    placing.play("d6")
    assert placing.quiet_moving_plies() == 0


def test_another_move_limit():
    game = Game("nine", position("W:a1,d7,g4 B:b2,f6,d3 w"), draw_rules=True, move_limit=4)
    for move in ["a1-a4", "b2-b4", "a4-a1", "b4-b2"]:
        assert game.outcome() is None
        game.play(move)
    assert game.outcome().reason == "4 moving plies without capture"
    with pytest.raises(MorrisError, match="move limit"):
        Game("nine", draw_rules=True, move_limit=0)


def test_full_board_twelve_draw():
    white = "a1,a7,g7,g1,b4,f4,d6,d2,c3,e5,c5,e3"
    black = "a4,d7,g4,d1,b2,b6,f6,f2,c4,e4,d5,d3"
    full = position(f"W:{white} B:{black} w", "twelve")
    assert full.white | full.black == full.board.full_mask
    assert terminal(full).result is Result.DRAW
    assert terminal(full).reason == "full board"
    # Blocked on a board that is not full is still a loss in twelve.
    blocked = position("W:a1,a7,g7,g1 B:a4,d7,g4,d1,b2,b6,f6,f2 w", "twelve")
    assert outcome(blocked) is Result.LOSS
    # The last placement that fills the board leads to the draw.
    last = position(f"W:{white} B:{black.replace(',d3', '')} b h:0,1", "twelve")
    after = play(last, parse_move("d3", last))
    assert after == full


@pytest.mark.parametrize(
    ("move", "text"),
    [
        (Move(None, 11), "d6"),
        (Move(11, 19), "d6-d5"),
        (Move(11, 19, (0,)), "d6-d5xa1"),
        (Move(None, 11, (0,)), "d6xa1"),
        (Move(11, 19, (0, 8)), "d6-d5xa1xb2"),
    ],
)
def test_move_notation(move, text):
    assert move.text(Position.start("nine").board) == text


def test_start_position_text():
    start = Position.start("nine")
    assert str(start) == "W: B: w h:9,9"
    assert position("W: B: w h:9,9") == start == position("")
    assert str(position("d6 d5, a1")) == "W:a1,d6 B:d5 b h:7,8"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("W:a1,z9 B: w h:8,8", "unknown point 'z9'"),
        ("W:a1,a1 B: w h:8,8", "a1 is listed twice"),
        ("W:a1 B:a1 w h:8,8", "a1 is listed for both White and Black"),
        ("W:a1 B: w h:9,9", "White has 10 stones"),
        ("W:a1 B:b2 w h:-1,0", "cannot be negative"),
        ("W:a1 B:b2 w h:8,7", "impossible hands h:8,7"),
        ("W:a1 B:b2 b h:8,8", "impossible hands h:8,8"),
        ("W:a1,a4 B:b2,b4 w", "Black has only 2 stones"),
        ("W:a1 B:b2", "lacks w or b"),
        ("W:a1 w", "lacks B:"),
        ("W:a1 B:b2 w w", "repeats"),
        ("W:a1 B:b2 x h:8,8", "unexpected 'x'"),
        ("W:a1 B:b2 w h:8", "bad stones in hand"),
        ("d6 d6", "move 2 of the move list: illegal move d6: d6 is occupied"),
        ("d6 d5 d6-d7", "must place"),
        ("d6 q9", "unknown point q9"),
        ("d6 ???", "cannot read move"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(PositionError, match=message) as err:
        Position.parse(text, "nine")
    assert "\n" not in str(err.value)
    assert isinstance(err.value, MorrisError)


@pytest.mark.parametrize(
    ("text", "move", "message"),
    [
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "g7-d7", "g7 is not White's stone"),
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "a4-a7xg7", "closes no mill"),
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "a1-g7", "g7 is occupied"),
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "c3-e5", "not adjacent"),
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "d7-a7xb2", "b2 is not Black's stone"),
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "d7-a7xg7xg4", "removes 1 stone"),
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "d7-a7xg7xg7", "removed twice"),
        ("W:a1,a4,d7,c3 B:g7,g4,f2,e3 w", "d7", "must move a stone"),
        ("W:a1,a7,g7,g1 B:a4,d7,g4,d1 w", "a1-b2", "game is over"),
    ],
)
def test_illegal_move_messages(text, move, message):
    with pytest.raises(IllegalMoveError, match=message):
        parse_move(move, position(text))
