"""Tables on disk: one HDF5 file per variant, one dataset per sector (docs/format.md).

A sector is written under a temporary name and renamed once complete, with its
statistics attached, so an interrupted solve never leaves a sector that reads as solved.
The file is open for writing only during that short commit; solving happens in memory.
HDF5 locks the file while it is open, so a reader (``morris info`` during a solve) and a
commit can collide; each side then waits for the other instead of failing (``_h5``).
Every dataset carries HDF5's fletcher32 checksum, so corruption is reported on read.
"""

from __future__ import annotations

import json
import os
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import h5py
import numpy as np

from .errors import MorrisError
from .sectors import Sector, parse_sector_key, sector_key, sector_name
from .sharing import shared
from .variants import Variant, get_variant

FORMAT_VERSION = 1
METRIC = "plies to the end of the game (depth to win), through captures"
STAT_KEYS = ("positions", "wins", "draws", "losses", "max_win_plies", "max_loss_plies")
_TMP_PREFIX = "partial-"
# Measured on the 5-5 sector of nine (see README): shuffle + gzip-1 stores the uint16 codes
# in a fraction of their size and decompresses faster than the disk reads them.
_COMPRESSION = {"compression": "gzip", "compression_opts": 1, "shuffle": True}
_CHUNK = 1 << 20
# A commit of the largest nine sector holds the lock about 15 s (the nine report's disk
# step: 8-8 written in 14.7 s); waiting far longer costs nothing, failing would cost a
# solve its current sector.
LOCK_WAIT_SECONDS = 300.0
SECTORS = "sectors"  # the layer of the game's own values (uint16 codes, ``values``)


def rule_layer(limit: int) -> str:
    """The layer of the draw-rule values at move limit ``limit`` (uint8 codes,
    ``drawrules``); layers are HDF5 groups, this one under ``draw_rules/``."""
    return f"draw_rules/L{limit}"


def _layer_dtype(layer: str) -> type:
    return np.uint16 if layer == SECTORS else np.uint8


def default_table_path(variant: Variant | str) -> Path:
    """Where ``morris solve`` writes a variant's tables and the readers look for them."""
    return Path("data") / f"{get_variant(variant).name}.h5"


class TableError(MorrisError):
    """A missing, foreign or damaged table file."""


def _is_lock_conflict(error: OSError) -> bool:
    return isinstance(error, BlockingIOError) or "unable to lock file" in str(error)


