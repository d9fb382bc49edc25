"""Order syntax: short human-typeable lines in the game's words; values that
round-trip; errors name the line and say what would be legal."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.rules import find_ruleset
from pbem.rules.base import OrderSyntaxError
from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.counters import load_counters
from pbem.rules.farrapos.orders import (
    Attack,
    Carry,
    Decision,
    DeployMilitia,
    Invade,
    Move,
    Pass,
    Persistence,
    Place,
    StandingLosses,
    parse_order,
)

RULES = find_ruleset("farrapos")


def test_order_syntax_the_issue_example_parses():
    order = parse_order("attack porto-alegre from triunfo with inf-7 inf-8 art-2 until-won losses inf-8,inf-7")
    assert order == Attack("porto-alegre", "triunfo", ("inf-7", "inf-8", "art-2"), Decision(), ("inf-8", "inf-7"))


@pytest.mark.parametrize(
    "line",
    [
        "attack rio-grande from pelotas with inf-3 cav-2 rounds 2 losses cav-2 inf-3 occupy inf-3",
        "attack rio-grande from pelotas with inf-3 stop-after 1 occupy none",
        "invade piratini from pelotas with cav-2",
        "move inf-5 inf-6 from bage to cacapava",
        "pass",
        "carry inf-3 from pelotas to jaguarao",
        "place inf-7 inf-8 pelotas",
        "militia pelotas",
        "losses inf-3 militia",
        "defend porto-alegre losses inf-13 militia inf-13",
    ],
)
def test_order_syntax_round_trips(line):
    order = parse_order(line)
    assert str(order) == line
    assert parse_order(str(order)) == order


def test_order_syntax_is_case_and_comma_tolerant():
    assert parse_order("MOVE inf-5, inf-6 FROM bage TO cacapava") == Move(("inf-5", "inf-6"), "bage", "cacapava")


units = st.lists(st.sampled_from(sorted(load_counters().counters)), min_size=1, max_size=4, unique=True).map(tuple)
cities = st.sampled_from(sorted(load_board().cities))
decisions = st.one_of(
    st.just(Decision()),
    st.builds(Decision, st.sampled_from([Persistence.ROUNDS, Persistence.STOP_AFTER]), st.integers(1, 9)),
)
orders = st.one_of(
    st.builds(Attack, cities, cities, units, decisions, units | st.just(()), st.one_of(st.none(), units, st.just(()))),
    st.builds(Invade, cities, cities, units),
    st.builds(Move, units, cities, cities),
    st.builds(Carry, units, cities, cities),
    st.builds(Place, units, cities),
    st.builds(DeployMilitia, cities),
    st.builds(StandingLosses, units, st.none() | cities),
    st.just(Pass()),
)


@given(orders)
def test_order_syntax_every_order_value_round_trips(order):
    assert parse_order(str(order)) == order


@pytest.mark.parametrize(
    "line,message",
    [
        ("attack porto-alegre with inf-1", "the form is: attack CITY from CITY"),
        ("move inf-1 to triunfo", "has no 'from'"),
        ("march inf-1 to triunfo", "is not an order"),
        ("place pelotas inf-7", "the MU come first, then the city: 'place inf-7 pelotas'"),
        (
            "attack rio-grande from pelotas with inf-3 rounds zero",
            "'rounds' needs a number of 1 or more after it \\(e.g. 'rounds 2'\\), not 'zero'",
        ),
        ("attack rio-grande from pelotas with inf-3 rounds 2 until-won", "gives 'decision' twice"),
    ],
)
def test_order_syntax_errors_say_what_is_wrong(line, message):
    with pytest.raises(OrderSyntaxError, match=message):
        parse_order(line)


def test_order_syntax_errors_name_the_line_and_comments_are_ignored():
    orders, problems = RULES.parse_orders("# my turn\npass  # nothing this time\n\nmarch on\n")
    assert len(orders) == 1 and orders.lines[0].line == 2 and orders.lines[0].order == Pass()
    assert [p.line for p in problems] == [4]


def test_order_template_lists_forms_and_what_each_city_can_do():
    position = RULES.setup(None, [])
    template = RULES.order_template(position, "republic")
    assert all(line.startswith("#") for line in template.splitlines())
    assert "attack: porto-alegre" in template and "invade: rio-pardo taquari" in template
    # moves go only to cities with no direct link to the origin (Rio Pardo and
    # Taquari are linked to Triunfo); artillery (MF 1) has none
    assert "#     move cav-1 inf-1 inf-2 (MF 2): cachoeira encruzilhada\n#       santo-antonio\n" in template
    assert max(len(line) for line in template.splitlines()) <= 72, "mail clients wrap longer lines"
    unwrapped = template.replace("\n#       ", " ")
    assert (
        "move cav-3 cav-4 inf-5 inf-6 (all together, MF 2): cachoeira cangucu encruzilhada jaguarao livramento "
        "pelotas sao-gabriel" in unwrapped
    )
    assert "move art-1" not in template
    parsed, problems = RULES.parse_orders(template)
    assert len(parsed) == 0 and not problems
    assert "not your turn" in RULES.order_template(position, "empire")
