"""9.8 retreat, 9.9 step losses, 9.10 morale checks, 9.11 advance after combat."""

from __future__ import annotations

from pbem.rules.furor_barbarus.combat import allocate_steps
from pbem.rules.furor_barbarus.morale import morale_check, retreat
from tests.support.furor_barbarus_test_map import attack, battlefield, blank_map, dice, events


def test_9_8_retreat_prefers_a_free_hex_without_friend_or_zoc() -> None:
    field = battlefield({"neustrie": "0404", "austrasie": "0403"}, game_map=blank_map())
    retreat(field, "neustrie", ["austrasie"])
    h = field.hex_of("neustrie")
    assert h is not None and h != "0404"
    from pbem.rules.furor_barbarus.zones_of_control import in_enemy_zoc

    assert not in_enemy_zoc(field, h, "charles")


def test_9_8_retreat_into_a_friend_displaces_it_with_a_morale_check() -> None:
    # neustrie 0404 is boxed in: enemies north, friends everywhere else but one ZOC-free friend hex 0405
    units = {
        "neustrie": "0404",
        "austrasie": "0403",
        "bourgogne": "0304",
        "aquitaine": "0504",
        "provence": "0405",
        "aquitaine-c": "0305",
        "archers-c": "0505",
    }
    field = battlefield(units, game_map=blank_map(), script=dice((1, "morale check of provence")))
    retreat(field, "neustrie", ["austrasie"])
    assert field.hex_of("neustrie") == "0405"
    assert field.hex_of("provence") not in ("0405", None)
    assert [e["unit"] for e in events(field, "morale_check")] == ["provence"]


def test_9_8_chains_of_displacement() -> None:
    # neustrie (0402) can only go to 0403 (provence, in an enemy ZOC: priority 3); provence
    # can only go to 0404 (aquitaine-c, free of ZOC: priority 2); aquitaine-c has free hexes.
    units = {
        "neustrie": "0402",
        "provence": "0403",
        "aquitaine-c": "0404",
        "austrasie": "0401",
        "bourgogne": "0302",
        "aquitaine": "0502",
        "bowmen": "0303",
        "horse-archers": "0503",
    }
    field = battlefield(units, game_map=blank_map(), script=dice(1, 1))
    retreat(field, "neustrie", ["austrasie"])
    assert (field.hex_of("neustrie"), field.hex_of("provence")) == ("0403", "0404")
    assert field.hex_of("aquitaine-c") in {"0305", "0405", "0505"}
    assert [e["unit"] for e in events(field, "morale_check")] == ["provence", "aquitaine-c"]


def test_9_8_unable_to_retreat_costs_a_step() -> None:
    units = {
        "neustrie": "0404",
        "austrasie": "0403",
        "bourgogne": "0304",
        "aquitaine": "0504",
        "bowmen": "0305",
        "horse-archers": "0505",
        "lothaire": "0405",
    }
    field = battlefield(units, game_map=blank_map())
    retreat(field, "neustrie", ["austrasie"])
    assert field.hex_of("neustrie") == "0404" and field.is_reduced("neustrie")


def test_9_8_forced_off_the_map_is_eliminated() -> None:
    units = {"neustrie": "0401", "austrasie": "0402", "bourgogne": "0301", "aquitaine": "0501"}
    field = battlefield(units, game_map=blank_map())
    retreat(field, "neustrie", ["austrasie"])
    assert not field.exists("neustrie")
    assert any(e.get("off_map") for e in events(field, "retreat"))


def test_9_8_no_retreat_across_an_unbridged_river() -> None:
    sides = [{"hexes": ["0404", n], "feature": "river"} for n in ("0405", "0305", "0505")]
    units = {"neustrie": "0404", "austrasie": "0403", "bourgogne": "0304"}
    field = battlefield(units, game_map=blank_map(hexside=sides))
    retreat(field, "neustrie", ["austrasie"])
    assert field.hex_of("neustrie") == "0404" and field.is_reduced("neustrie")


def test_9_9_losses_split_as_the_attacker_orders() -> None:
    field = battlefield({"austrasie": "0403", "bourgogne": "0304r"}, game_map=blank_map())
    assert allocate_steps(field, ["austrasie", "bourgogne"], 2, ["austrasie", "austrasie"]) == [
        "austrasie",
        "austrasie",
    ]
    assert allocate_steps(field, ["austrasie", "bourgogne"], 2, ["bourgogne"]) == ["bourgogne", "austrasie"]


