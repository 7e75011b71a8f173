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
import re
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TypeVar

import h5py
import numpy as np

from ..core.errors import DIGITS, MorrisError, quoted
from ..rules.board import BOARDS
from ..rules.drawrules import MAX_LIMIT
from ..rules.sectors import Sector, parse_sector_key, sector_key, sector_name
from ..rules.sharing import shared
from ..rules.variants import Variant, get_variant

FORMAT_VERSION = 1
METRIC = "plies to the end of the game (depth to win), through captures"
STAT_KEYS = ("positions", "wins", "draws", "losses", "max_win_plies", "max_loss_plies")
# the statistics of a sector's draw-rule values (``drawrules.statistics``)
RULE_STAT_KEYS = ("positions", "wins", "cursed_wins", "draws", "blessed_losses", "losses",
                  "max_win_z", "max_loss_z")
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
_SECTOR_NAME = re.compile("_".join([DIGITS] * 4))
_RULE_LAYER_NAME = re.compile(r"L([1-9][0-9]{0,2})")
_Read = TypeVar("_Read")


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


class MissingSectorError(TableError):
    """A sector a query needs is not in the table file (``sector``: None where a whole
    layer is missing, such as the draw-rule values of a move limit)."""

    def __init__(self, message: str, sector: Sector | None):
        super().__init__(message)
        self.sector = sector


def check_variant(path: Path, variant: Variant, asked: Variant) -> None:
    """A ``TableError`` unless the variant ``asked`` about is the file's ``variant``."""
    if asked is not variant and asked != variant:
        raise TableError(f"{path} holds tables of {variant.name}, not of {asked.name} "
                         "(the position's variant)")


def damaged_sector(path: Path, sector: Sector) -> TableError:
    """The error for a sector whose canonical slot reads as padding (the probe's and the
    search's, which reads the codes in its own kernel)."""
    return TableError(
        f"sector {sector_name(sector)} of {path} is damaged "
        "(a canonical position reads as a padding slot)"
    )


# What h5py raises where a file's bytes make no sense, by the call that meets them: a
# damaged object header is a KeyError on opening the object, a damaged group a
# RuntimeError on listing it, a failed checksum an OSError; ValueError and TypeError
# come from attributes and datatypes that no longer decode.
_DAMAGE = (OSError, KeyError, RuntimeError, ValueError, TypeError)


@contextmanager
def _damage_is_table_error(what: str) -> Iterator[None]:
    """Inside, an error of ``_DAMAGE`` is a one-line ``TableError`` saying ``what`` is
    damaged; a ``TableError`` (a ValueError too) from the checks inside goes through.
    Only reads of the file go inside, so a bug elsewhere still shows its traceback."""
    try:
        yield
    except MorrisError:
        raise
    except _DAMAGE as e:
        reason = " ".join(str(e).split()) or type(e).__name__
        raise TableError(f"{what} ({reason})") from None


_HEAP_WINDOW = 1 << 16  # h5py puts the string attributes' heap at the file's start


def _refuse_looping_heaps(path: Path) -> None:
    """A TableError if a global heap collection (where HDF5 keeps the root's string
    attributes) near the file's start holds a zeroed object header before its end:
    HDF5 1.14 decodes it as free space of length 0 and loops forever on reading any
    attribute (seen with 4 KB zeroed at byte 2263 of a solved six.h5). Only the first
    ``_HEAP_WINDOW`` bytes are searched: this toolkit writes no strings later."""
    with open(path, "rb") as fh:
        head = fh.read(_HEAP_WINDOW + 4096)
    for found in re.finditer(b"GCOL\x01", head):
        start = found.start()
        size = int.from_bytes(head[start + 8 : start + 16], "little")
        end = min(start + size, len(head))
        at = start + 16
        while at + 16 <= end:
            index = int.from_bytes(head[at : at + 2], "little")
            length = int.from_bytes(head[at + 8 : at + 16], "little")
            if index == 0 and length == 0:
                raise TableError(f"{path} is a damaged table file (a global heap of its "
                                 f"attributes is zeroed at byte {at})")
            at += length if index == 0 else 16 + (length + 7) // 8 * 8


