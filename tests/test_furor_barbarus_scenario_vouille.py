"""Vouille, 507 (scenario 4): the Breton cavalry's evasion, the Alan cavalry
exception and the elite variation."""

from __future__ import annotations

import pytest

from pbem.rules.furor_barbarus.charge import can_charge
from pbem.rules.furor_barbarus.hexgrid import hex_distance
from pbem.rules.furor_barbarus.missile_fire import melee_strength
from pbem.rules.furor_barbarus.scenarios import DataLibrary
from tests.support.furor_barbarus_scenarios import attack, battlefield, dice, events

VO = "vouille"


def test_special_rule_1_bretons_evade_on_5_or_6() -> None:
    field = battlefield(
        VO,
        {"bretons": "0806", "visigoth-cavalry-1": "0706", "visigoth-cavalry-2": "0807"},
        player=1,
        script=dice((5, "evasion")),
    )
    attack(field, "visigoths", "bretons", ["visigoth-cavalry-1", "visigoth-cavalry-2"])
    to = field.hex_of("bretons")
    assert to != "0806" and 1 <= hex_distance("0806", to) <= 2
    assert events(field, "breton_evasion")[0]["evaded"]
    assert not [e for e in field.events if e["type"] == "combat" and "die" in e]  # no combat die
    assert {"visigoth-cavalry-1", "visigoth-cavalry-2"} <= field.has_attacked
    assert field.hex_of("visigoth-cavalry-1") == "0706"  # no advance


def test_special_rule_1_bretons_stand_on_1_to_4() -> None:
    field = battlefield(
        VO, {"bretons": "0806", "visigoth-cavalry-1": "0706"}, script=dice((4, "evasion"), (3, "combat"), (1, "morale"))
    )  # 4 against 2: 2/1, DT
    attack(field, "visigoths", "bretons", ["visigoth-cavalry-1"])
    assert not events(field, "breton_evasion")[0]["evaded"]
    assert [e for e in field.events if e["type"] == "combat"]


def test_special_rule_1_evasion_goes_through_enemy_zoc() -> None:
    # every free neighbour of 0806 is in the ZOC of the attackers: still it goes up to 2 hexes
    units = {
        "bretons": "0806",
        "visigoth-cavalry-1": "0706",
        "visigoth-cavalry-2": "0807",
        "visigoth-cavalry-3": "0905",
        "visigoth-infantry-1": "0805",
    }
    field = battlefield(VO, units, script=dice(6))
    attack(field, "visigoths", "bretons", ["visigoth-cavalry-1"])
    assert field.hex_of("bretons") not in (None, "0806")


def test_special_rule_1_no_roll_when_surrounded() -> None:
    ring = {
        "0805": "visigoth-cavalry-1",
        "0807": "visigoth-cavalry-2",
        "0706": "visigoth-cavalry-3",
        "0707": "visigoth-cavalry-4",
        "0906": "visigoth-cavalry-5",
        "0907": "visigoth-infantry-1",
    }
    field = battlefield(VO, {"bretons": "0806", **{u: h for h, u in ring.items()}}, script=dice((2, "combat")))
    attack(field, "visigoths", "bretons", ["visigoth-cavalry-1"])
    assert not events(field, "breton_evasion")


EDGE = {"bretons": "0901", "visigoth-cavalry-1": "0801", "visigoth-cavalry-2": "1001", "visigoth-cavalry-3": "0902"}


def test_special_rule_1_evading_off_the_map_eliminates() -> None:
    # on the northern edge, every neighbour on the map taken by enemies: the only way out is off the map,
    # which their owner ordered explicitly
    field = battlefield(VO, EDGE, script=dice(5))
    field.position["standing"]["franks"]["breton-evasion"] = "off-map"
    attack(field, "visigoths", "bretons", ["visigoth-cavalry-1"])
    assert field.units["bretons"]["status"] == "eliminated"
    assert field.losses("franks") == 2


@pytest.mark.parametrize("standing", [None, "yes"])
def test_special_rule_1_no_roll_when_the_only_way_out_is_off_the_map(standing: str | None) -> None:
    # both "may" are the owner's: neither the default nor "yes" chooses an evasion that can only leave the map
    field = battlefield(VO, EDGE, script=dice((2, "combat")))  # 4 against 2: 2/1, D1
    if standing:
        field.position["standing"]["franks"]["breton-evasion"] = standing
    attack(field, "visigoths", "bretons", ["visigoth-cavalry-1"])
    assert events(field, "breton_evasion")[0]["rolled"] is False
    assert field.hex_of("bretons") == "0901" and field.is_reduced("bretons")


def test_special_rule_1_standing_order_not_to_evade() -> None:
    field = battlefield(
        VO, {"bretons": "0806", "visigoth-cavalry-1": "0706"}, script=dice((3, "combat"), (1, "morale"))
    )
    field.position["standing"]["franks"]["breton-evasion"] = "no"
    attack(field, "visigoths", "bretons", ["visigoth-cavalry-1"])
    assert not events(field, "breton_evasion")


def test_special_rule_2_alan_cavalry_exception() -> None:
    field = battlefield(VO, {"alans": "0902", "bretons": "0903", "laeti": "0802", "frankish-archers-1": "0803"})
    assert can_charge(field, "alans")  # a mounted shooter that may charge (11.2 = 9.2)
    assert melee_strength(field, "alans", 3, ["laeti"]) == 3  # no hand-to-hand penalty (11.3 = 9.3)
    assert melee_strength(field, "frankish-archers-1", 1, ["laeti"]) == 1  # the rule's minimum of 1 (9.3)


def test_the_bretons_are_light_cavalry_as_printed() -> None:
    """Printed "Bretons (Light cavalry)": cavalry, not mounted shooters (as "Light inf."
    is infantry); they charge as any cavalry (9.2) and fight hand to hand at full strength."""
    field = battlefield(VO, {"bretons": "0903", "laeti": "0802"})
    c = field.counter("bretons")
    assert (c.type.value, c.range, c.is_missile) == ("cavalry", 0, False)
    assert can_charge(field, "bretons")


def test_variation_elite_visigothic_cavalry() -> None:
    scenario = DataLibrary().scenario(VO)
    elite = scenario.with_options(["elite"])
    before = sorted(c.strength for u, c in scenario.counters.items() if c.name == "Visigothic cavalry")
    after = sorted(c.strength for u, c in elite.counters.items() if c.name == "Visigothic cavalry")
    assert before == [2, 2, 3, 3, 4] and after == [2, 3, 3, 4, 4]


def test_victory_at_the_end_of_turn_6_lesser_losses_else_a_tie() -> None:
    from pbem.rules.furor_barbarus.victory import check_victory

    field = battlefield(VO, {"clovis": "0907", "alaric": "0407"}, turn=6)
    for losses, expected in (
        ({"franks": 5, "visigoths": 9}, ("minor_victory", "franks")),
        ({"franks": 9, "visigoths": 5}, ("minor_victory", "visigoths")),
        ({"franks": 7, "visigoths": 7}, ("draw", None)),
        ({"franks": 15, "visigoths": 16}, ("minor_victory", "franks")),
    ):
        field.position["losses"] = losses
        outcome = check_victory(field, last_turn=True)
        assert outcome is not None and (outcome.kind.value, outcome.winner) == expected
