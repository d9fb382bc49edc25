"""Reading a Farrapos position (a JSON-serialisable dict).

The position holds the Phase (year) and Turn, both sides' VP, every city (its
owner, its MU and its Militia count), the reduced and eliminated MU, the Militia
lost, each side's standing loss orders, the options and the outcome.  A city is
*held* by its owner while it has at least one MU or Militia; a city left with none
is *empty*: it stays in its owner's possession but its VP are not recorded
(rulebook, "1ST TURN", b).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property, lru_cache
from itertools import chain
from operator import itemgetter
from typing import Any

from pbem.rules.base import Ruleset
from pbem.rules.farrapos.board import Board, load_board
from pbem.rules.farrapos.counters import CounterSheet, Factors
from pbem.rules.farrapos.tables import counter_sheet

Position = dict[str, Any]

_UNITS = itemgetter("units")


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars): the shared
    :meth:`rules.base.Ruleset.copy_position`."""
    return Ruleset.copy_position(value)


def working_copy(position: Position) -> Position:
    """A copy of ``position`` for a resolution (or a check) to change.  What the
    engine changes in place is copied: the map of cities, the standing loss
    orders, the Militia lost; every other value is shared, because the engine only
    ever replaces it (``work["reduced"] = ...``), so ``position`` is left as it
    was.  A city's entry is shared too until a step changes it: each step gives
    the working copy its own entry first (:func:`own_cities`), a few cities a
    turn.  A deep copy of the whole position was a third of a resolution (before
    the speed work); a copy of each city's dict, most of what was left of it."""
    work = dict(position)
    work["cities"] = dict(position["cities"])
    if "standing" in position:
        work["standing"] = {side: dict(orders) for side, orders in position["standing"].items()}
    if "militia_lost" in position:
        work["militia_lost"] = dict(position["militia_lost"])
    return work


def own_cities(work: Position, *cities: str) -> None:
    """Give ``work`` its own entry of each of ``cities`` (a copy: the
    :func:`working_copy` shares the position's until a step changes one; a city
    changed twice is copied twice, harmlessly)."""
    entries = work["cities"]
    for city in cities:
        entries[city] = entries[city].copy()


def enemy(side: str) -> str:
    return "empire" if side == "republic" else "republic"


def empty_cities(board: Board) -> dict[str, dict[str, Any]]:
    return {c: {"owner": None, "units": [], "militia": 0} for c in board.cities}


@lru_cache(maxsize=1024)  # the counter sheet's ids: sorting the units of a battle's steps asked for each many times
def unit_sort_key(unit: str) -> tuple[str, int]:
    kind, _, number = unit.partition("-")
    return (kind, int(number) if number.isdigit() else 0)


def sort_units(units: list[str]) -> list[str]:
    return sorted(units, key=unit_sort_key)


def due_side(position: Position) -> str | None:
    """The side whose turn it is (``None`` once the game is over): read from the
    position alone, without a :class:`View` (``Ruleset.due`` is asked several
    times a resolution)."""
    if position.get("outcome"):
        return None
    return "republic" if int(position["turn"]) in (1, 3) else "empire"


def occupied_entry(entry: Mapping[str, Any]) -> bool:
    """Whether a city's entry in the position holds a MU or Militia (an occupied
    city): :meth:`View.occupied`, for a caller that holds the entry already."""
    return bool(entry["units"]) or int(entry["militia"]) > 0


