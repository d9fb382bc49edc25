"""Victory points: the values of held, non-empty cities; the colour-group bonus and
the all-ports bonus, gained and lost with them; the worked example 5 -> 9, 7 -> 3."""

from pbem.rules import find_ruleset
from pbem.rules.dice import ScriptedDice
from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.position import View
from pbem.rules.farrapos.victory_points import breakdown, count_vp

RULES = find_ruleset("farrapos")


def test_turn_sequence_vp_worked_example_republic_wins_porto_alegre_5_to_9_empire_7_to_3():
    position = RULES.setup(None, [])
    position["cities"]["porto-alegre"]["units"] = ["inf-13"]  # two of its MU elsewhere
    position["cities"]["rio-grande"]["units"] += ["inf-14", "inf-15"]
    position["reduced"] = ["inf-13"]
    assert count_vp(View(position)) == {"empire": 7, "republic": 5}
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-1 art-1 cav-1")
    resolution = RULES.resolve(position, {"republic": orders}, ScriptedDice([(6, 6, "attacker"), (1, 6, "defender")]))
    assert resolution.position["vp"] == {"empire": 3, "republic": 9}
    # "added 4 VP (value above the name of the city)"
    assert load_board().cities["porto-alegre"].vp == 4


def test_vp_empty_city_is_not_recorded_but_stays_in_possession():
    position = RULES.position_from_case({"cities": {"bage": {"units": ["inf-5"]}}}, None, [])
    assert count_vp(View(position))["republic"] == 2
    position["cities"]["bage"]["units"] = []
    view = View(position)
    assert view.owner("bage") == "republic" and view.controller("bage") is None
    assert count_vp(view)["republic"] == 0


def test_vp_militia_alone_holds_a_city_and_its_vp():
    position = RULES.position_from_case({"cities": {"bage": {"owner": "republic", "militia": 1}}}, None, [])
    assert count_vp(View(position))["republic"] == 2


def test_extra_points_colour_bonus_only_while_every_city_of_the_colour_is_held():
    board = load_board()
    group = board.colours["guaiba"]
    cities = {c: {"owner": "republic", "militia": 1} for c in group.cities}
    view = View(RULES.position_from_case({"cities": cities}, None, []))
    assert breakdown(view, "republic").colours == ("guaiba",)
    assert count_vp(view)["republic"] == sum(board.cities[c].vp for c in group.cities) + group.bonus
    del cities[group.cities[-1]]
    view = View(RULES.position_from_case({"cities": cities}, None, []))
    assert breakdown(view, "republic").colour_bonus == 0


def test_extra_points_port_bonus_for_all_port_cities():
    board = load_board()
    cities = {c: {"owner": "empire", "militia": 1} for c in board.ports}
    view = View(RULES.position_from_case({"cities": cities}, None, []))
    assert breakdown(view, "empire").port_bonus == board.port_bonus
    cities.pop("pelotas")
    view = View(RULES.position_from_case({"cities": cities}, None, []))
    assert breakdown(view, "empire").port_bonus == 0


def test_vp_score_lines_show_the_recount():
    position = RULES.setup(None, [])
    lines = RULES.score(position)
    assert [(s.side, s.value) for s in lines] == [("empire", 7), ("republic", 5)]
    assert lines[0].detail.startswith("7 VP")
