"""Which on-disk encoding for the sector tables: bits per position against load time.

    python benchmarks/disk_encoding.py data/nine.h5 5-5 7-7 9-9

Each sector of an existing table file is re-encoded in every candidate below, in a
scratch HDF5 file with the chunking and fletcher32 checksum
``morris_solver.tables.storage`` uses, then read back into the uint16 codes the probe
and the solver use. Reported per sector and encoding: bits per canonical position,
seconds to write, seconds to load (read, decompress, checksum, widen to uint16; the
scratch file is in the page cache, so this is the decompression cost, not the disk's).

The candidates: the uint16 codes raw, and with gzip at levels 1 and 6 or LZF, each after
HDF5's byte shuffle; and a uint8 form (code 0xFF for padding) where a sector's largest
code fits a byte, which halves the input before compression.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

from morris_solver.rules.sectors import Sector, parse_sector, sector_key
from morris_solver.tables.compact import compact_codes, widen_codes
from morris_solver.tables.storage import TableFile

_CHUNK = 1 << 20


def _gzip(level: int, shuffle: bool) -> dict:
    return {"compression": "gzip", "compression_opts": level, "shuffle": shuffle}


# name -> (dtype, h5py filter options)
ENCODINGS: dict[str, tuple[str, dict]] = {
    "uint16 raw": ("uint16", {}),
    "uint16 shuffle+gzip-1": ("uint16", _gzip(1, True)),
    "uint16 shuffle+gzip-6": ("uint16", _gzip(6, True)),
    "uint16 shuffle+lzf": ("uint16", {"compression": "lzf", "shuffle": True}),
    "uint8 gzip-1": ("uint8", _gzip(1, False)),
    "uint8 lzf": ("uint8", {"compression": "lzf"}),
}


def measure_sector(codes: np.ndarray, positions: int, folder: Path) -> list[dict]:
    rows = []
    small = compact_codes(codes)  # the probe cache's byte form, when every code fits
    for name, (dtype, filters) in ENCODINGS.items():
        if dtype == "uint8" and small.dtype != np.uint8:
            continue
        data = codes if dtype == "uint16" else small
        path = folder / "encoding.h5"
        start = time.perf_counter()
        with h5py.File(path, "w") as f:
            f.create_dataset(
                "s", data=data, chunks=(min(_CHUNK, max(1, len(data))),), fletcher32=True,
                **filters,
            )
        written = time.perf_counter() - start
        with h5py.File(path, "r") as f:
            stored_bytes = f["s"].id.get_storage_size()
        start = time.perf_counter()
        with h5py.File(path, "r") as f:
            back = widen_codes(f["s"][...])
        loaded = time.perf_counter() - start
        if not np.array_equal(back, codes):
            raise AssertionError(f"{name} did not give the codes back")
        rows.append(
            {
                "encoding": name,
                "bytes": int(stored_bytes),
                "bits_per_position": 8 * stored_bytes / positions,
                "write_seconds": written,
                "load_seconds": loaded,
            }
        )
        path.unlink()
    return rows


def measure(table_path: str | Path, sectors: list[Sector]) -> list[dict]:
    """One row per (sector, encoding): see the module docstring."""
    table = TableFile.open(table_path)
    stored = table.sectors()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for s in sectors:
            codes = table.read_sector(s)
            positions = stored[s]["positions"]
            for row in measure_sector(codes, positions, Path(scratch)):
                rows.append({"sector": sector_key(s), "positions": positions, **row})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [
        "| sector | positions | encoding | MB | bits/position | write s | load s |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['sector']} | {r['positions']:,} | {r['encoding']} | {r['bytes'] / 1e6:,.1f} "
            f"| {r['bits_per_position']:.2f} | {r['write_seconds']:.2f} | {r['load_seconds']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", help="an existing table file")
    parser.add_argument("sectors", nargs="+", help="sectors as W-B or W-B-WF-BF")
    args = parser.parse_args(argv)
    try:
        sectors = [parse_sector(s) for s in args.sectors]
    except ValueError as e:
        parser.error(str(e))
    print(markdown(measure(args.table, sectors)))


if __name__ == "__main__":
    main()
