"""``morris serve``: the analysis board in the browser (``morris_cli.web.app``), served locally."""

from __future__ import annotations

import gc
import socket
from collections.abc import Callable
from pathlib import Path

import click

from morris_cli.common import FiniteFloat
from morris_solver.core.errors import MorrisError
from morris_solver.rules.variants import VARIANTS
from morris_solver.tables.storage import TableFile, default_table_path


def served_tables(db: tuple[Path, ...]) -> dict[str, Path]:
    """The table files to serve by variant name: those given, else every
    ``data/VARIANT.h5`` that exists. Two files of one variant are an error."""
    if not db:
        return {name: default_table_path(name) for name in VARIANTS
                if default_table_path(name).exists()}
    tables: dict[str, Path] = {}
    for path in db:
        name = TableFile.open(path).variant.name
        if name in tables:
            raise MorrisError(f"{tables[name]} and {path} both hold tables of {name}")
        tables[name] = path
    return tables


def listen(host: str, port: int) -> socket.socket:
    """The socket the server will accept on, bound now: a port in use, or an address
    this machine does not have, fails here with one line, before anything is served."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: "
                                   f"{e.strerror or e}") from None
    sock.set_inheritable(True)
    return sock


EVERY_INTERFACE = ("0.0.0.0", "::")  # wildcard addresses: every interface of the machine


def listen_address(ctx: click.Context, param: click.Parameter, host: str) -> str:
    """``--host`` as given, refusing an empty one: it binds every interface as
    ``0.0.0.0`` does, without saying so."""
    if not host.strip():
        raise click.BadParameter(
            "an empty address listens on every interface; name one (127.0.0.1: this "
            "machine only; 0.0.0.0: every interface)"
        )
    return host


@click.command()
@click.option("--db", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="A table file to serve (repeatable; default: every data/VARIANT.h5).")
@click.option("--host", default="127.0.0.1", show_default=True, callback=listen_address,
              help="Address to listen on (the default is reachable from this machine only; "
              "0.0.0.0 or :: opens the board and the rooms, without authentication, to "
              "every network this machine is on).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--rooms", type=click.Path(dir_okay=False, path_type=Path),
              help="SQLite file keeping the live rooms and their moves (default: rooms.sqlite "
              "beside the tables). A restart continues every room.")
@click.option("--redis", metavar="URL",
              help="Keep the rooms in Redis instead (redis://host:6379/0), so that several "
              "server processes behind a load balancer share them.")
@click.option("--room-days", type=FiniteFloat(0.001, 3650), default=30.0,
              show_default=True, help="Remove rooms untouched for this many days.")
@click.option("--rooms-per-minute", type=FiniteFloat(0.01, 1_000_000), default=10.0,
              show_default=True,
              help="Rooms one client address may create a minute on average (twice as many "
              "at once); more are refused with 429.")
@click.option("--search-seconds", type=FiniteFloat(0.1, 3600), default=20.0, show_default=True,
              help="For a table file without its placement tables: how long the search that "
              "answers a placement position may run (503 past it; the board still shows the "
              "position, without the values not found); other reads never wait for it.")
@click.option("--forwarded-allow-ips", metavar="IPS",
              help="Behind a reverse proxy: the proxy's addresses (comma-separated, or *), "
              "whose X-Forwarded-For header gives the client's address for the room limit. "
              "Without it the header is ignored: any client could set it.")
def serve(db: tuple[Path, ...], host: str, port: int, rooms: Path | None, redis: str | None,
          room_days: float, rooms_per_minute: float, search_seconds: float,
          forwarded_allow_ips: str | None) -> None:
    """Serve an analysis board for every variant: click to place, move and remove
    stones, see the value of the position and of every legal move where there are
    tables, play against the engine (without tables, a few plies of search that is not
    perfect), on one device, or with a friend by link in a live room, and review a
    finished game move by move with the tables' values.
    The page's JSON API is documented in docs/web.md and docs/live.md. Stop with
    Ctrl-C."""
    try:
        import uvicorn  # noqa: F401  (run_server needs it: said here, in one line)

        from morris_cli.web.app import create_app
        from morris_cli.web.live_limits import Limits
    except ModuleNotFoundError as e:
        raise click.ClickException(
            f"morris serve needs {e.name}: pip install 'morris-tablebase[web]'"
        ) from None
    if host in EVERY_INTERFACE:
        click.echo(f"warning: --host {host} listens on every interface: anyone who can reach "
                   "this machine can use the board and the rooms (no authentication)",
                   err=True)
    tables = served_tables(db)
    if not tables:
        click.echo("no table files (data/VARIANT.h5): every variant is played without "
                   "values, the computer by a few plies of search, not perfectly; 'morris "
                   "solve three' (or --db FILE) for the tables")
    if rooms is None and not redis:
        folder = next(iter(tables.values()), default_table_path(next(iter(VARIANTS)))).parent
        folder.mkdir(parents=True, exist_ok=True)
        rooms = folder / "rooms.sqlite"
    limits = Limits(rooms_per_minute=rooms_per_minute, room_burst=max(1, int(2 * rooms_per_minute)))
    app = create_app(tables, rooms=rooms, redis=redis, room_ttl_days=room_days, limits=limits,
                     search_seconds=search_seconds)
    # a full garbage collection over a thousand connections' objects takes 60-240 ms and
    # stalls every room: keep what exists at start out of it, and collect less often
    # (benchmarks/rooms_report.md)
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    kept = f"Redis at {redis}" if redis else str(rooms)
    shown = f"[{host}]" if ":" in host else host
    run_server(app, host, port, forwarded_allow_ips,
               lambda bound: f"serving {', '.join(tables) or 'no tables'} at "
               f"http://{shown}:{bound}/, "
               f"rooms in {kept} (Ctrl-C stops)")


def run_server(app, host: str, port: int, forwarded_allow_ips: str | None,
               serving: Callable[[int], str]) -> None:
    """Serve ``app`` on ``host:port`` until Ctrl-C, and print ``serving(port bound)``
    only once the app has started and the socket accepts (a port in use fails before,
    in one line). X-Forwarded-For is believed only from ``forwarded_allow_ips``."""
    import uvicorn

    sock = listen(host, port)
    line = serving(sock.getsockname()[1])

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                click.echo(line)

    config = uvicorn.Config(app, log_level="warning", ws_max_size=65536,
                            proxy_headers=forwarded_allow_ips is not None,
                            forwarded_allow_ips=forwarded_allow_ips)
    try:
        Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
