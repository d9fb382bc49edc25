"""9.1, 9.5, 9.6, 9.7: combat basics, odds, terrain and the Combat Results Table."""

from __future__ import annotations

import pytest

from pbem.rules.furor_barbarus.combat import (
    COLUMNS,
    CombatResult,
    CombatResultsTable,
    CrtError,
    declare,
    odds_column,
    standard_crt,
    terrain_modifiers,
)
from tests.support.furor_barbarus_test_map import attack, battlefield, blank_map, dice, events

PRINTED = {  # the rulebook's Combat Result Table, rows 1-3
    1: "DR DT D1 D1 D1R D2 D2",
    2: "DR DR DT D1 D1 D1 D2",
    3: "AR AR DR DT DT DT D1",
}


@pytest.mark.parametrize("row", [1, 2, 3])
@pytest.mark.parametrize("column", range(7))
def test_9_7_crt_rows_1_to_3_exactly_as_printed(row: int, column: int) -> None:
    assert str(standard_crt().rows[row][column]) == PRINTED[row].split()[column]


def test_9_7_crt_rows_4_to_6_are_marked_designed_and_columns_as_printed() -> None:
    crt = standard_crt()
    assert crt.designed_rows == (4, 5, 6)
    assert crt.columns == ("1/2", "2/3", "1/1", "3/2", "2/1", "3/1", "4/1")


def test_9_7_designed_rows_never_favour_the_attacker_more_than_the_row_above() -> None:
    crt = standard_crt()

    def badness(r: CombatResult) -> int:  # higher = worse for the attacker
        return (
            r.attacker.steps * 3
            + r.attacker.morale * 2
            + r.attacker.retreat
            - r.defender.steps * 3
            - r.defender.morale * 2
            - r.defender.retreat
        )

    for row in (4, 5, 6):
        for col in range(7):
            assert badness(crt.rows[row][col]) >= badness(crt.rows[row - 1][col]), (row, col)


def test_9_7_results_parse_into_attacker_and_defender_effects() -> None:
    r = CombatResult.parse("D1R")
    assert (r.defender.steps, r.defender.retreat, bool(r.attacker)) == (1, True, False)
    assert CombatResult.parse("AT").attacker.morale
    assert not CombatResult.parse("-").attacker and not CombatResult.parse("").defender
    with pytest.raises(CrtError):
        CombatResult.parse("X3")


def test_9_7_a_referee_may_replace_the_whole_table() -> None:
    table = {"columns": list(COLUMNS), "rows": {str(i): ["D2"] * 7 for i in range(1, 7)}}
    crt = CombatResultsTable.from_dict(table)
    assert str(crt.result(4, 0)) == "D2"
    with pytest.raises(CrtError):
        CombatResultsTable.from_dict({"columns": list(COLUMNS), "rows": {"1": ["DR"] * 7}})


@pytest.mark.parametrize(
    "attack,defence,column",
    [
        (5, 2, "2/1"),
        (3, 2, "3/2"),
        (7, 5, "1/1"),
        (1, 3, "1/2"),
        (1, 2, "1/2"),
        (2, 3, "2/3"),
        (5, 3, "3/2"),
        (11, 2, "4/1"),
        (20, 1, "4/1"),
        (6, 2, "3/1"),
        (3, 4, "2/3"),
        (4, 3, "1/1"),
    ],
)
def test_9_5_odds_rounded_in_the_defenders_favour(attack: int, defence: int, column: str) -> None:
    assert COLUMNS[odds_column(attack, defence)] == column


@pytest.mark.parametrize("modified,row", [(-2, 1), (0, 1), (1, 1), (6, 6), (7, 6), (9, 6)])
def test_9_5_modified_die_outside_1_to_6_reads_row_1_or_6(modified: int, row: int) -> None:
    assert standard_crt().row_for(modified) == row


def test_9_1_attacker_must_be_adjacent_or_in_range() -> None:
    field = battlefield({"provence": "0504", "bourgogne": "0506", "bowmen": "0304"})
    problems, _ = declare(field, "lothaire", "provence", ["bourgogne"], None)
    assert problems and "cannot fire" in problems[0]
    problems, combat = declare(field, "lothaire", "provence", ["bowmen"], None)
    assert not problems and combat is not None and combat.ranged == ["bowmen"]


def test_9_1_several_attackers_one_defender_one_roll() -> None:
    field = battlefield({"neustrie": "0505", "austrasie": "0504", "bourgogne": "0506"}, script=dice(2))
    attack(field, "lothaire", "neustrie", ["austrasie", "bourgogne"])
    assert len(field.dice.rolls) == 1  # type: ignore[attr-defined]
    assert events(field, "combat")[0]["attack"] == 5


