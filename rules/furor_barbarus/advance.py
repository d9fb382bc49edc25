"""Section 9.11: advance after combat.

When the defender's hex is left empty (retreat or elimination), one adjacent
hand-to-hand attacker (with the commander stacked with it) may occupy it,
regardless of ZOC: the one named by ``advance UNIT`` in the attack order, and
always the unit that charged.  The reverse holds for the defender: if an
attacker's hex was left empty, the defender advances into the first such hex
when its owner's standing order says ``standing advance yes`` (default: no).
A unit stacked with baggage does not advance.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.hexgrid import adjacent


def _advance(field: Battlefield, uid: str, into: str, why: str) -> None:
    h = field.hex_of(uid)
    if h is None:
        return
    followers = [u for u in field.units_in(h) if u != uid and field.counter(u).is_commander]
    field.place(uid, into)
    for f in followers:
        field.place(f, into)
    field.add_event(
        "advance",
        f"{field.counter(uid).name} ({uid}) advances {h} -> {into} ({why}).",
        unit=uid,
        path=[h, into],
        side=field.side_of(uid),
    )


def _may_advance(field: Battlefield, uid: str, into: str) -> bool:
    h = field.hex_of(uid)
    return (
        h is not None
        and field.counter(uid).is_combat_unit
        and adjacent(h, into)
        and field.baggage_in(h) is None
        and not field.game_map.impassable_between(h, into)
    )


def advance_after_combat(
    field: Battlefield,
    th: str,
    d: str,
    melee: Sequence[str],
    charger: str | None,
    wanted: str | None,
    attacker_hexes: dict[str, str | None],
) -> None:
    """After the combat on hex ``th`` whose defender was ``d``: the attackers'
    advance (the ``charger`` must, else ``wanted`` among the hand-to-hand
    attackers ``melee``), or the defender's into a hex of ``attacker_hexes``
    left empty."""
    if not field.units_in(th):
        chosen = None
        if charger and field.exists(charger) and _may_advance(field, charger, th):
            chosen, why = charger, "a charger must advance (9.2, 9.11)"
        elif wanted and wanted in melee and field.exists(wanted) and _may_advance(field, wanted, th):
            chosen, why = wanted, "advance after combat (9.11)"
        if chosen:
            _advance(field, chosen, th, why)
        return
    if not field.exists(d) or field.hex_of(d) != th or not field.counter(d).is_combat_unit:
        return
    if not field.standing(field.side_of(d)).get("advance", False):
        return
    for h in attacker_hexes.values():
        if h and not field.units_in(h) and _may_advance(field, d, h):
            _advance(field, d, h, "the defender advances after combat (9.11)")
            return
