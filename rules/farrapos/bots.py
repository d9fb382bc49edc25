"""Bots: ``random`` and ``greedy``.  Both build their orders from the legality
helpers in :mod:`rules.farrapos.legal` (the one source of legality) and check the
result with ``validate_orders`` before returning it.
"""

from __future__ import annotations

import random
from typing import cast

from pbem.rules.base import OrderLine, Orders
from pbem.rules.farrapos.battle import column_value, under_siege
from pbem.rules.farrapos.legal import (
    apply_movement,
    attack_targets,
    invasion_targets,
    legal_actions,
    militia_cities,
    move_destinations,
    mu_in,
    placement_cities,
    validate_orders,
)
from pbem.rules.farrapos.orders import (
    Attack,
    Decision,
    DeployMilitia,
    Invade,
    Move,
    Order,
    Persistence,
    Place,
    parse_order,
)
from pbem.rules.farrapos.position import Position, View, clone, enemy
from pbem.rules.farrapos.victory_points import count_vp

BOTS = ("random", "greedy")


def _checked(position: Position, side: str, orders: list[Order]) -> str:
    text = "\n".join(str(o) for o in orders) + ("\n" if orders else "")
    parsed = Orders(tuple(OrderLine(i + 1, str(o), parse_order(str(o))) for i, o in enumerate(orders)))
    problems = validate_orders(position, side, parsed)
    if problems:  # a bug in a bot: never hand the referee illegal orders
        raise RuntimeError(f"bot orders refused: {problems} for {text!r}")
    return text or "pass\n"


def _subset(rng: random.Random, items: list[str], minimum: int = 1) -> list[str]:
    k = rng.randint(minimum, len(items))
    return sorted(rng.sample(items, k), key=items.index)


# --- random ----------------------------------------------------------------------
def random_orders(position: Position, side: str, rng: random.Random) -> str:
    """A random kind of action among those legal now, then a random one of that
    kind from ``legal_actions`` (an attack or invasion with a random group of the
    stack, a random decision), sometimes a Militia, random placements."""
    view = View(position)
    by_kind: dict[type, list[Order]] = {}
    for action in legal_actions(position, side):
        by_kind.setdefault(type(action), []).append(action)
    kind = rng.choice(sorted(by_kind, key=lambda k: k.__name__))
    orders: list[Order] = []
    work = clone(position)
    if kind is Attack:
        chosen = cast(Attack, rng.choice(by_kind[Attack]))  # by_kind[Attack] holds only attacks
        units = _subset(rng, mu_in(view, side, chosen.origin))
        decision = rng.choice(
            [
                Decision(),
                Decision(Persistence.ROUNDS, rng.randint(1, 3)),
                Decision(Persistence.STOP_AFTER, rng.randint(1, 3)),
            ]
        )
        orders.append(Attack(chosen.target, chosen.origin, tuple(units), decision))
    elif kind is Invade:
        invasion = cast(Invade, rng.choice(by_kind[Invade]))
        units = _subset(rng, mu_in(view, side, invasion.origin))
        orders.append(Invade(invasion.target, invasion.origin, tuple(units)))
        apply_movement(work, units, invasion.origin, invasion.target, side)
    elif kind is Move:
        used: set[str] = set()
        for _ in range(rng.randint(1, 3)):
            moves = [a for a in legal_actions(work, side, exclude=sorted(used)) if isinstance(a, Move)]
            if not moves:
                break
            move = rng.choice(moves)
            orders.append(move)
            apply_movement(work, move.units, move.origin, move.destination, side)
            used.update(move.units)
    after = View(work)
    spots = [c for c in militia_cities(after, side) if view.owner(c) == side]
    if spots and view.militia_available(side) > 0 and rng.random() < 0.5:
        orders.append(DeployMilitia(rng.choice(spots)))
    arrivals = view.arrivals_now(side)
    cities = placement_cities(view, side)
    for unit in arrivals:
        if cities and rng.random() < 0.7:
            orders.append(Place((unit,), rng.choice(cities)))
    return _checked(position, side, orders)


# --- greedy ----------------------------------------------------------------------
def _round_odds(edge: int) -> float:
    """P(attacker's index beats the defender's) when his column value is ``edge``
    above the defender's: both roll 1D6."""
    wins = sum(1 for a in range(1, 7) for d in range(1, 7) if a + edge > d)
    return wins / 36


def _gain(position: Position, side: str, city: str, units: list[str], origin: str) -> int:
    """VP swing (own gain plus enemy loss) of holding ``city`` with ``units``."""
    before = count_vp(View(position))
    work = dict(position, cities=clone(position["cities"]))  # only the cities change
    work["cities"][city]["units"] = []
    work["cities"][city]["militia"] = 0
    apply_movement(work, units, origin, city, side)
    after = count_vp(View(work))
    return (after[side] - before[side]) + (before[enemy(side)] - after[enemy(side)])


