"""Campus Mauriacus, 451 (scenario 1): each special rule."""

from __future__ import annotations

import pytest

from pbem.rules.dice import ScriptedDice
from pbem.rules.furor_barbarus.charge import can_charge
from pbem.rules.furor_barbarus.combat import declare
from pbem.rules.furor_barbarus.hexgrid import hex_distance
from pbem.rules.furor_barbarus.missile_fire import melee_strength
from pbem.rules.furor_barbarus.morale import commander_bonus
from pbem.rules.furor_barbarus.movement import apply_move
from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from pbem.rules.furor_barbarus.special_rules.campus_mauriacus import (
    COMMANDERS_ROLE,
    IMPETUOUSNESS,
    commander_setup_problems,
    feigned_flight,
    feigned_flight_problem,
)
from tests.support.furor_barbarus_scenarios import attack, battlefield, dice, events

CM = "campus-mauriacus"


# --- special rule 1: only units with the charge mark charge -------------------------
def test_special_rule_1_only_marked_units_charge() -> None:
    field = battlefield(CM, {"visigoth-1": "1005", "visigoth-3": "1006", "hun-1": "1009", "hun-2": "1010"})
    assert can_charge(field, "visigoth-1")  # cavalry with the mark
    assert can_charge(field, "hun-1")
    assert not can_charge(field, "visigoth-3")  # cavalry without the mark: the core would let it charge
    assert not can_charge(field, "hun-2")  # missile cavalry


# --- special rule 2: no hand-to-hand penalty for marked missile units --------------
def test_special_rule_2_no_melee_penalty_mark() -> None:
    field = battlefield(CM, {"hun-2": "1008", "hun-7": "1108", "visigoth-5": "1007"})
    assert melee_strength(field, "hun-2", 4, ["visigoth-5"]) == 4  # marked: no penalty
    assert melee_strength(field, "hun-7", 2, ["visigoth-5"]) == 1  # unmarked: -1 (9.3)


# --- special rule 3: feigned flight -------------------------------------------------------
def test_special_rule_3_feigned_flight_who_may_be_targeted() -> None:
    field = battlefield(
        CM,
        {
            "hun-2": "1008",
            "visigoth-1": "1005",
            "visigoth-5": "1204",
            "roman-1": "1504",
            "visigoth-6": "0904",
            "ostrogoth-3": "1109",
        },
    )
    assert feigned_flight_problem(field, "huns", "hun-2", "visigoth-1") is None
    assert "more than 3" in feigned_flight_problem(field, "huns", "hun-2", "roman-1")
    assert "no feigned flight mark" in feigned_flight_problem(field, "huns", "ostrogoth-3", "visigoth-1")
    assert "not a unit of huns" in feigned_flight_problem(field, "huns", "visigoth-1", "hun-2")
    field.place("visigoth-6", "1004")  # now next to visigoth-1
    assert "adjacent to visigoth-6" in feigned_flight_problem(field, "huns", "hun-2", "visigoth-1")
    field.place("visigoth-6", "0904")
    field.moved.add("hun-2")
    assert "beginning of its move" in feigned_flight_problem(field, "huns", "hun-2", "visigoth-1")


def test_special_rule_3_feigned_flight_draws_the_target_two_hexes() -> None:
    # visigoth-1: strength 4, impetuous (+1): 3 + 1 = 4 is not less than 4, drawn
    field = battlefield(CM, {"hun-2": "1008", "visigoth-1": "1005"}, script=dice((3, "feigned flight")))
    rules = field.special
    words = ("feigned-flight", "hun-2", "visigoth-1")
    assert rules.check_special(field, "huns", words) is None
    rules.apply_special(field, "huns", words)
    assert field.hex_of("visigoth-1") == "1007"
    assert hex_distance("1007", "1008") == 1
    (event,) = events(field, "feigned_flight")
    assert event["drawn"] and event["modifier"] == 1 and event["against"] == 4
    assert field.hex_of("hun-2") == "1008"  # the activated unit then moves as it likes
    assert rules.check_special(field, "huns", words) is not None  # once per phase


def test_special_rule_3_feigned_flight_target_holds_below_its_strength() -> None:
    field = battlefield(CM, {"hun-2": "1008", "visigoth-5": "1005"}, script=dice(2))
    field.special.apply_special(field, "huns", ("feigned-flight", "hun-2", "visigoth-5"))
    assert field.hex_of("visigoth-5") == "1005"
    assert not events(field, "feigned_flight")[0]["drawn"]


