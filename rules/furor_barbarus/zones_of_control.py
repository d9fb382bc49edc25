"""Section 8: zones of control.

Every unit on the map (combat units and commanders) exerts a ZOC into its six
neighbours, except baggage (9.4) and neutral units; a ZOC does not extend across
a river hexside unless a bridge (or a road) crosses it.
"""

from __future__ import annotations

from pbem.rules.furor_barbarus.battlefield import NEUTRAL, Battlefield


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
    """Every hex in the ZOC of an enemy of ``side`` (cached until a unit moves)."""

    def compute() -> frozenset[str]:
        out: set[str] = set()
        for u in field.on_map():
            if field.enemies(side, field.side_of(u)) and exerts_zoc(field, u):
                h = field.hex_of(u)
                assert h is not None
                out.update(field.game_map.zoc_reach(h))
        return frozenset(out)

    return field.cached(("zoc", side), compute)


def in_enemy_zoc(field: Battlefield, h: str, side: str) -> bool:
    return h in enemy_zoc(field, side)
