"""Crafted table files: every command that opens a table refuses one with one line and
exit status 1, never a traceback. ``TableFile.open`` checks the file once; damaged codes,
seen only when read, are refused where sectors are read (``TableFile._read``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from morris_cli.main import main

COMMANDS = {
    "info": ["info", "{path}"],
    "probe": ["probe", "three", "a1", "--db", "{path}"],
    "bestmove": ["bestmove", "three", "a1", "--db", "{path}"],
    "value": ["value", "three", "--db", "{path}"],
    "verify": ["verify", "{path}"],
    "solve": ["solve", "three", "--out", "{path}", "--quiet"],  # resumes the file
    "serve": ["serve", "--db", "{path}"],
}


def _edit(change: Callable[[h5py.File], object]) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        with h5py.File(path, "a") as f:
            change(f)

    return build


def _set(key: str, value, at: str = "/") -> Callable[[Path], None]:
    """Set the attribute ``key`` of the object at ``at`` to ``value`` (None: delete it)."""

    def change(f: h5py.File) -> None:
        if value is None:
            del f[at].attrs[key]
        else:
            f[at].attrs[key] = value

    return _edit(change)


def _set_rules(**changes) -> Callable[[Path], None]:
    def change(f: h5py.File) -> None:
        f.attrs["rules"] = json.dumps({**json.loads(f.attrs["rules"]), **changes})

    return _edit(change)


def _replace_sector(f: h5py.File, key: str, data: np.ndarray) -> None:
    attrs = dict(f["sectors"][key].attrs)
    del f["sectors"][key]
    f["sectors"].create_dataset(key, data=data).attrs.update(attrs)


def _add_dataset(key: str, data: np.ndarray) -> Callable[[Path], None]:
    return _edit(lambda f: f["sectors"].create_dataset(key, data=data))


# case: (how to craft it from a solved Three Men's Morris file, what the line says)
CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "rules not JSON": (_set("rules", "{not json"), "has rules that are not JSON"),
    "rules missing": (_set("rules", None), "has no rules attribute"),
    "rules not an object": (_set("rules", "[3]"), "has rules that are not a JSON object"),
    "rule key from a newer version": (_set_rules(capture_rule="any"),
                                      "has rules this toolkit does not know: capture_rule"),
    "rule of the wrong type": (_set_rules(stones="three"), "has the rule stones = 'three'"),
    "unknown board": (_set_rules(board_name="hex"), "has rules on an unknown board 'hex'"),
    "format version not a number": (_set("format_version", "one"), "has format version 'one'"),
    "no format attribute": (_set("format", None), "is not a morris tablebase file"),
    "dataset not named like a sector": (_add_dataset("codes", np.zeros(3, np.uint16)),
                                        "has sectors/codes, not named like a sector"),
    "sector the variant cannot have": (_add_dataset("9_9_0_0", np.zeros(3, np.uint16)),
                                       "has sectors/9_9_0_0, not a sector of three"),
    "sector without statistics": (_set("wins", None, "sectors/0_1_3_2"),
                                  "has sectors/0_1_3_2, whose statistics lack wins"),
    "statistic not a number": (_set("wins", "many", "sectors/0_1_3_2"),
                               "has sectors/0_1_3_2, whose statistics lack wins"),
    "sector of floats": (_edit(lambda f: _replace_sector(f, "0_1_3_2", np.zeros(3, np.float32))),
                         "has sectors/0_1_3_2, not a one-dimensional dataset of uint16 codes"),
    "no sectors group": (_edit(lambda f: f.__delitem__("sectors")), "has no sectors group"),
    "foreign draw-rule layer": (_edit(lambda f: f.create_group("draw_rules/Lfoo")),
                                "has draw_rules/Lfoo, not a draw-rule layer"),
    "not HDF5": (lambda path: path.write_text("hello\n"), "is not a readable HDF5 table file"),
    "empty": (lambda path: path.write_bytes(b""), "is not a readable HDF5 table file"),
}


def _run(command: str, path: Path, monkeypatch):
    if command == "serve":
        pytest.importorskip("uvicorn")
        pytest.importorskip("starlette")
        monkeypatch.setattr("morris_cli.serve.run_server",
                            lambda *a, **k: pytest.fail("the server started"))
    args = [a.format(path=path) for a in COMMANDS[command]]
    return CliRunner().invoke(main, args)


def _assert_one_line(result, path: Path, message: str) -> None:
    """Exit 1 through the CLI's error boundary with one line naming the file."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert str(path) in lines[0] and message in lines[0], lines[0]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", CASES)
def test_a_crafted_file_is_one_line(table_paths, tmp_path, monkeypatch, case, command):
    path = tmp_path / "three.h5"
    shutil.copy(table_paths["three"], path)
    craft, message = CASES[case]
    craft(path)
    result = _run(command, path, monkeypatch)
    _assert_one_line(result, path, message)
    assert result.output.strip() == result.stderr.strip()  # nothing else printed


def _damage_codes(path: Path) -> None:
    """Invert the bytes of every sector's first chunk: HDF5 sees it only on reading it."""
    with h5py.File(path, "r") as f:
        chunks = [ds.id.get_chunk_info(0) for ds in f["sectors"].values()]
    with open(path, "r+b") as fh:
        for chunk in chunks:
            fh.seek(chunk.byte_offset)
            data = fh.read(chunk.size)
            fh.seek(chunk.byte_offset)
            fh.write(bytes(b ^ 0xFF for b in data))


@pytest.mark.parametrize("command", ["probe", "bestmove", "value", "verify", "solve"])
def test_damaged_codes_are_one_line(table_paths, tmp_path, monkeypatch, command):
    path = tmp_path / "three.h5"
    shutil.copy(table_paths["three"], path)
    if command == "solve":  # the start's sector is solved again from the damaged ones
        with h5py.File(path, "a") as f:
            del f["sectors/0_0_3_3"]
    _damage_codes(path)
    result = _run(command, path, monkeypatch)
    _assert_one_line(result, path, "is damaged")
    assert result.stderr.strip().startswith("Error: sector ")