def test_special_rule_3_feigned_flight_stacked_commander_adds_his_strength() -> None:
    # visigoth-5 (3) with Theodoric (2): a 4 is less than 5, the target holds
    field = battlefield(CM, {"hun-2": "1008", "visigoth-5": "1005", "theodoric": "1005"}, script=dice(4))
    field.special.apply_special(field, "huns", ("feigned-flight", "hun-2", "visigoth-5"))
    assert field.hex_of("visigoth-5") == "1005" and field.hex_of("theodoric") == "1005"
    # without him, the same 4 draws it out (4 >= 3), and a stacked commander follows his unit
    field = battlefield(CM, {"hun-2": "1008", "visigoth-5": "1005"}, script=dice(4))
    field.special.apply_special(field, "huns", ("feigned-flight", "hun-2", "visigoth-5"))
    assert field.hex_of("visigoth-5") == "1007"


def test_special_rule_3_feigned_flight_minus_one_against_feigned_flight_units() -> None:
    # alan-1: strength 3, has the mark itself (-1): 3 - 1 = 2 < 3, holds
    field = battlefield(CM, {"hun-2": "1008", "alan-1": "1005"}, script=dice(3))
    field.special.apply_special(field, "huns", ("feigned-flight", "hun-2", "alan-1"))
    event = events(field, "feigned_flight")[0]
    assert event["modifier"] == -1 and not event["drawn"]
    assert field.hex_of("alan-1") == "1005"


def test_special_rule_3_feigned_flight_with_chosen_hexes() -> None:
    # hun-3 at 1207, three hexes from visigoth-1: the opponent may bring it by 1106 and 1206
    field = battlefield(CM, {"hun-3": "1207", "visigoth-1": "1005"}, script=dice(6))
    assert "not nearer" in field.special.check_special(
        field, "huns", ("feigned-flight", "hun-3", "visigoth-1", "1004", "1005")
    )
    assert "not a free hex" in field.special.check_special(
        field, "huns", ("feigned-flight", "hun-3", "visigoth-1", "1106", "1207")
    )
    words = ("feigned-flight", "hun-3", "visigoth-1", "1106", "1206")
    assert field.special.check_special(field, "huns", words) is None
    field.special.apply_special(field, "huns", words)
    assert field.hex_of("visigoth-1") == "1206"
    # without hexes: the nearest free hexes, lowest id first
    field = battlefield(CM, {"hun-3": "1207", "visigoth-1": "1005"}, script=dice(6))
    field.special.apply_special(field, "huns", ("feigned-flight", "hun-3", "visigoth-1"))
    assert field.hex_of("visigoth-1") == "1107"


# --- special rule 4: defection of the Alans --------------------------------------------------
def test_special_rule_4_alans_defect_and_do_not_count() -> None:
    field = battlefield(CM, {"alan-1": "1006", "alan-2": "1305", "alan-3": "1204"}, script=dice((1, "defection")))
    field.units["alan-1"]["reduced"] = True
    field.lose_step("alan-1", "test")  # a reduced Alan lost: 1d6, 1 <= 1 lost
    assert field.units["alan-1"]["status"] == "eliminated"
    assert field.units["alan-2"]["status"] == "removed" and field.units["alan-3"]["status"] == "removed"
    assert field.losses("romans") == 3  # alan-1 only; the removed Alans do not count
    assert events(field, "alans_defection")[0]["defect"]


def test_special_rule_4_alans_stay_on_a_higher_roll() -> None:
    field = battlefield(CM, {"alan-1": "1006", "alan-2": "1305"}, script=dice(2))
    field.units["alan-1"]["reduced"] = True
    field.lose_step("alan-1", "test")
    assert field.exists("alan-2")
    assert not events(field, "alans_defection")[0]["defect"]


