"""What the Farrapos engine works out at the end of each resolution (the
``process --all`` budget of ``bench/budgets.py``): each test counts calls, never
time, and fails on the engine before this work.

- a side's VP breakdown (two a resolution, and two per score) is a named tuple:
  as a frozen dataclass, its ``__init__`` set six fields through ``object.__setattr__``;
- new MU with no ``place`` order find their default city without a call to
  ``View.occupied`` per city of the side's possession, and choose the same city;
- the Views a turn makes of its working copy (the battle, the Militia, new MU,
  the VP count) borrow the board and counter sheet of the View it began with,
  which the turn changes neither of, instead of finding them again.
"""

from __future__ import annotations

import hashlib
import random
import sys
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.rules import find_ruleset


def _positions(resolutions: int, seed: int = 11) -> list[tuple[dict[str, Any], str]]:
    """The positions of a random-bot Farrapos game, each with the side due."""
    rules = find_ruleset("farrapos")
    position = rules.setup(None, [])
    found = []
    for n in range(resolutions):
        if not rules.due(position):
            break  # the game is over
        (side,) = rules.due(position)
        found.append((position, side))
        body = rules.bot_orders(position, side, "random", random.Random(seed * 1000 + n))
        orders, problems = rules.parse_orders(body)
        assert not problems
        position = rules.resolve(position, {side: orders}, DiceStream(hashlib.sha256(b"%d" % n).digest())).position
    return found


def test_a_vp_breakdown_is_a_named_tuple() -> None:
    from pbem.rules.farrapos.victory_points import VpBreakdown

    made = VpBreakdown("republic", 10, ("guaiba",), 2, False, 0)
    assert isinstance(made, tuple)
    assert made.total == 12 and str(made) == "12 VP (cities 10, colours guaiba 2)"
    events: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            events.append(event)

    sys.setprofile(profile)
    try:
        VpBreakdown("empire", 7, (), 0, True, 3)
    finally:
        sys.setprofile(None)
    assert len(events) <= 3, events  # __new__, tuple.__new__ and sys.setprofile(None)


def _default_city(view: Any, side: str) -> str | None:
    """The rule as written: a held city before an empty one, then the most VP, the most MU, the board's order."""
    order = list(view.board.cities)
    cities = view.owned_cities(side)
    if not cities:
        return None
    return min(  # type: ignore[no-any-return]
        cities,
        key=lambda c: (not view.occupied(c), -view.board.cities[c].vp, -len(view.units_in(c)), order.index(c)),
    )


def test_the_default_city_is_chosen_without_a_call_per_city(monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.rules.farrapos.position import View
    from pbem.rules.farrapos.turn import default_placement

    cases = _positions(24)
    expected = [_default_city(View(position), side) for position, side in cases]
    calls = [0]
    real = View.occupied

    def counting(self: View, city: str) -> bool:
        calls[0] += 1
        return real(self, city)

    monkeypatch.setattr(View, "occupied", counting)
    chosen = [default_placement(View(position), side) for position, side in cases]
    assert calls[0] == 0
    assert chosen == expected
    assert any(city is not None for city in chosen)


def test_a_turn_finds_its_counter_sheet_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.rules.farrapos import position as farrapos_position
    from pbem.rules.farrapos.turn import resolve_turn

    rules = find_ruleset("farrapos")
    calls = [0]
    real = farrapos_position.counter_sheet

    def counting(found: dict[str, Any]) -> Any:
        calls[0] += 1
        return real(found)

    monkeypatch.setattr(farrapos_position, "counter_sheet", counting)
    battles = 0
    for n, (position, side) in enumerate(_positions(30, seed=4)):
        body = rules.bot_orders(position, side, "random", random.Random(n))
        orders, _ = rules.parse_orders(body)
        calls[0] = 0
        events = resolve_turn(position, {side: orders}, DiceStream(hashlib.sha256(b"%d" % n).digest()), validated=True)
        battles += any(e["type"] == "battle" for e in events.events)
        assert calls[0] == 1, n  # the View the turn begins with
    assert battles
