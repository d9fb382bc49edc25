"""One player turn, resolved (rulebook, "Turn Sequence").

In order: the side's standing loss orders are stored; (advanced rule) MU are
carried between ports; the one action is carried out (attack, invade, moves or
nothing); Militia are deployed; new MU set up ("Setup of new units if any"); both
sides' VP are computed; the Final Objective is checked; the Turn (and Phase)
marker advances.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.rules.base import NO_ORDERS, Dice, Event, IllegalOrderError, Orders, Resolution
from pbem.rules.farrapos.battle import fight
from pbem.rules.farrapos.board import Board
from pbem.rules.farrapos.counters import SIDE_NAMES
from pbem.rules.farrapos.legal import apply_movement, validate_orders
from pbem.rules.farrapos.orders import Attack, Carry, DeployMilitia, Invade, Move, Place, StandingLosses
from pbem.rules.farrapos.position import Position, View, own_cities, sort_units, working_copy
from pbem.rules.farrapos.sequence import label, next_turn
from pbem.rules.farrapos.victory import check_victory
from pbem.rules.farrapos.victory_points import held_breakdowns


def default_placement(view: View, side: str) -> str | None:
    """Where new MU with no ``place`` order set up: the side's held city of the
    highest VP (then the one with most MU, then board order); failing that any
    city of its possession; None if it has none."""
    return default_city(view.cities, view.board, side)


def default_city(cities: Mapping[str, Mapping[str, Any]], board: Board, side: str) -> str | None:
    """:func:`default_placement` read off the position's cities: the board's cities
    are read from the highest VP down (``Board.by_vp``, board order among equals),
    and the walk stops below the VP of the first held city it meets: a few cities,
    where the side's cities were listed over the whole board, then compared."""
    best: str | None = None
    best_vp = best_units = 0
    empty: str | None = None  # the first city of its possession with no MU or Militia
    for city, vp in board.by_vp:
        if best is not None and vp < best_vp:
            break
        entry = cities[city]
        if entry["owner"] != side:
            continue
        units = len(entry["units"])
        if units or int(entry["militia"]) > 0:  # held: a MU or a Militia
            if best is None or units > best_units:  # the same VP: most MU, then the first in board order
                best, best_vp, best_units = city, vp, units
        elif empty is None:
            empty = city
    return best if best is not None else empty


def _no_militia_reason(view: View, side: str, city: str) -> str | None:
    """Why a Militia ordered into ``city`` cannot deploy now (``None``: it can).
    The order was checked for what the battle could leave; this is what it left."""
    if view.owner(city) != side:
        return f"it is not the {SIDE_NAMES[side]}'s"
    if view.units_in(city):
        return "it has MU"
    if view.militia_in(city):
        return "it already has a Militia"
    if view.militia_available(side) < 1:
        return "no Militia counter is left"
    return None


def _move_event(kind: str, side: str, units: tuple[str, ...], origin: str, destination: str, view: View) -> Event:
    verbs = {"move": "moves", "invade": "invades", "carry": "carries"}
    board = view.board
    if kind == "invade":
        text = (
            f"The {SIDE_NAMES[side]} invades {board.name(destination)} from {board.name(origin)} with "
            f"{', '.join(units)}."
        )
    elif kind == "carry":
        text = (
            f"The {SIDE_NAMES[side]} carries {', '.join(units)} by water from {board.name(origin)} to "
            f"{board.name(destination)}."
        )
    else:
        text = (
            f"The {SIDE_NAMES[side]} {verbs[kind]} {', '.join(units)} from {board.name(origin)} to "
            f"{board.name(destination)}."
        )
    return {"type": kind, "text": text, "side": side, "units": list(units), "from": origin, "to": destination}


def _leave_note(work: Position, origin: str, side: str, view: View) -> list[Event]:
    city = work["cities"][origin]
    if city["units"] or city["militia"]:
        return []
    return [
        {
            "type": "city_empty",
            "text": f"{view.board.name(origin)} is left with no MU or Militia: "
            "it is empty and its VP are not recorded.",
            "city": origin,
            "side": side,
        }
    ]