def test_special_rule_4_a_full_alan_unit_eliminated_rolls_2d6() -> None:
    # 4 + 4 + 3 = 11 against 3 (no melee penalty for the Alans): 3/1, die 1: D2 eliminates the full unit
    field = battlefield(
        CM,
        {"alan-1": "1006", "alan-2": "1305", "hun-1": "1007", "ostrogoth-1": "0907", "ostrogoth-2": "1107"},
        script=dice((1, "combat"), (1, "defection"), (1, "defection")),
    )
    attack(field, "huns", "alan-1", ["hun-1", "ostrogoth-1", "ostrogoth-2"])
    assert field.units["alan-1"]["status"] == "eliminated"
    (event,) = events(field, "alans_defection")
    assert len(event["dice"]) == 2 and event["total"] == 2 and event["lost"] == 1
    assert field.exists("alan-2")  # 2 > 1 lost: they stay
    # the second Alan lost, reduced: one die, 2 <= 2 lost: the rest leave
    field.units["alan-2"]["reduced"] = True
    field.dice = dice(2)
    field.lose_step("alan-2", "test")
    assert len(events(field, "alans_defection")[1]["dice"]) == 1
    assert events(field, "alans_defection")[1]["defect"]


# --- special rule 5: role of the commanders (optional) ------------------------------------
def test_special_rule_5_commander_affects_only_his_band() -> None:
    units = {"theodoric": "1005", "visigoth-5": "1006", "alan-1": "1105"}
    field = battlefield(CM, units)
    assert commander_bonus(field, "alan-1") == 1  # without the option: any friend
    field = battlefield(CM, units, options=[COMMANDERS_ROLE])
    assert commander_bonus(field, "alan-1") == 0
    assert commander_bonus(field, "visigoth-5") == 1


def test_special_rule_5_stacked_commander_adds_strength_to_his_band_only() -> None:
    # the core asks commander_affects for a stacked commander's strength (6): Aetius (2) stacked with an
    # Alan (3, no melee penalty) adds nothing with the option; Theodoric (2) adds his 2 to a Visigoth
    units = {"aetius": "1006", "alan-1": "1006", "hun-1": "1007", "theodoric": "1108", "visigoth-5": "1108"}
    for options, defence in (([], 3 + 2), ([COMMANDERS_ROLE], 3)):
        field = battlefield(CM, units, options=options, player=2)
        problems, combat = declare(field, "huns", "alan-1", ["hun-1"], None)
        assert not problems and combat is not None
        assert combat.defence_strength == defence
        assert field.special.strength_modifier(field, "aetius", "defence") == 0  # no workaround left
    field = battlefield(CM, units, options=[COMMANDERS_ROLE], player=1)
    problems, combat = declare(field, "romans", "hun-1", ["visigoth-5"], None)
    assert not problems and combat is not None and combat.commanders == ["theodoric"]
    assert combat.attack_strength == 3 + 2
    problems, combat = declare(field, "romans", "hun-1", ["alan-1", "visigoth-5"], None)
    assert not problems and combat is not None and sorted(combat.commanders) == ["aetius", "theodoric"]
    assert combat.attack_strength == 3 + 3 + 2  # Aetius adds nothing


def test_special_rule_5_feigned_flight_commander_of_another_band_adds_nothing() -> None:
    field = battlefield(
        CM,
        {"hun-2": "1008", "visigoth-5": "1005", "theodoric": "1005"},
        options=[COMMANDERS_ROLE],
        player=2,
        script=dice(4),
    )
    assert feigned_flight(field, "hun-2", "visigoth-5") is False  # 4 < 3 + 2: Theodoric helps his own
    field = battlefield(
        CM,
        {"hun-2": "1008", "visigoth-5": "1005", "aetius": "1005"},
        options=[COMMANDERS_ROLE],
        player=2,
        script=dice(4),
    )
    assert feigned_flight(field, "hun-2", "visigoth-5") is True  # 4 >= 3: Aetius does not (blue band)
    assert field.hex_of("aetius") == field.hex_of("visigoth-5") != "1005"  # but he goes with it


@pytest.mark.parametrize(
    ("die", "unit", "expected"),
    [
        (1, "visigoth-5", -1),
        (2, "visigoth-1", -1),
        (4, "visigoth-5", 0),
        (6, "visigoth-5", 1),
        (1, "visigoth-8", 0),  # strength 1 never goes below 1
    ],
)
def test_special_rule_5_death_roll(die: int, unit: str, expected: int) -> None:
    field = battlefield(
        CM,
        {"theodoric": "1005", "visigoth-5": "1006", "visigoth-1": "0905", "visigoth-8": "0805"},
        options=[COMMANDERS_ROLE],
        turn=4,
        script=dice((die, "death of Theodoric")),
    )
    field.eliminate("theodoric", "test")
    assert field.losses("romans") == 2 + 4
    assert field.special.strength_modifier(field, unit, "attack") == 0  # not this turn
    field.position["turn"] = 5
    assert field.special.strength_modifier(field, unit, "attack") == expected
    assert field.special.morale_modifier(field, unit) == expected
    field.position["turn"] = 6
    assert field.special.morale_modifier(field, unit) == 0