def _refuse_unless_regular(path: Path) -> None:
    """A TableError unless ``path`` is a regular file (or a link to one), before anything
    opens it: reading a FIFO or a device waits forever or never ends."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise TableError(f"no table file at {path}") from None
    except OSError as e:  # a name too long, a folder that is not one, no permission
        raise TableError(f"cannot read {quoted(str(path), 200)}: {e.strerror}") from None
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket"
                if stat.S_ISSOCK(mode) else "not a regular file")
        raise TableError(f"{path} is {kind}, not a table file")


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


_ABANDONED: list[h5py.File] = []  # files left open after a failed write (``_writing``)


@contextmanager
def _writing(path: Path, mode: str = "a") -> Iterator[h5py.File]:
    """``path`` open for writing. When HDF5 fails to write (a full disk), closing the
    file, or freeing any of its objects, would make HDF5 close a half-closed dataset
    again: a segmentation fault, at the latest when the interpreter exits. So the
    file's objects are then kept open for the life of the process (an extra reference
    on each, and the file in ``_ABANDONED``), and the error is one ``TableError`` line;
    what the file held before stays readable, and a later process resumes. Ctrl-C
    waits until the file is closed (``_sigint_deferred``)."""
    with _sigint_deferred():
        f = _h5(path, mode)
        try:
            yield f
            f.close()
        except MorrisError:
            f.close()
            raise
        except (OSError, RuntimeError, KeyError, ValueError) as e:
            if f.id.valid:
                for obj in h5py.h5f.get_obj_ids(f.id, h5py.h5f.OBJ_ALL):
                    h5py.h5i.inc_ref(obj)
                _ABANDONED.append(f)
            raise _write_error(path, e) from None
        except BaseException:
            f.close()
            raise


def _write_error(path: Path, error: Exception) -> TableError:
    """A failed write as one line, led by the system's reason where HDF5 gives one."""
    found = re.search(r"errno = (\d+)", str(error))
    code = getattr(error, "errno", None) or (int(found[1]) if found else None)
    reason = os.strerror(code) if code else " ".join(str(error).split()[:12])
    return TableError(f"{reason[:1].lower()}{reason[1:]} writing {path}: the sectors committed "
                      "before are kept; rerun the same command to resume")


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Inside, a SIGINT (Ctrl-C) waits; its handler runs once the block is left, so a
    handler that exits at once (``morris solve``'s) never cuts a write short. Only the
    main thread handles signals: elsewhere nothing changes."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is None):  # a handler not set from Python
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, None)
        elif caught and previous == signal.SIG_DFL:
            os.kill(os.getpid(), signal.SIGINT)


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
        """Open an existing file for reading. Everything the readers take on trust is
        checked here, once (docs/format.md): the root attributes, the rules, and every
        layer's groups, sector names, dataset types and statistics attributes, so a
        crafted or foreign file is one ``TableError`` naming the file and the problem,
        never an exception deep in a reader. Only the codes are left to ``_read``."""
        path = Path(path)
        _refuse_unless_regular(path)
        _refuse_looping_heaps(path)
        with _damage_is_table_error(f"{path} is not a readable HDF5 table file"):
            f = _h5(path, "r")
        with f, _damage_is_table_error(f"{path} is a damaged table file"):
            attrs = dict(f.attrs)
            rules, variant = _checked_rules(path, attrs)
            _check_layers(path, f, variant)
        return cls(path, variant, rules, attrs)

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
            with _writing(path) as f:
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
        with _writing(tmp, "w") as f:
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
        with self._reading() as f:
            found = {}
            for name in f.get(layer, {}):
                if not name.startswith(_TMP_PREFIX):
                    sector = parse_sector_key(name)
                    ds = self._dataset(f, layer, sector)
                    assert ds is not None  # listed in the layer's group
                    found[sector] = {k: _plain(v) for k, v in ds.attrs.items()}
            return found

    def shared_sectors(self) -> dict[Sector, Path]:
        """The sectors this file links to in other files (``sharing``), with the file."""
        with self._reading() as f:
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
        with _writing(self.path) as f:
            group = f[SECTORS]
            if key in group:
                del group[key]
            group[key] = h5py.ExternalLink(target, f"/{SECTORS}/{key}")

    @contextmanager
    def _reading(self) -> Iterator[h5py.File]:
        """The file open for reading, any damage met inside one ``TableError`` line."""
        with _damage_is_table_error(f"{self.path} is a damaged table file"):
            with _h5(self.path, "r") as f:
                yield f

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
        with self._reading() as f:
            names = f.get(layer, {})
            return {parse_sector_key(n) for n in names if not n.startswith(_TMP_PREFIX)}

    def layers(self) -> list[str]:
        """The layers the file holds: ``SECTORS``, then the draw-rule layers."""
        with self._reading() as f:
            return [SECTORS, *(f"draw_rules/{n}" for n in f.get("draw_rules", {}))]

    def has_sector(self, sector: Sector, layer: str = SECTORS) -> bool:
        with self._reading() as f:
            return self._dataset(f, layer, sector) is not None

    def read_sector(self, sector: Sector, layer: str = SECTORS) -> np.ndarray:
        """The sector's codes, checksum-verified; raises TableError if absent or damaged."""
        return self._read(sector, layer, lambda ds: ds[...])

    def chunk_slots(self, sector: Sector, layer: str = SECTORS) -> int | None:
        """Slots per HDF5 chunk of a stored sector (the unit ``read_chunks`` reads), or
        None if the file has no such sector."""
        with self._reading() as f:
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

        def read(ds: h5py.Dataset) -> dict[int, np.ndarray]:
            dtype = np.dtype(_layer_dtype(layer))
            if ds.dtype != dtype or ds.shape != (slots,):
                raise TableError(
                    f"sector {sector_name(sector)} of {self.path} holds {ds.shape} "
                    f"{ds.dtype} codes, not the {slots} {dtype} codes of its index"
                )
            step = ds.chunks[0] if ds.chunks else max(1, slots)
            return {c: ds[c * step : (c + 1) * step] for c in chunks}

        return self._read(sector, layer, read)

    def _read(
        self, sector: Sector, layer: str, read: Callable[[h5py.Dataset], _Read]
    ) -> _Read:
        """``read`` of the sector's dataset: the one place the codes are read, so an
        error HDF5 reports only then (a failed checksum, bytes that do not decompress)
        is a TableError naming the sector and the file, whoever reads."""
        with _damage_is_table_error(f"sector {sector_name(sector)} of {self.path} is damaged"):
            with _h5(self.path, "r") as f:
                ds = self._dataset(f, layer, sector)
                if ds is None:
                    raise TableError(f"{self.path} has no sector {sector_name(sector)}"
                                     + ("" if layer == SECTORS else f" in {layer}"))
                return read(ds)

    def search_book(self) -> SearchBook | None:
        """The bounds a search of the start left in the file (``write_search_book``), or
        None; ``TableError`` where they do not read back as written."""
        with _damage_is_table_error(f"{self.path}'s search book is damaged"):
            with _h5(self.path, "r") as f:
                return _checked_book(self.path, f)

    def write_search_book(self, book: SearchBook) -> None:
        """Keep ``book`` in the file, replacing any earlier one, in one step (written
        under a temporary name, then renamed), as a sector is."""
        missing = set(BOOK_ABOUT_KEYS) - set(book.about)
        if missing:
            raise ValueError(f"a search book needs {', '.join(sorted(missing))}")
        tmp = _TMP_PREFIX + _BOOK
        with _writing(self.path) as f:
            if tmp in f:
                del f[tmp]
            group = f.create_group(tmp)
            for name in ("keys", "lower", "upper"):
                group.create_dataset(name, data=getattr(book, name), fletcher32=True,
                                     chunks=True, **_COMPRESSION)
            for k, v in book.about.items():
                group.attrs[k] = v
            _commit(f, f, tmp, _BOOK)

    def write_sector(
        self, sector: Sector, codes: np.ndarray, stats: dict, layer: str = SECTORS
    ) -> None:
        """Commit a solved sector atomically (temporary name, then rename)."""
        key = sector_key(sector)
        with _writing(self.path) as f:
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
            _commit(f, group, tmp, key)


