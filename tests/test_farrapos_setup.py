"""Rulebook, "Setup": Empire 3 on Porto Alegre, 5 on Rio Grande, 8 on Lages;
Republic 4 on Triunfo, 4 on Pelotas, 4 on Bagé; Phase 1835; VP Empire 7, Republic 5."""

from pbem.rules import find_ruleset
from pbem.rules.farrapos.position import View
from pbem.rules.farrapos.victory_points import count_vp


def test_setup_places_each_side_in_the_cities_the_rulebook_lists():
    position = find_ruleset("farrapos").setup(None, [])
    counts = {c: len(d["units"]) for c, d in position["cities"].items() if d["units"]}
    assert counts == {"porto-alegre": 3, "rio-grande": 5, "lages": 8, "triunfo": 4, "pelotas": 4, "bage": 4}
    view = View(position)
    for city in ("porto-alegre", "rio-grande", "lages"):
        assert view.owner(city) == "empire" and {view.side_of(u) for u in view.units_in(city)} == {"empire"}
    for city in ("triunfo", "pelotas", "bage"):
        assert view.owner(city) == "republic" and {view.side_of(u) for u in view.units_in(city)} == {"republic"}


def test_setup_phase_marker_1835_and_the_republic_plays_turn_1():
    ruleset = find_ruleset("farrapos")
    position = ruleset.setup(None, [])
    assert (position["phase"], position["turn"]) == (1835, 1)
    assert ruleset.due(position) == ("republic",)
    assert ruleset.turn_label(position) == "1835, turn 1 (Republic)"


def test_setup_vp_markers_empire_7_republic_5_by_the_games_own_count():
    position = find_ruleset("farrapos").setup(None, [])
    assert position["vp"] == {"empire": 7, "republic": 5}
    assert count_vp(View(position)) == {"empire": 7, "republic": 5}


def test_setup_records_scenario_and_options():
    ruleset = find_ruleset("farrapos")
    position = ruleset.setup("campaign", ["siege"])
    assert position["scenario"] == "campaign" and position["options"] == ["siege"]
    assert [s.id for s in ruleset.scenarios()] == ["campaign"]
    assert ruleset.sides() == ("empire", "republic")
    assert [o.id for o in ruleset.options()] == ["siege", "port-transport"]


def test_setup_refuses_an_unknown_option():
    import pytest

    with pytest.raises(ValueError, match="fog"):
        find_ruleset("farrapos").setup(None, ["fog"])
