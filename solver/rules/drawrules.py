"""Values under the draw rule of a move limit: the 100 moving plies without a capture
after which a game is drawn (docs/draw_rules.md), as Syzygy's DTZ tables do for chess.

The rule. The count ``c`` is the number of moving-phase plies (slides or flights) since
the last capture; placement plies do not count and a capture in either phase resets it
to 0. A ply that captures nothing and brings the count to the limit ``L`` draws the
game, unless the opponent cannot move after it (that ends the game first).

``Z`` of a moving-phase position is the least number of plies in which the side to move
can force, against a defender who delays it, either a capture (by either side) into a
position that is won under the rule at count 0 for it, or the end of the game; a loss
mirrors it (the plies until the opponent's such capture or the end, the loser
delaying). The side to move wins at count ``c`` exactly when it wins with ``Z <= L - c``.
A rule win is a win of the game and a rule loss a loss (a strategy that wins before any
draw is claimed wins without the rule too), so at count 0 every position is one of five
classes: a win, a *cursed win* (won in the game, drawn under the rule), a draw, a
*blessed loss*, a loss.

Codes, one byte a position in the layer ``draw_rules/L{L}`` of the table file:
``RULE_PAD`` for padding slots; 0 for no result within the limit at count 0 (a draw, a
cursed win or a blessed loss: the game's own code tells which); else ``2 Z`` for a win
and ``2 Z + 1`` for a loss. A placement position is always at count 0: its code is 2 for
a win, 1 or 3 for a loss, 0 for a draw, and carries no distance.

How they are computed. Within a moving-phase group (a twin: no move inside it captures)
the rule game is the game of the tables in which every capture ends the game at once,
with the result its target position has under the rule at count 0, read from the target
sector's rule codes (``exit_view``). The retrograde kernels solve that game unchanged,
given those views as the exit sectors, except that a win and a loss can now be equally
far (``retrograde.frontier_of``); the levels stop at Z = L.
"""

from __future__ import annotations

import numpy as np

from .values import PAD

RULE_PAD = 0xFF
DEFAULT_LIMIT = 100
MAX_LIMIT = 127  # 2 L + 1 stays below RULE_PAD
CLASSES = ("win", "cursed-win", "draw", "blessed-loss", "loss")
# the verifier's scores of a move under the rule, smaller is better for the side that
# plays it: a win in Z scores Z, a draw SCORE_DRAW, a loss in Z SCORE_LOSS - Z
SCORE_DRAW = 256
SCORE_LOSS = 512
_STEP = 1 << 24  # slots per step of the whole-sector passes: bounded temporaries


def check_limit(limit: int) -> int:
    """``limit`` if the byte codes can hold it, else a ValueError naming the range."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"the move limit must be between 1 and {MAX_LIMIT}, not {limit}")
    return limit


def to_bytes(codes: np.ndarray) -> np.ndarray:
    """The rule game's uint16 codes (at most ``2 L + 1``, or ``PAD``) as stored bytes."""
    out = np.empty(len(codes), np.uint8)
    for lo in range(0, len(codes), _STEP):
        part = codes[lo : lo + _STEP]
        out[lo : lo + _STEP] = np.where(part == PAD, RULE_PAD, part)
    return out


def exit_view(sector, rule_codes: np.ndarray) -> np.ndarray:
    """A solved sector's rule codes as the exit sector of a group in the rule game: the
    result under the rule at count 0 for its side to move, as a game code the kernels
    read (1: lost, so a capture into it wins at once; 2: won, so it loses at once; 0: no
    result; ``PAD`` for padding). ``sector`` is unused: the signature of a
    ``SectorCache`` preparation."""
    out = np.empty(len(rule_codes), np.uint16)
    for lo in range(0, len(rule_codes), _STEP):
        r = rule_codes[lo : lo + _STEP]
        out[lo : lo + _STEP] = np.where(
            r == RULE_PAD, PAD, np.where(r == 0, 0, np.where(r & 1, 1, 2))
        )
    return out


# a rule code's result at count 0 as a game code byte (1 lost, 2 won, 0 neither), padding
# kept: the form ``compact.compact_codes`` gives the search's leaves
_RESULT_BYTE = np.array([0] + [1 if c & 1 else 2 for c in range(1, RULE_PAD)] + [RULE_PAD],
                        np.uint8)


