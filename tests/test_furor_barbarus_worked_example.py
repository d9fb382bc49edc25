"""9.3, "Example of combat": Lothaire attacks Fontenoy (0708), rebuilt on the test
map with the printed hex numbers."""

from __future__ import annotations

import pytest

from pbem.rules.furor_barbarus.charge import charge_problem
from pbem.rules.furor_barbarus.combat import COLUMNS, declare
from pbem.rules.furor_barbarus.movement import apply_move, check_move
from tests.support.furor_barbarus_test_map import RULES, battlefield, dice, position

ARMIES = {
    "provence": "0708",
    "neustrie": "0611",  # Charles the Bald
    "austrasie": "0807",
    "bourgogne": "0707",
    "bowmen": "0607",  # Lothaire
    "aquitaine": "0711",
}


def test_9_3_example_austrasie_and_bourgogne_5_against_2_is_2_to_1() -> None:
    field = battlefield(ARMIES)
    problems, combat = declare(field, "lothaire", "provence", ["austrasie", "bourgogne"], None)
    assert not problems and combat is not None
    assert (combat.attack_strength, combat.defence_strength, COLUMNS[combat.odds]) == (5, 2, "2/1")


def test_9_3_example_with_the_bowmen_6_against_2_is_3_to_1_with_village_and_creek() -> None:
    from pbem.rules.furor_barbarus.combat import terrain_modifiers

    field = battlefield(ARMIES)
    _, combat = declare(field, "lothaire", "provence", ["austrasie", "bourgogne", "bowmen"], None)
    assert combat is not None
    terrain_modifiers(field, combat)
    assert (combat.attack_strength, COLUMNS[combat.odds]) == (6, "3/1")
    assert combat.die_modifier == 2  # village +1, creek +1


def test_9_3_example_aquitaine_charge_along_0710_0709_is_11_against_2_at_4_to_1() -> None:
    from pbem.rules.furor_barbarus.combat import terrain_modifiers

    field = battlefield(ARMIES)
    assert apply_move(field, "aquitaine", ["0710", "0709"]).legal
    assert charge_problem(field, "aquitaine", "0708") is None
    problems, combat = declare(
        field, "lothaire", "provence", ["austrasie", "bourgogne", "bowmen", "aquitaine"], "aquitaine"
    )
    assert not problems and combat is not None
    terrain_modifiers(field, combat)
    assert (combat.attack_strength, combat.defence_strength, COLUMNS[combat.odds]) == (11, 2, "4/1")
    assert combat.die_modifier == 1  # the village's +1 only: the creek's bonus is cancelled
    assert any("stream bonus cancelled" in n for n in combat.notes)


@pytest.mark.parametrize("path", [["0810", "0809", "0808"], ["0810", "0809", "0709"]])
def test_9_3_example_paths_through_0810_0809_are_not_charges(path: list[str]) -> None:
    field = battlefield(ARMIES)
    assert check_move(field, "aquitaine", path, "lothaire").legal
    apply_move(field, "aquitaine", path)
    why = charge_problem(field, "aquitaine", "0708")
    assert why is not None and "straight line" in why


@pytest.mark.parametrize("last", ["0711", "0712"])
def test_9_3_example_moving_0811_then_back_against_neustrie_0611_is_not_a_charge(last: str) -> None:
    field = battlefield(ARMIES)
    assert apply_move(field, "aquitaine", ["0811", last]).legal
    why = charge_problem(field, "aquitaine", "0611")
    assert why is not None and "straight line" in why


def test_9_3_example_whole_turn_file_charge_eliminates_provence_and_aquitaine_advances() -> None:
    pos = position(ARMIES)
    orders, problems = RULES.parse_orders(
        "move aquitaine 0710 0709\nattack provence with austrasie bourgogne bowmen charge aquitaine\n"
    )
    assert not problems and not RULES.validate(pos, "lothaire", orders)
    script = dice((1, "combat at 0708"))  # 1 + village 1 = 2: row 2, column 4/1 = D2
    res = RULES.resolve(pos, {"lothaire": orders}, script)
    combat = next(e for e in res.events if e["type"] == "combat")
    assert (combat["attack"], combat["defence"], combat["odds"], combat["result"]) == (11, 2, "4/1", "D2")
    units = RULES.position_to_case(res.position)["units"]
    assert "provence" not in units and units["aquitaine"] == "0708"  # the charger must advance (9.2)
    assert res.position["losses"]["charles"] == 2
