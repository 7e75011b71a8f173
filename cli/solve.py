"""``morris solve``: generate a variant's tables (resumable)."""

from __future__ import annotations

from pathlib import Path

import click

from morris_solver.rules.drawrules import DEFAULT_LIMIT, MAX_LIMIT
from morris_solver.solving.generate import solve
from morris_solver.tables.storage import default_table_path

from .common import load_variant, parse_sector_option


@click.command("solve")
@click.argument("variant")
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Table file [data/VARIANT.h5].")
@click.option("--max-stones", type=click.IntRange(3, 12),
              help="At most N stones a side, on the board and in hand.")
@click.option("--sector", help="Solve this sector (W-B or W-B-WF-BF) and what it needs first.")
@click.option(
    "--phase", type=click.Choice(["moving", "placement", "all"]), default="all", show_default=True,
    help="Moving phase only, placement only (needs the moving phase), or both.",
)
@click.option("--threads", type=int, help="Worker threads [all cores].")
@click.option(
    "--draw-rules", is_flag=True,
    help="Add the values under the move-limit draw rule (docs/draw_rules.md) to the sectors "
    "already solved in the file.",
)
@click.option(
    "--move-limit", type=int, default=DEFAULT_LIMIT, show_default=True,
    help=f"With --draw-rules: moving plies without a capture that draw (1 to {MAX_LIMIT}).",
)
@click.option(
    "--share-with", "share_with", multiple=True, type=click.Path(dir_okay=False, exists=True),
    help="A table file of another variant whose moving-phase sectors with the same values "
    "are linked, not solved again (repeatable; default: the other variants' files in the "
    "output's folder).",
)
@click.option("--no-share", is_flag=True, help="Solve every sector here, sharing none.")
@click.option(
    "--scheduler", metavar="ADDRESS",
    help="Solve on this Dask distributed cluster (tcp://host:8786): each group a task, "
    "independent groups at once; the workers must reach the table file at the same path.",
)
@click.option(
    "--workers", type=click.IntRange(1), metavar="N",
    help="Solve on a local Dask cluster of N worker processes (one thread each unless "
    "--threads).",
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
def solve_command(variant, out, max_stones, sector, phase, threads, draw_rules, move_limit,
                  share_with, no_share, scheduler, workers, quiet):
    """Solve VARIANT's sectors into a table file, smallest first.

    Moving-phase twins {a-b, b-a} come in increasing a+b, then the placement sectors
    in increasing stones in hand. Interrupt it at any time: re-running continues with
    the first unsolved sector (a large moving-phase twin from its last snapshot, saved
    every 15 minutes as FILE.checkpoint), and a finished solve does nothing.

    The first run after installing or updating the toolkit spends about a minute and a
    half on 2 cores compiling the solver's kernels, which are cached for later runs.

    \b
    Examples:
      morris solve three                       the whole game, seconds once compiled
      morris solve nine --max-stones 5         sectors of at most 5 stones a side
      morris solve nine --sector 6-5           the 6-5/5-6 twin and what it needs
      morris solve six --draw-rules            then the values under the 100-ply rule
      morris solve nine-nocapture-placement    links nine's moving phase from data/nine.h5
    """
    v = load_variant(variant)
    path = out or default_table_path(v)
    selection = {
        "phase": phase, "max_stones": max_stones, "sector": parse_sector_option(sector),
        "draw_rules": move_limit if draw_rules else None,
        "share_with": [] if no_share else ([Path(p) for p in share_with] or None),
    }
    if scheduler is not None and workers:
        raise click.UsageError(
            "give --scheduler (a running cluster) or --workers (a local one), not both"
        )
    if scheduler is not None or workers:
        from morris_solver.solving.cluster import solve_on_cluster

        report = solve_on_cluster(
            v, path, scheduler=scheduler, workers=workers, threads=threads or 1,
            show_progress=not quiet, log=click.echo, **selection,
        )
    else:
        report = solve(v, path, threads=threads, show_progress=not quiet, log=click.echo,
                       **selection)
    if report.solved:
        positions = sum(g.positions for g in report.solved)
        seconds = sum(g.seconds for g in report.solved)
        click.echo(
            f"solved {sum(len(g.sectors) for g in report.solved)} sectors "
            f"({positions:,} positions) in {seconds:.1f} s into {report.path}"
            + (f"; {report.skipped} groups were already there" if report.skipped else "")
        )