def _commit(f: h5py.File, group: h5py.Group, tmp: str, name: str) -> None:
    """Give ``group``'s entry ``tmp``, written whole, its ``name`` in one step, replacing
    what had that name: a reader sees the old entry or the new one, never half of it."""
    f.flush()
    if name in group:
        del group[name]
    group.move(tmp, name)
    f.flush()


@dataclass(frozen=True)
class SearchBook:
    """Bounds a search of the placement phase proved (``search.PlacementSearch.bounds``),
    kept in the table file (``/search_book``, docs/format.md) so that the first plies of
    a variant whose placement tables are not solved are answered without searching
    again: ``keys`` sorted, ``lower`` and ``upper`` on each position's win (1), draw (0)
    or loss (-1) for its side to move; ``about`` says what search proved them."""

    keys: np.ndarray  # int64
    lower: np.ndarray  # int8
    upper: np.ndarray  # int8
    about: dict


_BOOK = "search_book"
BOOK_ABOUT_KEYS = ("root", "result", "nodes", "seconds", "min_in_hand", "draw_rule")


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _is_int(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _checked_book(path: Path, f: h5py.File) -> SearchBook | None:
    """The file's search book, or None; a malformed one is a ``TableError``."""
    group = f.get(_BOOK)
    if group is None:
        return None
    variant = f.attrs.get("variant", "VARIANT")
    bad = (f"{path} has a damaged search book: 'morris value {variant} --search --book "
           f"PLIES --db {path}' writes it afresh")
    if not isinstance(group, h5py.Group) or {"keys", "lower", "upper"} - set(group):
        raise TableError(bad)
    keys, lower, upper = (group[name][...] for name in ("keys", "lower", "upper"))
    if (keys.dtype != np.int64 or lower.dtype != np.int8 or upper.dtype != np.int8
            or keys.ndim != 1 or lower.shape != keys.shape or upper.shape != keys.shape
            or np.any(lower < -1) or np.any(upper > 1) or np.any(lower > upper)
            or np.any(keys[1:] <= keys[:-1]) or np.any(keys < 0)):
        raise TableError(bad)
    about = {k: _plain(v) for k, v in group.attrs.items()}
    if (set(BOOK_ABOUT_KEYS) - set(about)
            or not all(_is_int(about[k]) for k in ("nodes", "min_in_hand", "draw_rule"))
            or not all(isinstance(about[k], str) for k in ("root", "result"))
            or not isinstance(about["seconds"], int | float)):
        raise TableError(bad)
    return SearchBook(keys, lower, upper, about)


def _checked_rules(path: Path, attrs: dict) -> tuple[dict, Variant]:
    """The format attributes checked, then the rules and the variant they make: a JSON
    object of exactly ``Variant``'s keys, typed as it types them, on a known board. A
    key this toolkit does not know is refused, not ignored: it may change the values."""
    if str(attrs.get("format")) != "morris-tablebase":
        raise TableError(f"{path} is not a morris tablebase file")
    found = attrs.get("format_version")
    if not _is_int(found) or found != FORMAT_VERSION:
        what = "no format version" if found is None else f"format version {_plain(found)!r}"
        raise TableError(f"{path} has {what}, this toolkit reads version {FORMAT_VERSION}")
    text = attrs.get("rules")
    if not isinstance(text, str):
        raise TableError(f"{path} has no rules attribute (the variant's rules as JSON)")
    try:
        rules = json.loads(text)
    except ValueError as e:
        raise TableError(f"{path} has rules that are not JSON ({e})") from None
    if not isinstance(rules, dict):
        raise TableError(f"{path} has rules that are not a JSON object: {text[:60]}")
    kinds = {f.name: getattr(f.type, "__name__", f.type) for f in fields(Variant)}
    if unknown := sorted(set(rules) - set(kinds)):
        raise TableError(f"{path} has rules this toolkit does not know: {', '.join(unknown)} "
                         "(written by a newer version?)")
    if missing := sorted(set(kinds) - set(rules)):
        raise TableError(f"{path} has rules without {', '.join(missing)}")
    for key, kind in kinds.items():
        if type(rules[key]).__name__ != kind:
            raise TableError(f"{path} has the rule {key} = {rules[key]!r}, not of type {kind}")
    if rules["board_name"] not in BOARDS:
        raise TableError(f"{path} has rules on an unknown board {rules['board_name']!r}")
    return rules, Variant(**rules)


def _check_layers(path: Path, f: h5py.File, variant: Variant) -> None:
    """The layers: ``sectors`` and the draw-rule layers ``draw_rules/L1`` ..., groups
    whose every sector passes ``_sector_problem``."""
    if not isinstance(f.get(SECTORS), h5py.Group):
        raise TableError(f"{path} has no {SECTORS} group")
    layers: dict[str, tuple[str, ...]] = {SECTORS: STAT_KEYS}
    rule_layers = f.get("draw_rules")
    if rule_layers is None:
        rule_layers = {}
    elif not isinstance(rule_layers, h5py.Group):
        raise TableError(f"{path} has a draw_rules entry that is not a group")
    for name in rule_layers:
        limit = _RULE_LAYER_NAME.fullmatch(name)
        layer = rule_layers.get(name)
        if not isinstance(layer, h5py.Group) or not limit or int(limit[1]) > MAX_LIMIT:
            raise TableError(f"{path} has draw_rules/{name}, not a draw-rule layer "
                             f"L1 .. L{MAX_LIMIT}")
        layers[f"draw_rules/{name}"] = RULE_STAT_KEYS
    for layer, keys in layers.items():
        group, dtype = f[layer], np.dtype(_layer_dtype(layer))
        for name in group:
            if not name.startswith(_TMP_PREFIX):
                if problem := _sector_problem(group, name, variant, dtype, keys):
                    raise TableError(f"{path} has {layer}/{name}, {problem}")


def _sector_problem(
    group: h5py.Group, name: str, variant: Variant, dtype: np.dtype, keys: tuple[str, ...]
) -> str | None:
    """What is wrong with the entry ``name`` of a layer, if anything. It reads HDF5's
    low-level objects: the ones h5py builds per dataset and attribute would make opening
    the 318 sectors of Nine Men's Morris take 0.4 s instead of 0.1 s."""
    if not _SECTOR_NAME.fullmatch(name):
        return "not named like a sector (W_B_WF_BF)"
    W, B, WF, BF = parse_sector_key(name)
    if W + WF > variant.stones or B + BF > variant.stones or W + B > variant.board.n:
        return f"not a sector of {variant.name}"
    key = name.encode()
    link = group.id.links.get_info(key).type
    if link == h5py.h5l.TYPE_EXTERNAL:
        return None  # a shared sector: its file is checked where it is followed (``_dataset``)
    ds = h5py.h5o.open(group.id, key) if link == h5py.h5l.TYPE_HARD else None
    if not isinstance(ds, h5py.h5d.DatasetID) or ds.rank != 1 or ds.dtype != dtype:
        return f"not a one-dimensional dataset of {dtype} codes"
    bad = [k for k in keys if not h5py.h5a.exists(ds, k.encode())
           or not _is_int_attribute(h5py.h5a.open(ds, k.encode()))]
    return f"whose statistics lack {', '.join(bad)} (integer attributes)" if bad else None


def _is_int_attribute(attribute: h5py.h5a.AttrID) -> bool:
    return attribute.shape == () and attribute.get_type().get_class() == h5py.h5t.INTEGER
