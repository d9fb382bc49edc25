"""Section 2: the counters.

Six unit types; one- or two-step units; strength is also morale; missile units
have a range; scenario marks (Campus Mauriacus).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum


class UnitType(str, Enum):
    INFANTRY = "infantry"
    MISSILE_INFANTRY = "missile_infantry"
    CAVALRY = "cavalry"
    MISSILE_CAVALRY = "missile_cavalry"
    COMMANDER = "commander"
    BAGGAGE = "baggage"


class Mark(str, Enum):
    CHARGE = "charge"
    IMPETUOUS = "impetuous"
    FEIGNED_FLIGHT = "feigned_flight"
    NO_MELEE_PENALTY = "no_melee_penalty"


COMBAT_TYPES = frozenset({UnitType.INFANTRY, UnitType.MISSILE_INFANTRY, UnitType.CAVALRY, UnitType.MISSILE_CAVALRY})
MISSILE_TYPES = frozenset({UnitType.MISSILE_INFANTRY, UnitType.MISSILE_CAVALRY})


class CounterError(ValueError):
    """A unit table that does not follow the schema."""


@dataclass(frozen=True)
class Counter:
    """The printed values of one counter (section 2)."""

    id: str
    side: str
    name: str
    type: UnitType
    strength: int
    reduced: int | None = None
    mp: int = 0
    range: int = 0
    marks: frozenset[Mark] = frozenset()
    band: str = ""
    commander: str = ""
    designed: bool = True

    @property
    def steps(self) -> int:
        return 2 if self.reduced is not None else 1

    @property
    def is_combat_unit(self) -> bool:
        """Infantry, cavalry and their missile kinds (not commander, not baggage)."""
        return self.type in COMBAT_TYPES

    @property
    def is_missile(self) -> bool:
        return self.type in MISSILE_TYPES

    @property
    def is_commander(self) -> bool:
        return self.type is UnitType.COMMANDER

    @property
    def is_baggage(self) -> bool:
        return self.type is UnitType.BAGGAGE

    def value(self, reduced: bool) -> int:
        """Strength (= morale) on the face showing."""
        if reduced and self.reduced is not None:
            return self.reduced
        return self.strength

    def changed(self, **values: object) -> Counter:
        return replace(self, **values)  # type: ignore[arg-type]


def counter_from_dict(data: dict) -> Counter:
    try:
        kind = UnitType(data["type"])
        marks = frozenset(Mark(m) for m in data.get("marks", []))
        counter = Counter(
            id=str(data["id"]).lower(),
            side=str(data["side"]),
            name=str(data.get("name", data["id"])),
            type=kind,
            strength=int(data["strength"]),
            reduced=int(data["reduced"]) if data.get("reduced") is not None else None,
            mp=int(data.get("mp", 0)),
            range=int(data.get("range", 0)),
            marks=marks,
            band=str(data.get("band", "")),
            commander=str(data.get("commander", "")),
            designed=bool(data.get("designed", True)),
        )
    except KeyError as exc:
        raise CounterError(f"unit {data.get('id', '?')!r}: missing key {exc}") from None
    except ValueError as exc:
        raise CounterError(f"unit {data.get('id', '?')!r}: {exc}") from None
    if counter.is_missile and counter.range < 1:
        raise CounterError(f"unit {counter.id!r}: a missile unit needs a range of 1 or more")
    return counter
