"""``morris verify``: re-derive every stored value of a table file from its successors."""

from __future__ import annotations

import json
from pathlib import Path

import click

from morris_solver.check.verify import SectorResult, verify_table
from morris_solver.rules.drawrules import DEFAULT_LIMIT, MAX_LIMIT
from morris_solver.rules.sectors import sector_name

from .common import WholeNumber, parse_sector_option


def _echo_result(result: SectorResult) -> None:
    name = sector_name(result.sector)
    if result.ok:
        rate = result.positions / result.seconds if result.seconds > 0 else 0.0
        click.echo(
            f"OK    {name:<12} {result.positions:>13,} positions {result.seconds:8.2f} s "
            f"({rate:,.0f}/s)"
        )
        return
    wrong = f"{result.mismatch_count:,} wrong of {result.positions:,} positions"
    click.echo(f"FAIL  {name:<12} {wrong}")
    for m in result.mismatches:
        click.echo(f"      {m}")
    for problem in result.problems:
        click.echo(f"      {problem}")


@click.command()
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--sector", "sector_text", metavar="W-B-WF-BF", help="Verify only this sector.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.option("--threads", type=WholeNumber(1, 1024), help="Numba threads (default: all cores).")
@click.option("--draw-rules", is_flag=True,
              help="Verify the values under the move-limit draw rule instead.")
@click.option("--move-limit", type=WholeNumber(1, MAX_LIMIT), default=DEFAULT_LIMIT,
              show_default=True,
              help="With --draw-rules: the limit whose values to verify.")
def verify(path: Path, sector_text: str | None, as_json: bool, threads: int | None,
           draw_rules: bool, move_limit: int) -> None:
    """Verify the table file PATH independently of the solver.

    Every canonical position's stored value must equal the best over its legal moves of
    the successors' stored values (recomputed by a separate move generator), padding
    must be exactly the non-canonical index slots, and each sector's statistics must
    match a recount. Exits non-zero on any discrepancy. With --draw-rules the same for
    the values under the rule (docs/draw_rules.md), recomputed from the successors'.
    """
    sector = parse_sector_option(sector_text)
    report = verify_table(
        path,
        sector,
        progress=True,
        threads=threads,
        on_sector=None if as_json else _echo_result,
        draw_rules=move_limit if draw_rules else None,
    )
    if as_json:
        click.echo(json.dumps(report.to_dict()))
    else:
        failed = sum(not r.ok for r in report.sectors)
        count = len(report.sectors)
        sectors = f"{count} sector" + ("" if count == 1 else "s")
        verdict = "OK" if report.ok else f"FAILED in {failed} of {sectors}"
        click.echo(
            f"{verdict}: {report.variant}, {sectors}, "
            f"{report.positions:,} positions in {report.seconds:.1f} s "
            f"({report.positions_per_second:,.0f} positions/s)"
        )
    if not report.ok:
        raise click.exceptions.Exit(1)
