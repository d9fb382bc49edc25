"""Sections 5 (stacking) and 6 (commanders)."""

from __future__ import annotations

import copy

from pbem.rules.furor_barbarus.combat import declare
from pbem.rules.furor_barbarus.morale import morale_check, morale_value, retreat
from pbem.rules.furor_barbarus.movement import apply_move, check_move
from pbem.rules.furor_barbarus.stacking import stacking_problem
from tests.support.furor_barbarus_test_map import RULES, battlefield, blank_map, dice, position


def test_5_one_unit_per_hex_except_commander_and_one_baggage() -> None:
    field = battlefield(
        {"neustrie": "0404", "provence": "0504", "charles": "0304", "baggage-c": "0204"},
        player="charles",
        game_map=blank_map(),
    )
    assert stacking_problem(field, "provence", "0404", "charles")
    assert stacking_problem(field, "charles", "0404", "charles") is None
    assert stacking_problem(field, "baggage-c", "0404", "charles") is None
    assert stacking_problem(field, "charles", "0204", "charles")  # commander + baggage need a combat unit
    assert stacking_problem(field, "provence", "0304", "charles") is None  # a unit onto its commander


def test_5_never_in_an_enemy_hex() -> None:
    field = battlefield({"neustrie": "0404", "bourgogne": "0403"}, game_map=blank_map())
    check = check_move(field, "bourgogne", ["0404"], "lothaire")
    assert not check.legal and "occupied by neustrie" in (check.problem or "")


def test_6_commander_adds_his_strength_in_hand_to_hand_attack_and_defence() -> None:
    field = battlefield(
        {"neustrie": "0404", "charles": "0404", "austrasie": "0403", "lothaire": "0403"}, game_map=blank_map()
    )
    _, combat = declare(field, "lothaire", "neustrie", ["austrasie"], None)
    assert combat is not None and combat.commanders == ["lothaire"]
    assert (combat.attack_strength, combat.defence_strength) == (3 + 1, 3 + 1)


def test_6_commander_adds_nothing_against_fire_only() -> None:
    field = battlefield(
        {"neustrie": "0404", "charles": "0404", "bowmen": "0402"},
        game_map=blank_map(),
        changes={"bowmen": {"strength": 4}},
    )
    _, combat = declare(field, "lothaire", "neustrie", ["bowmen"], None)
    assert combat is not None and combat.defence_strength == 3


def test_6_commander_gives_plus_one_morale_stacked_or_adjacent() -> None:
    field = battlefield(
        {"neustrie": "0404", "provence": "0604", "charles": "0504"}, player="charles", game_map=blank_map()
    )
    assert morale_value(field, "neustrie") == 4 and morale_value(field, "provence") == 3
    field = battlefield(
        {"neustrie": "0404", "provence": "0704", "charles": "0404"}, player="charles", game_map=blank_map()
    )
    assert morale_value(field, "neustrie") == 4 and morale_value(field, "provence") == 2


def test_6_commander_retreats_with_his_unit() -> None:
    field = battlefield({"neustrie": "0404", "charles": "0404", "austrasie": "0403"}, game_map=blank_map())
    retreat(field, "neustrie", ["austrasie"])
    assert field.hex_of("charles") == field.hex_of("neustrie") != "0404"


def test_6_commander_eliminated_with_his_unit() -> None:
    field = battlefield({"neustrie": "0404r", "charles": "0404"}, game_map=blank_map())
    field.lose_step("neustrie", "test")
    assert not field.exists("charles")
    assert field.losses("charles") == 3 + (1 + 4)


def test_6_lone_commander_eliminated_when_an_enemy_passes_through() -> None:
    field = battlefield({"charles": "0403", "austrasie": "0401"}, game_map=blank_map())
    # austrasie starts adjacent... move it next to him first is a ZOC stop; start in his ZOC instead
    field = battlefield({"charles": "0403", "austrasie": "0402"}, game_map=blank_map())
    check = check_move(field, "austrasie", ["0403", "0404"], "lothaire")
    assert check.legal and check.overruns == ((1, "charles"),)
    apply_move(field, "austrasie", ["0403", "0404"])
    assert not field.exists("charles") and field.hex_of("austrasie") == "0404"
    assert field.losses("charles") == 1 + 4


def test_6_a_turn_file_s_check_of_an_overrun_leaves_the_position_as_it_was() -> None:
    # the check walks the orders on a position that shares the unit entries it does not change:
    # the lone commander passed through is taken off a copy of his entry, the mover placed on a copy of its own
    checked = position({"charles": "0403", "austrasie": "0402"})
    before = copy.deepcopy(checked)
    orders, problems = RULES.parse_orders("move austrasie 0403 0404\n")
    assert problems == [] and RULES.validate(checked, "lothaire", orders) == []
    assert checked == before and checked["units"]["charles"]["status"] == "active"


def test_6_commanders_never_check_morale() -> None:
    field = battlefield({"charles": "0404"}, game_map=blank_map(), script=dice())
    morale_check(field, "charles", "test")  # no die asked for
    assert field.exists("charles")
