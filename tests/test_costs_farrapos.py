"""What the Farrapos rules engine works out per submitted file and per resolution
(the instruction budgets of ``bench/budgets.py``): each test counts calls, never
time, and fails on the engine before this work.

- the turn file's order lines are split with a compiled pattern and read their
  names through each table's index: no regular expression looked up, no name of
  the board folded again, no walk over every name for a name of nothing;
- the canonical JSON of a position and its events is written by one encoder per
  process (``json.dumps`` built one per call);
- a View lists the MU arriving this turn once (validating asked for it once per
  ``place`` line, then once more);
- a battle finds its attackers in their city, not in a map of every MU on the board;
- new MU with no ``place`` order find their default city without looking each
  city up in the board's list.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from pbem.rules.base import Orders


def _played(resolutions: int, seed: int = 7) -> Iterator[tuple[dict[str, Any], str, str, Orders]]:
    """A random-bot Farrapos game: each position, the side due, its file body and its orders."""
    rules = find_ruleset("farrapos")
    position = rules.setup(None, [])
    for n in range(resolutions):
        if not rules.due(position):
            return  # the game is over
        (side,) = rules.due(position)
        body = rules.bot_orders(position, side, "random", random.Random(seed * 1000 + n))
        orders, problems = rules.parse_orders(body)
        assert not problems
        yield position, side, body, orders
        position = rules.resolve(position, {side: orders}, DiceStream(hashlib.sha256(b"%d" % n).digest())).position


def test_reading_orders_compiles_no_pattern_and_folds_no_board_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each order line was split by ``re.split`` with the pattern as text (a look in
    ``re``'s cache per line) and each name was folded (Unicode normalisation and a
    ``re.sub``) at every lookup; now reading a game's files asks ``re`` for no pattern
    and folds no id written as the board and the counters spell it."""
    from pbem.rules import names

    rules = find_ruleset("farrapos")
    bodies = [body for _, _, body, _ in _played(12)]
    rules.parse_orders("\n".join(bodies))  # the tables, built once per process
    looked_up, folded = [0], [0]
    real_compile, real_fold = re._compile, names.fold  # type: ignore[attr-defined]

    def counting_compile(*args: Any) -> Any:
        looked_up[0] += 1
        return real_compile(*args)

    def counting_fold(name: str) -> str:
        folded[0] += 1
        return real_fold(name)

    monkeypatch.setattr(re, "_compile", counting_compile)
    monkeypatch.setattr(names, "fold", counting_fold)
    for body in bodies:
        orders, problems = rules.parse_orders(body)
        assert len(orders) and not problems
    assert looked_up[0] == 0
    assert folded[0] == 0


def test_a_name_of_nothing_is_not_looked_for_in_every_name() -> None:
    """``place inf-11 piratini`` first asks whether ``inf-11 piratini`` names a city:
    a name of nothing was compared with the start of every name of the table; now
    the table keeps the leading words of its names, and a name asked twice is
    answered from what the table remembers."""
    from pbem.rules.farrapos.orders import city_names

    table = city_names()

    class CountingNames(dict):  # type: ignore[type-arg]
        walks = 0

        def items(self) -> Any:
            CountingNames.walks += 1
            return super().items()

    table._names = CountingNames(table._names)  # type: ignore[attr-defined]
    try:
        for typed in ("inf-11 piratini", "cav-6 cangucu", "inf-11 piratini", "nowhere at all"):
            assert table.lookup(typed) is None
        assert table.find("rio") == ("rio-grande", "rio-pardo")
        assert table.lookup("Porto Alegre") == "porto-alegre"
    finally:
        table._names = dict(table._names)  # type: ignore[attr-defined]
    assert CountingNames.walks == 0


