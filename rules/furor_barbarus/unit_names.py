"""Units named in orders, settled against the units of the game at hand.

Parsing (``orders.py``) turns a name that names one unit of any scenario into its
id; a name several units share in the scenarios (``Archers``, ``light infantry``)
is kept folded, and settled here against the units of the position: the one unit
of this game it names, or a problem naming the choices.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from pbem.rules.base import OrderLine, Orders, Problem
from pbem.rules.furor_barbarus.counters import Counter
from pbem.rules.furor_barbarus.orders import AttackOrder, MoveOrder, PlaceOrder, StandingOrder
from pbem.rules.furor_barbarus.svg_shapes import short_ids
from pbem.rules.names import NameTable, ambiguous

_HEX = re.compile(r"^\d{4}$")


def game_names(counters: Mapping[str, Counter]) -> NameTable:
    """The units of one game by id, the short id their counters print and name."""
    short = short_ids(sorted(counters))
    return NameTable((uid, [short[uid], c.name]) for uid, c in sorted(counters.items()))


def _settler(counters: Mapping[str, Counter], names: NameTable, problems: list[str]) -> Callable[[str], str]:
    def settle(typed: str) -> str:
        if typed in counters or _HEX.match(typed):
            return typed
        found = names.find(typed)
        if len(found) > 1:
            problems.append(ambiguous(typed, found))
        return found[0] if len(found) == 1 else typed

    return settle


def _settled(order: object, settle: Callable[[str], str]) -> object:
    if isinstance(order, MoveOrder):
        return order._replace(unit=settle(order.unit))
    if isinstance(order, PlaceOrder):
        return replace(order, unit=settle(order.unit))
    if isinstance(order, AttackOrder):
        return replace(
            order,
            target=settle(order.target),
            attackers=tuple(settle(u) for u in order.attackers),
            charge=settle(order.charge) if order.charge else order.charge,
            losses=tuple(settle(u) for u in order.losses),
            advance=settle(order.advance) if order.advance else order.advance,
        )
    if isinstance(order, StandingOrder) and order.kind == "losses":
        return replace(order, values=tuple(settle(u) for u in order.values))
    return order


def _named(order: object) -> tuple[str, ...]:
    """What ``order`` names that :func:`_settled` settles, as typed."""
    if isinstance(order, (PlaceOrder, MoveOrder)):
        return (order.unit,)
    if isinstance(order, AttackOrder):
        return (
            order.target,
            *order.attackers,
            *((order.charge,) if order.charge else ()),
            *order.losses,
            *((order.advance,) if order.advance else ()),
        )
    if isinstance(order, StandingOrder) and order.kind == "losses":
        return order.values
    return ()


def _plain(order: object, counters: Mapping[str, Counter]) -> bool:
    """Whether ``order`` names only the game's units by their ids (nothing to
    settle); read without building the settled order (a copy of each order)."""
    for u in _named(order):  # plain loops: the generators cost more than the look-ups (every order, every resolution)
        if u not in counters and not _HEX.match(u):
            return False
    return True


def settle_orders(counters: Mapping[str, Counter], orders: Orders) -> tuple[Orders, list[Problem]]:
    """``orders`` with every unit named by the game's own ids, and a problem for
    each name that could be several of its units."""
    for ol in orders:
        order = ol.order
        if type(order) is MoveOrder:  # most lines: _plain, without its two calls
            if order.unit not in counters and not _HEX.match(order.unit):
                break
        elif not _plain(order, counters):
            break
    else:
        return orders, []
    names = game_names(counters)
    lines: list[OrderLine] = []
    problems: list[Problem] = []
    for ol in orders:
        found: list[str] = []
        order = _settled(ol.order, _settler(counters, names, found))
        lines.append(OrderLine(ol.line, ol.text, order))
        problems += [Problem(ol.line, message) for message in dict.fromkeys(found)]
    return Orders(tuple(lines)), problems
