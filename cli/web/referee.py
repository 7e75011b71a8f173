"""The referee of a live room: the room's state as a fold over its numbered events, and
the decision whether a seat's action is allowed, which becomes the next event.

A room holds two seats: the host (who created it) and the guest (who opened the invite
link). They play a series of games; a rematch swaps the colours. Everything that
happens is an event with a version (1, 2, ...), a kind, the time on the server (``at``,
milliseconds) and its facts; the state is what the events say, so any process can
rebuild it from the store, and a client is a view of the last state it was sent.

Nothing here knows where events are kept or how they travel (``morris_cli.web.roomstore``,
``morris_cli.web.live``); nothing here reads a table. Tokens are not here either: the caller has
already mapped a token to a seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from morris_solver.core.errors import MorrisError
from morris_solver.rules.game import Game
from morris_solver.rules.outcome import winner
from morris_solver.rules.rules import parse_move
from morris_solver.rules.variants import get_variant

from .game_json import game_json, move_json, played_moves
from .room_errors import Invalid, NotAllowed, NotNow

SEATS = ("host", "guest")
COLORS = ("white", "black")
ACTIONS = ("move", "resign", "offer_draw", "accept_draw", "decline_draw", "rematch")


@dataclass(frozen=True)
class RoomRecord:
    """What a room is created with and never changes (the seat tokens' hashes live
    beside it in the store, never in the state)."""

    id: str
    variant: str
    draw_rules: bool
    move_limit: int
    host_color: str  # the host's colour in the first game
    created: int  # milliseconds since the epoch

    def as_json(self) -> dict:
        return {"id": self.id, "variant": self.variant, "draw_rules": self.draw_rules,
                "move_limit": self.move_limit, "host_color": self.host_color,
                "created": self.created}

    @classmethod
    def from_json(cls, data: dict) -> RoomRecord:
        return cls(**{k: data[k] for k in ("id", "variant", "draw_rules", "move_limit",
                                           "host_color", "created")})


def other(color: str) -> str:
    return "black" if color == "white" else "white"


@dataclass
class FinishedGame:
    number: int
    white: str  # the seat that played White
    moves: list[str]
    over: dict


@dataclass
class RoomState:
    """A room after its events so far."""

    record: RoomRecord
    version: int = 0
    guest_joined: bool = False
    number: int = 1  # the game being played (or last played)
    game: Game = field(init=False)  # the game being played, made from the record
    started: int | None = None  # when the current game started (both seats taken)
    turn_since: int | None = None
    elapsed: dict[str, int] = field(default_factory=lambda: {"white": 0, "black": 0})
    over: dict | None = None  # {"winner", "reason", "result"} once the game has ended
    draw_offer: str | None = None  # the colour that offers a draw
    rematch_offer: str | None = None  # the seat that asks for a rematch
    finished: list[FinishedGame] = field(default_factory=list)
    # (game number, seat, id) -> (version, move): a retried id answers its move's version;
    # keyed by game so that a bot numbering its moves per game starts afresh at a rematch
    move_ids: dict[tuple[int, str, str], tuple[int, str]] = field(default_factory=dict)
    touched: int = 0

    def __post_init__(self) -> None:
        self.game = self._new_game()
        self.touched = self.record.created

    def _new_game(self) -> Game:
        return Game(get_variant(self.record.variant), draw_rules=self.record.draw_rules,
                    move_limit=self.record.move_limit)

    # -- who is who -------------------------------------------------------------------

    def color_of(self, seat: str) -> str:
        """The seat's colour in the current game (colours swap at each rematch)."""
        host = self.record.host_color if self.number % 2 == 1 else other(self.record.host_color)
        return host if seat == "host" else other(host)

    def seat_of(self, color: str) -> str:
        return "host" if self.color_of("host") == color else "guest"

    def to_move(self) -> str:
        return "white" if self.game.position.white_to_move else "black"

    # -- deciding ---------------------------------------------------------------------

    def decide(self, seat: str | None, action: str, move: str | None = None,
               move_id: str | None = None, now: int = 0) -> dict | int:
        """The event that ``seat``'s ``action`` makes, or the version of the event a
        repeated move (same game, seat, ``move_id`` and move) already made. Raises
        ``NotAllowed`` (not a player), ``Invalid`` (an unknown action, an illegal move)
        or ``NotNow`` (not in this state; an id already used for another move in this
        game)."""
        if seat not in SEATS:
            raise NotAllowed("watchers cannot play: open the room with a seat's link")
        if action not in ACTIONS:
            raise Invalid(f"unknown action {action!r}")
        if action == "move" and move_id is not None:
            done = self.move_ids.get((self.number, seat, move_id))
            if done is not None:
                version, played = done
                if not _same_move(move, played):
                    raise NotNow(f"move id {move_id!r} was already used for {played} "
                                 "in this game")
                return version
        color = self.color_of(seat)
        base = {"kind": action, "v": self.version + 1, "at": now, "seat": seat, "color": color}
        if action == "rematch":
            if self.over is None:
                raise NotNow("the game is not over: a rematch comes after it")
            if self.rematch_offer == seat:
                raise NotNow("you already asked for a rematch")
            return base
        if not self.guest_joined:
            raise NotNow("your friend has not joined yet")
        if self.over is not None:
            raise NotNow(f"the game is over ({self.over['reason']})")
        if action == "resign":
            return base
        if action == "offer_draw":
            if self.draw_offer == color:
                raise NotNow("you already offered a draw")
            return base
        if action in ("accept_draw", "decline_draw"):
            if self.draw_offer != other(color):
                raise NotNow("no draw is offered to you")
            return base
        # a move
        if self.to_move() != color:
            raise NotNow("not your turn")
        if not move:
            raise Invalid("no move given")
        position = self.game.position
        try:
            parsed = parse_move(move, position)
        except MorrisError as e:
            raise Invalid(str(e)) from None
        return {**base, "move": parsed.text(position.board), "id": move_id}

    # -- applying ---------------------------------------------------------------------

    def apply(self, event: dict) -> None:
        """Fold one event in (events come in version order; each is applied once)."""
        if event["v"] != self.version + 1:
            raise ValueError(f"event {event['v']} after version {self.version}")
        self.version = event["v"]
        at = event["at"]
        self.touched = at
        kind = event["kind"]
        if kind == "join":
            self.guest_joined = True
            self.started = self.turn_since = at
        elif kind == "move":
            color = event["color"]
            self.elapsed[color] += max(0, at - (self.turn_since or at))
            self.turn_since = at
            self.game.play(event["move"])
            self.draw_offer = None  # a move answers an offer by playing on
            if event.get("id") is not None:
                self.move_ids[self.number, event["seat"], event["id"]] = (event["v"],
                                                                          event["move"])
            end = self.game.outcome()
            if end is not None:
                self._end(at, winner(end, self.game.position.white_to_move), end.reason)
        elif kind == "resign":
            self._settle_clock(at)
            self._end(at, other(event["color"]), f"{event['color']} resigned")
        elif kind == "offer_draw":
            self.draw_offer = event["color"]
        elif kind == "decline_draw":
            self.draw_offer = None
        elif kind == "accept_draw":
            self._settle_clock(at)
            self._end(at, None, "draw agreed")
        elif kind == "rematch":
            if self.rematch_offer is None:
                self.rematch_offer = event["seat"]
            else:  # both asked: the next game, colours swapped
                if self.over is None:
                    raise ValueError(f"event {event['v']}: a rematch of a game not over")
                self.finished.append(FinishedGame(self.number, self.seat_of("white"),
                                                  self.moves(), self.over))
                self.number += 1
                self.game = self._new_game()
                self.over = self.draw_offer = self.rematch_offer = None
                self.elapsed = {"white": 0, "black": 0}
                self.started = self.turn_since = at
        else:
            raise ValueError(f"unknown event kind {kind!r}")

    def _settle_clock(self, at: int) -> None:
        mover = self.to_move()
        self.elapsed[mover] += max(0, at - (self.turn_since or at))
        self.turn_since = at

    def _end(self, at: int, won_by: str | None, reason: str) -> None:
        result = f"{won_by} wins" if won_by else "draw"
        self.over = {"winner": won_by, "reason": reason, "result": result}
        self.turn_since = None
        self.draw_offer = None

    # -- showing ----------------------------------------------------------------------

    def moves(self) -> list[str]:
        return played_moves(self.game)

    def as_json(self, connected: dict[str, bool] | None = None, now: int = 0) -> dict:
        """The state every client sees (no token, nothing secret): the position, the
        moves, the legal moves to click, the clocks and the offers."""
        board = self.game.position.board
        over = self.over
        legal = [] if over or not self.guest_joined else self.game.legal_moves()
        connected = connected or {}
        return {
            "room": self.record.id,
            "variant": self.record.variant,
            "draw_rules": self.record.draw_rules,
            "move_limit": self.record.move_limit,
            "version": self.version,
            "game": self.number,
            "seats": {color: {"seat": self.seat_of(color),
                              "taken": self.seat_of(color) == "host" or self.guest_joined,
                              "connected": bool(connected.get(self.seat_of(color)))}
                      for color in COLORS},
            "status": "over" if over else ("playing" if self.guest_joined else "waiting"),
            **game_json(self.game),
            "over": over,
            "draw_offer": self.draw_offer,
            "rematch_offer": self.rematch_offer,
            "elapsed": dict(self.elapsed),
            "turn_since": self.turn_since,
            "server_time": now,
            "legal": [move_json(m, board.points) | {"move": m.text(board)} for m in legal],
            # earlier games without their moves, so that a state stays small however
            # many rematches a room plays (a game's moves are in its review)
            "finished": [{"game": g.number, "white": g.white, "plies": len(g.moves),
                          "over": g.over} for g in self.finished],
        }


def _same_move(sent: str | None, played: str) -> bool:
    """Whether ``sent`` names the move ``played`` (as written in the event): the
    notation read loosely as ``parse_move`` reads it, removals in any order."""
    if not sent:
        return False

    def key(text: str) -> tuple[str, frozenset[str]]:
        head, *removed = text.strip().lower().split("x")
        return head, frozenset(removed)

    return key(sent) == key(played)


def replay(record: RoomRecord, events: list[dict]) -> RoomState:
    """The state of a room from its record and every event so far."""
    state = RoomState(record)
    for event in events:
        state.apply(event)
    return state
