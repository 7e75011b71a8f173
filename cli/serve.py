"""``morris serve``: the analysis board in the browser (``web.app``), served locally."""

from __future__ import annotations

from pathlib import Path

import click

from solver.errors import MorrisError
from solver.storage import TableFile, default_table_path
from solver.variants import VARIANTS


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


@click.command()
@click.option("--db", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="A table file to serve (repeatable; default: every data/VARIANT.h5).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (the default is reachable from this machine only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
def serve(db: tuple[Path, ...], host: str, port: int) -> None:
    """Serve an analysis board for every variant with tables: click to place, move and
    remove stones, see the value of the position and of every legal move, play against
    the engine or a friend, and share a position as a link. The page's JSON API is
    documented in docs/web.md. Stop with Ctrl-C."""
    try:
        import uvicorn

        from web.app import create_app
    except ModuleNotFoundError as e:
        raise click.ClickException(
            f"morris serve needs {e.name}: pip install 'morris-tablebase[web]'"
        ) from None
    tables = served_tables(db)
    if not tables:
        raise click.ClickException(
            "no table files: solve a variant first ('morris solve three') or pass --db FILE"
        )
    app = create_app(tables)
    click.echo(f"serving {', '.join(tables)} at http://{host}:{port}/ (Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
