"""Section 5: stacking.  One unit per hex, except that a commander and/or one
baggage may stand on a friendly combat unit.  Units pass through friends."""

from __future__ import annotations

from pbem.rules.furor_barbarus.battlefield import Battlefield


def stacking_problem(
    field: Battlefield, uid: str, h: str, side: str, ignore: frozenset[str] = frozenset()
) -> str | None:
    """Why ``uid`` may not end in ``h`` (None if it may)."""
    others = [u for u in field.units_in(h) if u != uid and u not in ignore]
    if not others:  # alone in the hex: nothing below can object
        return None
    if any(field.side_of(u) != side for u in others):
        return f"{h} is occupied by a unit of another side (5)"
    me = field.counter(uid)
    combat = [u for u in others if field.counter(u).is_combat_unit]
    commanders = [u for u in others if field.counter(u).is_commander]
    baggage = [u for u in others if field.counter(u).is_baggage]
    if me.is_combat_unit:
        if combat:
            return f"{h} already holds {combat[0]}: one unit per hex (5)"
        return None
    if me.is_commander:
        if commanders:
            return f"{h} already holds the commander {commanders[0]} (5)"
        if baggage and not combat:
            return f"a commander may only stack on a combat unit, {h} holds only baggage (5)"
        return None
    if baggage:
        return f"{h} already holds the baggage {baggage[0]} (5)"
    if commanders and not combat:
        return f"baggage may only stack on a combat unit, {h} holds only a commander (5)"
    return None


def stack_is_legal(field: Battlefield, h: str) -> bool:
    units = field.units_in(h)
    sides = {field.side_of(u) for u in units}
    if len(sides) > 1:
        return False
    kinds = [field.counter(u) for u in units]
    combat = sum(k.is_combat_unit for k in kinds)
    cmd = sum(k.is_commander for k in kinds)
    bag = sum(k.is_baggage for k in kinds)
    if combat > 1 or cmd > 1 or bag > 1:
        return False
    return not (combat == 0 and cmd + bag > 1)
