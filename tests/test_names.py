"""Names as the map, reports and templates show them are names an order may use."""

from __future__ import annotations

import pytest

from pbem.rules.base import Orders
from pbem.rules.farrapos.orders import parse_order
from pbem.rules.registry import find_ruleset


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("attack Porto Alegre from Triunfo with inf-1", "attack porto-alegre from triunfo with inf-1 until-won"),
        ("move INF_5 from Bagé to Caçapava do Sul", "move inf-5 from bage to cacapava"),
        ("invade são josé do norte from Rio Grande with cav-2", "invade sao-jose-do-norte from rio-grande with cav-2"),
        ("place inf-7 Santo Antônio da Patrulha", "place inf-7 santo-antonio"),
        ("militia Porto_Alegre", "militia porto-alegre"),
        ("defend Porto Alegre losses inf-13 militia", "defend porto-alegre losses inf-13 militia"),
    ],
)
def test_farrapos_names_the_map_prints_are_accepted(typed: str, canonical: str) -> None:
    order = parse_order(typed)
    assert str(order) == canonical
    assert parse_order(str(order)) == order


def test_farrapos_every_city_name_parses_to_its_id() -> None:
    from pbem.rules.farrapos.board import load_board

    for cid, city in load_board().cities.items():
        assert parse_order(f"militia {city.name}").city == cid
        assert parse_order(f"militia {city.name.upper()}").city == cid


def test_farrapos_an_ambiguous_name_is_refused_with_its_choices() -> None:
    rules = find_ruleset("farrapos")
    _, problems = rules.parse_orders("move inf-1 from porto alegre to rio\n")
    assert [str(p) for p in problems] == ["line 1: 'rio' could be rio-grande or rio-pardo"]


def _setup(scenario: str) -> tuple[object, dict]:
    rules = find_ruleset("furor-barbarus")
    return rules, rules.setup(scenario, [])


@pytest.mark.parametrize("typed", ["vis-cav-1", "VIS_CAV_1", "Visigoth Cavalry 1", "visigoth-cavalry-1"])
def test_furor_a_unit_by_full_id_short_id_or_name(typed: str) -> None:
    rules = find_ruleset("furor-barbarus")
    orders, problems = rules.parse_orders(f"place {typed} 0406\n")
    assert problems == []
    assert str(orders.lines[0].order) == "place visigoth-cavalry-1 0406"


def test_furor_every_short_id_a_counter_prints_is_accepted() -> None:
    from pbem.rules.furor_barbarus.svg_shapes import short_ids

    rules = find_ruleset("furor-barbarus")
    for sid in rules.library.scenario_ids():
        counters = rules.library.scenario(sid).counters
        for uid, short in short_ids(sorted(counters)).items():
            orders, problems = rules.parse_orders(f"move {short} 0101 0102\n")
            assert problems == [] and orders.lines[0].order.unit == uid, (sid, short)


def test_furor_a_shared_name_is_settled_against_the_game_or_refused_with_choices() -> None:
    rules, position = _setup("vouille")
    orders, problems = rules.parse_orders("place Aquitaines 0913\nplace clovis 0907\n")
    assert problems == []
    found = rules.validate(position, "franks", orders)
    assert "line 1: 'aquitaines' could be aquitaine-1 or aquitaine-2" in [str(p) for p in found]


def test_furor_a_name_unique_in_the_game_is_its_unit() -> None:
    rules, position = _setup("vouille")
    # "Bretons" is the name of one unit of Vouille: the order settles on it
    orders, problems = rules.parse_orders("place BRETONS 0907\n")
    assert problems == []
    plain, _ = rules.parse_orders("place bretons 0907\n")
    assert rules.validate(position, "franks", orders) == rules.validate(position, "franks", plain)


def test_furor_placed_by_short_id_resolves_like_the_id() -> None:
    rules, position = _setup("vouille")
    side = "visigoths"
    template = rules.order_template(position, side)
    assert "visigoth-cavalry-1" in template
    by_short, _ = rules.parse_orders("place vis-cav-1 0406\n")
    by_id, _ = rules.parse_orders("place visigoth-cavalry-1 0406\n")
    assert rules.validate(position, side, by_short) == rules.validate(position, side, by_id)
    assert isinstance(by_short, Orders) and by_short.lines[0].order == by_id.lines[0].order