@pytest.mark.parametrize(
    ("commander", "limited", "others"),
    [
        ("aetius", ["roman-1", "roman-3"], ["burgundians", "saxons"]),
        ("ardaric", ["gepid-1", "gepid-2"], ["hunnic-franks", "hunnic-burgundians"]),
    ],
)
def test_special_rule_5_aetius_and_ardaric_limits(commander: str, limited: list[str], others: list[str]) -> None:
    field = battlefield(CM, {commander: "1005"}, options=[COMMANDERS_ROLE], turn=2, script=dice(6))
    field.eliminate(commander, "test")
    field.position["turn"] = 3
    assert all(field.special.strength_modifier(field, u, "attack") == 1 for u in limited)
    assert all(field.special.strength_modifier(field, u, "attack") == 0 for u in others)


def test_special_rule_5_no_roll_without_the_option() -> None:
    field = battlefield(CM, {"theodoric": "1005"}, script=dice())
    field.eliminate("theodoric", "test")
    assert not events(field, "commander_death")


# --- special rule 6: impetuousness (optional) -----------------------------------------------
def test_special_rule_6_impetuous_unit_rushes_on_5_or_6() -> None:
    # visigoth-1 (impetuous, 7 MP) wants to move to 1006, within 2 hexes of hun-3 at 1008: rolls 5
    field = battlefield(
        CM,
        {"visigoth-1": "1004", "hun-3": "1008", "hun-4": "1410"},
        options=[IMPETUOUSNESS],
        player=1,
        script=dice((5, "impetuousness")),
    )
    apply_move(field, "visigoth-1", ("1005", "1006"))
    assert hex_distance(field.hex_of("visigoth-1"), "1008") == 1  # it ran at the closest enemy
    assert events(field, "impetuous")[0]["target"] == "hun-3"


def test_special_rule_6_impetuous_unit_keeps_its_head_on_1_to_4() -> None:
    field = battlefield(CM, {"visigoth-1": "1004", "hun-3": "1008"}, options=[IMPETUOUSNESS], script=dice(4))
    apply_move(field, "visigoth-1", ("1005", "1006"))
    assert field.hex_of("visigoth-1") == "1006"


@pytest.mark.parametrize(
    ("units", "path"),
    [
        ({"visigoth-1": "1004", "hun-3": "1010"}, ("1005",)),  # stays 3 or more hexes away: no roll
        ({"visigoth-1": "1004", "hun-3": "1005"}, ("0904",)),  # already next to an enemy: no roll
        ({"visigoth-5": "1004", "hun-3": "1008"}, ("1005", "1006")),  # not impetuous: no roll
    ],
)
def test_special_rule_6_when_no_roll_is_made(units: dict[str, str], path: tuple[str, ...]) -> None:
    field = battlefield(CM, units, options=[IMPETUOUSNESS], script=dice())
    uid = next(iter(units))
    apply_move(field, uid, path)
    assert field.hex_of(uid) == path[-1]
    assert not events(field, "impetuous")


def test_special_rule_6_needs_the_option() -> None:
    field = battlefield(CM, {"visigoth-1": "1004", "hun-3": "1008"}, script=dice())
    apply_move(field, "visigoth-1", ("1005", "1006"))
    assert field.hex_of("visigoth-1") == "1006"


def test_special_rule_6_fire_from_a_distance() -> None:
    # hun-7 (2) fires at visigoth-1 (4) two hexes away: 1/2, die 3: AR, which a firer ignores; then the roll
    field = battlefield(
        CM,
        {"visigoth-1": "1004", "hun-7": "1006", "hun-3": "1208"},
        options=[IMPETUOUSNESS],
        player=2,
        script=dice((3, "combat"), (6, "impetuousness")),
    )
    attack(field, "huns", "visigoth-1", ["hun-7"])
    assert events(field, "impetuous")[0]["rushes"]
    assert hex_distance(field.hex_of("visigoth-1"), "1006") == 1


