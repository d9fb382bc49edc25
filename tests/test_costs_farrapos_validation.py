"""Costs of checking a Farrapos turn file's orders (``validate``, at every
submit), counted, never timed:

- a city's holder is read from its own entry: checking attacks, invasions and
  moves makes no map of every city's holder (``View._controllers``);
- a move or an invasion checked is played on a draft that copies the two cities it changes,
  not every city of the position (``working_copy``);
- a ``place`` line asks whether its one city is the side's: the side's cities
  are listed (a pass over the board) only for a refusal, which lists the same
  cities as before, and so for a Militia's city; the MU arriving now are worked
  out once a check, not again for the names of each ``place`` line;
- a name the parse has looked up before is answered without a call to
  ``NameTable.find``.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from pbem.rules.farrapos import legal, position
from pbem.rules.farrapos.orders import Carry, Invade, Move, Place
from pbem.rules.names import NameTable

RULES = find_ruleset("farrapos")


def _positions(seed: int, turns: int) -> list[tuple[dict[str, Any], str, str]]:
    """The positions of a seeded bot game, each with the side due and its bot's orders."""
    found = []
    state = RULES.setup(None, [])
    rng = random.Random(seed)
    dice = DiceStream(hashlib.sha256(f"validation-{seed}".encode()).digest())
    for _ in range(turns):
        if not RULES.due(state):
            break
        (side,) = RULES.due(state)
        body = RULES.bot_orders(state, side, "random", rng)
        found.append((state, side, body))
        orders, _problems = RULES.parse_orders(body)
        state = RULES.resolve(state, {side: orders}, dice).position
    return found


def _moved_cities(order: object) -> tuple[str, ...]:
    """The cities a checked order moves MU between (on the check's draft)."""
    if isinstance(order, (Move, Carry)):
        return order.origin, order.destination
    if isinstance(order, Invade):
        return order.origin, order.target
    return ()


class _Recorded(position.View):
    """A View that notes itself, to see what the check worked out."""

    made: list[position.View] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _Recorded.made.append(self)


@pytest.fixture
def views(monkeypatch: pytest.MonkeyPatch) -> list[position.View]:
    _Recorded.made = []
    monkeypatch.setattr(legal, "View", _Recorded)
    return _Recorded.made


def test_checking_orders_maps_no_city_s_holder_and_copies_only_moved_cities(
    views: list[position.View], monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [turn for seed in range(3) for turn in _positions(seed, 30)]
    listed: list[str] = []
    owned = position.View.owned_cities

    def listing(view: position.View, side: str) -> list[str]:
        listed.append(side)
        return owned(view, side)

    monkeypatch.setattr(position.View, "owned_cities", listing)
    moves = places = 0
    for state, side, body in games:
        if "militia" in body:  # a Militia's count of those on the board reads the side's cities
            continue
        orders, problems = RULES.parse_orders(body)
        assert not problems
        views.clear()
        assert RULES.validate(state, side, orders) == [], body
        assert all("_controllers" not in view.__dict__ for view in views), body
        moved = {c for line in orders for c in _moved_cities(line.order)}
        moves += bool(moved)
        places += any(isinstance(line.order, Place) for line in orders)
        for view in views[1:]:  # the drafts after each move
            for city, entry in view.cities.items():
                assert (entry is state["cities"][city]) is (city not in moved), (city, body)
    assert listed == []  # no place line was refused: no list of the side's cities
    assert moves and places  # the games checked both


def test_where_a_mu_or_a_militia_may_go_is_the_listed_cities() -> None:
    for state, side, _body in _positions(7, 40):
        start = position.View(state)
        for battle in ([], [next(iter(state["cities"]))]):
            placeable = legal.placement_cities(start, side)
            militia = [c for c in legal.militia_cities(start, side) if start.owner(c) == side]
            for city in start.board.cities:
                assert legal._may_place(start, side, city, battle) is (city in placeable or city in battle)
                assert legal._militia_allowed(start, start, side, city, battle) is (city in militia or city in battle)


def test_a_refused_place_line_lists_the_side_s_cities_in_board_order() -> None:
    for state, side, _body in _positions(11, 40):
        view = position.View(state)
        arrivals = view.arrivals_now(side)
        foreign = [c for c in view.board.cities if view.owner(c) != side]
        if not arrivals or not foreign:
            continue
        orders, problems = RULES.parse_orders(f"pass\nplace {arrivals[0]} {foreign[0]}")
        assert not problems
        [problem] = RULES.validate(state, side, orders)
        owned = ", ".join(view.owned_cities(side)) or "none"
        assert problem.message.endswith(f"new MU may set up in: {owned}"), problem
        return
    pytest.fail("no position with MU arriving and a city of the enemy or of nobody")


def test_the_mu_arriving_are_worked_out_once_a_check(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    arrivals_now = position.View.arrivals_now

    def asking(view: position.View, side: str) -> list[str]:
        asked.append(side)
        return arrivals_now(view, side)

    turns = [(state, side, RULES.parse_orders(body)[0]) for state, side, body in _positions(5, 40)]
    placing = [turn for turn in turns if any(isinstance(line.order, Place) for line in turn[2])]
    monkeypatch.setattr(position.View, "arrivals_now", asking)
    for state, side, orders in placing:
        asked.clear()
        assert RULES.validate(state, side, orders) == []
        assert asked == [side]
    assert placing


def test_a_name_looked_up_before_needs_no_call_to_find(monkeypatch: pytest.MonkeyPatch) -> None:
    table = NameTable([("porto-alegre", ["Porto Alegre"]), ("bage", ["Bagé"])])
    assert table.lookup("Porto Alegre") == "porto-alegre" and table.lookup("nowhere") is None
    monkeypatch.setattr(NameTable, "find", lambda self, typed: pytest.fail("a call to find"))
    assert table.lookup("Porto Alegre") == "porto-alegre" and table.lookup("nowhere") is None
