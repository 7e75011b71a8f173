"""``morris value``: the game-theoretic value of a variant's start position."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click
from tqdm import tqdm

from morris_solver.query.probe import DEFAULT_CACHE_BYTES
from morris_solver.rules.position import Position
from morris_solver.rules.values import Result, Value
from morris_solver.rules.variants import Variant
from morris_solver.search.search import (
    DEFAULT_TT_ENTRIES,
    Metric,
    PlacementSearch,
    SearchResult,
    search_book,
)
from morris_solver.tables.storage import TableFile, default_table_path

from .common import FiniteFloat, WholeNumber, load_variant
from .probe import db_option, move_limit_option, open_tablebase

MAX_CACHE_GIB = 1024  # beyond any machine's memory; int(GiB * 2**30) stays exact
MAX_TT_ENTRIES = 10**10  # 210 GB of transposition table


def start_value_from_tables(variant: Variant, db: Path | None) -> Value:
    """The start position's value for the first player, read from the tables (without
    the placement phase this refuses: ``--search`` is the other route, chosen apart)."""
    tb = open_tablebase(variant, db)
    tb.search = False
    return tb.probe(Position.start(variant))


def start_value_by_search(
    variant: Variant,
    db: Path | None,
    cache_bytes: int = DEFAULT_CACHE_BYTES,
    tt_entries: int = DEFAULT_TT_ENTRIES,
    metric: Metric = "wdl",
    draw_rules: int | None = None,
    win_first: bool = False,
    book_plies: int | None = None,
) -> SearchResult:
    """The start position's value by alpha-beta over the placement phase, reading only
    the moving-phase tables (Gasser's route; an independent check of the tables'):
    win, draw or loss, or with ``metric="dtm"`` also the distance; with ``draw_rules``
    L, win, draw or loss under the L-ply rule, from the moving-phase values under it.
    With ``book_plies`` (win/draw/loss), what the search proved about the first
    ``book_plies`` plies is kept in the file as its search book (``search_book``)."""
    tb = open_tablebase(variant, db, cache_bytes)
    start = Position.start(variant)
    session = PlacementSearch(tb, metric=metric, max_tt_entries=tt_entries,
                              draw_rules=draw_rules, win_first=win_first)
    load_seconds = session.load(start, tb.search_load_progress)
    with tqdm(unit=" nodes", unit_scale=True, disable=None, leave=False) as bar:

        def progress(nodes: int, tt_entries: int) -> None:
            bar.update(nodes - bar.n)
            bar.set_postfix_str(f"{tt_entries:,} positions in the transposition table")

        found = session.search(start, progress=progress)
    found = replace(found, seconds=found.seconds + load_seconds, load_seconds=load_seconds)
    if book_plies is not None:
        TableFile.open(tb.path).write_search_book(search_book(session, start, found, book_plies))
    return found


def describe(variant: Variant, value: Value) -> str:
    """E.g. ``three: first player wins in 9 plies``, ``three: first player wins`` (no
    distance known) or ``six: draw``."""
    if value.result is Result.DRAW:
        return f"{variant.name}: draw"
    verb = "wins" if value.result is Result.WIN else "loses"
    plies = "" if value.plies is None else f" in {value.plies} plies"
    return f"{variant.name}: first player {verb}{plies}"


@click.command()
@click.argument("variant")
@db_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print variant, result and plies (with --search also nodes and seconds) as JSON; "
    "plies is null for a --search without --distance.",
)
@click.option(
    "--search",
    is_flag=True,
    help="Search the placement phase (alpha-beta) over the moving-phase tables instead of "
    "reading the placement tables; proves win, draw or loss only (add --distance for "
    "the length of the game) and reports nodes searched and time.",
)
@click.option(
    "--distance",
    is_flag=True,
    help="With --search: also find the distance in plies (the exact depth-to-win "
    "search: as many nodes for a draw, a second, open-window search for a win or loss).",
)
@click.option(
    "--cache-gib",
    type=FiniteFloat(0, MAX_CACHE_GIB, low_open=True),
    default=DEFAULT_CACHE_BYTES / 2**30,
    show_default=True,
    help="Memory for loaded sectors, in GiB; beyond it the least recently used are "
    "dropped and read again when needed (Nine Men's Morris's largest take 0.5 GiB). "
    "--search holds every moving sector it can reach whatever this is, for Nine Men's "
    "Morris 2.1 GiB (two bits a position), with --distance 8.6 GiB (a byte).",
)
@click.option(
    "--tt-entries",
    type=WholeNumber(1, MAX_TT_ENTRIES),
    default=DEFAULT_TT_ENTRIES,
    show_default=True,
    help="With --search: positions the transposition table holds at most (at most 21 "
    "bytes each); a table that fills up makes the search repeat work.",
)
@click.option("--draw-rules", is_flag=True,
              help="The start's value under the move-limit draw rule too (docs/draw_rules.md); "
              "with --search, win, draw or loss under the rule from the moving-phase values "
              "under it.")
@click.option("--win-first", is_flag=True,
              help="With --search: ask 'does the first player win?' and then 'does it "
              "lose?' (two null-window searches) instead of one search for win, draw or "
              "loss; cheaper where the first player wins (twelve).")
@click.option("--book", "book_plies", type=WholeNumber(0, 64), default=None,
              metavar="PLIES",
              help="With --search: keep in the table file what the search proved about the "
              "positions of the first PLIES plies (its search book), so that probe, "
              "bestmove, play and the web board answer them at once, without loading the "
              "tables or searching, where the file has no placement tables. Replaces an "
              "earlier book. Win, draw or loss of the game's values only.")
@move_limit_option
def value(
    variant: str,
    db: Path | None,
    as_json: bool,
    search: bool,
    distance: bool,
    cache_gib: float,
    tt_entries: int,
    draw_rules: bool,
    move_limit: int,
    win_first: bool,
    book_plies: int | None,
) -> None:
    """Print the value of VARIANT's start position for the first player (White): from
    the tables, with the length of the game under perfect play, or (--search) by a
    search that needs only the moving-phase tables."""
    if distance and not search:
        raise click.UsageError("--distance goes with --search (the tables always hold it)")
    if (win_first or book_plies is not None) and (distance or not search):
        raise click.UsageError("--win-first and --book go with --search, without --distance "
                               "(they are about win, draw or loss)")
    if book_plies is not None and draw_rules:
        raise click.UsageError("--book keeps the game's values, not those under --draw-rules")
    v = load_variant(variant)
    if draw_rules and search:
        if distance:
            raise click.UsageError("--draw-rules --search proves win, draw or loss only, "
                                   "without --distance")
        found = start_value_by_search(v, db, int(cache_gib * 2**30), tt_entries,
                                      draw_rules=move_limit, win_first=win_first)
        facts = {"variant": v.name, "rule_result": found.value.result.value,
                 "move_limit": move_limit, "nodes": found.nodes,
                 "seconds": round(found.seconds, 3)}
        click.echo(json.dumps(facts) if as_json else
                   f"{v.name}: under the {move_limit}-ply rule: {found.value.result.value} "
                   "for the first player (search)")
        return
    if draw_rules:
        rule = open_tablebase(v, db).rule_probe(Position.start(v), 0, move_limit)
        facts = {"variant": v.name, **rule.value.as_dict(), "rule_result": rule.result.value,
                 "rule_class": rule.rule_class, "move_limit": move_limit}
        click.echo(json.dumps(facts) if as_json else
                   f"{describe(v, rule.value)}; under the {move_limit}-ply rule: "
                   f"{rule.result.value} ({rule.rule_class})")
        return
    if not search:
        result = start_value_from_tables(v, db)
        facts = {"variant": v.name, **result.as_dict()}
        click.echo(json.dumps(facts) if as_json else describe(v, result))
        return
    found = start_value_by_search(
        v, db, int(cache_gib * 2**30), tt_entries, "dtm" if distance else "wdl",
        win_first=win_first, book_plies=book_plies)
    book = None
    if book_plies is not None:
        book = TableFile.open(db if db is not None else default_table_path(v)).search_book()
        assert book is not None  # just written
    if as_json:
        facts = {"variant": v.name, **found.value.as_dict(), "nodes": found.nodes,
                 "seconds": round(found.seconds, 3)}
        if book is not None:
            facts["book_positions"] = len(book.keys)
        click.echo(json.dumps(facts))
        return
    click.echo(describe(v, found.value))
    click.echo(
        f"searched {found.nodes:,} nodes ({found.tt_entries:,} positions in the "
        f"transposition table) in {found.seconds:.2f} s, {found.load_seconds:.2f} s of it "
        "loading the tables"
    )
    if book is not None:
        click.echo(f"kept the bounds of {len(book.keys):,} positions of the first {book_plies} "
                   "plies in the file as its search book")
