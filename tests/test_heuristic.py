"""The table-free alpha-beta player (``heuristic.HeuristicPlayer``): legal, reproducible
moves in every variant, the obvious tactics (a winning capture, not opening a mill to
the opponent), and scores equal to a plain-Python negamax over the rules' move
generator with the same evaluation written out again."""

from __future__ import annotations

import random

import pytest

from morris_solver.core.errors import MorrisError
from morris_solver.play.engine import SEARCH_DEPTHS, SearchEngine
from morris_solver.play.heuristic import HeuristicPlayer
from morris_solver.rules.game import Game
from morris_solver.rules.position import Position
from morris_solver.rules.rules import successors, terminal
from morris_solver.rules.values import BIG, Result
from morris_solver.rules.variants import VARIANTS, get_variant


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# -- the reference: the module docstring's evaluation and negamax, plainly -------------


def reference_evaluation(position: Position) -> int:
    v, t = position.variant, position.board.plain
    mover, other = position.mover, position.other
    mover_hand, other_hand = position.mover_hand, position.other_hand
    empty = t.full & ~(mover | other)

    def moves(stones: int, hand: int) -> int:
        if v.flying and hand == 0 and stones.bit_count() == 3:
            return 0  # a flying side counts no moves
        return sum((t.adjacency[p] & empty).bit_count() for p in _bits(stones))

    score = 100 * (mover.bit_count() + mover_hand - other.bit_count() - other_hand)
    for mill in t.mills:
        mine, theirs = mover & mill, other & mill
        score += 10 * ((mine == mill) - (theirs == mill))
        score += 5 * ((mine.bit_count() == 2 and not theirs)
                      - (theirs.bit_count() == 2 and not mine))
    if mover_hand == 0 and other_hand == 0:
        score += moves(mover, 0) - moves(other, 0)
    return score


def reference_negamax(position: Position, depth: int, ply: int) -> int:
    end = terminal(position)
    if end:
        return 0 if end.result is Result.DRAW else ply - BIG
    if depth == 0:
        return reference_evaluation(position)
    return max(-reference_negamax(after, depth - 1, ply + 1)
               for _, after in successors(position))


def reference_scores(position: Position, depth: int) -> list:
    return [(move, -reference_negamax(after, depth - 1, 1))
            for move, after in successors(position)]


# -- positions -------------------------------------------------------------------------


def played(variant: str, plies: int, rng: random.Random) -> Position:
    """The position after up to ``plies`` random moves from the start."""
    game = Game(variant)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game.position


def scattered(variant: str, white: int, black: int, rng: random.Random) -> Position:
    """A moving-phase position, White to move, with stones put at random (flying
    sides, double mills, blocked sides: what random games seldom reach)."""
    v = get_variant(variant)
    points = rng.sample(range(v.board.n), white + black)
    masks = [sum(1 << p for p in part) for part in (points[:white], points[white:])]
    return Position(v, masks[0], masks[1], 0, 0, True)