def _keeper(view: View, units: list[str]) -> str:
    """The MU left to hold a city: the best defender per attack factor given up."""
    return max(units, key=lambda u: (view.factors(u).df - view.factors(u).af, view.factors(u).df))


def _distance_to_enemy(view: View, foe: str) -> dict[str, int]:
    """Path-line steps from each city to the nearest city ``foe`` holds."""
    best: dict[str, int] = {}
    for city in view.held_cities(foe):
        for there, d in view.board.distances_from(city).items():
            best[there] = min(d, best.get(there, d))
    return best


def greedy_orders(position: Position, side: str, rng: random.Random) -> str:
    view = View(position)
    foe = enemy(side)
    origins = view.cities_with_mu(side)
    orders: list[Order] = []
    work = clone(position)
    best: tuple[float, float, Order] | None = None
    for origin in origins:
        here = mu_in(view, side, origin)
        keep = [] if view.militia_in(origin) else [_keeper(view, here)]
        force = [u for u in here if u not in keep] or here
        for target in attack_targets(view, side, origin):
            a = view.strength(force, attack=True)
            defenders = view.units_in(target)
            extra = 0 if under_siege(view, target, side) else view.board.cities[target].vp
            d = view.strength(defenders, attack=False) + view.militia_in(target) * view.sheet.militia_df + extra
            edge = column_value(a) - column_value(d)
            odds = _round_odds(edge)
            steps = len(force) + sum(1 for u in force if u not in view.reduced)
            enemy_steps = len(defenders) + sum(1 for u in defenders if u not in view.reduced) + view.militia_in(target)
            if odds < 0.55 or steps < enemy_steps:
                continue
            gain = _gain(position, side, target, force, origin)
            score = gain * odds + edge
            if best is None or (score, rng.random()) > best[:2]:
                decision = Decision() if edge >= 2 else Decision(Persistence.STOP_AFTER, max(1, steps // 2))
                best = (score, rng.random(), Attack(target, origin, tuple(force), decision))
        if len(here) >= 2 or view.militia_in(origin):
            mover = max(here, key=lambda u: (view.factors(u).mf, -view.factors(u).df))
            for target in invasion_targets(view, side, origin):
                gain = _gain(position, side, target, [mover], origin)
                threatened = any(view.controller(n) == foe for n in view.board.neighbours(target))
                score = gain - (1.5 if threatened else 0)
                if gain > 0 and (best is None or (score, rng.random()) > best[:2]):
                    best = (score, rng.random(), Invade(target, origin, (mover,)))
    if best is not None:
        orders.append(best[2])
        if isinstance(best[2], Invade):
            apply_movement(work, best[2].units, best[2].origin, best[2].target, side)
    else:
        frontier = [
            c for c in view.held_cities(side) if any(view.controller(n) == foe for n in view.board.neighbours(c))
        ]
        for origin in origins:
            if origin in frontier:
                continue
            here = mu_in(view, side, origin)
            if len(here) < 2 and not view.militia_in(origin):
                continue
            movers = [u for u in here if u != _keeper(view, here)] if not view.militia_in(origin) else here
            reachable = move_destinations(View(work), side, origin, movers)
            reach = [c for c in reachable if c in frontier]
            if movers and reach:
                goal = max(reach, key=lambda c: (view.board.cities[c].vp, -len(view.units_in(c))))
            elif movers and reachable:
                # no front line in reach: march toward the nearest enemy-held city
                near = _distance_to_enemy(view, foe)
                goal = min(reachable, key=lambda c: (near.get(c, 99), -view.board.cities[c].vp))
                if near.get(goal, 99) >= near.get(origin, 99):
                    continue
            else:
                continue
            orders.append(Move(tuple(movers), origin, goal))
            apply_movement(work, movers, origin, goal, side)
    after = View(work)
    spots = [c for c in militia_cities(after, side) if view.owner(c) == side]
    spots.sort(key=lambda c: -view.board.cities[c].vp)
    for city in spots[: view.militia_available(side)]:
        orders.append(DeployMilitia(city))
    arrivals = view.arrivals_now(side)
    if arrivals:
        cities = placement_cities(view, side)
        front = [c for c in cities if any(view.controller(n) == foe for n in view.board.neighbours(c))] or cities
        if front:
            goal = max(front, key=lambda c: (view.board.cities[c].vp, len(view.units_in(c))))
            orders.append(Place(tuple(arrivals), goal))
    return _checked(position, side, orders)


def bot_orders(position: Position, side: str, bot: str, rng: random.Random) -> str:
    if bot == "random":
        return random_orders(position, side, rng)
    if bot == "greedy":
        return greedy_orders(position, side, rng)
    raise ValueError(f"unknown bot {bot!r} for farrapos (known: {', '.join(BOTS)})")
