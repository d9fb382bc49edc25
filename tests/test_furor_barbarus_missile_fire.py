"""9.3: units with a missile firing capacity."""

from __future__ import annotations

from pbem.rules.furor_barbarus.combat import declare
from tests.support.furor_barbarus_test_map import attack, battlefield, blank_map, dice


def test_9_3_hand_to_hand_at_minus_one_minimum_one() -> None:
    field = battlefield(
        {"neustrie": "0404", "horse-archers": "0403", "bourgogne": "0304"},
        game_map=blank_map(),
        changes={"horse-archers": {"marks": frozenset()}},
    )
    _, combat = declare(field, "lothaire", "neustrie", ["horse-archers", "bourgogne"], None)
    assert combat is not None and combat.attack_strength == (2 - 1) + 2
    field = battlefield({"neustrie": "0404", "bowmen": "0403", "bourgogne": "0304"}, game_map=blank_map())
    _, combat = declare(field, "lothaire", "neustrie", ["bowmen", "bourgogne"], None)
    assert combat is not None and combat.attack_strength == 1 + 2  # 1 - 1 -> minimum 1


def test_9_3_defending_missile_unit_also_at_minus_one() -> None:
    field = battlefield({"archers-c": "0404", "bourgogne": "0403"}, game_map=blank_map())
    _, combat = declare(field, "lothaire", "archers-c", ["bourgogne"], None)
    assert combat is not None and combat.defence_strength == 1


def test_9_3_no_penalty_against_enemy_missile_units_or_with_the_mark() -> None:
    field = battlefield(
        {"archers-c": "0404", "horse-archers": "0403"},
        game_map=blank_map(),
        changes={"horse-archers": {"marks": frozenset()}, "archers-c": {"strength": 1}},
    )
    _, combat = declare(field, "lothaire", "archers-c", ["horse-archers"], None)
    assert combat is not None and (combat.attack_strength, combat.defence_strength) == (2, 1)
    field = battlefield({"neustrie": "0404", "horse-archers": "0403", "bourgogne": "0304"}, game_map=blank_map())
    _, combat = declare(field, "lothaire", "neustrie", ["horse-archers", "bourgogne"], None)
    assert combat is not None and combat.attack_strength == 2 + 2  # no_melee_penalty mark


def test_9_3_alone_hand_to_hand_only_at_odds_better_than_1_to_1() -> None:
    field = battlefield({"provence": "0404", "horse-archers": "0403"}, game_map=blank_map())
    problems, _ = declare(field, "lothaire", "provence", ["horse-archers"], None)  # 2:2
    assert problems and "better than 1/1" in problems[0]
    field = battlefield({"provence": "0404r", "horse-archers": "0403"}, game_map=blank_map())
    problems, _ = declare(field, "lothaire", "provence", ["horse-archers"], None)  # 2:1
    assert not problems


def test_9_3_alone_hand_to_hand_is_refused_by_a_turn_file_s_check_too() -> None:
    # the check of a turn file declares its attacks without their strengths (strengths=False), but
    # works them out where they decide legality: a lone missile unit hand to hand
    field = battlefield({"provence": "0404", "horse-archers": "0403"}, game_map=blank_map())
    problems, _ = declare(field, "lothaire", "provence", ["horse-archers"], None, strengths=False)  # 2:2
    assert problems and "better than 1/1" in problems[0]
    field = battlefield({"provence": "0404r", "horse-archers": "0403"}, game_map=blank_map())
    problems, combat = declare(field, "lothaire", "provence", ["horse-archers"], None, strengths=False)  # 2:1
    assert not problems and combat is not None and combat.attack_strength == 2


def test_9_3_fire_at_range_only_when_not_adjacent_to_an_enemy() -> None:
    field = battlefield({"provence": "0404", "neustrie": "0201", "bowmen": "0402"}, game_map=blank_map())
    assert not declare(field, "lothaire", "provence", ["bowmen"], None)[0]
    field = battlefield({"provence": "0404", "neustrie": "0401", "bowmen": "0402"}, game_map=blank_map())
    problems, _ = declare(field, "lothaire", "provence", ["bowmen"], None)
    assert problems and "adjacent to an enemy combat unit" in problems[0]


def test_9_3_fire_over_units_and_water() -> None:
    gm = blank_map(hexside=[{"hexes": ["0403", "0404"], "feature": "river"}])
    field = battlefield({"provence": "0404", "bourgogne": "0403", "bowmen": "0402"}, game_map=gm)
    assert not declare(field, "lothaire", "provence", ["bowmen"], None)[0]


def test_9_3_firer_takes_no_result_unless_its_target_can_fire() -> None:
    # row 3 on 1/2 = AR: the bowmen stay; against archers they retreat
    field = battlefield({"neustrie": "0404", "bowmen": "0402"}, game_map=blank_map(), script=dice(3))
    attack(field, "lothaire", "neustrie", ["bowmen"])
    assert field.hex_of("bowmen") == "0402"
    field = battlefield({"archers-c": "0404", "bowmen": "0402"}, game_map=blank_map(), script=dice(3))
    attack(field, "lothaire", "archers-c", ["bowmen"])
    assert field.hex_of("bowmen") != "0402"


def test_9_3_fire_only_in_attack() -> None:
    field = battlefield({"neustrie": "0404", "archers-c": "0402", "bourgogne": "0403"}, game_map=blank_map())
    _, combat = declare(field, "lothaire", "neustrie", ["bourgogne"], None)
    assert combat is not None and combat.defence_strength == 3  # the archers nearby add nothing
