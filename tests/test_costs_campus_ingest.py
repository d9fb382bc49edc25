"""Costs of a submitted Furor Barbarus file that must not come back (each test
counts, never times); a Campus Mauriacus file is some twenty order lines:

- the vacation-request test reads a file's lines only until a second order line
  (a file of orders is no request): it split and stripped every line of every file;
- an order line's ``OrderLine`` sets its three fields in its own dict, without three
  calls to ``setter`` (``object.__setattr__``, which checks the class's bases at each
  call) for each line of each file;
- a move line naming a unit named before looks its unit up once (``dict.get``), not
  with ``in`` and then ``[]``, and slices its path once, not three times.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.referee import requests
from pbem.rules import base, find_ruleset
from pbem.rules.base import OrderLine
from pbem.rules.furor_barbarus import orders as furor_orders
from tests.support.calls import c_calls, counted_calls
from tests.support.furor_turns import bot_turns

HEADER = "game: g1\nrules: furor-barbarus\nside: huns\nturn: 7\nstate: 00\n\n"


def _splits(work: Any) -> tuple[Any, int]:
    """What ``work()`` returns, and how many ``str.split`` calls it made."""
    return c_calls(work, "split")


def test_a_file_of_orders_is_found_no_request_at_its_second_order_line() -> None:
    moves = "".join(f"move huns-{n} 1505 1504 1603 1703   # a move\n" for n in range(1, 21))
    days, splits = _splits(lambda: requests.vacation_days((HEADER + "\n# orders\n" + moves).encode()))
    assert days is None
    assert splits <= 4  # the comment, the blank line and two orders (twenty-three before)


@pytest.mark.parametrize(
    ("body", "days"),
    [
        ("vacation 5\n", 5),
        ("# away\n\n  vacation 12 days   # skiing\n\n", 12),
        ("VACATION 3 day\n", 3),
        ("vacation 5\nvacation 6\n", None),
        ("vacation 5\nmove huns-1 1505\n", None),
        ("# nothing\n\n", None),
        ("", None),
        ("vacation five\n", None),
    ],
)
def test_a_vacation_request_is_read_as_before(body: str, days: int | None) -> None:
    assert requests.vacation_days((HEADER + body).encode()) == days


def test_a_file_s_order_lines_are_made_without_setter(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = find_ruleset("furor-barbarus")
    rules.prepare_parsing()
    position, side, orders = bot_turns("campus-mauriacus", 3)[-1]
    text = "\n".join(ol.text for ol in orders)
    calls = counted_calls(monkeypatch, base, "setter")
    parsed, problems = rules.parse_orders(text)
    assert not problems and len(parsed) >= 10
    assert len(calls) <= 1  # the ``Orders`` alone (three a line before)
    assert [(ol.line, ol.text, ol.order) for ol in parsed] == [(n, ol.text, ol.order) for n, ol in enumerate(orders, 1)]


def test_an_order_line_is_the_frozen_value_it_was() -> None:
    line = OrderLine(3, "move huns-1 1505", ("huns-1", ("1505",)))
    assert line == OrderLine(3, "move huns-1 1505", ("huns-1", ("1505",)))
    assert hash(line) == hash((3, "move huns-1 1505", ("huns-1", ("1505",))))
    assert repr(line) == "OrderLine(line=3, text='move huns-1 1505', order=('huns-1', ('1505',)))"
    assert vars(line) == {"line": 3, "text": "move huns-1 1505", "order": ("huns-1", ("1505",))}
    with pytest.raises(AttributeError):
        line.line = 4  # type: ignore[misc]


class _CountedLookUps(dict[Any, str]):
    """The parse's table of the units move lines name, counting its look-ups."""

    looked_up = 0

    def get(self, key: Any, default: Any = None) -> Any:
        _CountedLookUps.looked_up += 1
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        _CountedLookUps.looked_up += 1
        return super().__contains__(key)

    def __getitem__(self, key: Any) -> str:
        _CountedLookUps.looked_up += 1
        return super().__getitem__(key)


def test_a_move_line_named_before_looks_its_unit_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = find_ruleset("furor-barbarus")
    rules.prepare_parsing()
    _position, _side, orders = bot_turns("campus-mauriacus", 3)[-1]
    text = "\n".join(ol.text for ol in orders)
    rules.parse_orders(text)  # every unit named once: kept in the table
    kept = _CountedLookUps(furor_orders._UNIT_OF)
    monkeypatch.setattr(furor_orders, "_UNIT_OF", kept)
    _CountedLookUps.looked_up = 0
    parsed, problems = rules.parse_orders(text)
    moves = sum(1 for ol in parsed if isinstance(ol.order, furor_orders.MoveOrder))
    assert not problems and moves >= 10
    assert _CountedLookUps.looked_up == moves  # two a line before: ``in``, then ``[]``