def test_9_1_each_unit_attacks_and_is_attacked_once_per_phase() -> None:
    field = battlefield(
        {"neustrie": "0505", "provence": "0705", "austrasie": "0604", "bourgogne": "0506"}, script=dice(4, 4)
    )
    attack(field, "lothaire", "neustrie", ["austrasie"])  # 3:3 1/1 die 4 -> AR? row 4 col 1/1
    problems, _ = declare(field, "lothaire", "neustrie", ["bourgogne"], None)
    assert any("already been attacked" in p for p in problems)
    if field.exists("austrasie"):
        problems, _ = declare(field, "lothaire", "provence", ["austrasie"], None)
        assert any("already attacked" in p for p in problems)


@pytest.mark.parametrize("terrain,column", [("woods", "1/1"), ("hill", "1/1"), ("clear", "3/2")])
def test_9_6_woods_and_hill_shift_one_column_for_the_defender(terrain: str, column: str) -> None:
    gm = blank_map(terrain={terrain: ["0404"]} if terrain != "clear" else {})
    field = battlefield({"neustrie": "0404", "austrasie": "0304", "bourgogne": "0504"}, game_map=gm)
    problems, combat = declare(field, "lothaire", "0404", ["austrasie", "bourgogne"], None)  # 5:3 = 3/2
    assert not problems and combat is not None
    terrain_modifiers(field, combat)
    assert COLUMNS[combat.column] == column


def test_9_6_column_shift_stays_on_the_1_2_column() -> None:
    gm = blank_map(terrain={"woods": ["0404"]})
    field = battlefield({"neustrie": "0404", "bourgogne": "0504"}, game_map=gm)
    _, combat = declare(field, "lothaire", "0404", ["bourgogne"], None)
    assert combat is not None
    terrain_modifiers(field, combat)
    assert COLUMNS[combat.column] == "1/2"


def test_9_6_village_adds_one_to_the_die() -> None:
    field = battlefield({"provence": "0708", "bourgogne": "0709"})  # 0709-0708: no creek
    _, combat = declare(field, "lothaire", "provence", ["bourgogne"], None)
    assert combat is not None
    terrain_modifiers(field, combat)
    assert combat.die_modifier == 1


def test_9_6_bridge_adds_one_unless_a_unit_fires() -> None:
    gm = blank_map(terrain={"bridge": ["0404"]})
    field = battlefield({"neustrie": "0404", "bourgogne": "0504", "bowmen": "0402"}, game_map=gm)
    _, combat = declare(field, "lothaire", "0404", ["bourgogne"], None)
    assert combat is not None
    terrain_modifiers(field, combat)
    assert combat.die_modifier == 1
    _, combat = declare(field, "lothaire", "0404", ["bourgogne", "bowmen"], None)
    assert combat is not None and combat.ranged == ["bowmen"]
    terrain_modifiers(field, combat)
    assert combat.die_modifier == 0


def test_9_6_stream_bonus_cancelled_by_an_attacker_on_the_same_side_or_by_fire() -> None:
    gm = blank_map(
        hexside=[{"hexes": ["0404", "0403"], "feature": "stream"}, {"hexes": ["0404", "0504"], "feature": "stream"}]
    )
    field = battlefield(
        {"neustrie": "0404", "bourgogne": "0403", "austrasie": "0504", "aquitaine": "0405", "bowmen": "0402"},
        game_map=gm,
    )
    _, across = declare(field, "lothaire", "0404", ["bourgogne", "austrasie"], None)
    assert across is not None
    terrain_modifiers(field, across)
    assert across.die_modifier == 1
    _, mixed = declare(field, "lothaire", "0404", ["bourgogne", "aquitaine"], None)
    assert mixed is not None
    terrain_modifiers(field, mixed)
    assert mixed.die_modifier == 0
    _, fired = declare(field, "lothaire", "0404", ["bourgogne", "bowmen"], None)
    assert fired is not None and fired.ranged == ["bowmen"]
    terrain_modifiers(field, fired)
    assert fired.die_modifier == 0


def test_9_6_no_hand_to_hand_across_an_unbridged_river() -> None:
    gm = blank_map(hexside=[{"hexes": ["0404", "0403"], "feature": "river"}])
    field = battlefield({"neustrie": "0404", "bourgogne": "0403"}, game_map=gm)
    problems, _ = declare(field, "lothaire", "0404", ["bourgogne"], None)
    assert problems and "river without bridge or ford" in problems[0]


def test_9_7_defender_step_and_retreat_applied_immediately() -> None:
    field = battlefield(
        {"neustrie": "0404", "austrasie": "0403", "bourgogne": "0304", "aquitaine": "0504"}, script=dice(1)
    )  # 8:3 = 2/1, die 1 -> D1R
    attack(field, "lothaire", "neustrie", ["austrasie", "bourgogne", "aquitaine"])
    assert field.is_reduced("neustrie") and field.hex_of("neustrie") != "0404"


def test_9_1_hand_to_hand_across_a_ford_is_allowed() -> None:
    gm = blank_map(hexside=[{"hexes": ["0404", "0403"], "feature": "river", "crossing": "ford"}])
    field = battlefield({"neustrie": "0404", "bourgogne": "0403"}, game_map=gm)
    assert not declare(field, "lothaire", "0404", ["bourgogne"], None)[0]
