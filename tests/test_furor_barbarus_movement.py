"""Section 7: movement (TEC costs, roads, minimum move, one unit at a time)."""

from __future__ import annotations

from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.movement import apply_move, check_move, reachable
from pbem.rules.furor_barbarus.scenario_rules import ScenarioRules
from tests.support.furor_barbarus_test_map import RULES, battlefield, blank_map, position

COLUMN_4 = [f"04{r:02d}" for r in range(1, 13)]


def test_7_clear_costs_one_mp_per_hex() -> None:
    field = battlefield({"bourgogne": "0401"}, game_map=blank_map(rows=12))  # 3 MP
    assert check_move(field, "bourgogne", COLUMN_4[1:4], "lothaire").legal
    check = check_move(field, "bourgogne", COLUMN_4[1:5], "lothaire")
    assert not check.legal and check.step == 4 and "0 MP left" in (check.problem or "")


def test_7_woods_and_hill_cost_two() -> None:
    field = battlefield({"bourgogne": "0401"}, game_map=blank_map(terrain={"woods": ["0402"], "hill": ["0403"]}))
    check = check_move(field, "bourgogne", ["0402", "0403"], "lothaire")
    assert not check.legal and "costs 2 MP but bourgogne has 1 MP left (7)" in (check.problem or "")


def test_7_road_costs_half_only_for_a_unit_that_began_on_the_road() -> None:
    gm = blank_map(rows=12, terrain={"road": COLUMN_4})
    on_road = battlefield({"bourgogne": "0401"}, game_map=gm)  # 3 MP = 6 road hexes
    assert check_move(on_road, "bourgogne", COLUMN_4[1:7], "lothaire").legal
    assert not check_move(on_road, "bourgogne", COLUMN_4[1:8], "lothaire").legal
    off_road = battlefield({"bourgogne": "0301"}, game_map=gm)
    assert check_move(off_road, "bourgogne", ["0401", "0402", "0403"], "lothaire").legal
    assert not check_move(off_road, "bourgogne", ["0401", "0402", "0403", "0404"], "lothaire").legal


def test_7_leaving_the_road_ends_the_road_bonus() -> None:
    gm = blank_map(rows=12, terrain={"road": COLUMN_4})
    field = battlefield({"bourgogne": "0401"}, game_map=gm)
    # 0402 road (1/2 MP), 0503 clear (1), back on the road at 0403: full cost (1)
    assert check_move(field, "bourgogne", ["0402", "0503", "0403"], "lothaire").spent_half == 1 + 2 + 2


def test_7_minimum_move_of_one_hex_whatever_the_cost() -> None:
    gm = blank_map(terrain={"woods": ["0402"]})
    field = battlefield({"bourgogne": "0401"}, game_map=gm, changes={"bourgogne": {"mp": 1}})
    assert check_move(field, "bourgogne", ["0402"], "lothaire").legal
    check = check_move(field, "bourgogne", ["0402", "0403"], "lothaire")
    assert not check.legal and "minimum move" in (check.problem or "")


def test_7_river_is_impassable_ford_costs_two() -> None:
    gm = blank_map(
        hexside=[
            {"hexes": ["0401", "0402"], "feature": "river"},
            {"hexes": ["0501", "0502"], "feature": "river", "crossing": "ford"},
        ]
    )
    field = battlefield({"bourgogne": "0401", "bowmen": "0501"}, game_map=gm)
    check = check_move(field, "bourgogne", ["0402"], "lothaire")
    assert not check.legal and "impassable" in (check.problem or "")
    assert check_move(field, "bowmen", ["0502"], "lothaire").spent_half == 4


def test_7_units_pass_through_friends_but_do_not_end_stacked() -> None:
    field = battlefield({"bourgogne": "0401", "austrasie": "0402"}, game_map=blank_map())
    assert check_move(field, "bourgogne", ["0402", "0403"], "lothaire").legal
    check = check_move(field, "bourgogne", ["0402"], "lothaire")
    assert not check.legal and "one unit per hex (5)" in (check.problem or "")


