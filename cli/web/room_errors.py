"""Why a live room refuses what was asked, as the referee and the rooms say it: one line
for the client, and a kind. The kinds know nothing of HTTP; ``http_status`` is the one
translation, which the HTTP routes answer with and the WebSocket's refusals report."""

from __future__ import annotations


class RoomError(Exception):
    """A request about a room that cannot be done; the message is one line."""


class Invalid(RoomError):
    """Unreadable or illegal: an unknown action, a bad move, a malformed token."""


class NotAllowed(RoomError):
    """Not this client's to do: a watcher playing, a wrong seat token or invite code."""


class NoSuchRoom(RoomError):
    """No room by that id (never made, or removed after its time to live)."""


class NotNow(RoomError):
    """Allowed in general, not in the room's present state: not your turn, the game is
    over, the seat is taken."""


class TooMany(RoomError):
    """Past a rate limit."""


class Busy(RoomError):
    """Other writers kept winning the race for the room: try again."""


_STATUS: dict[type[RoomError], int] = {Invalid: 400, NotAllowed: 403, NoSuchRoom: 404,
                                       NotNow: 409, TooMany: 429, Busy: 503}


def http_status(error: RoomError) -> int:
    """The HTTP status that answers ``error`` (400 for the bare base class)."""
    return next((status for kind, status in _STATUS.items() if isinstance(error, kind)), 400)