class View:
    """Read-only questions about one position, as it stands when the View is made.

    What a question works out over the whole board (who holds each city, each
    side's cities and MU, where each MU is) is worked out once per View, on first
    asking: a position changed afterwards must be read through a new View (a
    resolution once built about 14 Views and asked for each city hundreds of
    times)."""

    def __init__(self, position: Position, board: Board | None = None, sheet: CounterSheet | None = None):
        self.position = position
        self.cities: dict[str, dict[str, Any]] = position["cities"]
        self.board = board or load_board()
        self.sheet = sheet or counter_sheet(position)
        self.reduced = set(position.get("reduced", ()))
        self.eliminated = set(position.get("eliminated", ()))
        self._owned: dict[str, list[str]] = {}
        self._held: dict[str, list[str]] = {}
        self._mu: dict[tuple[str, str], list[str]] = {}
        self._walks: dict[tuple[str, str], list[Any]] = {}  # (side, origin) -> [steps, frontier, lines walked]
        self._arrivals: dict[str, list[str]] = {}

    @cached_property
    def location(self) -> dict[str, str]:
        """The city of each MU on the board."""
        return {unit: city for city, data in self.cities.items() for unit in data["units"]}

    @cached_property
    def on_board(self) -> set[str]:
        """Every MU on the board (without the map of :attr:`location`)."""
        return set(chain.from_iterable(map(_UNITS, self.cities.values())))

    @cached_property
    def _controllers(self) -> dict[str, str | None]:
        # occupied(), inline: a call per city cost more than the rest of the View
        return {c: data["owner"] if data["units"] or data["militia"] > 0 else None for c, data in self.cities.items()}

    @property
    def phase(self) -> int:
        return int(self.position["phase"])

    @property
    def turn(self) -> int:
        return int(self.position["turn"])

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(self.position.get("options", ()))

    def owner(self, city: str) -> str | None:
        return self.cities[city]["owner"]

    def units_in(self, city: str) -> list[str]:
        return list(self.cities[city]["units"])

    def militia_in(self, city: str) -> int:
        return int(self.cities[city]["militia"])

    def occupied(self, city: str) -> bool:
        return occupied_entry(self.cities[city])

    def controller(self, city: str) -> str | None:
        """The side holding ``city`` (its owner, while it has a MU or Militia): from
        the map of every city's holder once a question over the board has made it
        (an order template asks of every city), else from the city's own entry
        (checking a turn file's orders asks of a few cities, and making the map
        cost more than the rest of the check)."""
        controllers = self.__dict__.get("_controllers")
        return self._entry_holder(city) if controllers is None else controllers[city]

    def holder_lookup(self) -> Callable[[str], str | None]:
        """How a question about several cities asks who holds each: the map of every
        city's holder once a question over the board has made it, else each city's
        own entry (as :meth:`controller` does, without a call through it)."""
        controllers = self.__dict__.get("_controllers")
        return self._entry_holder if controllers is None else controllers.__getitem__

    def _entry_holder(self, city: str) -> str | None:
        entry = self.cities[city]
        return entry["owner"] if occupied_entry(entry) else None

    def held_cities(self, side: str) -> list[str]:
        if side not in self._held:
            controllers = self._controllers
            self._held[side] = [c for c in self.board.cities if controllers[c] == side]
        return list(self._held[side])

    def owned_cities(self, side: str) -> list[str]:
        if side not in self._owned:
            cities = self.cities
            self._owned[side] = [c for c in self.board.cities if cities[c]["owner"] == side]
        return list(self._owned[side])

    def mu_of(self, side: str, city: str) -> list[str]:
        """``side``'s MU in ``city``, in the city's order."""
        key = (side, city)
        if key not in self._mu:
            counters = self.sheet.counters
            self._mu[key] = [u for u in self.cities[city]["units"] if counters[u].side == side]
        return list(self._mu[key])

    @property
    def holders(self) -> dict[str, str | None]:
        """The side holding each city (:meth:`controller` of every city, read-only:
        shared), for a question that looks at many cities."""
        return self._controllers

    def reach(self, side: str, origin: str, limit: int) -> dict[str, int]:
        """Path-line steps from ``origin`` to every city ``side``'s MU reach within
        ``limit`` path lines, passing only through cities the enemy does not hold
        (the last city of a path may be one), in the order a breadth-first walk
        meets them.  It may hold cities farther than ``limit`` (walked for an
        earlier question): read the steps.  Read-only: it is shared."""
        return self._walk(side, origin, limit, None)

    def steps_to(self, side: str, origin: str, destination: str, limit: int) -> int:
        """``reach(side, origin, limit).get(destination, 0)`` for a destination at
        most ``limit`` path lines away (0 farther); the walk stops where it meets
        ``destination`` (checking one move needs no more)."""
        steps = self._walk(side, origin, limit, destination).get(destination, 0)
        return steps if steps <= limit else 0

    def _walk(self, side: str, origin: str, limit: int, destination: str | None) -> dict[str, int]:
        """The breadth-first walk of the path lines from ``origin`` for ``side``,
        taken on, a line at a time, until it has walked ``limit`` lines, met
        ``destination`` or met every city it can: each walk is kept per View, side
        and origin with its frontier, so a longer question goes on from where a
        shorter one stopped.  A question needs at most the largest MF of a stack
        (a few lines), where the whole board's walk was a third of an order
        template."""
        walk = self._walks.get((side, origin))
        if walk is None:
            walk = self._walks[side, origin] = [{origin: 0}, [origin], 0]
        dist: dict[str, int] = walk[0]
        frontier: list[str] = walk[1]
        step: int = walk[2]
        if step >= limit or not frontier or destination in dist:
            return dist
        foe = enemy(side)
        holder = self.holder_lookup()
        adjacency = self.board.adjacency
        while step < limit and frontier:
            step += 1
            reached: list[str] = []
            for here in frontier:
                if here != origin and holder(here) == foe:
                    continue  # a path may end here but not go on
                for there in adjacency[here]:
                    if there not in dist:
                        dist[there] = step
                        reached.append(there)
            frontier = reached
            if destination in dist:
                break
        walk[1], walk[2] = frontier, step
        return dist

    def cities_with_mu(self, side: str) -> list[str]:
        """The cities where ``side`` has MU, in board order."""
        return [c for c in self.board.cities if self.mu_of(side, c)]

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
        return due_side(self.position)

    def arrivals_now(self, side: str) -> list[str]:
        """MU entering at the end of this turn (the side's first turn of the Phase
        named on the counter)."""
        if self.due_side() != side or self.turn != self.arrival_turn(side):
            return []
        found = self._arrivals.get(side)
        if found is None:  # once per View: validating asks for each place line, then for the turn
            arriving = self.sheet.arriving(side, self.phase)
            found = self._arrivals[side] = (
                [c.id for c in arriving if c.id not in self.on_board and c.id not in self.eliminated]
                if arriving
                else []
            )
        return list(found)

    def strength(self, units: list[str], attack: bool) -> int:
        """The units' AF (``attack``) or DF summed, each on its face: :meth:`factors`
        of each, read in one loop (a generator and a call per unit before)."""
        counters, reduced = self.sheet.counters, self.reduced
        total = 0
        for unit in units:
            kind = counters[unit].type
            face = kind.reduced if unit in reduced else kind.full
            total += face.af if attack else face.df
        return total
