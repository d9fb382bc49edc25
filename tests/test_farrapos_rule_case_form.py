"""The compact position form of Farrapos rule cases (docs/rules/farrapos.md, "Rule
cases"), and the docstring examples of the package."""

import doctest
import importlib

import pytest

from pbem.rules import find_ruleset
from pbem.rules.farrapos.case_form import CaseFormError
from pbem.rules.farrapos.setup import OPTIONS
from tests.support.farrapos_games import play_game

RULES = find_ruleset("farrapos")
MODULES = ["board", "counters", "orders", "legal", "battle", "sequence", "victory_points", "__init__"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module("pbem.rules.farrapos" if name == "__init__" else f"pbem.rules.farrapos.{name}")
    failures, tried = doctest.testmod(module)
    assert failures == 0 and (tried > 0 or name == "__init__")


def test_case_form_round_trips_the_opening_and_a_played_game():
    for options in ((), OPTIONS):
        position = RULES.setup(None, list(options))
        assert RULES.position_from_case(RULES.position_to_case(position), None, list(options)) == position
    seen = []

    def keep(before, after, side, events):
        seen.append(after)

    play_game(7, {"republic": "greedy", "empire": "random"}, ("siege",), keep)
    for position in seen[::5]:
        assert RULES.position_from_case(RULES.position_to_case(position), None, ["siege"]) == position


def test_case_form_reduced_suffix_and_militia():
    position = RULES.position_from_case(
        {"cities": {"porto-alegre": {"units": ["inf-13", "inf-14r"], "militia": 1}}}, None, []
    )
    assert position["reduced"] == ["inf-14"]
    assert position["cities"]["porto-alegre"] == {"owner": "empire", "units": ["inf-13", "inf-14"], "militia": 1}
    assert RULES.position_to_case(position)["cities"]["porto-alegre"]["units"] == ["inf-13", "inf-14r"]
    assert position["vp"] == {"empire": 4, "republic": 0}


@pytest.mark.parametrize(
    "cities,message",
    [
        ({"atlantis": {"units": ["inf-1"]}}, "unknown city 'atlantis'"),
        ({"bage": {"units": ["inf-1", "inf-13"]}}, "cannot stand"),
        ({"bage": {"owner": "empire", "units": ["inf-1"]}}, "cannot stand"),
        ({"bage": {"units": ["inf-1"]}, "pelotas": {"units": ["inf-1"]}}, "placed twice"),
        ({"bage": {"militia": 1}}, "Militia needs an owner"),
        ({"bage": {"units": ["inf-100"]}}, "unknown MU"),
    ],
)
def test_case_form_refuses_impossible_positions(cities, message):
    with pytest.raises(CaseFormError, match=message):
        RULES.position_from_case({"cities": cities}, None, [])
