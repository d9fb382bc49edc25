"""Sections 3 and 4: set-up, and the sequence of play by mail."""

from __future__ import annotations

import pytest

from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from tests.support.furor_barbarus_test_map import RULES, SCENARIO, dice, position


def test_3_setup_is_due_from_both_sides_and_records_scenario_and_options() -> None:
    pos = RULES.setup(SCENARIO, ["counter-charge"])
    assert RULES.due(pos) == ("charles", "lothaire")
    assert pos["scenario"] == SCENARIO and pos["options"] == ["counter-charge"]
    assert pos["units"]["provence"]["hex"] == "0708"  # fixed deployment


def test_3_setup_places_units_and_fills_defaults() -> None:
    pos = RULES.setup(SCENARIO, [])
    orders, _ = RULES.parse_orders("place neustrie 0610\nplace charles 0610\n")
    assert not RULES.validate(pos, "charles", orders)
    res = RULES.resolve(pos, {"charles": orders}, dice())
    case = RULES.position_to_case(res.position)
    assert case["units"]["neustrie"] == "0610" and case["units"]["charles"] == "0610"
    assert all(
        h[:2] in ("09", "10") for u, h in case["units"].items() if res.position["units"][u]["side"] == "lothaire"
    )
    assert RULES.due(res.position) == ("lothaire",)


def test_3_setup_refuses_hexes_outside_the_deployment() -> None:
    pos = RULES.setup(SCENARIO, [])
    orders, _ = RULES.parse_orders("place neustrie 0910\nplace provence 0601\n")
    problems = RULES.validate(pos, "charles", orders)
    assert [p.line for p in problems] == [1, 2]
    assert "not a hex of neustrie's deployment" in problems[0].message and "fixed place" in problems[1].message


