"""The web board's JSON API (``morris_cli.web.app``) through Starlette's test client: its values are
the tables', a game is replayed by the rules, and bad input is a 400 (a missing table a
404) with one line, never a server error."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

from morris_cli.main import main  # noqa: E402
from morris_cli.web.app import create_app  # noqa: E402
from morris_solver.core.errors import MorrisError  # noqa: E402
from morris_solver.play.engine import Engine  # noqa: E402
from morris_solver.query.probe import Tablebase  # noqa: E402
from morris_solver.rules.game import Game  # noqa: E402
from morris_solver.rules.position import Position  # noqa: E402
from morris_solver.rules.rules import legal_moves, play, terminal  # noqa: E402


@pytest.fixture(scope="module")
def tables(table_paths, six_whole_path) -> dict:
    return {"three": table_paths["three"], "six": six_whole_path, "nine": table_paths["nine"]}


@pytest.fixture(scope="module")
def client(tables) -> TestClient:
    return TestClient(create_app(tables), raise_server_exceptions=False)


def random_games(variant: str, games: int, seed: int) -> list[list]:
    """Move lists (Move objects) of random games, cut at random lengths."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        pos, moves = Position.start(variant), []
        for _ in range(rng.randrange(0, 30)):
            options = legal_moves(pos)
            if not options or terminal(pos):
                break
            move = rng.choice(options)
            moves.append(move)
            pos = play(pos, move)
        found.append(moves)
    return found


def test_variants_list_the_served_boards(client):
    served = {v["name"]: v for v in client.get("/api/variants").json()["variants"]}
    assert set(served) == {"three", "six", "nine"}
    six = served["six"]["board"]
    assert len(six["points"]) == len(six["coords"]) == 16 and len(six["mills"]) == 8
    assert served["three"]["rules"]["line_wins"] is True


@pytest.mark.parametrize("variant", ["three", "six"])
def test_probe_gives_the_tables_values(client, tables, variant):
    tb = Tablebase.open(tables[variant])
    for moves in random_games(variant, 25, seed=7):
        pos = Position.start(variant)
        for move in moves:
            pos = play(pos, move)
        body = client.get("/api/probe", params={"variant": variant, "position": str(pos)}).json()
        assert body["result"] == tb.probe(pos).result.value
        assert body["plies"] == tb.probe(pos).plies
        assert [(m["move"], m["result"], m["plies"]) for m in body["moves"]] == [
            (mv.text, mv.value.result.value, mv.value.plies) for mv in tb.moves(pos)
        ]


def test_probe_is_what_the_command_line_prints(client, tables):
    position = "W:a1,c1 B:e5 b h:4,5"
    cli = CliRunner().invoke(main, ["probe", "six", position, "--json", "--db",
                                    str(tables["six"])])
    assert cli.exit_code == 0, cli.output
    api = client.get("/api/probe", params={"variant": "six", "position": position})
    assert api.status_code == 200 and api.json() == json.loads(cli.output)


def test_a_game_is_replayed_and_valued(client, tables):
    tb = Tablebase.open(tables["six"])
    board = Position.start("six").board
    for moves in random_games("six", 20, seed=11):
        texts = []
        pos = Position.start("six")
        for move in moves:
            texts.append(move.text(board))
            pos = play(pos, move)
        body = client.get("/api/game", params={"variant": "six", "moves": " ".join(texts)}).json()
        assert body["position"] == str(pos) and body["moves_played"] == texts
        assert body["white"] == board.names(pos.white) and body["black"] == board.names(pos.black)
        assert body["to_move"] == ("white" if pos.white_to_move else "black")
        assert body["hands"] == {"white": pos.white_hand, "black": pos.black_hand}
        assert body["value"] == tb.probe(pos).as_dict()
        listed = {m["move"]: m for m in body["moves"]}
        assert set(listed) == {m.text(board) for m in legal_moves(pos)}
        assert [m["move"] for m in body["moves"]] == [mv.text for mv in tb.moves(pos)]
        for move in legal_moves(pos):
            entry = listed[move.text(board)]
            origin = board.points[move.origin] if move.origin is not None else None
            assert (entry["origin"], entry["target"]) == (origin, board.points[move.target])
            assert entry["removed"] == [board.points[p] for p in move.removed]


