"""Tolbiac, 496 (scenario 3): the aid of the god of Clotilde, the ignored terrain
and the scenario's victory rule."""

from __future__ import annotations

from pbem.rules.furor_barbarus.morale import morale_value
from pbem.rules.furor_barbarus.scenarios import DataLibrary
from pbem.rules.furor_barbarus.terrain import Terrain
from pbem.rules.furor_barbarus.victory import check_victory
from tests.support.furor_barbarus_scenarios import battlefield, events

TO = "tolbiac"
UNITS = {
    "clovis": "0907",
    "salian-1": "0907",
    "salian-2": "0908",
    "salian-3": "1007",
    "ripuarian-1": "1010",
    "suevi-1": "0507",
    "salian-4": "1012",
}


def test_special_rule_1_divine_help_when_the_franks_reach_12_first() -> None:
    field = battlefield(TO, UNITS, turn=3)
    field.position["losses"] = {"franks": 10, "alemanni": 11}
    field.eliminate("salian-4", "test")  # 10 + 3 = 13 >= 12, the Alemanni still at 11
    assert field.memo["divine_help_turn"] == 4
    assert events(field, "divine_help")
    # turn 3 itself: nothing yet
    assert field.special.strength_modifier(field, "clovis", "attack") == 0
    field.position["turn"] = 4
    field.special.start_of_turn(field)
    assert "Divine Help" in events(field, "divine_help")[-1]["text"]
    assert field.special.strength_modifier(field, "clovis", "attack") == 2
    assert field.special.strength_modifier(field, "salian-2", "defence") == 1  # next to Clovis
    assert field.special.strength_modifier(field, "salian-3", "attack") == 1  # next to Clovis (1007)
    assert field.special.strength_modifier(field, "ripuarian-1", "attack") == 0  # not next to him
    assert field.special.strength_modifier(field, "suevi-1", "attack") == 0
    assert morale_value(field, "ripuarian-1") == 3 + 1
    assert field.special.morale_modifier(field, "suevi-1") == 0
    field.position["turn"] = 5  # only that turn
    assert field.special.strength_modifier(field, "clovis", "attack") == 0
    assert field.special.morale_modifier(field, "ripuarian-1") == 0


def test_special_rule_1_no_divine_help_if_the_alemanni_reach_12_first() -> None:
    field = battlefield(TO, UNITS, turn=2)
    field.position["losses"] = {"franks": 10, "alemanni": 10}
    field.eliminate("suevi-1", "test")  # Alemanni 14 first
    field.eliminate("salian-4", "test")  # Franks 13 after them
    assert field.memo["first_to_12"] == "alemanni"
    assert "divine_help_turn" not in field.memo and not events(field, "divine_help")


def test_special_rule_2_terrain_from_0114_and_the_farms_have_no_effect() -> None:
    lib = DataLibrary()
    scenario = lib.scenario(TO)
    printed = lib.game_map("tolbiac")
    played = printed.with_overlay(scenario.overlay)
    for h in ("0114", "0214", "1115"):
        assert printed.terrain(h) is not Terrain.CLEAR
        assert played.terrain(h) is Terrain.CLEAR
    assert played.terrain("0701") is Terrain.VILLAGE  # Tolbiacum itself still counts


def test_victory_equal_losses_go_to_the_alemanni() -> None:
    field = battlefield(TO, UNITS, turn=8)
    field.position["losses"] = {"franks": 9, "alemanni": 9}
    outcome = check_victory(field, last_turn=True)
    assert outcome is not None and (outcome.kind.value, outcome.winner) == ("minor_victory", "alemanni")
    field.position["losses"] = {"franks": 8, "alemanni": 9}
    outcome = check_victory(field, last_turn=True)
    assert outcome is not None and (outcome.kind.value, outcome.winner) == ("minor_victory", "franks")
    field.position["losses"] = {"franks": 15, "alemanni": 9}
    outcome = check_victory(field, last_turn=True)
    assert outcome is not None and (outcome.kind.value, outcome.winner) == ("major_victory", "alemanni")
