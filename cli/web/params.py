"""One validated path for everything a client sends: query parameters, JSON bodies and
the live rooms' WebSocket messages.

Every reader here either returns a value of the promised type and range or raises
``BadRequest`` with one line, which the app answers as ``{"error": ...}`` with a 400 (a
404 where the thing named does not exist). Whole numbers are ASCII digits only
(``str.isdigit`` accepts ``²`` and Arabic-Indic digits, which ``int()`` then rejects or
reads as another number) and bounded; text is bounded in length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

MAX_TEXT = 20_000  # a move list of a long game fits many times over
MAX_BODY = 16_384  # bytes of a JSON body or a WebSocket message
_DIGITS = re.compile(r"[0-9]{1,18}")
_FLAGS = {"1": True, "true": True, "on": True, "yes": True,
          "0": False, "false": False, "off": False, "no": False, "": False}


class BadRequest(Exception):
    """A request that is malformed, names something that does not exist, or is not
    allowed: answered with ``status`` and the one-line message."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(" ".join(message.split()))  # one line, whatever the cause said
        self.status = status


def _shown(value: object, limit: int = 40) -> str:
    """A value as an error message quotes it: short, and printable."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def text(params: Mapping[str, Any], name: str, default: str | None = None,
         max_length: int = MAX_TEXT) -> str:
    """A text parameter or field; missing is an error unless there is a default."""
    value = params.get(name, default)
    if value is None:
        raise BadRequest(f"missing {name!r}")
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be text, not {_shown(value)}")
    if len(value) > max_length:
        raise BadRequest(f"{name} is longer than {max_length} characters")
    if "\x00" in value:
        raise BadRequest(f"{name} holds a NUL character")
    return value


def whole_number(params: Mapping[str, Any], name: str, default: int,
                 lowest: int = 0, highest: int = 10**9) -> int:
    """A whole number in ``[lowest, highest]``: ASCII digits in a query string, or a JSON
    integer (not a bool) in a body."""
    value = params.get(name)
    if value is None:
        return default
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise BadRequest(f"{name} must be a whole number, not {_shown(value)}")
    if not lowest <= number <= highest:
        raise BadRequest(f"{name} must be between {lowest} and {highest}, not {number}")
    return number


def flag(params: Mapping[str, Any], name: str, default: bool = False) -> bool:
    """A yes/no parameter: ``1``/``0``, ``true``/``false``, ``on``/``off`` or a JSON bool."""
    value = params.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):  # JSON's 1 and 0, as the query's "1"
        return bool(value)
    if isinstance(value, str) and value.lower() in _FLAGS:
        return _FLAGS[value.lower()]
    raise BadRequest(f"{name} must be 1 or 0 (true or false), not {_shown(value)}")


def choice(params: Mapping[str, Any], name: str, options: tuple[str, ...] | list[str],
           default: str | None = None) -> str:
    """One of ``options``."""
    value = text(params, name, default, max_length=100)
    if value not in options:
        raise BadRequest(f"unknown {name} {_shown(value)}; choose from {', '.join(options)}")
    return value


def json_object(raw: bytes | str, what: str = "body") -> dict:
    """A JSON object of at most ``MAX_BODY`` bytes."""
    if len(raw) > MAX_BODY:
        raise BadRequest(f"the {what} is larger than {MAX_BODY} bytes", status=413)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # bad JSON, bad UTF-8, nesting too deep
        raise BadRequest(f"the {what} is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest(f"the {what} must be a JSON object")
    return data


async def body_object(request) -> dict:
    """A request's JSON body (empty means ``{}``), read up to the size limit only."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BadRequest(f"the body is larger than {MAX_BODY} bytes", status=413)
        chunks.append(chunk)
    raw = b"".join(chunks)
    return json_object(raw) if raw.strip() else {}
