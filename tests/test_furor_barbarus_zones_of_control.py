"""Section 8 (zones of control) and optional rule 10.1 (ZOC to ZOC with a morale test)."""

from __future__ import annotations

import pytest

from pbem.rules.furor_barbarus.morale import retreat
from pbem.rules.furor_barbarus.movement import apply_move, check_move
from pbem.rules.furor_barbarus.zones_of_control import in_enemy_zoc
from tests.support.furor_barbarus_test_map import battlefield, blank_map, dice, events


def test_8_a_unit_stops_on_entering_an_enemy_zoc() -> None:
    field = battlefield({"neustrie": "0404", "austrasie": "0401"}, game_map=blank_map())
    assert check_move(field, "austrasie", ["0402", "0403"], "lothaire").legal
    check = check_move(field, "austrasie", ["0402", "0403", "0503"], "lothaire")
    assert not check.legal and "stopped on entering an enemy zone of control at 0403 (8)" in (check.problem or "")


def test_8_no_move_directly_from_one_enemy_zoc_to_another() -> None:
    field = battlefield({"neustrie": "0404", "austrasie": "0403"}, game_map=blank_map())
    check = check_move(field, "austrasie", ["0504"], "lothaire")  # 0504 also touches 0404
    assert not check.legal and "from one enemy zone of control to another (8)" in (check.problem or "")
    assert check_move(field, "austrasie", ["0402"], "lothaire").legal  # leaving to a free hex is fine


def test_8_no_zoc_across_a_river_without_bridge() -> None:
    sides = [{"hexes": ["0404", "0403"], "feature": "river"}]
    field = battlefield({"neustrie": "0404"}, game_map=blank_map(hexside=sides))
    assert not in_enemy_zoc(field, "0403", "lothaire")
    bridged = [{"hexes": ["0404", "0403"], "feature": "river", "crossing": "bridge"}]
    field = battlefield({"neustrie": "0404"}, game_map=blank_map(hexside=bridged))
    assert in_enemy_zoc(field, "0403", "lothaire")


def test_8_baggage_has_no_zoc() -> None:
    field = battlefield({"baggage-c": "0404"}, game_map=blank_map())
    assert not in_enemy_zoc(field, "0403", "lothaire")
    field = battlefield({"charles": "0404"}, game_map=blank_map())
    assert in_enemy_zoc(field, "0403", "lothaire")  # a commander has one


def test_8_no_retreat_into_an_enemy_zoc() -> None:
    # neustrie in 0404 must retreat; every free neighbour is in the ZOC of a Lothaire unit
    field = battlefield(
        {"neustrie": "0404", "austrasie": "0403", "bourgogne": "0405", "aquitaine": "0306", "bowmen": "0602"},
        game_map=blank_map(),
        script=dice(5),
    )
    retreat(field, "neustrie", ["austrasie"])
    assert field.hex_of("neustrie") == "0404" and field.is_reduced("neustrie")


@pytest.mark.parametrize("die,where,reduced", [(2, "0504", False), (3, "0403", False), (5, "0403", True)])
def test_10_1_zoc_to_zoc_with_a_morale_test(die: int, where: str, reduced: bool) -> None:
    # austrasie (morale 3): lower passes, equal stays, higher loses a step and stays
    field = battlefield(
        {"neustrie": "0404", "austrasie": "0403"},
        game_map=blank_map(),
        options=["zoc-to-zoc"],
        script=dice((die, "ZOC to ZOC")),
    )
    assert check_move(field, "austrasie", ["0504"], "lothaire").zoc_tests == (1,)
    apply_move(field, "austrasie", ["0504"])
    assert field.hex_of("austrasie") == where and field.is_reduced("austrasie") == reduced
    assert events(field, "zoc_test")