def result_bytes(rule_codes: np.ndarray) -> np.ndarray:
    """A moving sector's rule codes as the leaves of the search over the placement
    phase under the rule: the last placement leaves the count at 0, so a leaf is worth
    its result at count 0, which a game code of 1 (lost) or 2 (won) or 0 stands for."""
    out = np.empty(len(rule_codes), np.uint8)
    for lo in range(0, len(rule_codes), _STEP):
        out[lo : lo + _STEP] = _RESULT_BYTE[rule_codes[lo : lo + _STEP]]
    return out


def move_scores(codes: np.ndarray, quiet: bool) -> np.ndarray:
    """For the verifier: the score (``SCORE_DRAW``) of a move into each slot of a sector
    with rule codes ``codes``, for the side that plays it; ``PAD`` for padding. A quiet
    moving ply (``quiet``) adds one ply to the successor's Z; a capture or a placement
    decides at once (Z = 1) with the result the successor has at count 0."""
    out = np.empty(len(codes), np.uint16)
    for lo in range(0, len(codes), _STEP):
        r = codes[lo : lo + _STEP].astype(np.int64)
        if quiet:
            z = r // 2 + 1
            scores = np.where(r & 1, z, SCORE_LOSS - z)
        else:
            scores = np.where(r & 1, 1, SCORE_LOSS - 1)
        scores = np.where(r == 0, SCORE_DRAW, scores)
        out[lo : lo + _STEP] = np.where(r == RULE_PAD, PAD, scores)
    return out


def code_of_score(score: int, limit: int) -> int:
    """The rule code of a position whose best move scores ``score`` (``move_scores``):
    0 when it is a draw or its Z exceeds the limit. Plain integer arithmetic, so the
    verifier's kernel compiles it as it is."""
    if score == SCORE_DRAW:
        return 0
    if score < SCORE_DRAW:
        return 2 * score if score <= limit else 0
    z = SCORE_LOSS - score
    return 2 * z + 1 if z <= limit else 0


def result_at(code: int, count: int, limit: int, placing: bool) -> str:
    """``win``, ``draw`` or ``loss`` for the side to move of a position with rule code
    ``code`` at count ``count`` (placement positions: count 0, no distance)."""
    if code == 0:
        return "draw"
    if not placing and code // 2 > limit - count:
        return "draw"
    return "loss" if code & 1 else "win"


def plies_to_capture(code: int, placing: bool) -> int | None:
    """``Z`` of a moving-phase position, or None (no result within the limit, or a
    placement position)."""
    return None if code == 0 or placing else code // 2


def rule_class(game_code: int, code: int) -> str:
    """One of ``CLASSES`` at count 0, from the game's code and the rule code."""
    if code != 0:
        return "loss" if code & 1 else "win"
    if game_code == 0:
        return "draw"
    return "blessed-loss" if game_code & 1 else "cursed-win"


def statistics(game_codes: np.ndarray, codes: np.ndarray) -> dict:
    """Per-class counts of a sector at count 0 and the longest Z of its wins and losses
    (-1 if none), from its game codes and its rule codes."""
    counts = dict.fromkeys(("wins", "cursed_wins", "draws", "blessed_losses", "losses"), 0)
    longest_win = longest_loss = -1
    for lo in range(0, len(codes), _STEP):
        g = game_codes[lo : lo + _STEP].astype(np.int64)
        r = codes[lo : lo + _STEP].astype(np.int64)
        real = g != PAD
        undecided = real & (r == 0)
        wins, losses = real & (r != 0) & (r % 2 == 0), real & (r % 2 == 1)
        counts["wins"] += int(wins.sum())
        counts["losses"] += int(losses.sum())
        counts["draws"] += int((undecided & (g == 0)).sum())
        counts["cursed_wins"] += int((undecided & (g != 0) & (g % 2 == 0)).sum())
        counts["blessed_losses"] += int((undecided & (g % 2 == 1)).sum())
        if wins.any():
            longest_win = max(longest_win, int(r[wins].max()) // 2)
        if losses.any():
            longest_loss = max(longest_loss, int(r[losses].max()) // 2)
    return {"positions": sum(counts.values()), **counts, "max_win_z": longest_win,
            "max_loss_z": longest_loss, "slots": int(len(codes))}
