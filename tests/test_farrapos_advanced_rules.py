"""Rulebook, "Advanced Rules (Optional)", chosen at ``pbem new`` with
``--option siege`` and ``--option port-transport``."""

from pbem.rules import find_ruleset
from pbem.rules.farrapos.battle import under_siege
from pbem.rules.farrapos.legal import carry_allowed
from pbem.rules.farrapos.position import View

RULES = find_ruleset("farrapos")

SURROUNDED = {
    "jaguarao": {"units": ["inf-13"]},
    "pelotas": {"units": ["inf-3"]},
    "piratini": {"units": ["inf-5"]},
}


def test_advanced_siege_a_city_surrounded_on_all_sides_is_under_siege():
    view = View(RULES.position_from_case({"cities": SURROUNDED}, None, ["siege"]))
    assert under_siege(view, "jaguarao", "republic")


def test_advanced_siege_one_open_line_lifts_the_siege():
    cities = dict(SURROUNDED, piratini={"owner": "republic", "units": []})
    view = View(RULES.position_from_case({"cities": cities}, None, ["siege"]))
    assert not under_siege(view, "jaguarao", "republic")


def test_advanced_siege_is_off_unless_chosen():
    view = View(RULES.position_from_case({"cities": SURROUNDED}, None, []))
    assert not under_siege(view, "jaguarao", "republic")


def test_advanced_port_transport_needs_two_held_ports_and_the_option():
    two = {"pelotas": {"units": ["inf-3"]}, "laguna": {"units": ["inf-6"]}}
    assert carry_allowed(View(RULES.position_from_case({"cities": two}, None, ["port-transport"])), "republic")
    assert not carry_allowed(View(RULES.position_from_case({"cities": two}, None, [])), "republic")
    one = {"pelotas": {"units": ["inf-3"]}, "bage": {"units": ["inf-6"]}}
    assert not carry_allowed(View(RULES.position_from_case({"cities": one}, None, ["port-transport"])), "republic")


def test_advanced_port_transport_refused_without_the_option():
    two = {"pelotas": {"units": ["inf-3"]}, "laguna": {"units": ["inf-6"]}}
    position = RULES.position_from_case({"cities": two}, None, [])
    orders, _ = RULES.parse_orders("carry inf-3 from pelotas to laguna")
    (problem,) = RULES.validate(position, "republic", orders)
    assert "port-transport" in problem.message
