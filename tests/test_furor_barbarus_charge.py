"""9.2 (charge) and optional rule 10.2 (counter charge)."""

from __future__ import annotations

import pytest

from pbem.rules.furor_barbarus.charge import charge_problem
from pbem.rules.furor_barbarus.combat import declare
from pbem.rules.furor_barbarus.movement import apply_move
from tests.support.furor_barbarus_test_map import attack, battlefield, blank_map, dice, events

# austrasie (cavalry 3) charges straight up column 04 at neustrie (infantry 3) in 0402
START = {"neustrie": "0402", "austrasie": "0405"}


def charged(field, path=("0404", "0403")):  # type: ignore[no-untyped-def]
    apply_move(field, "austrasie", list(path))
    return declare(field, "lothaire", "neustrie", ["austrasie"], "austrasie")


def test_9_2_charge_adds_two_to_the_cavalry() -> None:
    problems, combat = charged(battlefield(START, game_map=blank_map()))
    assert not problems and combat is not None and combat.attack_strength == 3 + 2


def test_9_2_missile_cavalry_and_infantry_cannot_charge() -> None:
    field = battlefield({"neustrie": "0402", "horse-archers": "0404"}, game_map=blank_map())
    apply_move(field, "horse-archers", ["0403"])
    assert "cannot charge" in (charge_problem(field, "horse-archers", "0402") or "")
    field = battlefield({"neustrie": "0402", "bourgogne": "0404"}, game_map=blank_map())
    apply_move(field, "bourgogne", ["0403"])
    assert "cannot charge" in (charge_problem(field, "bourgogne", "0402") or "")


def test_9_2_a_charge_mark_gives_the_right() -> None:
    field = battlefield(
        {"neustrie": "0402", "horse-archers": "0404"},
        game_map=blank_map(),
        changes={
            "horse-archers": {
                "marks": frozenset({__import__("pbem.rules.furor_barbarus.counters", fromlist=["Mark"]).Mark.CHARGE})
            }
        },
    )
    apply_move(field, "horse-archers", ["0403"])
    assert charge_problem(field, "horse-archers", "0402") is None


@pytest.mark.parametrize("terrain", ["woods", "hill"])
def test_9_2_target_must_be_in_clear_road_bridge_or_village(terrain: str) -> None:
    problems, _ = charged(battlefield(START, game_map=blank_map(terrain={terrain: ["0402"]})))
    assert problems and "a charge needs clear, road or bridge" in problems[0]


@pytest.mark.parametrize("terrain", ["road", "bridge", "village"])
def test_9_2_target_in_open_terrain_may_be_charged(terrain: str) -> None:
    problems, _ = charged(battlefield(START, game_map=blank_map(terrain={terrain: ["0402"]})))
    assert not problems


@pytest.mark.parametrize("terrain", ["woods", "village", "ford"])
def test_9_2_approach_only_through_clear_or_road(terrain: str) -> None:
    field = battlefield(START, game_map=blank_map(terrain={terrain: ["0404"]}))
    problems, _ = charged(field)
    assert problems and "only clear or road" in problems[0]


def test_9_2_streams_only_by_road() -> None:
    stream = [{"hexes": ["0404", "0403"], "feature": "stream"}]
    problems, _ = charged(battlefield(START, game_map=blank_map(hexside=stream)))
    assert problems and "stream" in problems[0]
    road = [{"hexes": ["0404", "0403"], "feature": "stream", "crossing": "road"}]
    problems, _ = charged(battlefield(START, game_map=blank_map(hexside=road)))
    assert not problems


def test_9_2_no_charge_without_moving() -> None:
    field = battlefield({"neustrie": "0402", "austrasie": "0403"}, game_map=blank_map())
    problems, _ = declare(field, "lothaire", "neustrie", ["austrasie"], "austrasie")
    assert problems and "has not moved" in problems[0]


def test_9_2_commander_adds_only_his_strength() -> None:
    field = battlefield({**START, "lothaire": "0403"}, game_map=blank_map())
    problems, combat = charged(field)
    assert not problems and combat is not None and combat.attack_strength == 3 + 2 + 1


def test_9_2_the_charger_must_advance() -> None:
    field = battlefield(START, game_map=blank_map(), script=dice(1))  # 5:3 3/2 die 1 -> D1 : stays
    apply_move(field, "austrasie", ["0404", "0403"])
    field.position["units"]["neustrie"]["reduced"] = True  # 5:2 = 2/1, die 1 -> D1R: it retreats
    attack(field, "lothaire", "neustrie", ["austrasie"], charger="austrasie")
    assert field.hex_of("austrasie") == "0402"
    assert events(field, "advance")[0]["text"].endswith("(a charger must advance (9.2, 9.11)).")


def test_10_2_counter_charge_no_bonus_against_a_unit_that_can_charge() -> None:
    units = {"aquitaine-c": "0402", "austrasie": "0405"}
    field = battlefield(units, game_map=blank_map(), options=["counter-charge"])
    apply_move(field, "austrasie", ["0404", "0403"])
    _, combat = declare(field, "lothaire", "aquitaine-c", ["austrasie"], "austrasie")
    assert combat is not None and combat.attack_strength == 3
    field = battlefield(units, game_map=blank_map())
    apply_move(field, "austrasie", ["0404", "0403"])
    _, combat = declare(field, "lothaire", "aquitaine-c", ["austrasie"], "austrasie")
    assert combat is not None and combat.attack_strength == 5
