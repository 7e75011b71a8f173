"""``morris reproduce``: solve games completely and check them against published results.

This is what ``make solve`` runs: the shortest way from a fresh clone to a verified
strong solution.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from morris_solver.check.known import (
    check_against_known,
    check_searched_start,
    known_results,
    reproduce_phase,
)
from morris_solver.check.verify import verify_table
from morris_solver.query.probe import Tablebase
from morris_solver.rules.position import Position
from morris_solver.solving.generate import solve

from .common import load_variant
from .value import describe, start_value_by_search


@click.command("reproduce")
@click.argument("variants", nargs=-1)
@click.option("--data", "data_dir", type=click.Path(file_okay=False), default="data",
              show_default=True, help="Folder for the table files.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option("--phase", type=click.Choice(["all", "moving"]), default=None,
              help="all: solve every phase and read the start's value from the tables; "
              "moving: solve the moving phase only and value the start by the search over "
              "the placement phase. Default: what solver/check/known_results.toml says for the "
              "variant (moving for twelve, whose placement tables are beyond a "
              "workstation; all for the others).")
def reproduce_command(variants: tuple[str, ...], data_dir: str, quiet: bool,
                      phase: str | None) -> None:
    """Solve VARIANTS (default: three six), print the value of each start position,
    verify every stored value with the independent forward verifier, and check the
    tables against the published results the package ships (solver/check/known_results.toml).
    Exits non-zero on any disagreement. A solve that is stopped resumes where it was
    (the verification starts again). Nine Men's Morris takes hours, Morabaraba
    (twelve) longer: benchmarks/ has their measured times."""
    names = variants or ("three", "six")
    known = known_results()
    failures = 0
    for name in names:
        variant = load_variant(name)
        path = Path(data_dir) / f"{variant.name}.h5"
        route = phase or reproduce_phase(variant.name, known)
        start = time.perf_counter()
        solve(variant, path, phase=route, show_progress=not quiet, log=click.echo)
        seconds = time.perf_counter() - start
        tb = Tablebase.open(path)
        if route == "all":
            click.echo(f"{describe(variant, tb.probe(Position.start(variant)))}"
                       f"   (tables {path}, {seconds:.1f} s)")
        else:
            click.echo(f"{variant.name}: moving phase solved (tables {path}, {seconds:.1f} s)")
        report = verify_table(path, progress=not quiet)
        bad = [r for r in report.sectors if not r.ok]
        click.echo(f"  morris verify: {len(report.sectors) - len(bad)} of "
                   f"{len(report.sectors)} sectors ({report.positions:,} positions) "
                   f"re-derived from their successors, {report.seconds:.1f} s")
        failures += len(bad)
        checks = check_against_known(tb, known)
        if route == "moving":
            found = start_value_by_search(variant, path)
            click.echo(f"{describe(variant, found.value)}   (search over the placement phase: "
                       f"{found.nodes:,} nodes, {found.seconds:.1f} s)")
            searched = check_searched_start(variant.name, found.value.result.value, known)
            checks += [searched] if searched else []
        if not checks:
            click.echo(f"  no published result for {variant.name} to compare with")
        for check in checks:
            mark = "agrees with" if check.ok else "DISAGREES with"
            click.echo(f"  {check.what}: {check.found} {mark} the published "
                       f"{check.expected}")
            failures += not check.ok
    if failures:
        raise click.ClickException(
            f"{failures} check(s) failed: a sector did not verify or a result disagrees "
            "with the published results (solver/check/known_results.toml)"
        )
