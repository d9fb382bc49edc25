"""Soissons, 486 (scenario 2): Chararic's neutral corps, the free placement
option and the scenario's victory rule."""

from __future__ import annotations

import pytest

from pbem.rules.furor_barbarus.orders import PlaceOrder
from pbem.rules.furor_barbarus.setup import placement_problem
from pbem.rules.furor_barbarus.victory import check_victory
from pbem.rules.furor_barbarus.zones_of_control import in_enemy_zoc
from tests.support.furor_barbarus_scenarios import attack, battlefield, dice, events

SO = "soissons"
CHARARIC = {"chararic-salian-3": "0703", "chararic-salian-2": "0702", "chararic-light": "0803"}


def sides_of_chararic(field) -> set[str]:  # type: ignore[no-untyped-def]
    return {field.side_of(u) for u in CHARARIC if field.exists(u)}


def test_special_rule_1_chararic_is_neutral_at_the_start() -> None:
    field = battlefield(SO, {**CHARARIC, "salian-1": "0804"})
    assert sides_of_chararic(field) == {"neutral"}
    assert not in_enemy_zoc(field, "0804", "franks")  # a neutral unit has no ZOC
    for turn in (1, 2):  # no roll during the first two turns
        field.position["turn"] = turn
        field.special.start_of_turn(field)
    assert sides_of_chararic(field) == {"neutral"} and not events(field, "chararic")


@pytest.mark.parametrize(("die", "camp"), [(1, "gallo-romans"), (2, "neutral"), (5, "neutral"), (6, "franks")])
def test_special_rule_1_the_roll_from_turn_3(die: int, camp: str) -> None:
    field = battlefield(SO, CHARARIC, turn=3, script=dice((die, "Chararic")))
    field.special.start_of_turn(field)
    assert sides_of_chararic(field) == {camp}
    assert events(field, "chararic")


def test_special_rule_1_rolls_each_turn_until_chararic_chooses() -> None:
    field = battlefield(SO, CHARARIC, turn=3, script=dice(3, 6))
    field.special.start_of_turn(field)
    field.position["turn"] = 4
    field.special.start_of_turn(field)
    assert sides_of_chararic(field) == {"franks"}
    field.position["turn"] = 5
    field.special.start_of_turn(field)  # no more dice: the choice is final
    assert sides_of_chararic(field) == {"franks"}


@pytest.mark.parametrize(
    ("attacker_side", "attacker", "camp"),
    [("franks", "salian-1", "gallo-romans"), ("gallo-romans", "palatina", "franks")],
)
def test_special_rule_1_attacking_a_neutral_unit_sends_it_alone_to_the_other_camp(
    attacker_side: str, attacker: str, camp: str
) -> None:
    # salian-1 (4) or palatina (4) against chararic-light (1) in 0803 (a hill: -1 column): 4/1 -> 3/1, die 6
    field = battlefield(SO, {**CHARARIC, attacker: "0804"}, turn=1, script=dice((6, "combat")))
    attack(field, attacker_side, "chararic-light", [attacker])
    assert field.side_of("chararic-light") == camp  # "it" joins the opponent's camp
    assert {field.side_of(u) for u in ("chararic-salian-3", "chararic-salian-2")} == {"neutral"}
    assert field.memo.get("chararic", "neutral") == "neutral"  # Chararic has not chosen yet
    # from turn 3 he still rolls for the two units left neutral; the attacked one stays where it went
    other = "franks" if camp == "gallo-romans" else "gallo-romans"
    field.dice = dice((6 if other == "franks" else 1, "Chararic"))
    field.position["turn"] = 3
    field.special.start_of_turn(field)
    assert field.side_of("chararic-light") == camp
    assert {field.side_of(u) for u in ("chararic-salian-3", "chararic-salian-2")} == {other}


def test_special_rule_1_no_roll_once_no_unit_is_neutral() -> None:
    field = battlefield(SO, {"chararic-light": "0803"}, turn=3, script=dice())
    field.set_side("chararic-light", "franks")
    field.special.start_of_turn(field)  # no die asked for
    assert not events(field, "chararic")


def test_victory_gallo_roman_minor_victory_at_the_end() -> None:
    field = battlefield(SO, {"salian-1": "0808", "palatina": "0508"}, turn=6)
    field.position["losses"] = {"franks": 4, "gallo-romans": 12}
    outcome = check_victory(field, last_turn=True)
    assert outcome is not None and outcome.kind.value == "minor_victory" and outcome.winner == "gallo-romans"
    assert check_victory(field, last_turn=False) is None
    field.position["losses"] = {"franks": 4, "gallo-romans": 14}  # a threshold passed: section 10 decides
    outcome = check_victory(field, last_turn=True)
    assert outcome is not None and outcome.kind.value == "major_victory" and outcome.winner == "franks"


def test_option_free_placement() -> None:
    standard = battlefield(SO, {})
    free = battlefield(SO, {}, options=["free-placement"])
    order = PlaceOrder("syagrius", "0410")
    assert placement_problem(standard, "gallo-romans", order, set()) is not None
    assert placement_problem(free, "gallo-romans", order, set()) is None
    assert placement_problem(free, "franks", PlaceOrder("salian-1", "0905"), set()) is None
    assert placement_problem(free, "franks", PlaceOrder("salian-1", "0904"), set()) is not None  # not beyond XX05
    assert placement_problem(free, "franks", PlaceOrder("salian-1", "0706"), set()) is not None
