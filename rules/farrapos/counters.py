"""The counter sheet: Military Units (MU) with two faces, and the Militia.

Rulebook, "Counter Identification": blazon (side), type of MU, reduction step,
MF, AF, DF, location for setup, phase/year of arrival.  The printed values are not
in the rulebook; they are data (``data/counters.toml``).

>>> sheet = load_counters()
>>> sheet.counters["art-1"].factors(reduced=False)
Factors(mf=1, af=5, df=2)
>>> sheet.counters["art-1"].side
'republic'
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from pathlib import Path

from pbem.rules import data_cache
from pbem.rules.frozen import Frozen, setter

DATA = Path(__file__).with_name("data")
SIDES = ("empire", "republic")
SIDE_NAMES = {"empire": "Empire", "republic": "Republic"}
FIRST_PHASE = 1835
LAST_PHASE = 1845


class Factors(Frozen):
    """A unit's movement, attack and defence factors."""

    mf: int
    af: int
    df: int

    def __init__(self, mf: int, af: int, df: int) -> None:
        setter(self, "mf", mf)
        setter(self, "af", af)
        setter(self, "df", df)


class UnitType(Frozen):
    """A type of unit, with its full-strength and reduced factors."""

    id: str
    name: str
    full: Factors
    reduced: Factors

    def __init__(self, id: str, name: str, full: Factors, reduced: Factors) -> None:
        setter(self, "id", id)
        setter(self, "name", name)
        setter(self, "full", full)
        setter(self, "reduced", reduced)


class Counter(Frozen):
    """One counter of the sheet: its side, type, set-up city and year of arrival."""

    id: str
    side: str
    type: UnitType
    setup: str  # a city id, or "" for "any city of his possession"
    arrival: int  # phase (year)

    def __init__(self, id: str, side: str, type: UnitType, setup: str, arrival: int) -> None:
        setter(self, "id", id)
        setter(self, "side", side)
        setter(self, "type", type)
        setter(self, "setup", setup)
        setter(self, "arrival", arrival)

    def factors(self, reduced: bool) -> Factors:
        return self.type.reduced if reduced else self.type.full


class CounterSheet(Frozen):
    """Every unit type and counter of the game, and the Militia allowance."""

    types: dict[str, UnitType]
    counters: dict[str, Counter]
    militia_per_side: int
    militia_df: int

    def __init__(
        self, types: dict[str, UnitType], counters: dict[str, Counter], militia_per_side: int, militia_df: int
    ) -> None:
        setter(self, "types", types)
        setter(self, "counters", counters)
        setter(self, "militia_per_side", militia_per_side)
        setter(self, "militia_df", militia_df)

    def of_side(self, side: str) -> tuple[Counter, ...]:
        return tuple(c for c in self.counters.values() if c.side == side)

    def arriving(self, side: str, phase: int) -> tuple[Counter, ...]:
        return self._by_arrival.get((side, phase), ()) if phase > FIRST_PHASE else ()

    @cached_property
    def _by_arrival(self) -> dict[tuple[str, int], tuple[Counter, ...]]:
        """The counters of each side and phase of arrival, in sheet order (worked
        out once per sheet: each resolution asks a few times)."""
        groups: dict[tuple[str, int], list[Counter]] = {}
        for c in self.counters.values():
            groups.setdefault((c.side, c.arrival), []).append(c)
        return {key: tuple(group) for key, group in groups.items()}


def _factors(data: dict) -> Factors:
    return Factors(mf=int(data["mf"]), af=int(data["af"]), df=int(data["df"]))


def sheet_from_data(data: dict, cities: set[str] | None = None) -> CounterSheet:
    types = {
        tid: UnitType(tid, str(t["name"]), _factors(t["full"]), _factors(t["reduced"]))
        for tid, t in data["types"].items()
    }
    counters: dict[str, Counter] = {}
    for raw in data["counter"]:
        cid = str(raw["id"])
        if cid in counters:
            raise ValueError(f"counter {cid!r} is listed twice")
        if raw["side"] not in SIDES:
            raise ValueError(f"counter {cid!r} has unknown side {raw['side']!r}")
        if raw["type"] not in types or not cid.startswith(f"{raw['type']}-"):
            raise ValueError(f"counter {cid!r} has type {raw['type']!r}")
        setup = str(raw.get("setup", ""))
        if cities is not None and setup and setup not in cities:
            raise ValueError(f"counter {cid!r} sets up in unknown city {setup!r}")
        arrival = int(raw["arrival"])
        if not FIRST_PHASE <= arrival <= LAST_PHASE or (arrival == FIRST_PHASE) != bool(setup):
            raise ValueError(f"counter {cid!r}: setup {setup!r} with arrival {arrival}")
        counters[cid] = Counter(cid, str(raw["side"]), types[raw["type"]], setup, arrival)
    return CounterSheet(types, counters, int(data["militia"]["per_side"]), int(data["militia"]["df"]))


@lru_cache(maxsize=1)
def load_counters() -> CounterSheet:
    """The counter data file, read once (immutable data)."""
    from pbem.rules.farrapos.board import load_board

    return sheet_from_data(data_cache.load_toml(DATA / "counters.toml"), set(load_board().cities))