def test_9_9_default_allocation_applies_every_step_possible() -> None:
    field = battlefield({"austrasie": "0403", "bourgogne": "0304r"}, game_map=blank_map())
    # documented default: the unit with the most steps left, then the strongest
    assert allocate_steps(field, ["austrasie", "bourgogne"], 2, []) == ["austrasie", "austrasie"]
    assert allocate_steps(field, ["austrasie", "bourgogne"], 3, []) == ["austrasie", "austrasie", "bourgogne"]
    assert len(allocate_steps(field, ["bourgogne"], 2, [])) == 1  # one step left: only one applies


def test_9_9_attacker_losses_follow_the_order_line() -> None:
    from pbem.rules.furor_barbarus.counters import UnitType

    units = {"neustrie": "0404", "bourgogne": "0403", "bowmen": "0304"}
    changes = {"bowmen": {"type": UnitType.INFANTRY}, "neustrie": {"strength": 6}}
    field = battlefield(units, game_map=blank_map(), script=dice(5), changes=changes)
    attack(field, "lothaire", "neustrie", ["bourgogne", "bowmen"], losses=["bowmen"])  # 3:6 = 1/2, die 5 -> A1
    assert not field.exists("bowmen") and not field.is_reduced("bourgogne")
    field = battlefield(units, game_map=blank_map(), script=dice(5), changes=changes)
    attack(field, "lothaire", "neustrie", ["bourgogne", "bowmen"], losses=["bourgogne"])
    assert field.exists("bowmen") and field.is_reduced("bourgogne")


def test_9_7_at_result_morale_check_for_each_attacker() -> None:
    field = battlefield({"neustrie": "0404", "bourgogne": "0403"}, game_map=blank_map(), script=dice(5, 1))
    attack(field, "lothaire", "neustrie", ["bourgogne"])  # 2:3 = 2/3, die 5 -> AT
    assert [e["unit"] for e in events(field, "morale_check")] == ["bourgogne"]


def test_9_10_morale_lower_holds_equal_retreats_higher_loses_a_step() -> None:
    for die, where, reduced in [(2, "0404", False), (3, None, False), (4, "0404", True)]:
        field = battlefield({"neustrie": "0404", "austrasie": "0402"}, game_map=blank_map(), script=dice(die))
        morale_check(field, "neustrie", "test", ["austrasie"])
        moved = field.hex_of("neustrie") != "0404"
        assert (moved, field.is_reduced("neustrie")) == (where is None, reduced), die


def test_9_10_reduced_unit_failing_morale_is_eliminated() -> None:
    field = battlefield({"neustrie": "0404r"}, game_map=blank_map(), script=dice(6))
    morale_check(field, "neustrie", "test")
    assert not field.exists("neustrie")


def test_9_10_commander_bonus_in_morale_check() -> None:
    field = battlefield({"neustrie": "0404", "charles": "0405"}, game_map=blank_map(), script=dice(3))
    morale_check(field, "neustrie", "test")  # morale 3 + 1: a 3 holds
    assert field.hex_of("neustrie") == "0404" and not field.is_reduced("neustrie")


def test_9_11_advance_by_one_unit_plus_commander() -> None:
    units = {"provence": "0404r", "austrasie": "0403", "lothaire": "0403", "bourgogne": "0304"}
    field = battlefield(units, game_map=blank_map(), script=dice(1))  # 6:1 4/1 die 1 -> D2
    attack(field, "lothaire", "provence", ["austrasie", "bourgogne"], advance="austrasie")
    assert field.hex_of("austrasie") == "0404" and field.hex_of("lothaire") == "0404"
    assert field.hex_of("bourgogne") == "0304"


def test_9_11_no_advance_unless_asked() -> None:
    field = battlefield({"provence": "0404r", "austrasie": "0403"}, game_map=blank_map(), script=dice(1))
    attack(field, "lothaire", "provence", ["austrasie"])
    assert field.hex_of("austrasie") == "0403"


def test_9_11_defender_advances_after_an_attacker_retreat_by_standing_order() -> None:
    for standing, where in [(True, "0403"), (False, "0404")]:
        field = battlefield(
            {"neustrie": "0404", "bourgogne": "0403"},
            game_map=blank_map(),
            script=dice(3),
            standing={"charles": {"advance": standing}},
        )
        attack(field, "lothaire", "neustrie", ["bourgogne"])  # 2:3 = 2/3, die 3 -> AR
        assert field.hex_of("neustrie") == where


def test_9_8_owner_chooses_among_equal_hexes_by_standing_order() -> None:
    units = {"neustrie": "0404", "austrasie": "0403"}
    default = battlefield(units, game_map=blank_map())
    retreat(default, "neustrie", ["austrasie"])
    free = {"0305", "0405", "0505"} - {default.hex_of("neustrie")}
    wanted = sorted(free)[0]
    field = battlefield(units, game_map=blank_map(), standing={"charles": {"retreat": [wanted]}})
    retreat(field, "neustrie", ["austrasie"])
    assert field.hex_of("neustrie") == wanted