def test_3_first_player_roll_with_ties(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import shutil
    from pathlib import Path

    src = Path(__file__).parent / "data" / "furor-barbarus"
    shutil.copytree(src, tmp_path / "fb")
    sc = tmp_path / "fb" / "scenarios" / "test-fontenoy.toml"
    text = sc.read_text().replace('first_player = "lothaire"', 'first_player = "roll"')
    (tmp_path / "fb" / "scenarios" / "test-roll.toml").write_text(
        text.replace('id = "test-fontenoy"', 'id = "test-roll"')
    )
    rules = FurorBarbarus(data_dirs=[tmp_path / "fb"])
    pos = rules.setup("test-roll", [])
    assert pos["players"] == []
    res = rules.resolve(pos, {}, dice((4, "charles"), (4, "lothaire")))
    assert res.position["players"] == ["charles", "lothaire"]  # tie: roll_ties = charles
    res = rules.resolve(pos, {}, dice((2, "charles"), (5, "lothaire")))
    assert res.position["players"] == ["lothaire", "charles"]


def test_4_player_1_then_player_2_then_victory_check_and_turn_marker() -> None:
    pos = position({"neustrie": "0404", "bourgogne": "0901"})
    assert RULES.due(pos) == ("lothaire",) and RULES.turn_label(pos) == "turn 1, lothaire (player 1)"
    pos = RULES.resolve(pos, {}, dice()).position
    assert RULES.due(pos) == ("charles",) and pos["turn"] == 1
    pos = RULES.resolve(pos, {}, dice()).position
    assert RULES.due(pos) == ("lothaire",) and pos["turn"] == 2


def test_4_moves_come_before_attacks() -> None:
    pos = position({"neustrie": "0404", "bourgogne": "0403", "austrasie": "0901"})
    orders, _ = RULES.parse_orders("attack neustrie with bourgogne\nmove austrasie 0902\n")
    problems = RULES.validate(pos, "lothaire", orders)
    assert problems and problems[0].line == 2 and "(4)" in problems[0].message


def test_4_a_second_attack_on_the_same_defender_is_refused_by_the_checker() -> None:
    pos = position({"provence": "0404r", "austrasie": "0403", "bourgogne": "0304", "aquitaine": "0504"})
    orders, _ = RULES.parse_orders("attack provence with austrasie\nattack 0404 with bourgogne aquitaine\n")
    problems = RULES.validate(pos, "lothaire", orders)
    assert [p.line for p in problems] == [2] and "already been attacked this phase (9.1)" in problems[0].message


def test_4_each_attack_applied_before_the_next_one_made_illegal_is_skipped() -> None:
    # bourgogne's attack ends in AR and neustrie advances (standing order) next to the bowmen,
    # who may then no longer fire at provence (9.3): that attack is skipped with the reason.
    pos = position(
        {"neustrie": "0404", "provence": "0703", "bourgogne": "0403", "bowmen": "0503"},
        standing={"charles": {"advance": True}},
    )
    orders, _ = RULES.parse_orders("attack neustrie with bourgogne\nattack provence with bowmen\n")
    assert not RULES.validate(pos, "lothaire", orders)
    res = RULES.resolve(pos, {"lothaire": orders}, dice((3, "combat at 0404")))  # 2:3, die 3 -> AR
    skipped = [e for e in res.events if e["type"] == "skip"]
    assert len(skipped) == 1 and skipped[0]["line"] == 2
    assert "adjacent to an enemy combat unit" in skipped[0]["reason"]
    assert RULES.position_to_case(res.position)["units"]["neustrie"] == "0403"


def test_4_no_orders_means_no_moves() -> None:
    pos = position({"neustrie": "0404", "bourgogne": "0901"})
    res = RULES.resolve(pos, {}, dice())
    assert [e["type"] for e in res.events][:2] == ["turn", "no_orders"]


def test_4_only_the_due_side_may_send_orders() -> None:
    pos = position({"neustrie": "0404", "bourgogne": "0901"})
    orders, _ = RULES.parse_orders("")
    assert RULES.validate(pos, "charles", orders)[0].line == 0


def test_4_standing_orders_are_kept_in_the_position() -> None:
    pos = position({"neustrie": "0404", "bourgogne": "0901"})
    orders, _ = RULES.parse_orders(
        "standing advance yes\nstanding losses bourgogne,austrasie\nstanding retreat 0405,0406\n"
    )
    assert not RULES.validate(pos, "lothaire", orders)
    st = RULES.resolve(pos, {"lothaire": orders}, dice()).position["standing"]["lothaire"]
    assert st == {"advance": True, "losses": ["bourgogne", "austrasie"], "retreat": ["0405", "0406"]}


def test_4_a_standing_key_or_value_the_scenario_does_not_have_is_refused() -> None:
    """Stored with no effect, or read as yes when the player wrote maybe: refused."""
    pos = position({"neustrie": "0404", "bourgogne": "0901"})
    orders, _ = RULES.parse_orders(
        "standing advanc yes\nstanding breton-evasion no\nstanding losses bourgogne,austrasi\n"
    )
    assert [(p.line, p.message) for p in RULES.validate(pos, "lothaire", orders)] == [
        (
            1,
            "unknown standing order 'advanc'; the standing orders are: advance, losses, retreat (did you mean "
            "advance?)",
        ),
        (2, "unknown standing order 'breton-evasion'; the standing orders are: advance, losses, retreat"),
        (
            3,
            "unknown unit 'austrasi' in 'standing losses'; your units are: aquitaine, austrasie, bourgogne, bowmen, "
            "horse-archers, lothaire (did you mean austrasie?)",
        ),
    ]


@pytest.mark.parametrize("option", ["zoc-to-zoc", "counter-charge", "test-elite"])
def test_11_options_are_chosen_at_new(option: str) -> None:
    pos = RULES.setup(SCENARIO, [option])
    assert pos["options"] == [option]
    with pytest.raises(ValueError, match="unknown option"):
        RULES.setup(SCENARIO, ["no-such-option"])


def test_3_scenario_option_changes_a_counter() -> None:
    assert RULES.load(SCENARIO, ["test-elite"]).counters["austrasie"].strength == 4
    assert RULES.load(SCENARIO, []).counters["austrasie"].strength == 3
