"""Section 9.2: the charge, and optional rule 10.2 (counter charge).

A cavalry unit (not missile cavalry), or a unit with the ``charge`` mark, that
charges adds +2 to its strength in attack if:

- it moved this phase, every step in one hex direction, and the charged unit is
  the next hex along that line ("straight line towards the charged enemy", the
  9.3 example);
- every hex it entered is clear or road;
- every stream hexside it crossed (including the one into the target) carries a
  road or a bridge;
- the target is in a clear, road or bridge hex -- or a village: the worked
  example of 9.3 charges Fontenoy, a village, so a village counts as open ground
  for the target (docs, 9.2);
- with optional 10.2, the defender itself cannot charge.

The charger must advance into the hex if the defender leaves it (9.11).
"""

from __future__ import annotations

from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.counters import Mark, UnitType
from pbem.rules.furor_barbarus.hexgrid import straight_line
from pbem.rules.furor_barbarus.terrain import CHARGE_PATH_TERRAIN, Feature, Terrain

CHARGE_BONUS = 2
COUNTER_CHARGE = "counter-charge"
CHARGE_TARGET_TERRAIN = frozenset({Terrain.CLEAR, Terrain.ROAD, Terrain.BRIDGE, Terrain.VILLAGE})


def can_charge(field: Battlefield, uid: str) -> bool:
    c = field.counter(uid)
    default = c.type is UnitType.CAVALRY or Mark.CHARGE in c.marks
    return field.special.can_charge(field, uid, default)


def charge_problem(field: Battlefield, uid: str, target_hex: str, path: list[str] | None = None) -> str | None:
    """Why ``uid`` may not charge the unit in ``target_hex`` (None: it may).
    ``path`` defaults to the unit's move this phase (start hex first)."""
    if not can_charge(field, uid):
        return f"{uid} cannot charge (9.2)"
    path = list(path if path is not None else field.paths.get(uid, []))
    if len(path) < 2:
        return f"{uid} has not moved this phase: a charge needs its approach (9.2)"
    line = path + [target_hex]
    if straight_line(line) is None:
        return f"the approach {'-'.join(line)} of {uid} is not a straight line towards the charged unit (9.2)"
    gm = field.game_map
    for h in path[1:]:
        if gm.terrain(h) not in CHARGE_PATH_TERRAIN:
            return f"{uid} crossed {h} ({gm.terrain(h).value}): a charge crosses only clear or road hexes (9.2)"
    for a, b in zip(line, line[1:]):
        side = gm.hexside(a, b)
        if side is not None and side.feature is Feature.STREAM and not side.bridged:
            return f"{uid} crosses the stream between {a} and {b} off the road: no charge (9.2)"
    if gm.terrain(target_hex) not in CHARGE_TARGET_TERRAIN:
        return (
            f"the charged unit is in {gm.terrain(target_hex).value} ({target_hex}): a charge needs clear, road "
            "or bridge (9.2)"
        )
    return None


def charge_bonus(field: Battlefield, uid: str, defender: str) -> int:
    if COUNTER_CHARGE in field.options and can_charge(field, defender):
        return 0
    return CHARGE_BONUS