def test_7_one_unit_at_a_time_each_moves_once() -> None:
    field = battlefield({"bourgogne": "0401"}, game_map=blank_map())
    apply_move(field, "bourgogne", ["0402"])
    check = check_move(field, "bourgogne", ["0403"], "lothaire")
    assert not check.legal and "already moved" in (check.problem or "")


def test_7_unused_mp_are_not_carried_to_the_next_turn() -> None:
    # a unit that moved one hex last phase has its full allowance again
    pos = position({"bourgogne": "1201", "neustrie": "0214"})
    orders, _ = RULES.parse_orders("move bourgogne 1202\n")
    from tests.support.furor_barbarus_test_map import dice

    pos = RULES.resolve(pos, {"lothaire": orders}, dice()).position
    pos = RULES.resolve(pos, {}, dice()).position  # charles: no orders
    orders, _ = RULES.parse_orders("move bourgogne 1203 1204 1205\n")
    assert not RULES.validate(pos, "lothaire", orders)
    orders, _ = RULES.parse_orders("move bourgogne 1203 1204 1205 1206\n")
    assert RULES.validate(pos, "lothaire", orders)


def test_7_the_checker_names_the_illegal_step_and_the_line() -> None:
    pos = position({"bourgogne": "0901", "neustrie": "0214"})
    orders, _ = RULES.parse_orders("# my turn\nmove bourgogne 0902 0904\n")
    problems = RULES.validate(pos, "lothaire", orders)
    assert (
        len(problems) == 1 and problems[0].line == 2 and "step 2 to 0904: not adjacent to 0902" in problems[0].message
    )


def test_7_reachable_hexes_are_all_legal_moves() -> None:
    field = battlefield({"austrasie": "0905", "neustrie": "0705", "provence": "1007"})
    dests = reachable(field, "austrasie")
    assert dests
    for path in dests.values():
        assert check_move(field, "austrasie", path, "lothaire").legal


class _Redirect(ScenarioRules):
    """A special rule that replaces every move by a path of its own (as impetuousness does)."""

    def __init__(self, path: tuple[str, ...]) -> None:
        self.path = path

    def before_move(self, field: Battlefield, uid: str, path: tuple[str, ...]) -> tuple[str, ...]:
        return self.path


def test_7_a_path_set_by_before_move_is_checked_again() -> None:
    # the given move 0401-0501 is legal; the hook's path passes through the lone enemy commander in
    # 0402 (6: he is eliminated) and stops in provence's zone of control at 0403 (8)
    field = battlefield({"bourgogne": "0401", "charles": "0402", "provence": "0404"}, game_map=blank_map())
    field.special = _Redirect(("0402", "0403"))
    check = apply_move(field, "bourgogne", ["0501"])
    assert check.legal and check.overruns == ((1, "charles"),) and check.stops
    assert field.hex_of("bourgogne") == "0403" and not field.exists("charles")


def test_8_a_path_set_by_before_move_that_breaks_a_zoc_stop_is_refused() -> None:
    field = battlefield({"bourgogne": "0401", "provence": "0404"}, game_map=blank_map())
    field.special = _Redirect(("0402", "0403", "0302"))  # 0403 is in provence's ZOC: must stop
    check = apply_move(field, "bourgogne", ["0501"])
    assert not check.legal and "zone of control" in (check.problem or "")
    assert field.hex_of("bourgogne") == "0401" and "bourgogne" in field.moved
    assert [e["unit"] for e in field.events if e["type"] == "skip"] == ["bourgogne"]


def test_7_an_empty_path_from_before_move_leaves_the_unit_in_place() -> None:
    field = battlefield({"bourgogne": "0401", "provence": "0404"}, game_map=blank_map())
    field.special = _Redirect(())
    assert apply_move(field, "bourgogne", ["0501"]).legal
    assert field.hex_of("bourgogne") == "0401" and "bourgogne" in field.moved
