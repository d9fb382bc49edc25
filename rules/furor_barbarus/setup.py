"""Section 3: set-up.  The players place the units of their deployments in the
scenario's order: a scenario with ``setup_first`` sets up in two resolutions (that
side, then the other, who sees the first's set-up in his report); without it both
sides set up at once, in one resolution.  With ``secret_commanders`` (Campus
Mauriacus: "the two players secretly note the position of their commanders and
reveal their positions simultaneously") the first side places its units but not
its commanders, and notes them in the second step, in a file of its own sent
alongside the other side's set-up; both are revealed when that step is resolved.

Fixed deployments need no line; a unit without a ``place`` line is put in the
first free hex of its deployment (in the scenario's hex order).  With
``first_player = "roll"`` both sides roll a die when the set-up is complete, the
higher is player 1, ties go to ``roll_ties``."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from pbem.rules.furor_barbarus.battlefield import ACTIVE, Battlefield
from pbem.rules.furor_barbarus.counters import Counter
from pbem.rules.furor_barbarus.orders import PlaceOrder
from pbem.rules.furor_barbarus.scenarios import Deployment, Scenario
from pbem.rules.furor_barbarus.stacking import stacking_problem
from pbem.rules.suggest import did_you_mean, listing


class SetupPart(str, Enum):
    """What one side places in one set-up step."""

    ALL = "all"  # every unit of its deployments
    UNITS = "units"  # every unit but the commanders (noted in a later step)
    COMMANDERS = "commanders"  # only the commanders, noted secretly

    def includes(self, counter: Counter) -> bool:
        if self is SetupPart.UNITS:
            return not counter.is_commander
        if self is SetupPart.COMMANDERS:
            return counter.is_commander
        return True


SetupStep = tuple[tuple[str, SetupPart], ...]
"""The sides due in one set-up resolution (in side-id order) and what each places."""


def setup_steps(scenario: Scenario) -> tuple[SetupStep, ...]:
    """The set-up resolutions of a scenario, in order (3 and the scenario's set-up).

    Two steps where the scenario names who sets up first; Campus Mauriacus' first
    side notes its commanders in the second step, with the other side's set-up."""
    sides = scenario.sides
    first = scenario.setup_first
    if first not in sides:
        return (tuple((s, SetupPart.ALL) for s in sides),)
    second = next(s for s in sides if s != first)
    if scenario.secret_commanders:
        return (((first, SetupPart.UNITS),), tuple(sorted(((second, SetupPart.ALL), (first, SetupPart.COMMANDERS)))))
    return (((first, SetupPart.ALL),), ((second, SetupPart.ALL),))


def current_setup_step(position: Mapping[str, Any], scenario: Scenario) -> SetupStep:
    """The step the next set-up resolution plays.  A position of a game created
    before set-up steps existed (no ``setup_step``) is set up in one step, as it
    was then, so its archive still replays."""
    number = position.get("setup_step")
    if number is None:
        return tuple((s, SetupPart.ALL) for s in scenario.sides)
    return setup_steps(scenario)[int(number) - 1]


def last_setup_step(position: Mapping[str, Any], scenario: Scenario) -> bool:
    number = position.get("setup_step")
    return number is None or int(number) >= len(setup_steps(scenario))


def setup_part(position: Mapping[str, Any], scenario: Scenario, side: str) -> SetupPart | None:
    """What ``side`` places in the next set-up resolution (None: it is not due)."""
    return dict(current_setup_step(position, scenario)).get(side)


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
        "setup_step": 1,
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
    same_group = [
        u
        for u in d.units
        if u != uid and field.hex_of(u) == h and field.counter(u).is_combat_unit and field.counter(uid).is_combat_unit
    ]
    if same_group:
        return f"{h} already holds {same_group[0]} (5)"
    return stacking_problem(field, uid, h, side)


def part_problem(field: Battlefield, side: str, order: PlaceOrder, part: SetupPart) -> str | None:
    """Why ``order`` places a unit this set-up step does not (None: it does)."""
    if (
        order.unit not in field.units
        or field.counter(order.unit).side != side
        or part.includes(field.counter(order.unit))
    ):
        return None
    if part is SetupPart.UNITS:
        second = next(s for s in field.scenario.sides if s != side)
        return (
            f"{order.unit} is a commander: his hex is noted secretly in the next set-up step, sent with the "
            f"{second}' set-up, and revealed with theirs (3, scenario set-up)"
        )
    return f"{order.unit} was placed in the first set-up step; only the commanders are noted now (3, scenario set-up)"


def place_side(
    field: Battlefield, side: str, orders: list[tuple[int, PlaceOrder]], part: SetupPart = SetupPart.ALL
) -> list[tuple[int, str]]:
    """Place ``side``'s units of ``part`` (orders first, then defaults), then apply
    the scenario's set-up check (hook ``setup_problems``).  Returns problems
    ``(line, message)``; problem lines are ignored (their units get defaults)."""
    problems: list[tuple[int, str]] = []
    used: set[str] = set()
    lines: dict[str, int] = {}
    for uid in field.units:
        c = field.counter(uid)
        d = deployment_of(field.scenario, uid)
        if c.side == side and d is not None and not d.fixed and part.includes(c):
            field.place(uid, None)  # type: ignore[arg-type]
    for line, order in orders:
        why = part_problem(field, side, order, part) or placement_problem(field, side, order, used)
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
            if field.counter(uid).side != side or uid in used or not part.includes(field.counter(uid)):
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
    field.add_event(
        "first_player",
        f"First player roll: {', '.join(f'{s} {v}' for s, v in rolls.items())}; {first} is player 1.",
        rolls=rolls,
        first=first,
    )


def play_setup_step(field: Battlefield, orders: Mapping[str, list[tuple[int, PlaceOrder]]]) -> None:
    """One set-up resolution: each due side places the units of its part (its
    ``place`` lines, then defaults); after the last step the commanders noted
    secretly are revealed, the first player is rolled for if the scenario says
    so, and play begins.  ``orders``: side -> its place lines (line, order)."""
    pos = field.position
    step = current_setup_step(pos, field.scenario)
    for side, part in step:
        for line, msg in place_side(field, side, list(orders.get(side, [])), part):
            field.add_event("skip", f"{side}: set-up line {line} ignored: {msg}.", side=side, line=line)
        placed = {u: field.hex_of(u) for u in sorted(field.on_map(side)) if part.includes(field.counter(u))}
        if part is SetupPart.COMMANDERS:
            text = f"{side} note their commanders' hexes secretly (3)."
        elif part is SetupPart.UNITS:
            text = f"{side} deploy {len(placed)} units; their commanders are noted secretly in the next step (3)."
        else:
            text = f"{side} deploys {len(placed)} units."
        field.add_event("setup", text, side=side, units=placed)
    if not last_setup_step(pos, field.scenario):
        pos["setup_step"] = int(pos["setup_step"]) + 1
        return
    if field.scenario.secret_commanders:
        shown = {u: field.hex_of(u) for u in sorted(field.on_map()) if field.counter(u).is_commander}
        field.add_event(
            "commanders_revealed",
            "The commanders' positions are revealed together: "
            + ", ".join(f"{u} {h}" for u, h in shown.items())
            + " (3).",
            commanders=shown,
        )
    if not field.player_order:
        roll_first_player(field)
    pos.pop("setup_step", None)
    pos["phase"] = "play"
