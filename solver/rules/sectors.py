"""Sectors, their transitions, and the order in which they are solved (docs/architecture.md).

A sector ``(W, B, WF, BF)`` holds the positions with ``W``/``B`` stones on the board and
``WF``/``BF`` in hand for the side to move / the other side. Which sectors exist is
derived from the rules by walking the transitions from the empty board, not typed in.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import quoted, whole_number
from .variants import Variant

Sector = tuple[int, int, int, int]


def sector_key(s: Sector) -> str:
    """The sector's name inside table and statistics files: ``W_B_WF_BF``."""
    return "_".join(map(str, s))


def sector_name(s: Sector) -> str:
    """The sector as users see and write it: ``W-B-WF-BF``."""
    return "-".join(map(str, s))


def parse_sector_key(key: str) -> Sector:
    w, b, wf, bf = (int(x) for x in key.split("_"))
    return (w, b, wf, bf)


def parse_sector(text: str) -> Sector:
    """A sector as users write it: ``W-B-WF-BF``, or ``W-B`` for the moving phase
    (``_`` works as the separator too). Raises ValueError saying what is expected."""
    parts = text.replace("_", "-").split("-")
    numbers = [n for n in map(whole_number, parts) if n is not None]
    if len(parts) in (2, 4) and len(numbers) == len(parts):
        w, b, wf, bf = numbers + [0] * (4 - len(numbers))
        return (w, b, wf, bf)
    raise ValueError(
        f"bad sector {quoted(text)}: expected W-B-WF-BF (stones on the board and in hand of the "
        f"side to move and the other side), or W-B for the moving phase, e.g. 5-4"
    )


def is_moving(s: Sector) -> bool:
    return s[2] == 0 and s[3] == 0


def removal_counts(variant: Variant, s: Sector) -> list[int]:
    """Numbers of stones a move from sector ``s`` can remove."""
    W, B, WF, _ = s
    placing = WF > 0
    counts = [0]
    if not variant.removes or (placing and not variant.placement_captures):
        return counts
    stones_after = W + 1 if placing else W
    if stones_after >= 3 and B >= 1:
        counts.append(1)
    # two mills through the landing point need 5 stones; two removals need 2 targets
    if variant.double_mill_removes == 2 and stones_after >= 5 and B >= 2:
        counts.append(2)
    return counts


def successor_sector(s: Sector, removed: int) -> Sector | None:
    """The sector a move with ``removed`` captures leads to, or None when the side then
    to move is left with fewer than 3 stones (the move wins at once)."""
    W, B, WF, BF = s
    nxt = (B - removed, W + 1, BF, WF - 1) if WF > 0 else (B - removed, W, BF, 0)
    if nxt[0] + nxt[2] < 3:
        return None
    return nxt


def successors(variant: Variant, s: Sector) -> dict[int, Sector | None]:
    """The sectors the moves of ``s`` lead to, by stones removed (None: the move wins
    at once). A sector that fills the board has no move at all, so none."""
    if s[0] + s[1] >= variant.board.n:
        return {}
    return {r: successor_sector(s, r) for r in removal_counts(variant, s)}


def start_sector(variant: Variant) -> Sector:
    return (0, 0, variant.stones, variant.stones)


def reachable_sectors(variant: Variant) -> set[Sector]:
    """Every sector reachable from the empty board (stored sectors only)."""
    seen = {start_sector(variant)}
    todo = [start_sector(variant)]
    while todo:
        s = todo.pop()
        for nxt in successors(variant, s).values():
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def twin(s: Sector) -> tuple[Sector, ...]:
    """The group solved together: a moving sector and its colour-swapped partner."""
    if is_moving(s) and s[0] != s[1]:
        return (s, (s[1], s[0], 0, 0))
    return (s,)


def dependencies(variant: Variant, group: Iterable[Sector]) -> set[Sector]:
    """Sectors outside the group that its moves lead to (must be solved first)."""
    group = set(group)
    deps = set()
    for s in group:
        for nxt in successors(variant, s).values():
            if nxt is not None and nxt not in group:
                deps.add(nxt)
    return deps


def _group_order_key(group: tuple[Sector, ...]) -> tuple:
    s = group[0]
    in_hand = s[2] + s[3]
    return (in_hand, s[0] + s[1], sorted(group))


def solve_plan(
    variant: Variant,
    phase: str = "all",
    max_stones: int | None = None,
    target: Sector | None = None,
) -> list[tuple[Sector, ...]]:
    """Groups to solve, each after everything it depends on.

    Moving twins come in increasing ``a+b``; placement sectors in increasing stones in
    hand (each placement leads to one fewer), so dependencies always come first.
    ``max_stones`` keeps moving sectors with at most that many stones a side;
    ``target`` keeps one group and what it needs.
    """
    sectors = reachable_sectors(variant)
    if phase == "moving":
        sectors = {s for s in sectors if is_moving(s)}
    if max_stones is not None:
        sectors = {s for s in sectors if max(s[0] + s[2], s[1] + s[3]) <= max_stones}
    groups = {twin(s) if is_moving(s) else (s,) for s in sectors}
    groups = {tuple(sorted(g, reverse=True)) for g in groups}
    if target is not None:
        needed, todo = set(), [tuple(sorted(twin(target), reverse=True))]
        while todo:
            g = todo.pop()
            if g in needed:
                continue
            needed.add(g)
            todo += [tuple(sorted(twin(d), reverse=True)) for d in dependencies(variant, g)]
        groups = needed
    # placement sectors need all their successors; drop those whose successors were cut off
    kept = {s for g in groups for s in g}
    changed = True
    while changed:
        changed = False
        for g in list(groups):
            if any(d not in kept for d in dependencies(variant, g)):
                groups.discard(g)
                kept -= set(g)
                changed = True
    return _dependency_order(variant, groups)


def _dependency_order(variant: Variant, groups: set) -> list[tuple[Sector, ...]]:
    """Groups sorted so that each comes after the groups its moves lead to; among the
    ready ones, fewer stones in hand and fewer stones on the board first."""
    pending = sorted(groups, key=_group_order_key)
    placed: set[Sector] = set()
    order = []
    while pending:
        for i, g in enumerate(pending):
            if all(d in placed for d in dependencies(variant, g) if d in _members(pending)):
                order.append(pending.pop(i))
                placed.update(g)
                break
        else:
            raise RuntimeError("cyclic dependencies between sector groups")
    return order


def _members(groups) -> set[Sector]:
    return {s for g in groups for s in g}
