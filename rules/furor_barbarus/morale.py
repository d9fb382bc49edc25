"""Section 9.10: morale checks (and the test of optional rule 10.1).

Morale = the strength showing, +1 if a friendly commander is stacked with or
adjacent to the unit (6), plus any scenario modifier.  Roll one die: lower than
morale, no effect; equal, retreat one hex; higher, one step loss.  Commanders
never check; baggage ignores T results (9.4).

A retreat and a morale check call each other (a failed check retreats; a unit
displaced by a retreat checks its morale, 9.8 "Retreat and morale"), so the
whole retreat of 9.8 is :func:`retreat` here: :mod:`retreat` moves the units,
this module checks the displaced ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.retreat import retreat_unit

COMMANDER_MORALE_BONUS = 1


class MoraleResult(str, Enum):
    HOLDS = "holds"
    RETREATS = "retreats"
    LOSES_STEP = "loses a step"


def commander_bonus(field: Battlefield, uid: str) -> int:
    h = field.hex_of(uid)
    if h is None:
        return 0
    side = field.side_of(uid)
    for n in [h, *field.game_map.neighbours(h)]:
        for u in field.units_in(n):
            if (
                u != uid
                and field.counter(u).is_commander
                and field.side_of(u) == side
                and field.special.commander_affects(field, u, uid)
            ):
                return COMMANDER_MORALE_BONUS
    return 0


def morale_value(field: Battlefield, uid: str) -> int:
    return field.strength(uid) + commander_bonus(field, uid) + field.special.morale_modifier(field, uid)


def roll_morale(field: Battlefield, uid: str, purpose: str) -> tuple[int, int, MoraleResult]:
    morale = morale_value(field, uid)
    die = field.dice.roll(6, f"morale check of {uid} ({purpose})")
    result = MoraleResult.HOLDS if die < morale else MoraleResult.RETREATS if die == morale else MoraleResult.LOSES_STEP
    return die, morale, result


def retreat(field: Battlefield, uid: str, attackers: Iterable[str] = (), cause: str = "retreat") -> None:
    """A retreat of one hex (9.8) away from ``attackers``, then the morale check of
    every friendly unit it displaced, in chain order."""
    attackers = tuple(attackers)
    for displaced in retreat_unit(field, uid, attackers, cause):
        morale_check(field, displaced, "displaced by a retreat (9.8)", attackers)


def morale_check(field: Battlefield, uid: str, purpose: str, attackers: Iterable[str] = ()) -> MoraleResult | None:
    """A full morale check (9.10), its result applied.  None if no check happens."""
    if not field.exists(uid):
        return None
    c = field.counter(uid)
    if c.is_commander or c.is_baggage:
        return None
    die, morale, result = roll_morale(field, uid, purpose)
    field.add_event(
        "morale_check",
        f"{c.name} ({uid}) checks morale {morale}: rolls {die}, {result.value} (9.10).",
        unit=uid,
        die=die,
        morale=morale,
        result=result.value,
    )
    if result is MoraleResult.RETREATS:
        retreat(field, uid, attackers, cause=f"morale check ({purpose})")
    elif result is MoraleResult.LOSES_STEP:
        field.lose_step(uid, f"failed morale check ({purpose})")
    return result


def zoc_to_zoc_test(field: Battlefield, uid: str, into: str) -> bool:
    """Optional rule 10.1: lower than morale, the unit passes into the next enemy
    ZOC; equal, nothing happens (it stops where it is); higher, one step loss (a
    stacked commander shares the fate of an eliminated unit) and it stops."""
    c = field.counter(uid)
    if c.is_commander:
        morale = field.strength(uid)
        die = field.dice.roll(6, f"ZOC to ZOC test of {uid} into {into} (10.1)")
    else:
        morale = morale_value(field, uid)
        die = field.dice.roll(6, f"ZOC to ZOC test of {uid} into {into} (10.1)")
    if die < morale:
        field.add_event(
            "zoc_test",
            f"{c.name} ({uid}) rolls {die} against morale {morale}: passes into {into} (10.1).",
            unit=uid,
            die=die,
            morale=morale,
            passed=True,
        )
        return True
    if die == morale:
        field.add_event(
            "zoc_test",
            f"{c.name} ({uid}) rolls {die} against morale {morale}: stops (10.1).",
            unit=uid,
            die=die,
            morale=morale,
            passed=False,
        )
        return False
    field.add_event(
        "zoc_test",
        f"{c.name} ({uid}) rolls {die} against morale {morale}: loses a step and stops (10.1).",
        unit=uid,
        die=die,
        morale=morale,
        passed=False,
    )
    field.lose_step(uid, "failed ZOC to ZOC test (10.1)")
    return False
