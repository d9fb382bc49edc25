"""Section 3: set-up.  Resolution 1: both players place the units of their
deployments; fixed deployments need no line; a unit without a ``place`` line is
put in the first free hex of its deployment (in the scenario's hex order).  With
``first_player = "roll"`` both sides roll a die, the higher is player 1, ties go to
``roll_ties``."""

from __future__ import annotations

from typing import Any

from pbem.rules.furor_barbarus.battlefield import ACTIVE, Battlefield
from pbem.rules.suggest import did_you_mean, listing
from pbem.rules.furor_barbarus.orders import PlaceOrder
from pbem.rules.furor_barbarus.scenarios import Deployment, Scenario
from pbem.rules.furor_barbarus.stacking import stacking_problem


def initial_position(scenario: Scenario, options: list[str]) -> dict[str, Any]:
    units: dict[str, dict[str, Any]] = {
        uid: {"hex": None, "side": c.side, "reduced": False, "status": ACTIVE} for uid, c in scenario.counters.items()
    }
    for d in scenario.deployments:
        if d.fixed:
            for uid, h in zip(d.units, d.hexes):
                units[uid]["hex"] = h
    players: list[str] = []
    if scenario.first_player != "roll":
        players = [scenario.first_player] + [s for s in scenario.sides if s != scenario.first_player]
    return {
        "rules": "furor-barbarus",
        "scenario": scenario.id,
        "options": sorted(options),
        "phase": "setup",
        "turn": 1,
        "player": 1,
        "players": players,
        "units": units,
        "losses": {s: 0 for s in scenario.sides},
        "eliminated": [],
        "standing": {s: {"advance": False, "losses": []} for s in scenario.sides},
        "special": {},
        "outcome": None,
    }


def deployment_of(scenario: Scenario, uid: str) -> Deployment | None:
    for d in scenario.deployments:
        if uid in d.units:
            return d
    return None


def describe_hexes(hexes: tuple[str, ...] | list[str]) -> str:
    """Hex ids with runs of one column shortened.

    >>> describe_hexes(["0401", "0402", "0403", "0907", "0501"])
    '0401-0403, 0907, 0501'
    """
    runs: list[list[str]] = []
    for h in hexes:
        last = runs[-1][-1] if runs else ""
        if last and h[:2] == last[:2] and int(h[2:]) == int(last[2:]) + 1:
            runs[-1].append(h)
        else:
            runs.append([h])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def placement_problem(field: Battlefield, side: str, order: PlaceOrder, used: set[str]) -> str | None:
    uid, h = order.unit, order.hex
    if uid not in field.units:
        free = [u for d in field.scenario.deployments if not d.fixed for u in d.units if field.counter(u).side == side]
        return f"unknown unit {uid!r}; the units you place are: {listing(free)}{did_you_mean(uid, free)}"
    if field.counter(uid).side != side:
        return f"{uid} is not a unit of {side}"
    d = deployment_of(field.scenario, uid)
    if d is None:
        return f"{uid} has no deployment in this scenario"
    if d.fixed:
        return f"{uid} has a fixed place ({d.hexes[d.units.index(uid)]}) and needs no line"
    if uid in used:
        return f"{uid} is placed twice"
    if h not in d.hexes:
        return f"{h} is not a hex of {uid}'s deployment ({describe_hexes(d.hexes)}) (3)"
    if not field.game_map.on_map(h):
        return f"{h} is off the map"
    same_group = [u for u in d.units if u != uid and field.hex_of(u) == h and field.counter(u).is_combat_unit
                  and field.counter(uid).is_combat_unit]
    if same_group:
        return f"{h} already holds {same_group[0]} (5)"
    return stacking_problem(field, uid, h, side)


def place_side(field: Battlefield, side: str, orders: list[tuple[int, PlaceOrder]]) -> list[tuple[int, str]]:
    """Place ``side``'s units (orders first, then defaults), then apply the
    scenario's set-up check (hook ``setup_problems``).  Returns problems
    ``(line, message)``; problem lines are ignored (their units get defaults)."""
    problems: list[tuple[int, str]] = []
    used: set[str] = set()
    lines: dict[str, int] = {}
    for uid in field.units:
        c = field.counter(uid)
        d = deployment_of(field.scenario, uid)
        if c.side == side and d is not None and not d.fixed:
            field.place(uid, None)  # type: ignore[arg-type]
    for line, order in orders:
        why = placement_problem(field, side, order, used)
        if why:
            problems.append((line, why))
            continue
        field.place(order.unit, order.hex)
        used.add(order.unit)
        lines[order.unit] = line
    for d in field.scenario.deployments:
        if d.fixed:
            continue
        for uid in d.units:
            if field.counter(uid).side != side or uid in used:
                continue
            for h in d.hexes:
                if field.game_map.on_map(h) and stacking_problem(field, uid, h, side) is None:
                    field.place(uid, h)
                    break
            else:
                problems.append((0, f"no free hex left for {uid} in its deployment"))
            used.add(uid)
    return problems + special_setup_problems(field, side, lines)


def special_setup_problems(field: Battlefield, side: str, lines: dict[str, int]) -> list[tuple[int, str]]:
    """The scenario's set-up check (hook ``setup_problems``) on ``side``'s placed
    units: a unit placed by a line (``lines``: unit -> line) is refused with the
    reason, and every unit named is moved to a hex of its deployment where the
    scenario allows it, if there is one.  Returns ``(line, reason)``."""
    out: list[tuple[int, str]] = []
    for _ in range(len(field.scenario.counters)):
        found = field.special.setup_problems(field, side)
        if not found:
            break
        moved = False
        for uid, why in found:
            if uid in lines:
                out.append((lines.pop(uid), why))
            moved = relocate(field, side, uid) or moved
        if not moved:
            for uid, why in found:
                out.append((0, f"{uid}: {why}; no hex of its deployment allows it"))
            break
    return out


def relocate(field: Battlefield, side: str, uid: str) -> bool:
    """Move ``uid`` to the first hex of its deployment where stacking (5) and the
    scenario's set-up check allow it; False if there is none."""
    d = deployment_of(field.scenario, uid)
    start = field.hex_of(uid)
    if d is None or d.fixed:
        return False
    for h in d.hexes:
        if h == start or not field.game_map.on_map(h) or stacking_problem(field, uid, h, side) is not None:
            continue
        field.place(uid, h)
        if all(u != uid for u, _ in field.special.setup_problems(field, side)):
            return True
    field.place(uid, start)  # type: ignore[arg-type]
    return False


def roll_first_player(field: Battlefield) -> None:
    sc = field.scenario
    rolls = {s: field.dice.roll(6, f"first player: {s} (3)") for s in sc.sides}
    best = max(rolls.values())
    leaders = [s for s, v in rolls.items() if v == best]
    first = leaders[0] if len(leaders) == 1 else sc.roll_ties
    field.position["players"] = [first] + [s for s in sc.sides if s != first]
    field.add_event("first_player", f"First player roll: {', '.join(f'{s} {v}' for s, v in rolls.items())}; "
                    f"{first} is player 1.", rolls=rolls, first=first)
