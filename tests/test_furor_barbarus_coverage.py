"""Rulebook sentences that had no test of their own when the coverage table
(docs/rules/furor-barbarus-coverage.md) was written and that a rule case
(position + orders + dice) cannot express; each test is named after its section
and quotes the sentence it checks.  The others are rule cases in
rules/furor_barbarus/cases/."""

from __future__ import annotations

import hashlib
import random

import pytest

from pbem.dice import DiceStream
from pbem.rules.furor_barbarus.combat import allocate_steps, declare
from pbem.rules.furor_barbarus.counters import UnitType
from pbem.rules.furor_barbarus.hexgrid import adjacent
from pbem.rules.furor_barbarus.missile_fire import melee_strength
from pbem.rules.furor_barbarus.morale import morale_value
from tests.support.furor_barbarus_test_map import (
    RULES,
    SCENARIO,
    attack,
    battlefield,
    blank_map,
    dice,
    events,
    position,
)


def test_1_players_supply_a_six_sided_die() -> None:
    """1: "Players will also need to supply a 6 sided die": every roll of a game is a d6."""
    rng = random.Random(7)
    pos = RULES.setup(SCENARIO, [])
    sides: set[int] = set()
    k = 0
    while RULES.due(pos) and k < 40:
        k += 1
        orders = {s: RULES.parse_orders(RULES.bot_orders(pos, s, "greedy", rng))[0] for s in RULES.due(pos)}
        stream = DiceStream(hashlib.sha256(f"d6-{k}".encode()).digest())
        pos = RULES.resolve(pos, orders, stream).position
        sides |= {r.sides for r in stream.rolls}
    assert sides == {6}


def test_2_units_have_no_facing() -> None:
    """2: "Units have no facing": an attack from any of the six hexes around is the same attack."""
    odds = set()
    for n in ("0403", "0405", "0304", "0305", "0504", "0505"):
        field = battlefield({"neustrie": "0404", "austrasie": n}, game_map=blank_map())
        problems, combat = declare(field, "lothaire", "neustrie", ["austrasie"], None)
        assert not problems and combat is not None
        odds.add((combat.attack_strength, combat.defence_strength, combat.odds))
    assert odds == {(3, 3, 2)}


def test_2_a_white_background_shows_that_the_unit_has_lost_a_step() -> None:
    """2: the counter shows its army's colour, strength, MP and range; "a white background shows
    that the unit has lost a step"."""
    svg = RULES.map_svg(position({"neustrie": "0404r", "archers-c": "0405"}, player="charles"))
    reduced = svg[svg.index("(neustrie)") :].split("</g>")[0]
    full = svg[svg.index("(archers-c)") :].split("</g>")[0]
    assert 'fill="#ffffff"' in reduced and ">2-3<" in reduced  # reduced strength 2, 3 MP
    assert 'fill="#ffffff"' not in full.split("<text")[0] and ">2-3-2<" in full  # strength 2, 3 MP, range 2


def test_9_3_the_hand_to_hand_penalty_only_applies_to_combat_not_to_morale_checks() -> None:
    """9.3: "This only applies to combat, not to morale checks"."""
    field = battlefield({"archers-c": "0404", "austrasie": "0403"}, game_map=blank_map(), player="lothaire")
    assert melee_strength(field, "archers-c", 2, ["austrasie"]) == 1
    assert morale_value(field, "archers-c") == 2


@pytest.mark.parametrize("die", range(1, 7))
def test_9_3_example_the_bowmen_alone_can_at_best_make_provence_retreat(die: int) -> None:
    """9.3 example: "the Bowmen unit could have fired by itself against the Provence unit. But given
    the force ratio, it cannot do better than making it retreat" (1 against 2, fire cancels the creek)."""
    field = battlefield({"provence": "0708", "bowmen": "0606"}, script=dice(die))
    assert not adjacent("0606", "0708")
    attack(field, "lothaire", "provence", ["bowmen"])
    (combat,) = events(field, "combat")
    assert (combat["odds"], combat["modifier"]) == ("1/2", 1)  # village +1 only
    assert field.exists("provence") and not field.is_reduced("provence") and field.exists("bowmen")


def test_9_8_an_r_result_retreats_all_the_affected_units() -> None:
    """9.8: "A R result leads to a retreat of one hex of all the affected units" (AR: every attacker)."""
    units = {"neustrie": "0404", "bourgogne": "0403", "austrasie": "0305"}
    field = battlefield(units, game_map=blank_map(), script=dice(3), changes={"neustrie": {"strength": 6}})
    attack(field, "lothaire", "neustrie", ["bourgogne", "austrasie"])  # 5:6 = 2/3, die 3: AR
    assert events(field, "combat")[0]["result"] == "AR"
    assert {e["unit"] for e in events(field, "retreat")} == {"bourgogne", "austrasie"}
    assert field.hex_of("bourgogne") != "0403" and field.hex_of("austrasie") != "0305"


def test_9_9_example_a2_on_one_full_and_one_reduced_unit() -> None:
    """9.9 example: after A2 "he has the choice of either reducing the full strength unit and
    eliminating the reduced unit, or simply eliminating the full strength unit"."""
    field = battlefield({"austrasie": "0403", "bourgogne": "0304r"}, game_map=blank_map())
    both = ["austrasie", "bourgogne"]
    assert allocate_steps(field, both, 2, ["austrasie", "bourgogne"]) == ["austrasie", "bourgogne"]
    assert allocate_steps(field, both, 2, ["austrasie", "austrasie"]) == ["austrasie", "austrasie"]
    assert allocate_steps(field, both, 2, []) == ["austrasie", "austrasie"]  # the default


def test_2_the_range_is_shown_only_on_missile_units() -> None:
    """2: "the range in hexes (if missile fire is possible)"."""
    sc = RULES.load(SCENARIO)
    assert all(
        (c.range > 0) == (c.type in (UnitType.MISSILE_INFANTRY, UnitType.MISSILE_CAVALRY)) for c in sc.counters.values()
    )


def test_the_coverage_table_names_only_existing_tests_and_rule_cases() -> None:
    """docs/rules/furor-barbarus-coverage.md: every `file::test` and `case:name` it cites exists."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "rules" / "furor-barbarus-coverage.md").read_text(encoding="utf-8")
    tests = re.findall(r"`([a-z_0-9]+)::(test_[a-z_0-9]+)`", text)
    cases = re.findall(r"`case:([a-z0-9-]+)`", text)
    assert len(tests) > 100 and len(cases) > 20
    missing = [
        f"{f}::{t}"
        for f, t in tests
        if not re.search(rf"^def {t}\(", (root / "tests" / f"test_furor_barbarus_{f}.py").read_text(), re.M)
    ]
    missing += [c for c in cases if not (root / "rules" / "furor_barbarus" / "cases" / f"{c}.toml").is_file()]
    assert missing == []
