"""Section 9.3: units with a missile firing capacity.

Hand to hand (adjacent), a missile unit fights at strength -1 (minimum 1),
unless it faces enemy missile units ("snipers") or has the ``no_melee_penalty``
mark; alone it may attack hand to hand only at odds better than 1/1.  At range
(up to its range, not adjacent to the target) it fires only in attack and only
when no enemy combat unit is adjacent to it; it fires over units and water (no
line of sight rule); it takes no result unless its target can fire too.
"""

from __future__ import annotations

from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.counters import Mark
from pbem.rules.furor_barbarus.hexgrid import hex_distance

MELEE_PENALTY = 1


def melee_penalty_applies(field: Battlefield, uid: str, opponents: list[str]) -> bool:
    c = field.counter(uid)
    if not c.is_missile or Mark.NO_MELEE_PENALTY in c.marks:
        default = False
    else:
        default = not (opponents and all(field.counter(o).is_missile for o in opponents))
    return field.special.melee_penalty(field, uid, default)


def melee_strength(field: Battlefield, uid: str, base: int, opponents: list[str]) -> int:
    if melee_penalty_applies(field, uid, opponents):
        return max(1, base - MELEE_PENALTY)
    return base


def fire_problem(field: Battlefield, uid: str, target_hex: str) -> str | None:
    """Why ``uid`` may not fire at ``target_hex`` at range (None: it may)."""
    c = field.counter(uid)
    h = field.hex_of(uid)
    assert h is not None
    if not c.is_missile:
        return f"{uid} is not adjacent to {target_hex} and cannot fire (9.1)"
    d = hex_distance(h, target_hex)
    if d > c.range:
        return f"{target_hex} is {d} hexes from {uid}, beyond its range {c.range} (9.3)"
    if any(field.counter(e).is_combat_unit for e in field.adjacent_enemies(uid)):
        return f"{uid} is adjacent to an enemy combat unit and may not fire at range (9.3)"
    if field.baggage_in(target_hex) is not None:
        return f"{target_hex} holds baggage, which can only be attacked hand to hand (9.4)"
    return None


def can_fire_back(field: Battlefield, defender: str) -> bool:
    """A target "capable of firing" exposes ranged attackers to the result (9.3)."""
    return field.counter(defender).is_missile