def test_a_finished_game_says_who_won_and_why(client):
    body = client.get("/api/game", params={"variant": "three",
                                           "moves": "a1 a2 b1 b2 c1"}).json()
    assert body["over"]["winner"] == "white" and body["over"]["result"] == "loss"
    assert "line" in body["over"]["reason"] and body["moves"] == []
    engine = client.get("/api/engine", params={"variant": "three", "moves": "a1 a2 b1 b2 c1"})
    assert engine.status_code == 400 and "over" in engine.json()["error"]


def test_the_draw_rules_show_their_counter(client):
    params = {"variant": "three", "moves": "a1 a2 b1 b2 c3 c1 c3-c2"}
    plain = client.get("/api/game", params=params).json()
    ruled = client.get("/api/game", params={**params, "draw_rules": "1"}).json()
    assert plain["quiet_plies_limit"] is None and ruled["quiet_plies_limit"] == 100
    assert ruled["quiet_plies"] == 1
    short = client.get("/api/game", params={**params, "draw_rules": "1", "move_limit": "1"})
    assert short.json()["over"]["reason"] == "1 moving plies without capture"


@pytest.mark.parametrize("strength", ["ultra", "perfect", "strong", "easy"])
def test_the_engine_plays_a_legal_move(client, tables, strength):
    tb = Tablebase.open(tables["three"])
    start = Position.start("three")
    for seed in range(5):
        body = client.get("/api/engine", params={"variant": "three", "strength": strength,
                                                 "seed": str(seed)}).json()
        assert body["move"] in {m.text(start.board) for m in legal_moves(start)}
        assert body["engine"] == {"tables": True, "depth": None, "searched_depth": None,
                                  "note": None}
        if strength == "perfect":
            assert body["move"] == tb.best_move(start).text(start.board)


def test_the_engine_plays_for_the_opponent_named(client, tables):
    """``against=noisy:E`` reaches ultra's model: its move is the one the engine with
    that model chooses for the same seed, and a move that keeps the result."""
    tb = Tablebase.open(tables["three"])
    moves = "a1 a2"
    game = Game("three")
    for m in moves.split():
        game.play(m)
    for against, seed in (("noisy:0.3", 1), ("noisy:0.05", 2)):
        body = client.get("/api/engine", params={"variant": "three", "moves": moves,
                                                 "against": against, "seed": str(seed)}).json()
        engine = Engine(tb, "ultra", random.Random(seed), model_error=float(against[6:]))
        assert body["move"] == engine.choose(game).text(game.position.board)
        keeps = {mv.text for mv in tb.moves(game.position)
                 if mv.value.result is tb.moves(game.position)[0].value.result}
        assert body["move"] in keeps


@pytest.mark.parametrize("path,params,status,words", [
    ("/api/probe", {"variant": "nine"}, 400, "missing 'position'"),
    ("/api/probe", {"variant": "ten", "position": "W: B: w"}, 400, "ten"),
    ("/api/probe", {"variant": "six", "position": "W:zz B: w h:6,6"}, 400, "bad position"),
    ("/api/probe", {"variant": "six", "position": "W:a1,a1 B: b"}, 400, "bad position"),
    ("/api/game", {"variant": "six", "moves": "a1 a1"}, 400, "move 2"),
    ("/api/game", {"variant": "six", "moves": "a1-a3"}, 400, "move 1"),
    ("/api/engine", {"variant": "six", "strength": "weak"}, 400, "unknown strength"),
    ("/api/game", {"variant": "six", "draw_rules": "1", "move_limit": "0"}, 400,
     "move_limit must be between 1"),
    ("/api/probe", {"variant": "six", "position": "", "draw_rules": "1", "move_limit": "²"},
     400, "move_limit must be a whole number"),
    ("/api/probe", {"variant": "six", "position": "", "draw_rules": "1", "counter": "²"}, 400,
     "counter must be a whole number"),
    ("/api/engine", {"variant": "six", "seed": "²"}, 400, "seed must be a whole number"),
    ("/api/engine", {"variant": "six", "against": "noisy:1"}, 400, "against: 'noisy:1' is not"),
    ("/api/engine", {"variant": "six", "against": "x" * 30}, 400, "against is longer than"),
    ("/api/probe", {"variant": "twelve", "position": ""}, 404, "no tables of twelve"),
    ("/api/probe", {"variant": "nine", "position": "W:a1,d1,g1,a4 B:b2,d2,f2 b"}, 404,
     "not in"),
])
def test_bad_input_is_one_clear_line(client, path, params, status, words):
    response = client.get(path, params=params)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert words in error and "\n" not in error


