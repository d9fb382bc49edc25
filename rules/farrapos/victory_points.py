"""Victory points (rulebook, "1ST TURN", the VP example, and "Extra points").

A side scores the VP of every city it holds (owns, with at least one MU or
Militia: an empty city's VP are not recorded), plus each colour group's bonus while
it holds every city of that colour, plus the port bonus while it holds every port
city.  The VP track is this recount, made at the end of every turn, so bonuses are
"automatically decreased" when an area is lost.

>>> from pbem.rules.farrapos.setup import opening_position
>>> count_vp(View(opening_position("campaign", ())))
{'empire': 7, 'republic': 5}
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.rules.farrapos.counters import SIDES
from pbem.rules.farrapos.position import View


@dataclass(frozen=True)
class VpBreakdown:
    side: str
    cities: int
    colours: tuple[str, ...]
    colour_bonus: int
    ports: bool
    port_bonus: int

    @property
    def total(self) -> int:
        return self.cities + self.colour_bonus + self.port_bonus

    def __str__(self) -> str:
        parts = [f"cities {self.cities}"]
        if self.colours:
            parts.append(f"colours {'+'.join(self.colours)} {self.colour_bonus}")
        if self.ports:
            parts.append(f"all ports {self.port_bonus}")
        return f"{self.total} VP ({', '.join(parts)})"


def breakdown(view: View, side: str) -> VpBreakdown:
    return _breakdown(view, side, set(view.held_cities(side)))


def breakdowns(view: View, sides: tuple[str, ...] = SIDES) -> dict[str, VpBreakdown]:
    """:func:`breakdown` of each of ``sides``, their held cities found in one walk
    over the board (a walk per side, and a list copied into a set, before)."""
    held: dict[str | None, set[str]] = {side: set() for side in sides}
    for city, holder in view.controllers().items():
        if holder in held:
            held[holder].add(city)
    return {side: _breakdown(view, side, held[side]) for side in sides}


def _breakdown(view: View, side: str, held: set[str]) -> VpBreakdown:
    board = view.board
    cities = sum(board.cities[c].vp for c in held)
    colours = tuple(g.id for g in board.colours.values() if g.cities and held.issuperset(g.cities))
    colour_bonus = sum(board.colours[g].bonus for g in colours)
    ports = bool(board.ports) and held.issuperset(board.ports)
    return VpBreakdown(side, cities, colours, colour_bonus, ports, board.port_bonus if ports else 0)


def count_vp(view: View) -> dict[str, int]:
    return {side: b.total for side, b in breakdowns(view).items()}
