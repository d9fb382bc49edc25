"""Section 8: zones of control.

Every unit on the map (combat units and commanders) exerts a ZOC into its six
neighbours, except baggage (9.4) and neutral units; a ZOC does not extend across
a river hexside unless a bridge (or a road) crosses it.
"""

from __future__ import annotations

from typing import cast

from pbem.rules.furor_barbarus.battlefield import ACTIVE, NEUTRAL, Battlefield
from pbem.rules.furor_barbarus.counters import UnitType


def exerts_zoc(field: Battlefield, uid: str) -> bool:
    return not field.counter(uid).is_baggage and field.side_of(uid) != NEUTRAL


def zoc_sources(field: Battlefield, h: str, side: str) -> list[str]:
    """Enemy units of ``side`` whose ZOC covers hex ``h``."""
    out = []
    for n in field.game_map.neighbours(h):
        if field.game_map.river_between(h, n):
            continue
        for u in field.units_in(n):
            if field.enemies(side, field.side_of(u)) and exerts_zoc(field, u):
                out.append(u)
    return out


def enemy_zoc(field: Battlefield, side: str) -> frozenset[str]:
    """Every hex in the ZOC of an enemy of ``side`` (cached until a unit of an enemy
    moves: ``Battlefield.touched``)."""
    key = ("zoc", side)
    found: frozenset[str] | None = field._cache.get(key)
    if found is None:
        found = field._cache[key] = _zone_of_enemies(field, side)
    return found


def _zone_of_enemies(field: Battlefield, side: str) -> frozenset[str]:
    """Every unit on the map that is an enemy of ``side`` and exerts a ZOC (exerts_zoc),
    read from the units' entries (four calls a unit made this a resolution's largest
    loop) and the map's ZOC reach of each hex (one table, not a call per unit)."""
    out: set[str] = set()
    if side == NEUTRAL:
        return frozenset(out)
    counters = field.scenario.counters
    gm = field.game_map
    reach: dict[str, frozenset[str]] = gm.__dict__.get("_zoc_reach", {})
    baggage = UnitType.BAGGAGE
    for u, s in field.units.items():
        us = s["side"]
        if us != side and us != NEUTRAL and s["status"] == ACTIVE:
            h = s["hex"]
            if h is not None and counters[u].type is not baggage:
                found = reach.get(h)
                out.update(found if found is not None else gm.zoc_reach(h))
    return frozenset(out)


def zone_and_index(field: Battlefield, side: str) -> tuple[frozenset[str], dict[str, list[str]]]:
    """``enemy_zoc(field, side)`` and the hex index (``field.occupied()``) in one pass
    over the units, for a battlefield that has neither yet (its first move's check:
    two passes over the 44 units of Campus Mauriacus were some 2.8 k opcodes); both
    are kept as each would keep it."""
    if side == NEUTRAL:
        return enemy_zoc(field, side), field.occupied()
    counters = field.scenario.counters
    gm = field.game_map
    baggage = UnitType.BAGGAGE
    enemies: list[str] = []  # the hex of each enemy unit exerting a ZOC (its reach joined below, in one call)
    where: dict[str, list[str]] = {}
    for u, s in field.units.items():  # as Battlefield._index, and for each enemy as _zone_of_enemies
        h = s["hex"]
        if h is not None and s["status"] == ACTIVE:
            found = where.get(h)
            if found is None:
                where[h] = [u]
            else:
                found.append(u)
            us = s["side"]
            if us != side and us != NEUTRAL and counters[u].type is not baggage:
                enemies.append(h)
    reach: dict[str, frozenset[str]] = gm.__dict__.get("_zoc_reach", {})
    nears: list[frozenset[str] | None] = list(map(reach.get, enemies))
    if None in nears:  # a map not ``prepared``: its hexes' reach worked out as met
        nears = [gm.zoc_reach(h) for h in enemies]
    field.adopt_index(where)
    found_zone = field._cache[("zoc", side)] = frozenset().union(*cast(list[frozenset[str]], nears))
    return found_zone, where


def in_enemy_zoc(field: Battlefield, h: str, side: str) -> bool:
    return h in enemy_zoc(field, side)