def _garbage_status(path: str, key: str, text: str) -> int:
    """The status a request to the Six Men's Morris tables (every sector solved: never a
    404) must get with ``text`` as ``key``: 400 where the rules refuse the text or the
    engine is asked to move in a game that is over, else 200."""
    if "\x00" in text:
        return 400  # refused before it is read
    try:
        if key == "moves":
            played = Game("six")
            for move in text.split():
                played.play(move)
            over = played.outcome() is not None
        else:  # a position, or a move list from the start; blank is the start
            over = terminal(Position.parse(text, "six") if text.strip()
                            else Position.start("six")) is not None
    except MorrisError:
        return 400
    return 400 if path == "/api/engine" and over else 200


GARBAGE = "abcdefgxW:B, -h0123456789\x00é"


def _garbage(rng: random.Random) -> str:
    """Random characters, or a few of the board's points and moves between them, some
    with a stray character: some of them legal moves, most not."""
    if rng.random() < 0.5:
        return "".join(rng.choice(GARBAGE) for _ in range(rng.randrange(0, 25)))
    points = Position.start("six").board.points
    tokens = []
    for _ in range(rng.randrange(1, 8)):
        p, q = rng.choice(points), rng.choice(points)
        tokens.append(rng.choice([p, p, p, f"{p}-{q}", f"{p}x{q}", rng.choice(GARBAGE) + p]))
    return " ".join(tokens)


def test_garbage_never_breaks_the_server(client):
    rng = random.Random(3)
    seen = []
    for _ in range(200):
        text = _garbage(rng)
        for path, key in (("/api/probe", "position"), ("/api/game", "moves"),
                          ("/api/game", "start"), ("/api/engine", "moves")):
            response = client.get(path, params={"variant": "six", key: text})
            status = _garbage_status(path, key, text)
            assert response.status_code == status, (path, key, text, response.text)
            if status == 400:
                error = response.json()["error"]
                assert error and "\n" not in error, (path, key, text, error)
            seen.append(status)
    assert seen.count(200) >= 50 and seen.count(400) >= 50  # both kinds were tried
    assert client.get("/api/variants").status_code == 200  # still up


@pytest.mark.parametrize(("strength", "depth"), [("ultra", 7), ("strong", 4), ("easy", 2)])
def test_without_tables_the_engine_searches_and_says_so(client, strength, depth):
    after = Position.parse("a1", "twelve")
    body = client.get("/api/engine", params={"variant": "twelve", "moves": "a1",
                                             "strength": strength, "seed": "1"}).json()
    assert body["move"] in {m.text(after.board) for m in legal_moves(after)}
    assert body["engine"]["tables"] is False and body["engine"]["depth"] == depth
    assert 1 <= body["engine"]["searched_depth"] <= depth
    assert f"searches up to {depth} plies ahead, without tables" in body["engine"]["note"]
    assert "'morris solve twelve --phase moving' gives it perfect play" in body["engine"]["note"]


def test_a_game_without_tables_still_plays(client):
    body = client.get("/api/game", params={"variant": "twelve", "moves": "a1"}).json()
    assert body["value"] is None and "no tables" in body["value_error"]
    assert len(body["moves"]) == len(legal_moves(Position.parse("a1", "twelve")))


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "board.js" in page.text
    assert client.get("/static/board.js").status_code == 200


def test_serve_refuses_two_files_of_one_variant(tables):
    result = CliRunner().invoke(main, ["serve", "--db", str(tables["six"]), "--db",
                                       str(tables["six"])])
    assert result.exit_code != 0 and "both hold tables of six" in result.output
