"""9.4: baggage."""

from __future__ import annotations

from pbem.rules.furor_barbarus.combat import declare, terrain_modifiers
from tests.support.furor_barbarus_test_map import attack, battlefield, blank_map, dice


def test_9_4_baggage_never_attacks() -> None:
    field = battlefield({"baggage-c": "0404", "bourgogne": "0403"}, player="charles", game_map=blank_map())
    problems, _ = declare(field, "charles", "bourgogne", ["baggage-c"], None)
    assert problems and "baggage never attacks" in problems[0]


def test_9_4_baggage_defends_at_one_never_modified_by_terrain() -> None:
    field = battlefield({"baggage-c": "0404", "bourgogne": "0403"}, game_map=blank_map(terrain={"woods": ["0404"]}))
    _, combat = declare(field, "lothaire", "baggage-c", ["bourgogne"], None)
    assert combat is not None and combat.defence_strength == 1
    terrain_modifiers(field, combat)
    assert combat.column == combat.odds and combat.die_modifier == 0


def test_9_4_baggage_is_attacked_only_hand_to_hand() -> None:
    field = battlefield({"baggage-c": "0404", "bowmen": "0402"}, game_map=blank_map())
    problems, _ = declare(field, "lothaire", "baggage-c", ["bowmen"], None)
    assert problems and "hand to hand" in problems[0]
    field = battlefield({"baggage-c": "0404", "neustrie": "0404", "bowmen": "0402"}, game_map=blank_map())
    problems, _ = declare(field, "lothaire", "neustrie", ["bowmen"], None)
    assert problems and "hand to hand" in problems[0]


def test_9_4_r_and_t_have_no_effect_on_baggage() -> None:
    field = battlefield({"baggage-c": "0404", "bourgogne": "0403"}, game_map=blank_map(), script=dice(1))
    attack(field, "lothaire", "baggage-c", ["bourgogne"])  # 2:1 die 1 -> D1R: eliminated (one step)
    assert not field.exists("baggage-c")
    field = battlefield({"baggage-c": "0404", "bourgogne": "0403"}, game_map=blank_map(), script=dice(2))
    attack(
        field,
        "lothaire",
        "baggage-c",
        ["bourgogne"],
    )  # 2:1 die 2 -> D1 -> pillaged
    field = battlefield(
        {"baggage-c": "0404", "bowmen": "0403"},
        game_map=blank_map(),
        script=dice(2),
        changes={
            "bowmen": {
                "type": __import__("pbem.rules.furor_barbarus.counters", fromlist=["UnitType"]).UnitType.INFANTRY
            }
        },
    )
    attack(field, "lothaire", "baggage-c", ["bowmen"])  # 1:1 die 2 -> DT: no effect
    assert field.hex_of("baggage-c") == "0404"


def test_9_4_stacked_unit_adds_strength_ignores_r_and_takes_steps() -> None:
    field = battlefield(
        {"baggage-c": "0404", "neustrie": "0404", "austrasie": "0403", "bourgogne": "0304", "aquitaine": "0504"},
        game_map=blank_map(),
        script=dice(1),
    )
    problems, combat = declare(field, "lothaire", "neustrie", ["austrasie", "bourgogne", "aquitaine"], None)
    assert combat is not None and combat.defence_strength == 3 + 1  # 8:4 = 2/1, die 1 -> D1R
    attack(field, "lothaire", "neustrie", ["austrasie", "bourgogne", "aquitaine"])
    assert field.hex_of("neustrie") == "0404" and field.is_reduced("neustrie")


def test_9_4_baggage_pillaged_with_its_defender_counts_strength_plus_two() -> None:
    field = battlefield({"baggage-c": "0404", "neustrie": "0404r"}, game_map=blank_map())
    field.lose_step("neustrie", "test")
    assert not field.exists("baggage-c")
    assert field.losses("charles") == 3 + (1 + 2)
    assert any("pillaged" in e["text"] for e in field.events)


def test_9_4_baggage_has_no_effect_on_stacking_once_pillaged() -> None:
    field = battlefield({"baggage-c": "0404"}, game_map=blank_map())
    field.eliminate("baggage-c", "test")
    assert field.units_in("0404") == []
