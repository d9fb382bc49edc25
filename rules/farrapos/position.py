"""Reading a Farrapos position (a JSON-serialisable dict).

The position holds the Phase (year) and Turn, both sides' VP, every city (its
owner, its MU and its Militia count), the reduced and eliminated MU, the Militia
lost, each side's standing loss orders, the options and the outcome.  A city is
*held* by its owner while it has at least one MU or Militia; a city left with none
is *empty*: it stays in its owner's possession but its VP are not recorded
(rulebook, "1ST TURN", b).
"""

from __future__ import annotations

from typing import Any

from rules.base import Ruleset
from rules.farrapos.board import Board, load_board
from rules.farrapos.counters import CounterSheet, Factors
from rules.farrapos.tables import counter_sheet

Position = dict[str, Any]


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars): the shared
    :meth:`rules.base.Ruleset.copy_position`."""
    return Ruleset.copy_position(value)


def enemy(side: str) -> str:
    return "empire" if side == "republic" else "republic"


def empty_cities(board: Board) -> dict[str, dict[str, Any]]:
    return {c: {"owner": None, "units": [], "militia": 0} for c in board.cities}


def unit_sort_key(unit: str) -> tuple[str, int]:
    kind, _, number = unit.partition("-")
    return (kind, int(number) if number.isdigit() else 0)


def sort_units(units: list[str]) -> list[str]:
    return sorted(units, key=unit_sort_key)


class View:
    """Read-only questions about one position (built per call, never stored)."""

    def __init__(self, position: Position, board: Board | None = None, sheet: CounterSheet | None = None):
        self.position = position
        self.board = board or load_board()
        self.sheet = sheet or counter_sheet(position)
        self.location: dict[str, str] = {}
        for city, data in position["cities"].items():
            for unit in data["units"]:
                self.location[unit] = city
        self.reduced = set(position.get("reduced", ()))
        self.eliminated = set(position.get("eliminated", ()))

    @property
    def phase(self) -> int:
        return int(self.position["phase"])

    @property
    def turn(self) -> int:
        return int(self.position["turn"])

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(self.position.get("options", ()))

    def city(self, city: str) -> dict[str, Any]:
        return self.position["cities"][city]

    def owner(self, city: str) -> str | None:
        return self.city(city)["owner"]

    def units_in(self, city: str) -> list[str]:
        return list(self.city(city)["units"])

    def militia_in(self, city: str) -> int:
        return int(self.city(city)["militia"])

    def occupied(self, city: str) -> bool:
        return bool(self.city(city)["units"]) or self.militia_in(city) > 0

    def controller(self, city: str) -> str | None:
        """The side holding ``city`` (its owner, while it has a MU or Militia)."""
        return self.owner(city) if self.occupied(city) else None

    def held_cities(self, side: str) -> list[str]:
        return [c for c in self.board.cities if self.controller(c) == side]

    def owned_cities(self, side: str) -> list[str]:
        return [c for c in self.board.cities if self.owner(c) == side]

    def side_of(self, unit: str) -> str:
        return self.sheet.counters[unit].side

    def factors(self, unit: str) -> Factors:
        return self.sheet.counters[unit].factors(unit in self.reduced)

    def militia_on_board(self, side: str) -> int:
        return sum(self.militia_in(c) for c in self.owned_cities(side))

    def militia_available(self, side: str) -> int:
        lost = int(self.position.get("militia_lost", {}).get(side, 0))
        return self.sheet.militia_per_side - lost - self.militia_on_board(side)

    def arrival_turn(self, side: str) -> int:
        """The turn of each Phase in which ``side``'s new units arrive: its first."""
        return 1 if side == "republic" else 2

    def due_side(self) -> str | None:
        if self.position.get("outcome"):
            return None
        return "republic" if self.turn in (1, 3) else "empire"

    def arrivals_now(self, side: str) -> list[str]:
        """MU entering at the end of this turn (the side's first turn of the Phase
        named on the counter)."""
        if self.due_side() != side or self.turn != self.arrival_turn(side):
            return []
        return [
            c.id
            for c in self.sheet.arriving(side, self.phase)
            if c.id not in self.location and c.id not in self.eliminated
        ]

    def strength(self, units: list[str], attack: bool) -> int:
        return sum(self.factors(u).af if attack else self.factors(u).df for u in units)
