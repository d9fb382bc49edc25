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

from collections.abc import Mapping
from typing import Any, NamedTuple

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
        self.port_bonus = board.port_bonus


_SCORING: dict[int, _Scoring] = {}


def _scoring(board: Board) -> _Scoring:
    found = _SCORING.get(id(board))
    if found is None or found.board is not board:
        if len(_SCORING) >= 8:
            _SCORING.clear()
        found = _SCORING[id(board)] = _Scoring(board)
    return found


def breakdown(view: View, side: str) -> VpBreakdown:
    return _breakdown(_scoring(view.board), side, set(view.held_cities(side)))


def breakdowns(view: View, sides: tuple[str, ...] = SIDES) -> dict[str, VpBreakdown]:
    """:func:`breakdown` of each of ``sides``, their held cities found in one walk
    over the position's cities (a walk per side over the View's map of who holds
    each city, and a list copied into a set, before)."""
    return held_breakdowns(view.cities, view.board, sides)


def held_breakdowns(
    cities: Mapping[str, Mapping[str, Any]], board: Board, sides: tuple[str, ...] = SIDES
) -> dict[str, VpBreakdown]:
    """:func:`breakdowns` read off a position's cities, without a :class:`View` of
    them (the end of a turn makes none)."""
    held: dict[str | None, set[str]] = {side: set() for side in sides}
    for city, data in cities.items():
        owner = data["owner"]
        if owner in held and (data["units"] or data["militia"] > 0):  # held: owned, with a MU or Militia
            held[owner].add(city)
    facts = _scoring(board)  # once for both sides
    return {side: _breakdown(facts, side, held[side]) for side in sides}


def _breakdown(facts: _Scoring, side: str, held: set[str]) -> VpBreakdown:
    # one loop over the colour groups (a list of those won, then a generator each for
    # their names and their bonus, before); ``<=`` is ``issubset`` without a method call
    colours: list[str] = []
    bonus = 0
    for gid, group, value in facts.colours:
        if group <= held:
            colours.append(gid)
            bonus += value
    ports = bool(facts.ports) and facts.ports <= held
    return VpBreakdown(
        side, sum(map(facts.vp.__getitem__, held)), tuple(colours), bonus, ports, facts.port_bonus if ports else 0
    )


def count_vp(view: View) -> dict[str, int]:
    return {side: b.total for side, b in breakdowns(view).items()}
