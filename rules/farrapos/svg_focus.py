"""The Farrapos map's close-up (``data-focus``): the part of the board where this
resolution's action took place (or, in a quiet one, the front, else the armies),
grown to hold whole every label it meets (``mapdraw.focus_box``)."""

from __future__ import annotations

from collections.abc import Sequence

from pbem.rules.base import Event
from pbem.rules.farrapos.position import View
from pbem.rules.farrapos.svg_layout import MAP_H, MAP_W, MAP_X0, MAP_Y0
from pbem.rules.mapdraw import Box, Mark, focus_box


def focus(
    view: View, at: dict[str, tuple[float, float]], events: Sequence[Event], labels: list[Mark], limit: Box
) -> tuple[Box, str]:
    """The close-up: this resolution's action; in a quiet one, the front (where MU
    of both sides face each other), else the armies; grown, within ``limit`` (the
    whole drawing), to hold whole every label it meets (each of ``labels``: its box
    and the room kept around it); and what it shows."""
    board = view.board
    action = [
        at[e[key]]
        for e in events
        for key in ("from", "to", "city", "origin")
        if isinstance(e.get(key), str) and e.get(key) in at
    ]
    why = "this resolution's action"
    if not action:  # a quiet resolution: the front, where MU of both sides face each other
        cities = view.cities  # each city's MU and owner read off its entry (``View.units_in``, ``View.owner``)
        held = [c for c in board.cities if cities[c]["units"]]
        action = [at[c] for c in held]
        front = [
            at[c]
            for c in held
            if any(cities[n]["units"] and cities[n]["owner"] != cities[c]["owner"] for n in board.adjacency[c])
        ]
        action = front or action
        why = "the front" if front else "the armies"
    board_box = (MAP_X0, MAP_Y0, MAP_W, MAP_H)
    if not action:
        return board_box, why
    # the core kept whole: a battle's ring (r 17) and the arrows' ends around each city
    return focus_box(action, board_box, 70, (380, 320), labels, limit, core_pad=24), why
