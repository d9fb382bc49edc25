"""Section 9.8: retreat.

A retreating unit goes one hex, chosen by the priority list:

1. no enemy ZOC, no friendly unit;
2. no enemy ZOC, with a friendly unit;
3. in an enemy ZOC, with a friendly unit.

A hex in an enemy ZOC without a friendly unit is never entered (8: "a unit may
not retreat into an enemy Zone of Control"), nor a hex across an unbridged river
(TEC), nor a hex of another side, nor a hex where the commander retreating with
the unit would stand with another commander (5: one commander per hex; a hex
holding a friendly commander alone is usable only by a unit without one).
Entering a hex held by a friendly combat unit displaces that unit (with its
commander): it retreats by the same rule (the chain of 9.8).  A unit with no hex
loses one step and stays (unless a map edge is next to it: then it is forced off
the map and eliminated).
Equal hexes are split by the owner's standing order ``standing retreat HEX,HEX``
(hexes listed first are preferred), then by the greatest total distance from the
units it retreats from, then by the lowest hex id.  Baggage, and a unit stacked with baggage,
ignore R (9.4).  A commander goes with his unit (6).

This module moves units only: the displaced units' morale checks (9.8, "each
undergoing a morale check") are made by :func:`rules.furor_barbarus.morale.retreat`,
which is what the combat and the morale check call, since a morale check may
itself end in a retreat.
"""

from __future__ import annotations

from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.hexgrid import hex_distance
from pbem.rules.furor_barbarus.stacking import stacking_problem
from pbem.rules.furor_barbarus.zones_of_control import in_enemy_zoc

MAX_CHAIN = 4  # designed: a displacement chain is looked for up to 4 units deep

Plan = list[tuple[str, str]]  # (unit, hex it retreats into), first the retreating unit


def _plan(field: Battlefield, uid: str, away_from: tuple[str, ...], blocked: frozenset[str], depth: int) -> Plan | None:
    h = field.hex_of(uid)
    if h is None:
        return None
    side = field.side_of(uid)
    wishes = list(field.standing(side).get("retreat", [])) if side in field.position.get("standing", {}) else []
    riders = [u for u in field.units_in(h) if u != uid and field.counter(u).is_commander]
    best: tuple[tuple[int, int, int, str], Plan] | None = None
    for n in field.game_map.neighbours(h):
        if n in blocked or field.hostile_in(n, side):
            continue
        if field.game_map.impassable_between(h, n):
            continue
        zoc = in_enemy_zoc(field, n, side)
        friends = field.friendly_in(n, side)
        if zoc and not friends:
            continue
        if riders and field.combat_unit_in(n) is None and field.commander_in(n) is not None:
            continue  # his commander would stand with another one (5); a displaced friend takes his own along
        priority = 1 if not friends else (3 if zoc else 2)
        plan: Plan = [(uid, n)]
        if stacking_problem(field, uid, n, side, frozenset()) is not None:
            friend = field.combat_unit_in(n)
            if (
                friend is None
                or not field.counter(uid).is_combat_unit
                or depth >= MAX_CHAIN
                or field.baggage_in(n) is not None
            ):
                continue
            rest = _plan(field, friend, away_from, blocked | {h, n}, depth + 1)
            if rest is None:
                continue
            plan += rest
        spread = sum(hex_distance(n, a) for a in away_from)
        wish = wishes.index(n) if n in wishes else len(wishes)
        key = (priority, wish, -spread, n)
        if best is None or key < best[0]:
            best = (key, plan)
    return best[1] if best else None


def _move_with_commander(field: Battlefield, uid: str, to: str) -> None:
    h = field.hex_of(uid)
    followers = [u for u in field.units_in(h) if u != uid and field.counter(u).is_commander] if h else []
    field.place(uid, to)
    for f in followers:
        field.place(f, to)


def retreat_unit(field: Battlefield, uid: str, away_from_units: tuple[str, ...], cause: str) -> list[str]:
    """Retreat ``uid`` one hex (or take its step loss / elimination when it
    cannot); returns the friendly units it displaced, in chain order, whose
    morale must now be checked (9.8)."""
    if not field.exists(uid):
        return []
    c = field.counter(uid)
    h = field.hex_of(uid)
    assert h is not None
    if c.is_baggage or (c.is_combat_unit and field.baggage_in(h) is not None):
        field.add_event("retreat", f"{c.name} ({uid}) ignores the retreat: baggage (9.4).", unit=uid, blocked=True)
        return []
    away = tuple(x for x in (field.hex_of(a) or "" for a in away_from_units) if x)
    plan = _plan(field, uid, away, frozenset(), 0)
    if plan is None:
        if field.game_map.on_edge(h):
            field.add_event("retreat", f"{c.name} ({uid}) is forced off the map at {h} (9.8).", unit=uid, off_map=True)
            field.eliminate(uid, "retreated off the map (9.8)")
        else:
            field.add_event("retreat", f"{c.name} ({uid}) cannot retreat from {h} (9.8).", unit=uid, blocked=True)
            field.lose_step(uid, "unable to retreat (9.8)")
        return []
    for unit, to in reversed(plan):
        frm = field.hex_of(unit)
        _move_with_commander(field, unit, to)
        uc = field.counter(unit)
        why = cause if unit == uid else f"displaced by {plan[0][0]} (9.8)"
        field.add_event("retreat", f"{uc.name} ({unit}) retreats {frm} -> {to} ({why}).", unit=unit, path=[frm, to])
    return [unit for unit, _ in plan[1:]]
