"""``morris info``: what a table file holds."""

from __future__ import annotations

import json
import os

import click

from morris_solver.check.stats import (
    RULE_STAT_KEYS,
    compare_statistics,
    held_part,
    statistics_named,
    table_statistics,
    uncompared_limits,
)
from morris_solver.rules.sectors import sector_name
from morris_solver.tables.storage import TableFile


@click.command("info")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option(
    "--check-stats", "stats_file", metavar="FILE|VARIANT",
    help="Compare the file with per-sector statistics and say whether every sector "
    "matches; exit 1 if not. A variant's name (six) takes the reference statistics the "
    "package ships (the project's own verified solves, committed in data/stats/six.json), "
    "a path any statistics file; a file that lacks sectors (a solve in progress) does not "
    "match, and it says whether the sectors it holds agree.",
)
def info_command(path, as_json, stats_file):
    """List what the table file PATH holds: variant, rules, and per sector its canonical
    positions, wins, draws, losses (for the side to move), longest win and loss in
    plies, and solve time. The --json output is the format of the reference statistics
    (data/stats/VARIANT.json in the repository: the project's own verified solves), which
    the package ships: --check-stats takes a variant's name or a file.

    \b
      morris info data/six.h5 --json > six.json
      morris info data/six.h5 --check-stats six
      morris info data/six.h5 --check-stats six.json
    """
    table = TableFile.open(path)
    sectors = table.sectors()
    if stats_file is not None:
        if os.path.exists(stats_file) and not os.path.isfile(stats_file):  # a FIFO: waits
            raise click.ClickException(f"--check-stats: {stats_file} is not a regular file")
        expected, stats_name = statistics_named(stats_file)
        actual = table_statistics(table)
        problems = compare_statistics(expected, actual)
        if problems:
            for line in problems[:20]:
                click.echo(line)
            held = held_part(expected, actual)
            if len(held["sectors"]) < len(expected["sectors"]) and not compare_statistics(
                held, actual
            ):
                click.echo(f"the {len(held['sectors'])} sectors it holds agree")
            more = " (first 20 shown)" if len(problems) > 20 else ""
            plural = "s" if len(problems) > 1 else ""
            raise click.ClickException(
                f"{path} does not match {stats_name}: {len(problems)} difference{plural}{more}"
            )
        click.echo(f"{path} matches {stats_name}: all {len(sectors)} sectors agree")
        absent = [limit[1:] for limit in uncompared_limits(expected, actual)]
        if absent:
            click.echo(f"(its draw-rule values are not compared: the file holds none for the "
                       f"limit {', '.join(absent)})")
        return
    if as_json:
        click.echo(json.dumps(table_statistics(table), indent=2))
        return
    click.echo(f"file:      {path}")
    click.echo(f"variant:   {table.variant.name}")
    click.echo(f"rules:     {json.dumps(table.rules, sort_keys=True)}")
    click.echo(f"format:    version {table.attrs['format_version']}, "
               f"toolkit {table.attrs.get('toolkit_version')}")
    click.echo(f"metric:    {table.attrs.get('metric')}")
    click.echo(f"sectors:   {len(sectors)}")
    links = table.shared_sectors()
    for target in sorted(set(links.values())):
        count = sum(t == target for t in links.values())
        click.echo(f"shared:    {count} sectors are those of {target} (linked)")
    header = f"{'sector':>12} {'positions':>14} {'wins':>13} {'draws':>13} {'losses':>13}"
    click.echo(header + f" {'max win':>8} {'max loss':>8} {'seconds':>8}")
    total = dict.fromkeys(("positions", "wins", "draws", "losses"), 0)
    for s, st in sorted(sectors.items(), key=lambda kv: (kv[0][2] + kv[0][3], kv[0])):
        for k in total:
            total[k] += st[k]
        click.echo(
            f"{sector_name(s):>12} {st['positions']:>14,} {st['wins']:>13,} {st['draws']:>13,} "
            f"{st['losses']:>13,} {st['max_win_plies']:>8} {st['max_loss_plies']:>8} "
            f"{st.get('solve_seconds', 0):>8.1f}"
        )
    click.echo(
        f"{'total':>12} {total['positions']:>14,} {total['wins']:>13,} {total['draws']:>13,} "
        f"{total['losses']:>13,}"
    )
    book = table.search_book()
    if book is not None:
        about = book.about
        click.echo(f"search book: {len(book.keys):,} placement positions bounded, "
                   f"{about['min_in_hand']}+ stones in hand, from the search of "
                   f"'{about['root']}' ({about['result']}, {about['nodes']:,} nodes, "
                   f"{about['seconds']:.0f} s)")
    for layer in table.layers()[1:]:  # the draw-rule values, by move limit
        kept = table.sectors(layer)
        count = {k: sum(st[k] for st in kept.values()) for k in RULE_STAT_KEYS[1:6]}
        limit = layer.rsplit("L", 1)[1]
        click.echo(
            f"draw rule, {limit}-ply limit: {len(kept)} sectors; at count 0 "
            + ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in count.items())
        )