def _standing_losses(work: Position, side: str, orders: Orders, board: Board) -> list[Event]:
    """Standing orders for step losses in defence ("Battles"), kept in the position."""
    events: list[Event] = []
    for line in orders:
        order = line.order
        if isinstance(order, StandingLosses):
            key = order.city or "*"
            work["standing"].setdefault(side, {})[key] = list(order.losses)
            where = f"defending {board.name(order.city)}" if order.city else "in any defence"
            events.append(
                {
                    "type": "standing_orders",
                    "text": f"The {SIDE_NAMES[side]} will lose steps {where} in this order: {', '.join(order.losses)}.",
                    "side": side,
                    "city": key,
                    "losses": list(order.losses),
                }
            )
    return events


def _carries(work: Position, side: str, orders: Orders, start: View) -> list[Event]:
    """Port transport (advanced rule): the carried MU move before the action."""
    events: list[Event] = []
    for line in orders:
        if isinstance(line.order, Carry):
            o = line.order
            apply_movement(work, o.units, o.origin, o.destination, side)
            events.append(_move_event("carry", side, o.units, o.origin, o.destination, start))
    return events


def _actions(work: Position, side: str, orders: Orders, dice: Dice, start: View) -> list[Event]:
    """The turn's action ("Actions"): attacks with their battles, invasions and moves; or none."""
    events: list[Event] = []
    board = start.board
    acted = False
    for line in orders:
        order = line.order
        if isinstance(order, Attack):
            acted = True
            events.append(
                {
                    "type": "attack",
                    "text": f"The {SIDE_NAMES[side]} attacks {board.name(order.target)} "
                    f"from {board.name(order.origin)} "
                    f"with {', '.join(order.units)} ({order.decision}).",
                    "side": side,
                    "city": order.target,
                    "from": order.origin,
                    "units": list(order.units),
                    "decision": str(order.decision),
                }
            )
            events.extend(fight(work, side, order, dice, start))
            events.extend(_leave_note(work, order.origin, side, start))
        elif isinstance(order, (Invade, Move)):
            acted = True
            destination = order.target if isinstance(order, Invade) else order.destination
            apply_movement(work, order.units, order.origin, destination, side)
            kind = "invade" if isinstance(order, Invade) else "move"
            events.append(_move_event(kind, side, order.units, order.origin, destination, start))
            events.extend(_leave_note(work, order.origin, side, start))
    if not acted:
        why = "sent no orders" if orders is NO_ORDERS or not len(orders) else "passes"
        events.append({"type": "no_action", "text": f"The {SIDE_NAMES[side]} {why}: no action.", "side": side})
    return events


def _militia(work: Position, side: str, orders: Orders, start: View) -> list[Event]:
    """Militia deployed after the action ("Militia"), or why not."""
    events: list[Event] = []
    board = start.board
    for line in orders:
        if isinstance(line.order, DeployMilitia):
            now = View(work, board, start.sheet)
            city = line.order.city
            why = _no_militia_reason(now, side, city)
            if why is None:
                own_cities(work, city)
                work["cities"][city]["militia"] += 1
                events.append(
                    {
                        "type": "militia",
                        "text": f"The {SIDE_NAMES[side]} deploys a Militia in {board.name(city)}.",
                        "side": side,
                        "city": city,
                    }
                )
            else:
                events.append(
                    {
                        "type": "militia_not_deployed",
                        "text": f"The {SIDE_NAMES[side]}'s Militia cannot deploy in {board.name(city)}: {why}.",
                        "side": side,
                        "city": city,
                        "reason": why,
                    }
                )
    return events


