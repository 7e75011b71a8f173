"""``morris reproduce``: solve games completely and check them against published results.

This is what ``make solve`` runs: the shortest way from a fresh clone to a verified
strong solution.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from morris_solver.generate import solve
from morris_solver.known import check_against_known, known_results
from morris_solver.position import Position
from morris_solver.probe import Tablebase
from morris_solver.verify import verify_table

from .common import load_variant
from .value import describe


@click.command("reproduce")
@click.argument("variants", nargs=-1)
@click.option("--data", "data_dir", type=click.Path(file_okay=False), default="data",
              show_default=True, help="Folder for the table files.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def reproduce_command(variants: tuple[str, ...], data_dir: str, quiet: bool) -> None:
    """Solve VARIANTS (default: three six) completely, print the value of each start
    position, verify every stored value with the independent forward verifier, and
    check the tables against the published results the package ships
    (solver/known_results.toml). Exits non-zero on any disagreement."""
    names = variants or ("three", "six")
    known = known_results()
    failures = 0
    for name in names:
        variant = load_variant(name)
        path = Path(data_dir) / f"{variant.name}.h5"
        start = time.perf_counter()
        solve(variant, path, show_progress=not quiet, log=click.echo)
        seconds = time.perf_counter() - start
        tb = Tablebase.open(path)
        click.echo(f"{describe(variant, tb.probe(Position.start(variant)))}"
                   f"   (tables {path}, {seconds:.1f} s)")
        report = verify_table(path, progress=not quiet)
        bad = [r for r in report.sectors if not r.ok]
        click.echo(f"  morris verify: {len(report.sectors) - len(bad)} of "
                   f"{len(report.sectors)} sectors ({report.positions:,} positions) "
                   f"re-derived from their successors, {report.seconds:.1f} s")
        failures += len(bad)
        checks = check_against_known(tb, known)
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
            "with the published results (solver/known_results.toml)"
        )
