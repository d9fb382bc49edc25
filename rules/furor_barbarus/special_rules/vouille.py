"""Vouille, 507: the special rules of scenario 4.

1. Breton cavalry.  Each time the Bretons are attacked, if at least one hex next
   to them is free of enemy units, they may roll 1d6 (standing order
   ``breton-evasion no`` refuses; the default is to roll): on 5-6 they evade up to
   2 hexes, even across enemy ZOC, and the attack finds nobody (no result, no
   advance, 9.11).  If the only way out is off the map, they are eliminated; both
   "may" being the owner's, they then roll only on his explicit standing order
   ``breton-evasion off-map`` (neither the default nor ``yes`` chooses it).
2. Alan cavalry: mounted shooters that may charge and take no hand-to-hand
   penalty (data: the ``charge`` and ``no_melee_penalty`` marks of ``alans``).
3. The elite variation is the ``elite`` option of the scenario file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.rules.furor_barbarus.hexgrid import hex_distance
from pbem.rules.furor_barbarus.scenario_rules import ScenarioRules
from pbem.rules.furor_barbarus.special_rules import REGISTRY

if TYPE_CHECKING:  # pragma: no cover
    from pbem.rules.furor_barbarus.battlefield import Battlefield
    from pbem.rules.furor_barbarus.combat import Combat

SCENARIO = "vouille"
BRETON_NAME = "Bretons"
EVASION_DISTANCE = 2
BRETON_EVASION = "breton-evasion"  # standing order key: "yes" (default) | "no" | "off-map"
OFF_MAP = "off-map"  # roll even when the only way out is off the map


def evasion_wanted(field: Battlefield, side: str) -> bool:
    value = field.position.get("standing", {}).get(side, {}).get(BRETON_EVASION, "yes")
    return str(value).lower() not in ("no", "false", "off")


def evasion_off_the_map_ordered(field: Battlefield, side: str) -> bool:
    """Has the owner explicitly ordered an evasion that can only end off the map
    (``standing breton-evasion off-map``)?  Never by default, nor by ``yes``."""
    value = field.position.get("standing", {}).get(side, {}).get(BRETON_EVASION)
    return str(value).lower() == OFF_MAP


def free_of_enemies(field: Battlefield, uid: str, h: str) -> bool:
    side = field.side_of(uid)
    return not any(field.enemies(side, field.side_of(u)) for u in field.units_in(h))


def has_a_way_out(field: Battlefield, uid: str) -> bool:
    """At least one neighbour hex free of enemy units (a map edge counts: the way
    out is then off the map)."""
    h = field.hex_of(uid)
    gm = field.game_map
    return gm.on_edge(h) or any(free_of_enemies(field, uid, n) for n in gm.neighbours(h))  # type: ignore[arg-type]


def evasion_hex(field: Battlefield, uid: str) -> str | None:
    """Where the Bretons evade: a hex 1 or 2 hexes away, reached through hexes free
    of enemy units (ZOC ignored, no unbridged river), ending in an empty hex; the
    one farthest from the nearest enemy (then farther from the start, then the
    lowest id).  None: no such hex on the map."""
    gm = field.game_map
    start = field.hex_of(uid)
    assert start is not None  # the attacked unit is on the map
    side = field.side_of(uid)
    enemies = [field.hex_of(u) for u in field.on_map() if field.enemies(side, field.side_of(u))]
    seen = {start}
    frontier = [start]
    candidates: list[str] = []
    for _ in range(EVASION_DISTANCE):
        nxt = []
        for h in frontier:
            for n in gm.neighbours(h):
                if n in seen or gm.river_between(h, n) or not free_of_enemies(field, uid, n):
                    continue
                seen.add(n)
                nxt.append(n)
                if not field.units_in(n):
                    candidates.append(n)
        frontier = nxt
    if not candidates:
        return None

    def key(h: str) -> tuple[int, int, str]:
        nearest = min((hex_distance(h, e) for e in enemies if e), default=99)
        return (-nearest, -hex_distance(h, start), h)

    return min(candidates, key=key)


class VouilleRules(ScenarioRules):
    scenario_id = SCENARIO

    def standing_orders(self) -> dict[str, tuple[str, ...]]:
        return {BRETON_EVASION: ("yes", "no", OFF_MAP)}

    def on_attacked(self, field: Battlefield, combat: Combat) -> bool:
        uid = combat.defender
        c = field.counter(uid)
        side = field.side_of(uid)
        if c.name != BRETON_NAME or not has_a_way_out(field, uid) or not evasion_wanted(field, side):
            return False
        start = field.hex_of(uid)
        to = evasion_hex(field, uid)
        off_the_map = to is None and field.game_map.on_edge(start)  # type: ignore[arg-type]
        if off_the_map and not evasion_off_the_map_ordered(field, side):
            field.add_event(
                "breton_evasion",
                f"The Bretons ({uid}) could evade only off the map: without their "
                f"owner's order ({BRETON_EVASION} {OFF_MAP}) they do not roll and stand (special rule 1).",
                unit=uid,
                evaded=False,
                rolled=False,
            )
            return False
        die = field.dice.roll(6, f"evasion of the Breton cavalry {uid} (special rule 1)")
        if die < 5:
            field.add_event(
                "breton_evasion",
                f"The Bretons ({uid}) roll {die}: they stand (special rule 1).",
                unit=uid,
                die=die,
                evaded=False,
            )
            return False
        if to is None and not off_the_map:
            field.add_event(
                "breton_evasion",
                f"The Bretons ({uid}) roll {die} but find no free hex: they stand (special rule 1).",
                unit=uid,
                die=die,
                evaded=False,
            )
            return False
        if to is None:
            field.add_event(
                "breton_evasion",
                f"The Bretons ({uid}) roll {die} and evade off the map (special rule 1).",
                unit=uid,
                die=die,
                evaded=True,
                path=[start],
            )
            field.eliminate(uid, "evaded off the map (special rule 1)")
            return True
        for u in field.stack_of(uid):
            field.place(u, to)
        field.add_event(
            "breton_evasion",
            f"The Bretons ({uid}) roll {die} and evade from {start} to {to}: the attack finds nobody (special rule 1).",
            unit=uid,
            die=die,
            evaded=True,
            path=[start, to],
        )
        return True


REGISTRY[SCENARIO] = VouilleRules
