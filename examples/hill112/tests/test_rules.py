"""A few rules of RULES.md as code (the rest are rule cases in hill112/cases)."""

from __future__ import annotations

import random

import pytest
from hill112.board import BOARD
from hill112.engine import COLUMNS, CRT, odds_column
from hill112.orders import Attack, Move, parse_order

from pbem.rules import find_ruleset
from pbem.rules.base import OrderSyntaxError
from pbem.rules.dice import ScriptedDice


def test_the_entry_point_gives_the_ruleset() -> None:
    ruleset = find_ruleset("hill-112")
    assert (ruleset.id, ruleset.title, ruleset.sides()) == ("hill-112", "Hill 112", ("british", "germans"))


@pytest.mark.parametrize("line", ["move inf-1 tank-1 to hill", "attack maltot with inf-2 inf-3"])
def test_orders_print_as_they_parse(line: str) -> None:
    assert str(parse_order(line)) == line
    assert parse_order(line.upper()) == parse_order(line)


@pytest.mark.parametrize("line", ["move to hill", "attack with inf-1", "charge hill", "move inf-1 hill"])
def test_a_line_that_is_no_order_is_refused(line: str) -> None:
    with pytest.raises(OrderSyntaxError, match="not an order"):
        parse_order(line)


def test_2_the_map_is_linked_both_ways() -> None:
    assert all(a in BOARD.links[b] for a, ends in BOARD.links.items() for b in ends)
    assert BOARD.hill == "hill"


def test_6_3_better_odds_never_give_a_worse_result() -> None:
    worth = {"AL": 0, "NE": 1, "EX": 1, "DL": 2, "D2": 3}
    for weak, strong in zip(COLUMNS, COLUMNS[1:]):
        assert all(worth[a] <= worth[b] for a, b in zip(CRT[weak], CRT[strong]))
    assert odds_column(6, 3) == "2:1" and odds_column(2, 4) == "1:2"


def test_the_bots_write_legal_orders_all_game() -> None:
    ruleset = find_ruleset("hill-112")
    rng = random.Random(7)
    position = ruleset.setup(None, [])
    while ruleset.due(position):
        side = ruleset.due(position)[0]
        text = ruleset.bot_orders(position, side, rng.choice(ruleset.bots()), rng)
        orders, problems = ruleset.parse_orders(text)
        assert not problems and not ruleset.validate(position, side, orders)
        dice = ScriptedDice((rng.randint(1, 6), 6, None) for _ in range(10))
        position = ruleset.resolve(position, {side: orders}, dice).position
    assert ruleset.outcome(position) is not None


def test_not_your_turn() -> None:
    ruleset = find_ruleset("hill-112")
    orders, _ = ruleset.parse_orders("move gren-1 to esquay\n")
    problems = ruleset.validate(ruleset.setup(None, []), "germans", orders)
    assert [str(p) for p in problems] == ["not your turn: the British move now"]
    assert isinstance(orders.lines[0].order, Move) and not isinstance(orders.lines[0].order, Attack)