def random_positions(variant: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    stones = get_variant(variant).stones
    found = []
    while len(found) < count:
        if len(found) % 3 == 2:
            position = scattered(variant, rng.randint(3, stones), rng.randint(3, stones), rng)
        else:
            position = played(variant, rng.randint(0, 6 * stones), rng)
        if not terminal(position):
            found.append(position)
    return found


def texts(scored, position: Position) -> dict[str, int]:
    return {move.text(position.board): score for move, score in scored}


# -- tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["three", "six", "nine", "nine-doublemill"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_every_chosen_move_is_legal(variant, depth):
    for seed in range(3):
        rng = random.Random(seed)
        player = HeuristicPlayer(variant, depth, random.Random(seed))
        game = Game(variant, draw_rules=True)
        for ply in range(120):
            moves = game.legal_moves()
            if not moves:
                break
            move = player.choose(game) if ply % 2 == seed % 2 else rng.choice(moves)
            assert move in moves
            game.play(move)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_plays_legal_moves_to_the_end(variant):
    """Both sides the player (depths 1 and 2), one game each way, no move limit but
    the draw rules."""
    players = [HeuristicPlayer(variant, 1, random.Random(1)),
               HeuristicPlayer(variant, 2, random.Random(2))]
    for first in range(2):
        game = Game(variant, draw_rules=True)
        for ply in range(200):
            if game.outcome():
                break
            move = players[(ply + first) % 2].choose(game)
            assert move in game.legal_moves()
            game.play(move)


def self_play(seed: int, variant: str = "nine", plies: int = 40) -> list[str]:
    rng = random.Random(seed)
    players = [HeuristicPlayer(variant, 2, rng), HeuristicPlayer(variant, 3, rng)]
    game = Game(variant, draw_rules=True)
    record = []
    for ply in range(plies):
        if game.outcome():
            break
        move = players[ply % 2].choose(game)
        record.append(move.text(game.position.board))
        game.play(move)
    return record


def test_a_seed_replays_the_same_game_and_seeds_differ():
    assert self_play(11) == self_play(11)
    assert len({tuple(self_play(seed)) for seed in range(4)}) > 1


@pytest.mark.parametrize("depth", [1, 2])
def test_takes_the_capture_that_wins_at_once(depth):
    # d7-a7 closes a1-a4-a7; Black, with 3 stones, is left with 2 whichever it loses
    position = Position.parse("W:a1,a4,d7,f4 B:g1,f2,e3 w", "nine")
    game = Game("nine", start=position)
    winning = {"d7-a7xg1", "d7-a7xf2", "d7-a7xe3"}
    scores = texts(HeuristicPlayer("nine", depth, random.Random(0)).scores(position), position)
    assert {text for text, score in scores.items() if score == BIG - 1} == winning
    assert all(score < 1000 for text, score in scores.items() if text not in winning)
    for seed in range(5):
        move = HeuristicPlayer("nine", depth, random.Random(seed)).choose(game)
        assert move.text(position.board) in winning


def test_takes_a_line_of_three():
    position = Position.parse("W:a1,b1 B:a2,c3 w h:1,1", "three")
    scores = texts(HeuristicPlayer("three", 1, random.Random(0)).scores(position), position)
    assert max(scores, key=scores.get) == "c1"
    assert scores["c1"] == BIG - 1


def test_a_double_mill_removes_two_stones_and_may_win_at_once():
    # placing a4 closes a1-a4-a7 and a4-b4-c4; Black has 3 stones on board and 1 in hand
    text = "W:a1,a7,b4,c4 B:g1,d7,f4 w h:1,1"
    for variant, wins in (("nine-doublemill", True), ("nine", False)):
        position = Position.parse(text, variant)
        for depth in (1, 2):
            scored = HeuristicPlayer(variant, depth, random.Random(0)).scores(position)
            assert scored == reference_scores(position, depth)
            best = max(score for _, score in scored)
            assert (best == BIG - 1) == wins
            assert {move.target for move, score in scored if score == best} == {
                position.board.index_of["a4"]}
            assert {len(move.removed) for move, score in scored if score == best} == {
                2 if wins else 1}
    position = Position.parse("W:a1,a7,b4,c4 B:g1,d7,f4,e3 w h:5,5", "nine-doublemill")
    for depth in (1, 2):
        scored = HeuristicPlayer(position.variant, depth, random.Random(0)).scores(position)
        assert scored == reference_scores(position, depth)
        assert sum(len(move.removed) == 2 for move, _ in scored) == 6  # pairs of 4 stones


def test_does_not_open_a_mill_to_the_opponent():
    # White's b4 blocks Black's a4-b4-c4; b4-b6 lets b2-b4 close it
    position = Position.parse("W:b4,g7,f2,e5 B:a4,c4,b2,d7 w", "nine")
    game = Game("nine", start=position)
    shallow = texts(HeuristicPlayer("nine", 1, random.Random(0)).scores(position), position)
    deep = texts(HeuristicPlayer("nine", 2, random.Random(0)).scores(position), position)
    # one ply deep the blunder costs only mobility; two plies deep it loses a stone
    assert shallow["b4-b6"] > max(shallow.values()) - 100
    assert deep["b4-b6"] <= max(deep.values()) - 100
    for seed in range(10):
        move = HeuristicPlayer("nine", 2, random.Random(seed)).choose(game)
        assert move.text(position.board) != "b4-b6"


@pytest.mark.parametrize("depth", [0, -1])
def test_depth_below_one_is_refused(depth):
    with pytest.raises(ValueError):
        HeuristicPlayer("nine", depth, random.Random(0))


@pytest.mark.parametrize("budget", [0, -5])
def test_a_node_budget_below_one_is_refused(budget):
    with pytest.raises(ValueError):
        HeuristicPlayer("nine", 3, random.Random(0), node_budget=budget)


def test_a_node_budget_falls_back_to_the_deepest_search_it_fits():
    """A budget too small for the full depth scores as an unbudgeted player of the depth
    it reached (one ply at the least), a budget large enough as the full depth; the
    depths reached differ between positions of few and of many moves."""
    reached = set()
    for position in random_positions("nine", 12, seed=3):
        for budget in (1, 60, 600, 6_000, 10**9):
            player = HeuristicPlayer("nine", 4, random.Random(0), node_budget=budget)
            scores = player.scores(position)
            depth = player.searched_depth
            reached.add(depth)
            plain = HeuristicPlayer("nine", depth, random.Random(0)).scores(position)
            assert scores == plain, (str(position), budget)
            if budget == 1:
                assert depth == 1
            if budget == 10**9:
                assert depth == 4
    assert reached == {1, 2, 3, 4}


def test_the_engine_without_tables_cuts_the_search_where_a_side_flies():
    """Three stones a side, both flying: 7 plies would search about 150 million nodes
    (seconds), so the engine's budget settles for fewer; after the first placement (the
    empty board's 7 plies just exceed the budget) it searches all 7 within it."""
    engine = SearchEngine(get_variant("nine"), "ultra", random.Random(0))
    engine.choose(Game("nine", start=Position.parse("W:b2,c4,d3 B:b4,c5,e3 w", "nine")))
    assert 1 <= engine.searched_depth < SEARCH_DEPTHS["ultra"]
    engine.choose(Game("nine", start=Position.parse("d7", "nine")))
    assert engine.searched_depth == SEARCH_DEPTHS["ultra"]


def test_over_games_have_no_moves():
    over = Position.parse("W:a1,a4,a7,d7 B:g1,f2 b", "nine")  # Black has 2 stones
    assert terminal(over)
    player = HeuristicPlayer("nine", 2, random.Random(0))
    assert player.scores(over) == []
    with pytest.raises(MorrisError):
        player.choose(Game("nine", start=over))
    with pytest.raises(ValueError):
        player.scores(Position.start("six"))


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("variant", ["six", "nine"])
def test_scores_match_a_plain_negamax(variant, depth):
    for position in random_positions(variant, 12, seed=depth):
        player = HeuristicPlayer(variant, depth, random.Random(0))
        assert player.scores(position) == reference_scores(position, depth), str(position)


@pytest.mark.parametrize(
    "variant", ["three", "three-holes", "nine-doublemill", "nine-noflying",
                "nine-nocapture-placement", "nine-diagonal", "twelve"],
)
def test_scores_match_a_plain_negamax_in_every_variant(variant):
    for depth in (1, 2):
        for position in random_positions(variant, 4, seed=10 + depth):
            player = HeuristicPlayer(variant, depth, random.Random(0))
            assert player.scores(position) == reference_scores(position, depth), str(position)


@pytest.mark.parametrize("variant", ["six", "nine", "twelve"])
def test_the_fast_scores_keep_the_best_moves_and_their_score(variant):
    """``choose`` reads scores searched with the window narrowed to the best so far:
    the best moves and their score must be those of the exact search, every other move
    below them; deep enough (4 plies) that the narrowed window prunes."""
    pruned = 0
    for position in random_positions(variant, 12, seed=7):
        player = HeuristicPlayer(variant, 4, random.Random(0))
        exact = player.scores(position)
        fast = player.scores(position, exact=False)
        best = max(score for _, score in exact)
        assert [m for m, v in fast if v == best] == [m for m, v in exact if v == best]
        # another move's score: a bound between its exact score and the best
        assert all(e <= f < best for (_, e), (_, f) in zip(exact, fast, strict=True)
                   if e != best)
        pruned += fast != exact
    assert pruned  # some other move's score was a bound, not its exact value


def test_scores_a_full_board_draw():
    """Twelve Men's Morris: Black's last placement fills the board, and White, unable to
    move, draws (or loses, where Black's placement closed a mill and removed a stone)."""
    rng = random.Random(5)
    v = get_variant("twelve")
    for _ in range(6):
        points = rng.sample(range(v.board.n), 23)
        white = sum(1 << p for p in points[:12])
        black = sum(1 << p for p in points[12:])
        position = Position(v, white, black, 0, 1, False)
        if terminal(position):
            continue
        for depth in (1, 2, 3):
            player = HeuristicPlayer(v, depth, random.Random(0))
            assert player.scores(position) == reference_scores(position, depth)
