"""Section 1 (the hex grid and maps as data) and section 2 (counters)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.rules.furor_barbarus.counters import CounterError, Mark, UnitType, counter_from_dict
from pbem.rules.furor_barbarus.hexgrid import Hex, HexError, hex_distance, straight_line
from pbem.rules.furor_barbarus.maps import MapDataError, map_from_dict
from pbem.rules.furor_barbarus.scenarios import ScenarioError, expand_area
from pbem.rules.furor_barbarus.terrain import Crossing, Feature, Terrain
from tests.support.furor_barbarus_test_map import RULES, SCENARIO, blank_map


def _rule_neighbours(c: int, r: int) -> set[tuple[int, int]]:
    """The schema's neighbour rule, written out independently of the cube maths."""
    same = {(c, r - 1), (c, r + 1)}
    if c % 2:
        return same | {(c - 1, r - 1), (c - 1, r), (c + 1, r - 1), (c + 1, r)}
    return same | {(c - 1, r), (c - 1, r + 1), (c + 1, r), (c + 1, r + 1)}


@pytest.mark.parametrize("c", range(1, 9))
@pytest.mark.parametrize("r", range(2, 9))
def test_1_neighbours_follow_the_even_q_layout(c: int, r: int) -> None:
    assert {(n.col, n.row) for n in Hex(c, r).neighbours()} == _rule_neighbours(c, r)


@pytest.mark.parametrize("c", range(2, 7))
@pytest.mark.parametrize("r", range(2, 7))
def test_1_distance_is_the_number_of_steps(c: int, r: int) -> None:
    # breadth-first steps with the neighbour rule agree with the cube distance
    start = (c, r)
    seen = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for h in frontier:
            for n in _rule_neighbours(*h):
                if n not in seen and 1 <= n[0] <= 9 and 1 <= n[1] <= 9:
                    seen[n] = seen[h] + 1
                    nxt.append(n)
        frontier = nxt
    for (x, y), d in seen.items():
        if 2 <= x <= 8 and 2 <= y <= 8 and d <= 3:
            assert hex_distance(str(Hex(c, r)), str(Hex(x, y))) == d


def test_1_hex_ids_are_four_digits_as_printed() -> None:
    assert str(Hex.parse("0907")) == "0907" and Hex.parse("1210") == Hex(12, 10)
    for bad in ("907", "09a7", "09070"):
        with pytest.raises(HexError, match=repr(bad)):
            Hex.parse(bad)


def test_1_straight_lines() -> None:
    assert straight_line(["0711", "0710", "0709", "0708"]) is not None
    assert straight_line(["0711", "0810", "0809"]) is None
    assert straight_line(["0401", "0502", "0602", "0703"]) is not None  # a diagonal hex row
    assert straight_line(["0401"]) is None


def test_1_map_terrain_hexsides_and_edges() -> None:
    gm = RULES.library.game_map("test-fontenoy")
    assert (gm.columns, gm.rows) == (12, 14)
    assert gm.terrain("0708") is Terrain.VILLAGE and gm.terrain("0101") is Terrain.CLEAR
    side = gm.hexside("0707", "0708")
    assert side is not None and side.feature is Feature.STREAM and gm.hexside("0708", "0707") == side
    assert gm.hexside("1108", "1208").crossing is Crossing.FORD  # type: ignore[union-attr]
    assert gm.on_edge("0101") and not gm.on_edge("0505") and not gm.on_map("1301")
    assert gm.names["0708"] == "Fontenoy"


def test_1_scenario_overlay_terrain_hexsides_and_ignore() -> None:
    gm = map_from_dict(blank_map(terrain={"woods": ["0202"], "village": ["0303"]}))
    over = gm.with_overlay(
        {
            "terrain": {"hill": ["0404"]},
            "hexside": [{"hexes": ["0101", "0102"], "feature": "river"}],
            "ignore": {"hexes": ["0303"]},
        }
    )
    assert over.terrain("0404") is Terrain.HILL and over.terrain("0303") is Terrain.CLEAR
    assert over.terrain("0202") is Terrain.WOODS and over.river_between("0101", "0102")


def test_1_map_errors_quote_the_input() -> None:
    with pytest.raises(MapDataError, match="swamp"):
        map_from_dict(blank_map(terrain={"swamp": ["0101"]}))
    with pytest.raises(MapDataError, match="not adjacent"):
        map_from_dict(blank_map(hexside=[{"hexes": ["0101", "0303"], "feature": "river"}]))


def test_3_deployment_areas() -> None:
    assert expand_area("range:0806-0808") == ("0806", "0807", "0808")
    assert expand_area("line:04", rows=3) == ("0401", "0402", "0403")
    with pytest.raises(ScenarioError, match="swamp"):
        expand_area("swamp:1")


def test_3_deployment_areas_are_limited_to_the_map() -> None:
    assert expand_area("line:04", columns=12, rows=14)[-1] == "0414"
    assert expand_area("range:0810-0820", columns=12, rows=14) == ("0810", "0811", "0812", "0813", "0814")
    with pytest.raises(ScenarioError, match="no hex on a map of 12 x 14"):
        expand_area("line:13", columns=12, rows=14)
    # the loader knows the map: test-fontenoy (12 x 14) deploys charles on line:05,line:06
    (area,) = [d for d in RULES.load(SCENARIO).deployments if "neustrie" in d.units]
    assert len(area.hexes) == 2 * 14 and all(
        RULES.field(RULES.setup(SCENARIO, [])).game_map.on_map(h) for h in area.hexes
    )
    # so a refused placement lists real hexes, never 0499
    position = RULES.setup(SCENARIO, [])
    orders, _ = RULES.parse_orders("place neustrie 0915\n")
    (problem,) = RULES.validate(position, "charles", orders)
    assert "0915 is not a hex of neustrie's deployment (0501-0514, 0601-0614) (3)" in problem.message


def test_2_the_six_unit_types_steps_and_reduced_values() -> None:
    sc = RULES.load(SCENARIO)
    kinds = {c.type for c in sc.counters.values()}
    assert kinds == set(UnitType)
    neustrie = sc.counters["neustrie"]
    assert neustrie.steps == 2 and (neustrie.value(False), neustrie.value(True)) == (3, 2)
    assert sc.counters["charles"].steps == 1 and sc.counters["charles"].is_commander
    assert sc.counters["bowmen"].is_missile and sc.counters["bowmen"].range == 2
    assert Mark.NO_MELEE_PENALTY in sc.counters["horse-archers"].marks


def test_2_counter_errors() -> None:
    with pytest.raises(CounterError, match="range"):
        counter_from_dict({"id": "x", "side": "a", "type": "missile_infantry", "strength": 1})
    with pytest.raises(CounterError, match="'x'"):
        counter_from_dict({"id": "x", "side": "a", "type": "chariot", "strength": 1})


HEXES = st.builds(Hex, st.integers(1, 40), st.integers(1, 40))


@given(HEXES, HEXES)
def test_1_adjacency_is_symmetric_and_distance_one(a: Hex, b: Hex) -> None:
    assert (b in a.neighbours()) == (a in b.neighbours()) == (hex_distance(str(a), str(b)) == 1)


@given(HEXES)
def test_1_six_distinct_neighbours(a: Hex) -> None:
    assert len(set(a.neighbours())) == 6 and a not in a.neighbours()
