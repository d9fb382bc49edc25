"""Order syntax: parse and print round-trip; errors name the line and the rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.rules.base import OrderSyntaxError
from pbem.rules.furor_barbarus.orders import AttackOrder, MoveOrder, Order
from tests.support.furor_barbarus_test_map import RULES, position

LINES = [
    "place clovis 0907",
    "move aquitaine 0710 0709",
    "attack provence with austrasie bourgogne charge aquitaine losses bourgogne,austrasie advance austrasie",
    "attack 0708 with bowmen",
    "standing advance yes",
    "standing losses salian-1,salian-2",
    "standing retreat 0405,0406",
    "standing breton-evasion no",
    "special feigned-flight huns-1 ostrogoths-2",
]


@pytest.mark.parametrize("line", LINES)
def test_orders_round_trip(line: str) -> None:
    order = Order.parse(line)
    assert str(order) == line and Order.parse(str(order)) == order


def test_orders_values() -> None:
    assert Order.parse("move Aquitaine 0710 0709") == MoveOrder("aquitaine", ("0710", "0709"))
    a = Order.parse("attack provence with austrasie charge aquitaine")
    assert isinstance(a, AttackOrder) and a.all_attackers == ("austrasie", "aquitaine")


@pytest.mark.parametrize(
    "line,words",
    [
        ("move aquitaine 710", "'710'"),
        ("attack provence austrasie", "with"),
        ("fly clovis 0101", "unknown order"),
        ("standing advance maybe", "yes or no"),
        ("place clovis", "place UNIT HEX"),
    ],
)
def test_order_syntax_errors_quote_the_input(line: str, words: str) -> None:
    with pytest.raises(OrderSyntaxError, match=words):
        Order.parse(line)


def test_parse_orders_reports_lines_and_skips_comments() -> None:
    orders, problems = RULES.parse_orders("# comment\nmove aquitaine 0710  # go\n\nmarch x\n")
    assert [ol.line for ol in orders] == [2] and [p.line for p in problems] == [4]


def test_problems_name_the_line_and_the_rule() -> None:
    pos = position({"neustrie": "0404", "austrasie": "0403", "bourgogne": "0901"})
    orders, _ = RULES.parse_orders("move bourgogne 0902\nmove austrasie 0504\n")
    problems = RULES.validate(pos, "lothaire", orders)
    assert [p.line for p in problems] == [2] and problems[0].message.endswith("(8)")


IDS = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True).filter(
    lambda s: s not in ("with", "charge", "losses", "advance")
)


@given(IDS, st.lists(IDS, min_size=1, max_size=4), st.none() | IDS, st.lists(IDS, max_size=3), st.none() | IDS)
def test_attack_orders_round_trip(
    target: str, units: list[str], charge: str | None, losses: list[str], advance: str | None
) -> None:
    order = AttackOrder(target, tuple(units), charge, tuple(losses), advance)
    assert Order.parse(str(order)) == order
