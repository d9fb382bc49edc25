"""Rulebook, "Battles, Observations": each player has 4 Militia counters; they hold
a city without MU, have no MF, DF 1, are eliminated when defeated, and deploy only
in cities of one's possession with no MU."""

from pbem.rules import find_ruleset
from pbem.rules.dice import ScriptedDice
from pbem.rules.farrapos.position import View

RULES = find_ruleset("farrapos")


def test_militia_four_per_side_and_no_more():
    cities = {c: {"owner": "republic", "militia": 1} for c in ("bage", "pelotas", "triunfo", "piratini")}
    cities["cangucu"] = {"owner": "republic"}
    position = RULES.position_from_case({"cities": cities}, None, [])
    assert View(position).militia_available("republic") == 0
    orders, _ = RULES.parse_orders("militia cangucu")
    (problem,) = RULES.validate(position, "republic", orders)
    assert "no Militia counter left" in problem.message


def test_militia_eliminated_militia_do_not_come_back():
    position = RULES.position_from_case(
        {"cities": {"bage": {"units": ["inf-5"]}}, "militia_lost": {"republic": 4}}, None, []
    )
    assert View(position).militia_available("republic") == 0


def test_militia_have_no_movement_factor_so_they_cannot_move_or_attack():
    position = RULES.position_from_case({"cities": {"bage": {"owner": "republic", "militia": 2}}}, None, [])
    orders, problems = RULES.parse_orders("move militia from bage to piratini")
    problems = problems or RULES.validate(position, "republic", orders)
    assert problems and problems[0].message.startswith(
        "Militia have no MF: a Militia counter stays in the city it was deployed in"
    )


def test_militia_deploys_after_the_mu_leave_and_the_city_keeps_its_vp():
    position = RULES.position_from_case({"cities": {"bage": {"units": ["inf-5", "cav-3"]}}}, None, [])
    orders, _ = RULES.parse_orders("move inf-5 cav-3 from bage to pelotas\nmilitia bage")
    assert not RULES.validate(position, "republic", orders)
    after = RULES.resolve(position, {"republic": orders}, ScriptedDice([])).position
    assert after["cities"]["bage"] == {"owner": "republic", "units": [], "militia": 1}
    assert after["vp"]["republic"] == 2 + 2  # Bagé and Pelotas