def test_special_rule_6_opponents_choice_between_equally_close_enemies() -> None:
    # hun-3 (3) and hun-2 (4) both 3 hexes away: by default the strongest
    units = {"visigoth-1": "1004", "hun-3": "0806", "hun-2": "1007"}
    assert hex_distance("1004", "0806") == hex_distance("1004", "1007") == 3
    field = battlefield(CM, units, options=[IMPETUOUSNESS], script=dice(6))
    apply_move(field, "visigoth-1", ("1005",))
    assert events(field, "impetuous")[0]["target"] == "hun-2"
    field = battlefield(CM, units, options=[IMPETUOUSNESS], script=dice(6))
    field.position["standing"]["huns"]["impetuous-target"] = "weakest"
    apply_move(field, "visigoth-1", ("1005",))
    assert events(field, "impetuous")[0]["target"] == "hun-3"


def test_special_rule_6_the_rush_enters_only_hexes_nearer_to_the_closest_enemy() -> None:
    # two hexes from hun-3, visigoth-1 once went 0907-0807-0808-0809-0910-1009 round it; toward is 1007 and stop (ZOC)
    field = battlefield(
        CM,
        {"visigoth-1": "1006", "hun-3": "1008"},
        options=[IMPETUOUSNESS],
        player=1,
        script=dice((5, "impetuousness")),
    )
    apply_move(field, "visigoth-1", ("0907",))
    assert field.paths["visigoth-1"] == ["1006", "1007"]
    assert events(field, "impetuous")[0]["path"] == ["1007"]


def test_special_rule_6_every_rush_path_steps_nearer_and_goes_on_until_it_must_stop() -> None:
    from pbem.rules.furor_barbarus.movement import check_move
    from pbem.rules.furor_barbarus.special_rules.campus_mauriacus import impetuous_path, impetuous_paths

    field = battlefield(CM, {"visigoth-1": "0604", "hun-3": "1008"}, options=[IMPETUOUSNESS], player=1)
    paths = impetuous_paths(field, "visigoth-1", "hun-3")
    assert len(paths) > 1  # several ways toward it: the opponent's choice
    for path in paths:
        hexes = ["0604", *path]
        assert all(hex_distance(b, "1008") < hex_distance(a, "1008") for a, b in zip(hexes, hexes[1:]))
        check = check_move(field, "visigoth-1", path, "romans")
        assert check.legal
        # it stops only where it must: in the enemy's ZOC, or no nearer hex it could enter
        assert check.stops or not any(
            check_move(field, "visigoth-1", (*path, n), "romans").legal
            for n in field.game_map.neighbours(path[-1])
            if hex_distance(n, "1008") < hex_distance(path[-1], "1008")
        )
    # the default: the path ending nearest, then the lowest hex ids, hex by hex
    assert impetuous_path(field, "visigoth-1", "hun-3") == min(paths, key=lambda p: (hex_distance(p[-1], "1008"), p))


def test_special_rule_6_no_roll_next_to_an_enemy_commander() -> None:
    # Attila alone next to visigoth-1: it is adjacent to an enemy unit (section 2: commanders are units)
    field = battlefield(
        CM, {"visigoth-1": "1006", "attila": "1106", "hun-3": "1008"}, options=[IMPETUOUSNESS], player=1, script=dice()
    )
    apply_move(field, "visigoth-1", ("0907",))
    assert field.hex_of("visigoth-1") == "0907"
    assert not events(field, "impetuous")


# --- set-up: commanders with their troops (core hook setup_problems) ----------------------------
def test_setup_ardaric_stands_with_a_gepid() -> None:
    field = battlefield(
        CM,
        {
            "ardaric": "2212",
            "hunnic-burgundians": "2212",
            "gepid-1": "2011",
            "gepid-2": "1811",
            "hunnic-franks": "1711",
        },
    )
    ((uid, problem),) = commander_setup_problems(field, "huns")
    assert uid == "ardaric" and "Ardaric" in problem and "gepid-1, gepid-2" in problem
    assert field.hex_of("ardaric") == "2212"  # the check changes nothing
    field.place("ardaric", "1811")
    assert commander_setup_problems(field, "huns") == []


def hunnic_units_set_up(
    rules: FurorBarbarus, text: str = "place gepid-1 2011\nplace hunnic-burgundians 2212\n"
) -> dict:
    """The position after the first set-up step (the Huns' units; scenario 1 set-up)."""
    position = rules.setup(CM, [])
    orders, _ = rules.parse_orders(text)
    assert rules.validate(position, "huns", orders) == []
    return rules.resolve(position, {"huns": orders}, ScriptedDice([])).position


