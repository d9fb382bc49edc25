"""Rulebook, "Battles" and "Battle Table": AF summed against DF + the city's VP;
both players roll 1D6; the table gives each an index and the higher wins; only the
die-1 row is printed, the others are derived as value(die 1) + die - 1."""

import pytest

from pbem.rules import find_ruleset
from pbem.rules.dice import ScriptedDice
from pbem.rules.farrapos.battle import battle_index, column_value

RULES = find_ruleset("farrapos")

# The printed row: Dice 1 | 1 2 3 4 5 6 7 8 9 10 11-15 16-20 21-25 +25
PRINTED = {
    1: 0,
    2: 0,
    3: 0,
    4: 1,
    5: 1,
    6: 2,
    7: 2,
    8: 2,
    9: 3,
    10: 3,
    11: 4,
    15: 4,
    16: 5,
    20: 5,
    21: 6,
    25: 6,
    26: 7,
    40: 7,
}


@pytest.mark.parametrize("strength,value", sorted(PRINTED.items()))
def test_battle_table_printed_die_1_row(strength, value):
    assert battle_index(strength, 1) == value
    assert column_value(strength) == value


def test_battle_table_derived_rows_reproduce_both_printed_examples():
    assert battle_index(13, 3) == 6  # Republic: AF 13 and 1D6 is 3 give 6
    assert battle_index(10, 5) == 7  # Empire: DF 10 and 1D6 is 5 give 7


@pytest.mark.parametrize("strength", [1, 4, 9, 13, 22, 30])
def test_battle_table_each_die_pip_adds_one(strength):
    assert [battle_index(strength, d) - battle_index(strength, 1) for d in range(1, 7)] == [0, 1, 2, 3, 4, 5]


def test_battle_table_refuses_a_die_off_the_d6():
    with pytest.raises(ValueError):
        battle_index(5, 7)


def _worked_example():
    position = RULES.position_from_case(
        {
            "cities": {
                "triunfo": {"units": ["inf-1", "inf-2", "art-1", "cav-1"]},
                "porto-alegre": {"units": ["inf-13", "inf-14"]},
            }
        },
        None,
        [],
    )
    orders, problems = RULES.parse_orders(
        "attack porto-alegre from triunfo with inf-1 inf-2 art-1 cav-1 rounds 1 losses cav-1"
    )
    assert not problems and not RULES.validate(position, "republic", orders)
    dice = ScriptedDice([(3, 6, "attacker"), (5, 6, "defender")])
    return RULES.resolve(position, {"republic": orders}, dice), dice


def test_battles_worked_example_exactly_as_printed():
    resolution, dice = _worked_example()
    (round_one,) = [e for e in resolution.events if e["type"] == "battle_round"]
    # Republic (Attack): 2+2+5+4 = AF 13; Empire (Defense): 3+3 = 6 + 4 VP = DF 10
    assert (round_one["attack_strength"], round_one["defence_strength"], round_one["extra_defence"]) == (13, 10, 4)
    assert (round_one["attacker_index"], round_one["defender_index"]) == (6, 7)
    # In this battle, the defender won: the attacker flips one of his MU
    assert round_one["winner"] == "empire"
    assert round_one["losses"] == [{"side": "republic", "counter": "cav-1", "result": "reduced"}]
    assert "cav-1" in resolution.position["reduced"]
    assert [r.purpose for r in dice.rolls] == [
        "battle of Porto Alegre, round 1, attacker (Republic)",
        "battle of Porto Alegre, round 1, defender (Empire)",
    ]


def test_battles_attacker_stops_and_keeps_his_mu_on_their_positions():
    resolution, _ = _worked_example()
    cities = resolution.position["cities"]
    assert cities["triunfo"]["units"] == ["art-1", "cav-1", "inf-1", "inf-2"]
    assert cities["porto-alegre"]["owner"] == "empire"


def test_battles_default_attacker_loss_flips_the_full_mu_that_costs_least_af():
    position = RULES.position_from_case(
        {
            "cities": {
                "triunfo": {"units": ["inf-1", "art-1"]},
                "porto-alegre": {"units": ["inf-13", "inf-14", "inf-15"]},
            }
        },
        None,
        [],
    )
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-1 art-1 rounds 1")
    resolution = RULES.resolve(position, {"republic": orders}, ScriptedDice([(1, 6, None), (6, 6, None)]))
    assert resolution.position["reduced"] == ["inf-1"]  # art-1 would give up 2 AF, inf-1 only 1


def test_battles_defender_default_loss_flips_full_mu_before_militia():
    position = RULES.position_from_case(
        {
            "cities": {
                "triunfo": {"units": ["inf-1", "art-1", "cav-1"]},
                "porto-alegre": {"units": ["inf-13"], "militia": 1},
            }
        },
        None,
        [],
    )
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-1 art-1 cav-1 rounds 2")
    resolution = RULES.resolve(position, {"republic": orders}, ScriptedDice([(6, 6, None), (1, 6, None)] * 2))
    losses = [loss["counter"] for e in resolution.events if e["type"] == "battle_round" for loss in e["losses"]]
    assert losses == ["inf-13", "militia"]


def test_battles_attack_orders_must_name_mu_in_the_city_of_origin():
    position = RULES.setup(None, [])
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-3")
    (problem,) = RULES.validate(position, "republic", orders)
    assert problem.line == 1 and "inf-3 is not in triunfo" in problem.message and "inf-1" in problem.message


def test_battles_losses_and_occupy_must_name_attackers():
    position = RULES.setup(None, [])
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-1 art-1 losses inf-2")
    (problem,) = RULES.validate(position, "republic", orders)
    assert "inf-2, which is not attacking" in problem.message
