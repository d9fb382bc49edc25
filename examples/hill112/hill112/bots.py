"""The bots (RULES.md 10): ``random`` and ``greedy``.  Both build their orders
one at a time and keep an order only if ``validate_orders`` accepts the orders so
far, the same check the referee makes."""

from __future__ import annotations

import random

from hill112.board import BOARD
from hill112.engine import attack_of, defence_of, legal_targets, odds_column, validate_orders
from hill112.orders import Attack, Move, Order
from pbem.rules.base import OrderLine, Orders, Position

BOTS = ("random", "greedy")


def _accept(position: Position, side: str, chosen: list[Order], order: Order) -> bool:
    trial = Orders(tuple(OrderLine(i + 1, str(o), o) for i, o in enumerate([*chosen, order])))
    return not validate_orders(position, side, trial)


def _mine(position: Position, side: str) -> list[str]:
    return sorted(u for u in position["units"] if BOARD.units[u].side == side)


def random_orders(position: Position, side: str, rng: random.Random) -> list[Order]:
    """Each unit, in random order: hold, move to a random place, or attack."""
    chosen: list[Order] = []
    busy: set[str] = set()
    units = _mine(position, side)
    rng.shuffle(units)
    for uid in units:
        if uid in busy:
            continue
        moves, attacks = legal_targets(position, side, uid)
        choice = rng.choice(["hold", *[("move", p) for p in moves], *[("attack", p) for p in attacks]])
        if choice == "hold":
            continue
        kind, place = choice
        if kind == "move":
            order: Order = Move((uid,), place)
        else:
            already = [o for o in chosen if isinstance(o, Attack) and o.target == place]
            if already:
                continue
            friends = [
                u
                for u in units
                if u not in busy and u != uid and BOARD.linked(position["units"][u], place) and rng.random() < 0.5
            ]
            order = Attack(place, tuple([uid, *friends][: BOARD.stacking]))
        if _accept(position, side, chosen, order):
            chosen.append(order)
            busy.update(order.units)
    return chosen


def greedy_orders(position: Position, side: str) -> list[Order]:
    """Attack every place it can at 2:1 or better with all the units that reach it
    (strongest first), Hill 112 at 1:1 or better; every other unit steps toward
    Hill 112, or onto it."""
    chosen: list[Order] = []
    busy: set[str] = set()
    units = _mine(position, side)
    targets = sorted(
        {p for u in units for p in legal_targets(position, side, u)[1]}, key=lambda p: (p != BOARD.hill, p)
    )
    for place in targets:
        free = sorted(
            (u for u in units if u not in busy and BOARD.linked(position["units"][u], place)),
            key=lambda u: (-BOARD.units[u].strength, u),
        )
        group = tuple(free[: BOARD.stacking])
        if group and odds_column(attack_of(group), defence_of(position, place)) in (
            ("1:1", "2:1", "3:1") if place == BOARD.hill else ("2:1", "3:1")
        ):
            order = Attack(place, group)
            if _accept(position, side, chosen, order):
                chosen.append(order)
                busy.update(group)
    hill = BOARD.hill
    for uid in units:
        here = position["units"][uid]
        if uid in busy or here == hill:
            continue
        moves, _ = legal_targets(position, side, uid)
        step = hill if hill in moves else None
        if step is None:
            near = [p for p in moves if hill in BOARD.links[p] and p != here]
            step = near[0] if near and hill not in BOARD.links[here] else None
        if step is not None and _accept(position, side, chosen, Move((uid,), step)):
            chosen.append(Move((uid,), step))
            busy.add(uid)
    return chosen


def bot_orders(position: Position, side: str, bot: str, rng: random.Random) -> str:
    if bot not in BOTS:
        raise ValueError(f"unknown bot {bot!r} for hill-112 (bots: {', '.join(BOTS)})")
    if position.get("outcome") is not None or position["side"] != side:
        return ""
    orders = random_orders(position, side, rng) if bot == "random" else greedy_orders(position, side)
    return "".join(f"{o}\n" for o in orders)
