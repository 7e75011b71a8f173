"""The ``morris solve`` command that makes what a table file lacks, named in the errors
of the probe and the search.

It lives in the solver, not in ``morris_cli``, because the errors carry it to every
reader: the command line and the web server print them as they are.
"""

from __future__ import annotations

from pathlib import Path

from ..rules.sectors import Sector, is_moving, reachable_sectors, sector_name
from ..rules.variants import Variant
from .storage import MissingSectorError, TableFile, default_table_path


def solve_command(variant: Variant, path: Path, *options: str) -> str:
    """``morris solve`` of ``variant`` with ``options``, writing to ``path`` (``--out``
    unless it is the default path, which the command writes anyway)."""
    command = " ".join(["morris solve", variant.name, *options])
    if path.resolve() != default_table_path(variant).resolve():
        command += f" --out {path}"
    return command


def missing_sector(table: TableFile, sector: Sector, limit: int | None = None
                   ) -> MissingSectorError:
    """The error for a sector that ``table`` lacks: of the game's values, or with
    ``limit`` of the draw-rule values at that move limit. It names the command that
    generates it, or says that no game reaches it."""
    variant = table.variant
    if sector not in reachable_sectors(variant):
        return MissingSectorError(
            f"no game of {variant.name} reaches sector {sector_name(sector)} (that many "
            "captures cannot happen with the stones placed), so no table holds it",
            sector,
        )
    if limit is not None:
        options = ["--draw-rules", "--move-limit", str(limit)]
    elif is_moving(sector):
        options = ["--sector", f"{sector[0]}-{sector[1]}"]
    else:
        moving = {s for s in reachable_sectors(variant) if is_moving(s)}
        options = ["--phase", "placement" if moving <= set(table.sectors()) else "all"]
    command = solve_command(variant, table.path, *options)
    return MissingSectorError(
        f"sector {sector_name(sector)} is not in {table.path}; run '{command}' to generate it",
        sector,
    )