def _arrivals(work: Position, side: str, orders: Orders, start: View) -> list[Event]:
    """ "Setup of new units if any": the MU of this Phase set up where ordered, if the
    city is his, else by default."""
    events: list[Event] = []
    board = start.board
    phase = start.phase
    arrivals = start.arrivals_now(side)
    if arrivals:
        placed: dict[str, str] = {}
        cities = work["cities"]  # as the action left them: read without a View of them
        not_his: dict[str, str] = {}
        for line in orders:
            if isinstance(line.order, Place):
                for unit in line.order.units:
                    if cities[line.order.city]["owner"] == side:
                        placed[unit] = line.order.city
                    else:  # the battle that could have given the city did not
                        not_his[unit] = line.order.city
        # where the MU not placed set up, chosen before any of them sets up (none: none needed)
        fallback = default_city(cities, board, side) if any(unit not in placed for unit in arrivals) else None
        for unit in arrivals:
            city = placed.get(unit, fallback)
            if city is None:
                work["eliminated"] = sort_units([*work["eliminated"], unit])
                events.append(
                    {
                        "type": "arrival_lost",
                        "text": f"{unit} cannot set up: the {SIDE_NAMES[side]} has no city in his possession.",
                        "side": side,
                        "unit": unit,
                    }
                )
                continue
            own_cities(work, city)
            work["cities"][city]["units"] = sort_units([*work["cities"][city]["units"], unit])
            events.append(
                {
                    "type": "arrival",
                    "text": f"{unit} ({phase}) sets up in {board.name(city)}"
                    + ("" if unit in placed else " (default placement)")
                    + (
                        f": {board.name(not_his[unit])} is not the {SIDE_NAMES[side]}'s after the battle"
                        if unit in not_his
                        else ""
                    )
                    + ".",
                    "side": side,
                    "unit": unit,
                    "city": city,
                    "default": unit not in placed,
                }
            )
    return events


def _end_of_turn(work: Position, start: View) -> list[Event]:
    """Victory points counted, the Final Objective checked, then the Turn (and Phase) marker advances."""
    events: list[Event] = []
    phase, turn = start.phase, start.turn
    # once per side (the total and the text), off the cities as the turn left them: no View of them
    vp = held_breakdowns(work["cities"], start.board, ("republic", "empire"))
    work["vp"] = {s: b.total for s, b in vp.items()}
    events.append(
        {
            "type": "vp",
            "text": "Victory points: " + "; ".join(f"{SIDE_NAMES[s]} {b}" for s, b in vp.items()) + ".",
            "vp": dict(work["vp"]),
        }
    )
    outcome = check_victory(phase, turn, work["vp"])
    if outcome is not None:
        work["outcome"] = outcome.to_json()
        events.append(
            {
                "type": "game_over",
                "text": f"Game over after {label(phase, turn)}: {outcome.reason}.",
                **outcome.to_json(),
            }
        )
    else:
        work["phase"], work["turn"] = next_turn(phase, turn)
    return events


def resolve_turn(
    position: Position, orders_by_side: Mapping[str, Orders], dice: Dice, validated: bool = False
) -> Resolution:
    """The due side's turn.  Its orders are validated first and refused with
    :class:`IllegalOrderError`, unless ``validated`` says the caller has just
    validated them against this very position (``Farrapos.resolve_validated``:
    the referee's ``process`` and the audit; before the speed work it was half an audit)."""
    start = View(position)
    side = start.due_side()
    if side is None:
        raise IllegalOrderError("the game is over: no turn to resolve")
    orders = orders_by_side.get(side, NO_ORDERS)
    if not validated and (problems := validate_orders(position, side, orders)):
        raise IllegalOrderError(f"orders of the {SIDE_NAMES[side]} refused: " + "; ".join(map(str, problems)))
    work = working_copy(position)
    events: list[Event] = []
    events += _standing_losses(work, side, orders, start.board)
    events += _carries(work, side, orders, start)
    events += _actions(work, side, orders, dice, start)
    events += _militia(work, side, orders, start)
    events += _arrivals(work, side, orders, start)
    events += _end_of_turn(work, start)
    return Resolution(work, events)
