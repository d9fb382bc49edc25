"""The walk of the Farrapos path lines as it was before it was bounded: the whole
board's breadth-first walk from a stack's city, through the cities the enemy does
not hold.  Tests compare ``View.reach``, ``View.steps_to`` and
``legal.move_destinations`` with it."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from pbem.rules.farrapos.position import View, enemy


def whole_reach(view: View, side: str, origin: str) -> dict[str, int]:
    """Path-line steps from ``origin`` to every city ``side``'s MU reach, however far,
    in the order the walk meets them (the last city of a path may be the enemy's)."""
    foe = enemy(side)
    through = {c for c in view.board.cities if view.controller(c) != foe}
    dist = {origin: 0}
    queue = deque([origin])
    while queue:
        here = queue.popleft()
        if here != origin and here not in through:
            continue
        for there in view.board.neighbours(here):
            if there not in dist:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


def whole_destinations(view: View, side: str, origin: str, units: Sequence[str]) -> list[str]:
    """``move_destinations`` read off :func:`whole_reach`, in its order."""
    if not units:
        return []
    mf = min(view.factors(u).mf for u in units)
    foe = enemy(side)
    return [
        c
        for c, d in whole_reach(view, side, origin).items()
        if 0 < d <= mf and not view.board.linked(origin, c) and view.controller(c) != foe
    ]