def test_canonical_json_builds_no_encoder_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """``json.dumps`` with options builds a ``JSONEncoder`` at every call (and keeps a
    table of every container written, for a circular check JSON data never needs);
    the canonical JSON is now written by one encoder, to the same text."""
    from pbem.turnfiles.canonical import canonical_json

    positions = [position for position, _, _, _ in _played(6)]
    built = [0]
    real_init = json.JSONEncoder.__init__

    def counting_init(self: json.JSONEncoder, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(json.JSONEncoder, "__init__", counting_init)
    texts = [canonical_json(p) for p in positions]
    assert built[0] == 0
    monkeypatch.undo()
    assert texts == [json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for p in positions]
    assert canonical_json({"é": [1.5, None, True, "ü"]}) == '{"é":[1.5,null,true,"ü"]}'


def _arrival_turn() -> tuple[dict[str, Any], str, Orders]:
    """A position where the side due has new MU to place, with orders placing each apart."""
    from pbem.rules.farrapos.position import View

    rules = find_ruleset("farrapos")
    for position, side, _, _ in _played(40):
        view = View(position)
        arrivals = view.arrivals_now(side)
        cities = view.owned_cities(side)
        if len(arrivals) >= 2 and cities:
            body = "".join(f"place {unit} {cities[0]}\n" for unit in arrivals)
            orders, problems = rules.parse_orders(body)
            assert not problems
            return position, side, orders
    raise AssertionError("no arrival turn in the game")


def test_a_view_lists_the_arriving_mu_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating a turn with ``place`` lines listed the MU arriving now once per
    line and once more for the turn; a View now lists them once."""
    from pbem.rules.farrapos.counters import CounterSheet

    rules = find_ruleset("farrapos")
    position, side, orders = _arrival_turn()
    asked = [0]
    real = CounterSheet.arriving

    def counting(self: CounterSheet, *args: Any) -> Any:
        asked[0] += 1
        return real(self, *args)

    monkeypatch.setattr(CounterSheet, "arriving", counting)
    assert rules.validate(position, side, orders) == []
    assert len(orders) >= 2
    assert asked[0] == 1


def test_new_mu_find_their_default_city_without_the_board_s_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """New MU with no ``place`` order set up in a default city, whose ties were
    broken by ``list.index`` in a list of the board's cities made for the purpose
    (once per city compared); the board order now breaks them by itself (``min``
    keeps the first of equals), and no city's MU are copied to be counted."""
    from pbem.rules.farrapos.position import View
    from pbem.rules.farrapos.turn import default_placement

    position, side, _ = _arrival_turn()
    copied = [0]
    real = View.units_in

    def counting(self: View, city: str) -> list[str]:
        copied[0] += 1
        return real(self, city)

    monkeypatch.setattr(View, "units_in", counting)
    view = View(position)
    chosen = default_placement(view, side)
    assert copied[0] == 0
    monkeypatch.undo()
    cities = view.owned_cities(side)
    order = list(view.board.cities)
    expected = min(
        cities,
        key=lambda c: (not view.occupied(c), -view.board.cities[c].vp, -len(view.units_in(c)), order.index(c)),
    )
    assert chosen == expected


def test_a_battle_does_not_map_every_mu(monkeypatch: pytest.MonkeyPatch) -> None:
    """A battle found its attackers through the View's map of every MU on the board
    to its city (a walk over every city); it now looks in the city they attack from."""
    from pbem.rules.farrapos.battle import fight
    from pbem.rules.farrapos.orders import Attack
    from pbem.rules.farrapos.position import View, working_copy

    attacks = [
        (position, side, line.order)
        for position, side, _, orders in _played(60, seed=3)
        for line in orders
        if isinstance(line.order, Attack)
    ]
    assert attacks
    mapped = [0]
    real = View.__dict__["location"]

    def counting(self: View) -> dict[str, str]:
        mapped[0] += 1
        return real.func(self)  # type: ignore[no-any-return]

    monkeypatch.setattr(View, "location", property(counting))
    for n, (position, side, attack) in enumerate(attacks):
        events = fight(working_copy(position), side, attack, DiceStream(b"%032d" % n))
        assert any(e["type"] == "battle" for e in events)
    assert mapped[0] == 0
