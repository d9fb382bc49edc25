"""Costs of a Furor Barbarus move's check that must not come back (each test
counts Python calls, never time); a move is checked at submit and again as it
is played, some ten a file:

- a move line's unit is settled once per name table and name, and the order is a
  named tuple (``MoveOrder``);
- a move's verdict (``MoveCheck``) is a named tuple, not a frozen dataclass
  whose ``__init__`` set six fields through ``object.__setattr__``;
- the steps of a plain path (adjacent hexes, empty or friendly, within the
  allowance) are read from the map's step-cost rows without a ``_Walk`` per step
  or a first ``_Walk`` for the start, and the enemy zone is looked up once a
  check, from the battlefield's cache without ``cached`` and its closure.
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections import Counter
from typing import Any

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from pbem.rules.base import Orders
from pbem.rules.furor_barbarus import movement
from pbem.rules.furor_barbarus.orders import MoveOrder
from pbem.rules.furor_barbarus.sequence import normalised_path


def _turns(scenario: str, count: int) -> list[tuple[Any, str, Orders]]:
    """The play resolutions of a random bot game: position, side, orders."""
    rules = find_ruleset("furor-barbarus")
    position = rules.setup(scenario, [])
    out: list[tuple[Any, str, Orders]] = []
    for n in range(60):
        due = rules.due(position)
        if not due or len(out) >= count:
            break
        orders = {s: rules.parse_orders(rules.bot_orders(position, s, "random", random.Random(n)))[0] for s in due}
        if position["phase"] == "play":
            out.append((position, due[0], orders[due[0]]))
        position = rules.resolve(position, orders, DiceStream(hashlib.sha256(b"%d" % n).digest())).position
    return out


def _calls(action: Any, *args: Any) -> tuple[Any, Counter[str]]:
    """What ``action(*args)`` returns, and every Python function it calls (any file), by file tail and name."""
    calls: Counter[str] = Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            calls[f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_code.co_name}"] += 1

    sys.setprofile(profile)
    try:
        result = action(*args)
    finally:
        sys.setprofile(None)
    return result, calls


def test_a_plain_move_is_checked_in_a_few_calls() -> None:
    """Checking a legal move whose every step is plain called ``_begin``, ``cached``
    and its closure, ``enemy_zoc`` twice, a ``_Walk`` for the start and a dataclass
    ``__init__`` (twelve calls and more); now at most five: ``check_move``,
    ``_plain_steps``, the verdict's ``__new__`` and, when the last hex holds a
    friend, ``stacking_problem`` and ``units_in`` (the unit's entry, the enemy zone
    and the hex index are read without ``_may_move``, ``enemy_zoc`` and ``occupied``)."""
    rules = find_ruleset("furor-barbarus")
    checked = 0
    for position, side, orders in _turns("vouille", 4):
        field = rules.field(position)
        for ol in orders:
            order = ol.order
            if not isinstance(order, MoveOrder):
                continue
            path = normalised_path(field, order)
            movement.enemy_zoc(field, side)  # the zone is worked out once a battlefield
            check, calls = _calls(movement.check_move, field, order.unit, path, side)
            if check.legal and check.spent_half and not check.zoc_tests and not check.overruns:
                assert calls["movement.py:_step"] == 0 or len(path) > 1, calls
                if calls["movement.py:_step"] == 0:
                    checked += 1
                    del calls["battlefield.py:_index"]
                    assert sum(calls.values()) <= 5, calls
                    assert calls["movement.py:_begin"] == 0 and calls["battlefield.py:cached"] == 0, calls
            movement.apply_move(field, order.unit, path, check) if check.legal else None
    assert checked > 10


def test_a_move_s_verdict_is_a_named_tuple() -> None:
    """``MoveCheck`` was a frozen dataclass: its ``__init__`` and six
    ``object.__setattr__`` a verdict; now a named tuple's ``__new__`` and
    ``tuple.__new__``."""
    check = movement.MoveCheck(None, 0, (), (), 4, True)
    assert check.legal and check.spent_half == 4 and check.stops
    assert isinstance(check, tuple)
    events: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            events.append(event)

    sys.setprofile(profile)
    try:
        movement.MoveCheck("why", 1, (), (), 0, False)
    finally:
        sys.setprofile(None)
    assert len(events) <= 3, events  # and sys.setprofile(None)


def test_a_move_line_is_parsed_without_settling_its_unit_again() -> None:
    """Each move line settled the unit it names twice (``names.settle``, then
    ``_unit`` settled the answer again and matched it as an id) and made a frozen
    dataclass; the unit a name gives is now kept by name table and name, so a file
    naming units named before (the next game of the scenario, the file again at
    resolve in the same process) settles none, and the order is a named tuple."""
    rules = find_ruleset("furor-barbarus")
    text = "\n".join(
        str(ol.order) for _, _, orders in _turns("vouille", 3) for ol in orders if isinstance(ol.order, MoveOrder)
    )
    first = rules.parse_orders(text)
    again, calls = _calls(rules.parse_orders, text)
    assert again == first and len(again[0]) > 10 and not again[1]
    assert calls["names.py:settle"] == 0 and calls["orders.py:_unit"] == 0, calls
    # (a line naming a unit named before is now read without _parse_move: tests/test_costs_furor_campus.py)
    assert calls["orders.py:_parse_move"] <= len(again[0]) and calls["<string>:__init__"] == 0, calls


def test_the_odds_read_no_column_text() -> None:
    """Each odds (an attack's check at submit, again at resolve, and the bots') read
    the seven columns' text: a generator, a ``str.split`` and two ``int`` a column,
    some 44 k instructions; the columns are now numbers read once."""
    from pbem.rules.furor_barbarus.combat import COLUMNS, odds_column

    events: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            events.append(getattr(arg, "__name__", "") if event == "c_call" else frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        column = odds_column(7, 3)
    finally:
        sys.setprofile(None)
    assert COLUMNS[column] == "2/1"
    assert "split" not in events and "int" not in events and "<genexpr>" not in events, events


def test_a_plain_move_is_played_with_one_call_to_place_it() -> None:
    """Playing a checked move with no 10.1 test and no overrun called ``side_of``,
    ``_followed``, ``hex_of``, two list comprehensions, ``counter`` and
    ``add_event``; now it places the unit (``place``, which keeps the index and
    the cached zones) and writes its event itself, the same event."""
    rules = find_ruleset("furor-barbarus")
    played = 0
    for position, side, orders in _turns("vouille", 4):
        field = rules.field(position)
        for ol in orders:
            order = ol.order
            if not isinstance(order, MoveOrder):
                continue
            path = normalised_path(field, order)
            check = movement.check_move(field, order.unit, path, side)
            if not check.legal:
                continue
            plain = not check.zoc_tests and not check.overruns
            start = field.hex_of(order.unit)
            _, calls = _calls(movement.apply_move, field, order.unit, path, check)
            if plain:
                played += 1
                assert field.paths[order.unit] == [start, *path] and field.hex_of(order.unit) == path[-1]
                assert field.events[-1]["path"] == [start, *path] and field.events[-1]["type"] == "move"
                assert calls["movement.py:_followed"] == 0 and calls["battlefield.py:add_event"] == 0, calls
                assert calls["battlefield.py:place"] == 1 and calls["battlefield.py:side_of"] == 0, calls
    assert played > 10


def test_a_move_into_an_empty_hex_keeps_the_index_without_a_call() -> None:
    """Placing a unit called ``_located`` and ``_reindex`` (which called
    ``_located`` again); a unit going from its hex to an empty one now moves in
    the index in place, and the index answers as one built afresh would."""
    rules = find_ruleset("furor-barbarus")
    position, side, _ = _turns("vouille", 1)[0]
    field = rules.field(position)
    uid = next(u for u in field.on_map(side) if len(field.units_in(field.hex_of(u) or "")) == 1)
    start = field.hex_of(uid) or ""
    empty = next(n for n in field.game_map.neighbours(start) if not field.units_in(n))
    _, calls = _calls(field.place, uid, empty)
    assert calls["battlefield.py:_reindex"] == 0 and calls["battlefield.py:_located"] == 0, calls
    fresh: dict[str, list[str]] = {}
    for u, s in field.units.items():
        if s["status"] == "active" and s["hex"] is not None:
            fresh.setdefault(s["hex"], []).append(u)
    assert field.occupied() == fresh and field.units_in(empty) == [uid] and not field.units_in(start)


def test_campus_mauriacus_finds_its_full_alans_without_a_call_per_roman() -> None:
    """Before each combat of Campus Mauriacus the Romans' full-strength Alans were
    found through ``on_map``, ``counter`` and ``is_reduced`` (two calls for each
    Roman unit, some seventy a resolution); now from the units' entries, the same
    list."""
    from pbem.rules.furor_barbarus.special_rules.campus_mauriacus import ALAN_NAME, FULL_ALANS, ROMANS

    rules = find_ruleset("furor-barbarus")
    for position, _, _ in _turns("campus-mauriacus", 4):
        field = rules.field(position)
        want = sorted(u for u in field.on_map(ROMANS) if field.counter(u).name == ALAN_NAME and not field.is_reduced(u))
        _, calls = _calls(field.special.before_combat, field, None)
        assert field.memo[FULL_ALANS] == want and want, want
        assert calls["battlefield.py:counter"] == 0 and calls["battlefield.py:on_map"] == 0, calls