def _h5(path: Path, mode: str) -> h5py.File:
    """``h5py.File(path, mode)``, waiting while another process holds the file's lock."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    pause = 0.05
    while True:
        try:
            return h5py.File(path, mode)
        except OSError as e:
            if not _is_lock_conflict(e):
                raise
            if time.monotonic() >= deadline:
                raise TableError(
                    f"{path} stayed locked by another process for {LOCK_WAIT_SECONDS:.0f} s"
                ) from None
        time.sleep(pause)
        pause = min(2 * pause, 1.0)


def toolkit_version() -> str:
    try:
        return version("morris-tablebase")
    except PackageNotFoundError:
        return "unknown"


class TableFile:
    """A variant's table file. Use ``TableFile.create_or_open`` to solve into it and
    ``TableFile.open`` to read it."""

    def __init__(self, path: Path, variant: Variant, rules: dict, attrs: dict):
        self.path = Path(path)
        self.variant = variant
        self.rules = rules
        self.attrs = attrs
        self._sources: dict[Path, TableFile] = {}  # files of shared sectors, checked

    @classmethod
    def open(cls, path: str | os.PathLike) -> TableFile:
        """Open an existing file for reading; raises TableError with a clear message."""
        path = Path(path)
        if not path.exists():
            raise TableError(f"no table file at {path}")
        try:
            with _h5(path, "r") as f:
                attrs = dict(f.attrs)
        except OSError as e:
            raise TableError(f"{path} is not a readable HDF5 table file ({e})") from None
        if attrs.get("format") != "morris-tablebase":
            raise TableError(f"{path} is not a morris tablebase file")
        if int(attrs.get("format_version", -1)) != FORMAT_VERSION:
            raise TableError(
                f"{path} has format version {attrs.get('format_version')}, "
                f"this toolkit reads version {FORMAT_VERSION}"
            )
        rules = json.loads(attrs["rules"])
        return cls(path, Variant(**rules), rules, attrs)

    @classmethod
    def create_or_open(cls, path: str | os.PathLike, variant: Variant) -> TableFile:
        """Open a file to solve into, creating it if needed; refuses another variant's file
        and discards sectors left half-written by an interrupted run."""
        path = Path(path)
        if path.exists():
            table = cls.open(path)
            if table.variant != variant:
                raise TableError(
                    f"{path} holds tables of variant {table.variant.name!r}, not {variant.name!r}"
                )
            with _h5(path, "a") as f:
                layers = [f[SECTORS], *f.get("draw_rules", {}).values()]
                for group in layers:
                    for name in list(group):
                        if name.startswith(_TMP_PREFIX):
                            del group[name]
            return table
        # a symbolic link (to a disk that outlives the machine, say) stays one: the new
        # file goes where it points, and replacing the link itself would orphan the
        # tables of any later run that re-creates the link
        target = Path(os.path.realpath(path))
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".creating")
        with h5py.File(tmp, "w") as f:
            f.attrs["format"] = "morris-tablebase"
            f.attrs["format_version"] = FORMAT_VERSION
            f.attrs["variant"] = variant.name
            f.attrs["rules"] = variant.to_json()
            f.attrs["toolkit_version"] = toolkit_version()
            f.attrs["metric"] = METRIC
            f.attrs["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            f.create_group("sectors")
        os.replace(tmp, target)
        return cls.open(path)

    def sectors(self, layer: str = SECTORS) -> dict[Sector, dict]:
        """Every complete sector of a layer with its stored statistics (a shared sector's
        from the file it links to)."""
        with _h5(self.path, "r") as f:
            found = {}
            for name in f.get(layer, {}):
                if not name.startswith(_TMP_PREFIX):
                    sector = parse_sector_key(name)
                    ds = self._dataset(f, layer, sector)
                    found[sector] = {k: _plain(v) for k, v in ds.attrs.items()}
            return found

    def shared_sectors(self) -> dict[Sector, Path]:
        """The sectors this file links to in other files (``sharing``), with the file."""
        with _h5(self.path, "r") as f:
            group = f[SECTORS]
            return {
                parse_sector_key(name): self._link_target(link)
                for name in group
                if isinstance(link := group.get(name, getlink=True), h5py.ExternalLink)
            }

    def link_sector(self, sector: Sector, source: TableFile) -> None:
        """Make ``sector`` of this file the one of ``source``'s file (an external link,
        its path relative to this file's folder); ``sharing.shared`` must hold."""
        if not shared(self.variant, source.variant, sector):
            raise TableError(
                f"sector {sector_name(sector)} of {source.variant.name} does not have the "
                f"values of {self.variant.name}'s: their rules differ on it"
            )
        target = os.path.relpath(source.path.resolve(), self.path.resolve().parent)
        key = sector_key(sector)
        with _h5(self.path, "a") as f:
            group = f[SECTORS]
            if key in group:
                del group[key]
            group[key] = h5py.ExternalLink(target, f"/{SECTORS}/{key}")

    def _link_target(self, link: h5py.ExternalLink) -> Path:
        return (self.path.parent / link.filename).resolve()

    def _dataset(self, f: h5py.File, layer: str, sector: Sector) -> h5py.Dataset | None:
        """The sector's dataset in the open file ``f``, following a link to a shared
        sector's file; None if there is none. A link to a missing file, or to one whose
        rules give the sector other values, is a ``TableError``."""
        group = f.get(layer)
        key = sector_key(sector)
        if group is None or key not in group:
            return None
        link = group.get(key, getlink=True)
        if not isinstance(link, h5py.ExternalLink):
            return group[key]
        target = self._link_target(link)
        where = f"sector {sector_name(sector)} of {self.path} is shared with {target}"
        if not target.exists():
            raise TableError(f"{where}, which is missing")
        source = self._sources.get(target)
        if source is None:
            source = self._sources[target] = TableFile.open(target)
        if not shared(self.variant, source.variant, sector):
            raise TableError(f"{where}, whose rules ({source.variant.name}) give it other values")
        try:
            return group[key]
        except (KeyError, OSError) as e:
            raise TableError(f"{where}, which cannot be read ({e})") from None

    def sector_set(self, layer: str = SECTORS) -> set[Sector]:
        """The complete sectors, without reading their statistics (``sectors`` reads
        every attribute: a second for Nine Men's Morris' 318 sectors)."""
        with _h5(self.path, "r") as f:
            names = f.get(layer, {})
            return {parse_sector_key(n) for n in names if not n.startswith(_TMP_PREFIX)}

    def layers(self) -> list[str]:
        """The layers the file holds: ``SECTORS``, then the draw-rule layers."""
        with _h5(self.path, "r") as f:
            return [SECTORS, *(f"draw_rules/{n}" for n in f.get("draw_rules", {}))]

    def has_sector(self, sector: Sector, layer: str = SECTORS) -> bool:
        with _h5(self.path, "r") as f:
            return self._dataset(f, layer, sector) is not None

    def read_sector(self, sector: Sector, layer: str = SECTORS) -> np.ndarray:
        """The sector's codes, checksum-verified; raises TableError if absent or damaged."""
        try:
            with _h5(self.path, "r") as f:
                ds = self._dataset(f, layer, sector)
                if ds is None:
                    raise TableError(f"{self.path} has no sector {sector_name(sector)}"
                                     + ("" if layer == SECTORS else f" in {layer}"))
                return ds[...]
        except OSError as e:
            raise TableError(
                f"sector {sector_name(sector)} of {self.path} is damaged ({e})"
            ) from None

    def chunk_slots(self, sector: Sector, layer: str = SECTORS) -> int | None:
        """Slots per HDF5 chunk of a stored sector (the unit ``read_chunks`` reads), or
        None if the file has no such sector."""
        with _h5(self.path, "r") as f:
            ds = self._dataset(f, layer, sector)
            if ds is None:
                return None
            return ds.chunks[0] if ds.chunks else max(1, ds.shape[0])

    def read_chunks(
        self, sector: Sector, chunks: list[int], slots: int, layer: str = SECTORS
    ) -> dict[int, np.ndarray]:
        """The codes of HDF5 chunks of a sector (``chunk_slots`` each), checksum-verified,
        without reading the rest of it. A chunk is the least HDF5 can decompress, so a
        point probe into a sector of 600 million slots reads a few MB, not the whole
        sector. ``slots`` is the size the index gives the sector: a dataset of another
        size or type is reported as damaged."""
        try:
            with _h5(self.path, "r") as f:
                ds = self._dataset(f, layer, sector)
                if ds is None:
                    raise TableError(f"{self.path} has no sector {sector_name(sector)}")
                dtype = np.dtype(_layer_dtype(layer))
                if ds.dtype != dtype or ds.shape != (slots,):
                    raise TableError(
                        f"sector {sector_name(sector)} of {self.path} holds {ds.shape} "
                        f"{ds.dtype} codes, "
                        f"not the {slots} {dtype} codes of its index"
                    )
                step = ds.chunks[0] if ds.chunks else max(1, slots)
                return {c: ds[c * step : (c + 1) * step] for c in chunks}
        except OSError as e:
            raise TableError(
                f"sector {sector_name(sector)} of {self.path} is damaged ({e})"
            ) from None

    def write_sector(
        self, sector: Sector, codes: np.ndarray, stats: dict, layer: str = SECTORS
    ) -> None:
        """Commit a solved sector atomically (temporary name, then rename)."""
        key = sector_key(sector)
        with _h5(self.path, "a") as f:
            group = f.require_group(layer)
            tmp = _TMP_PREFIX + key
            if tmp in group:
                del group[tmp]
            ds = group.create_dataset(
                tmp,
                data=codes,
                chunks=(min(_CHUNK, max(1, len(codes))),),
                fletcher32=True,
                **_COMPRESSION,
            )
            for k, v in stats.items():
                ds.attrs[k] = v
            f.flush()
            if key in group:
                del group[key]
            group.move(tmp, key)
            f.flush()


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
