"""The web API on a file whose placement phase is answered by search with a search book
(Morabaraba's): one game in which the engine plays the side the start favours and the
user random moves, each ``/api/game`` and ``/api/engine`` request timed, then the first
player's first move off the proof (``--off-proof``) asked for both.

    python benchmarks/bench_book_web.py --db data/twelve.h5 --off-proof a1

Writes ``benchmarks/out/book_web_VARIANT.json`` and prints each request. The server's
start-up (loading the moving phase, ``Tablebase.warm_up``) is timed too.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from starlette.testclient import TestClient

from morris_cli.web.app import create_app
from morris_solver.tables.storage import TableFile

MAX_PLIES = 200  # a game longer than this stops (the draw rules end most before)


def timed_get(client: TestClient, path: str, params: dict) -> tuple[int, dict, float]:
    start = time.perf_counter()
    answer = client.get(path, params=params)
    return answer.status_code, answer.json(), time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--off-proof", default="a1", help="a first move that does not win")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    variant = TableFile.open(args.db).variant.name
    rng, facts = random.Random(args.seed), {"db": str(args.db), "seed": args.seed}
    began = time.perf_counter()
    with TestClient(create_app({variant: args.db}, rooms=":memory:")) as client:
        facts["startup_seconds"] = time.perf_counter() - began
        print(f"start-up {facts['startup_seconds']:.1f} s", flush=True)
        moves: list[str] = []
        facts["game"] = rows = []
        while len(moves) < MAX_PLIES:
            params = {"variant": variant, "moves": " ".join(moves)}
            status, game, seconds = timed_get(client, "/api/game", params)
            row = {"ply": len(moves), "game_status": status, "game_seconds": seconds,
                   "value": (game.get("value") or {}).get("result"),
                   "value_error": game.get("value_error")}
            if game.get("over") or not game["moves"]:
                break
            if len(moves) % 2 == 0:  # the engine: the first player, whom the start favours
                status, engine, seconds = timed_get(client, "/api/engine", params)
                row |= {"engine_status": status, "engine_seconds": seconds}
                move = engine["move"]
            else:
                move = rng.choice([m["move"] for m in game["moves"]])
            row["move"] = move
            moves.append(move)
            rows.append(row)
            print(row, flush=True)
        facts["off_proof"] = []
        for path in ("/api/game", "/api/engine"):
            status, body, seconds = timed_get(client, path, {"variant": variant,
                                                             "moves": args.off_proof})
            facts["off_proof"].append({"path": path, "status": status, "seconds": seconds,
                                       "said": body.get("error") or body.get("value_error")})
            print(facts["off_proof"][-1], flush=True)
    out = Path("benchmarks/out") / f"book_web_{variant}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(facts, indent=1) + "\n")


if __name__ == "__main__":
    main()
