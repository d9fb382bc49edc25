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

from typing import NamedTuple

from pbem.rules.farrapos.board import Board
from pbem.rules.farrapos.counters import SIDES
from pbem.rules.farrapos.position import View


class VpBreakdown(NamedTuple):
    """One side's VP and what they come from.  A named tuple: as a frozen
    dataclass, each of the two a resolution makes set its six fields through
    ``object.__setattr__``."""

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


class _Scoring:
    """What a VP count reads of a board, worked out once per board: each city's VP,
    each colour group's cities as a set (``issuperset`` of a tuple made a set of it
    at every count), the port cities as a set."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.vp = {c: city.vp for c, city in board.cities.items()}
        self.colours = [(g.id, frozenset(g.cities), g.bonus) for g in board.colours.values() if g.cities]
        self.ports = frozenset(board.ports)


_SCORING: dict[int, _Scoring] = {}


def _scoring(board: Board) -> _Scoring:
    found = _SCORING.get(id(board))
    if found is None or found.board is not board:
        if len(_SCORING) >= 8:
            _SCORING.clear()
        found = _SCORING[id(board)] = _Scoring(board)
    return found


def breakdown(view: View, side: str) -> VpBreakdown:
    return _breakdown(view, side, set(view.held_cities(side)))


def breakdowns(view: View, sides: tuple[str, ...] = SIDES) -> dict[str, VpBreakdown]:
    """:func:`breakdown` of each of ``sides``, their held cities found in one walk
    over the position's cities (a walk per side over the View's map of who holds
    each city, and a list copied into a set, before)."""
    held: dict[str | None, set[str]] = {side: set() for side in sides}
    for city, data in view.cities.items():
        owner = data["owner"]
        if owner in held and (data["units"] or data["militia"] > 0):  # held: owned, with a MU or Militia
            held[owner].add(city)
    return {side: _breakdown(view, side, held[side]) for side in sides}


def _breakdown(view: View, side: str, held: set[str]) -> VpBreakdown:
    facts = _scoring(view.board)
    cities = sum(map(facts.vp.__getitem__, held))
    won = [(gid, bonus) for gid, group, bonus in facts.colours if held.issuperset(group)]
    ports = bool(facts.ports) and held.issuperset(facts.ports)
    return VpBreakdown(
        side,
        cities,
        tuple(gid for gid, _ in won),
        sum(bonus for _, bonus in won),
        ports,
        view.board.port_bonus if ports else 0,
    )


def count_vp(view: View) -> dict[str, int]:
    return {side: b.total for side, b in breakdowns(view).items()}
