"""Setup (rulebook, "Setup"): each MU in the city printed on it; Phase 1835, Turn
marker on 0 (the first turn to play is turn 1); VP Empire 7, Republic 5.

The opening VP are not written into the position by hand: they are the recount
the game makes after every turn, which the board data must make come to 7 and 5.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.counters import FIRST_PHASE, SIDES, load_counters
from pbem.rules.farrapos.position import Position, empty_cities, sort_units

SCENARIO = "campaign"
OPTIONS = ("siege", "port-transport")
OPENING_VP = {"empire": 7, "republic": 5}


def blank_position(scenario: str, options: Sequence[str]) -> Position:
    unknown = [o for o in options if o not in OPTIONS]
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} for farrapos (known: {', '.join(OPTIONS)})")
    return {
        "rules": "farrapos",
        "scenario": scenario,
        "options": sorted(set(options)),
        "phase": FIRST_PHASE,
        "turn": 1,
        "vp": {side: 0 for side in SIDES},
        "cities": empty_cities(load_board()),
        "reduced": [],
        "eliminated": [],
        "militia_lost": {side: 0 for side in SIDES},
        "standing": {side: {} for side in SIDES},
        "outcome": None,
    }


def opening_position(scenario: str, options: Sequence[str]) -> Position:
    from pbem.rules.farrapos.position import View
    from pbem.rules.farrapos.victory_points import count_vp

    position = blank_position(scenario, options)
    for counter in load_counters().counters.values():
        if counter.arrival == FIRST_PHASE:
            city = position["cities"][counter.setup]
            city["units"] = sort_units([*city["units"], counter.id])
            city["owner"] = counter.side
    position["vp"] = count_vp(View(position))
    return position