def test_setup_check_refuses_the_line_and_resolve_moves_a_default_commander() -> None:
    rules = FurorBarbarus()
    position = hunnic_units_set_up(rules)
    assert rules.due(position) == ("huns", "romans")
    orders, _ = rules.parse_orders("place ardaric 2212\n")
    problems = rules.validate(position, "huns", orders)
    assert [(p.line, "Ardaric" in p.message) for p in problems] == [(1, True)]
    # resolved anyway (a file never checked): the line is skipped and Ardaric goes to a Gepid
    after = rules.resolve(position, {"huns": orders}, ScriptedDice([(6, 6, "first"), (1, 6, "first")]))
    assert [e["line"] for e in after.events if e["type"] == "skip"] == [1]
    assert after.position["units"]["ardaric"]["hex"] == after.position["units"]["gepid-1"]["hex"] == "2011"
    # without a line for Ardaric: the default puts him on a Gepid, no note needed at turn 1
    position = hunnic_units_set_up(rules, "place hunnic-burgundians 2212\nplace gepid-1 1711\nplace gepid-2 1811\n")
    after = rules.resolve(position, {}, ScriptedDice([(6, 6, "first"), (1, 6, "first")]))
    units = after.position["units"]
    assert units["ardaric"]["hex"] in (units["gepid-1"]["hex"], units["gepid-2"]["hex"])
    assert not [e for e in after.events if e["type"] in ("skip", "setup_note")]


@pytest.mark.parametrize("seed", range(6))
def test_setup_bot_places_commanders_with_their_troops(seed: int) -> None:
    import random

    rules = FurorBarbarus()
    position = rules.setup(CM, [])
    rng = random.Random(seed)
    while position["phase"] == "setup":
        orders = {}
        for side in rules.due(position):
            text = rules.bot_orders(position, side, "random", rng)
            orders[side], problems = rules.parse_orders(text)
            assert problems == [] and rules.validate(position, side, orders[side]) == [], text
        position = rules.resolve(position, orders, ScriptedDice([(6, 6, "first"), (1, 6, "first")])).position
    field = rules.field(position)
    from pbem.rules.furor_barbarus.special_rules.campus_mauriacus import commander_setup_problems

    assert commander_setup_problems(field, "huns") == commander_setup_problems(field, "romans") == []


# --- victory conditions ---------------------------------------------------------------------------
def test_victory_at_the_end_of_turn_12_lesser_losses_else_a_tie() -> None:
    from pbem.rules.furor_barbarus.victory import check_victory

    field = battlefield(CM, {"aetius": "1705", "attila": "1511"}, turn=12)
    for losses, expected in (
        ({"romans": 20, "huns": 25}, ("minor_victory", "romans")),
        ({"romans": 22, "huns": 21}, ("minor_victory", "huns")),
        ({"romans": 22, "huns": 22}, ("draw", None)),
        ({"romans": 30, "huns": 22}, ("major_victory", "huns")),
    ):
        field.position["losses"] = losses
        outcome = check_victory(field, last_turn=True)
        assert outcome is not None and (outcome.kind.value, outcome.winner) == expected
    field.position["losses"] = {"romans": 22, "huns": 21}
    assert check_victory(field, last_turn=False) is None


# --- 9.8 with 5: the commanders of a retreat (once wrongly resolved) ------------------------------------
RETREAT_BOX = {"alan-1": "1108", "sangiban": "1108", "hun-1": "1109", "hun-2": "1008", "hun-3": "1208"}


def test_9_8_a_unit_with_its_commander_may_not_retreat_onto_a_lone_commander() -> None:
    from pbem.rules.furor_barbarus.morale import retreat

    field = battlefield(CM, {**RETREAT_BOX, "aetius": "1107"})
    retreat(field, "alan-1", ["hun-1"])
    assert (field.hex_of("alan-1"), field.hex_of("sangiban"), field.hex_of("aetius")) == ("1108", "1108", "1107")
    assert field.is_reduced("alan-1")


def test_9_8_a_friend_displaced_with_its_commander_leaves_room_for_another() -> None:
    from pbem.rules.furor_barbarus.morale import retreat

    field = battlefield(CM, {**RETREAT_BOX, "aetius": "1107", "roman-1": "1107"}, script=dice((1, "morale")))
    retreat(field, "alan-1", ["hun-1"])
    assert field.hex_of("alan-1") == field.hex_of("sangiban") == "1107"
    assert field.hex_of("roman-1") == field.hex_of("aetius") not in ("1107", "1108")
    assert not field.is_reduced("alan-1")
