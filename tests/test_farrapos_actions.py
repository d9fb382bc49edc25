"""Rulebook, "1ST TURN - PHASE 1", actions a) to d): attack a directly linked
enemy city, invade a directly linked city the enemy does not hold, move "into a city
that has no direct link" with the city of origin along path lines within each MU's
MF, or take no action; one action per turn (documented)."""

import pytest

from pbem.rules import find_ruleset
from pbem.rules.dice import ScriptedDice

RULES = find_ruleset("farrapos")


def _problems(cities, text, side="republic", **extra):
    position = RULES.position_from_case({"cities": cities, **extra}, None, [])
    orders, syntax = RULES.parse_orders(text)
    assert not syntax
    return [(p.line, p.message) for p in RULES.validate(position, side, orders)]


def test_action_a_attack_only_a_city_the_enemy_holds():
    problems = _problems(
        {"pelotas": {"units": ["inf-3"]}, "rio-grande": {"owner": "empire"}},
        "attack rio-grande from pelotas with inf-3",
    )
    assert problems == [(1, "rio-grande is not held by the Empire; from pelotas you can attack: none")]


def test_action_b_invade_a_city_of_ones_own_reinforces_it():
    """b) "any city ... NOT under control of the Empire" includes the Republic's own
    held cities: a stack reinforces a neighbouring city of its own by b)."""
    cities = {"pelotas": {"units": ["inf-3", "inf-4"]}, "piratini": {"units": ["inf-5"]}}
    assert _problems(cities, "invade piratini from pelotas with inf-3") == []
    position = RULES.position_from_case({"cities": cities}, None, [])
    orders, _ = RULES.parse_orders("invade piratini from pelotas with inf-3")
    after = RULES.resolve(position, {"republic": orders}, ScriptedDice([])).position
    assert after["cities"]["piratini"]["units"] == ["inf-3", "inf-5"]
    assert after["cities"]["pelotas"]["units"] == ["inf-4"]


def test_action_b_invade_an_enemy_held_city_is_refused():
    problems = _problems(
        {"pelotas": {"units": ["inf-3"]}, "rio-grande": {"owner": "empire", "units": ["inf-20"]}},
        "invade rio-grande from pelotas with inf-3",
    )
    assert problems and "rio-grande is held by the Empire (attack it instead)" in problems[0][1]


def test_action_b_invade_an_empty_enemy_city_takes_it_without_battle():
    position = RULES.position_from_case(
        {"cities": {"pelotas": {"units": ["inf-3", "inf-4"]}, "rio-grande": {"owner": "empire"}}}, None, []
    )
    orders, _ = RULES.parse_orders("invade rio-grande from pelotas with inf-4")
    after = RULES.resolve(position, {"republic": orders}, ScriptedDice([])).position
    assert after["cities"]["rio-grande"] == {"owner": "republic", "units": ["inf-4"], "militia": 0}


def test_action_c_move_uses_the_lowest_mf_of_the_group():
    # art MF 1, cav MF 3: together they reach only the neighbours of Bagé, which
    # are directly linked to it, so they have no move
    problems = _problems({"bage": {"units": ["art-2", "cav-3"]}}, "move art-2 cav-3 from bage to sao-gabriel")
    assert problems and "within MF 1" in problems[0][1] and "they can reach: none" in problems[0][1]
    assert not _problems({"bage": {"units": ["art-2", "cav-3"]}}, "move cav-3 from bage to sao-gabriel")


def test_action_c_move_cannot_pass_through_a_city_the_enemy_holds():
    cities = {
        "bage": {"units": ["cav-3"]},
        "piratini": {"units": ["inf-13"]},
        "dom-pedrito": {"units": ["inf-14"]},
        "cacapava": {"units": ["inf-15"]},
    }
    problems = _problems(cities, "move cav-3 from bage to pelotas")
    assert problems and "they can reach: none" in problems[0][1]


def test_action_c_each_mu_moves_once_per_turn():
    problems = _problems(
        {"bage": {"units": ["cav-3", "inf-5"]}},
        "move cav-3 from bage to cangucu\nmove cav-3 from cangucu to rio-grande",
    )
    assert problems == [(2, "cav-3 already has an order this turn (a move needs MU with no other action)")]


@pytest.mark.parametrize(
    "text",
    [
        "pass\ninvade piratini from bage with cav-3",
        "invade piratini from bage with cav-3\ninvade dom-pedrito from bage with inf-5",
    ],
)
def test_one_action_per_turn(text):
    problems = _problems({"bage": {"units": ["cav-3", "inf-5"]}}, text)
    assert [line for line, _ in problems] == [2] and "a turn is one action" in problems[0][1]


def test_action_d_no_action_and_leaving_a_city_empty_loses_its_vp():
    position = RULES.position_from_case({"cities": {"bage": {"units": ["cav-3"]}}}, None, [])
    orders, _ = RULES.parse_orders("move cav-3 from bage to pelotas")
    resolution = RULES.resolve(position, {"republic": orders}, ScriptedDice([]))
    assert resolution.position["cities"]["bage"]["owner"] == "republic"
    assert resolution.position["vp"]["republic"] == 2  # Pelotas only: Bagé is empty
    assert any(e["type"] == "city_empty" and e["city"] == "bage" for e in resolution.events)


@pytest.mark.parametrize(
    ("cities", "text", "message"),
    [
        (
            {"triunfo": {"units": ["inf-1", "inf-2"]}},
            "move inf-1 from triunfo to rio-pardo",
            "rio-pardo is directly linked to triunfo: that is an invasion (b): invade rio-pardo from triunfo "
            "with inf-1 "
            "(a move, c, ends only in a city with no direct link to its origin; "
            "from triunfo inf-1 can move to: cachoeira, camaqua, encruzilhada, santo-antonio, viamao)",
        ),
        (
            {"triunfo": {"units": ["inf-1", "inf-2"]}, "porto-alegre": {"units": ["inf-13"]}},
            "move inf-1 inf-2 from triunfo to porto-alegre",
            "porto-alegre is directly linked to triunfo: that is an attack (a): attack porto-alegre from triunfo "
            "with inf-1 inf-2",
        ),
        (
            {"pelotas": {"units": ["inf-3", "inf-4"]}, "piratini": {"units": ["inf-5"]}},
            "move inf-3 from pelotas to piratini",
            "piratini is directly linked to pelotas: that is an invasion (b): invade piratini from pelotas with inf-3",
        ),
    ],
)
def test_action_c_move_into_a_directly_linked_city_is_refused_and_says_what_is_legal(cities, text, message):
    problems = _problems(cities, text)
    assert len(problems) == 1 and problems[0][0] == 1 and problems[0][1].startswith(message), problems


def test_action_c_move_takes_one_city_beyond_the_direct_links_per_group():
    # two links away (through an own city or an empty one) is a move; the
    # neighbouring empty cities are not: several move lines cannot take several of them
    cities = {"bage": {"units": ["inf-5", "inf-6", "cav-3"]}}
    assert not _problems(cities, "move inf-5 from bage to sao-gabriel\nmove cav-3 from bage to encruzilhada")
    problems = _problems(cities, "move inf-5 from bage to dom-pedrito\nmove cav-3 from bage to piratini")
    assert [line for line, _ in problems] == [1, 2]
    assert all("that is an invasion (b)" in message for _, message in problems)


def test_action_c_legal_actions_never_move_into_a_directly_linked_city():
    from pbem.rules.farrapos.board import load_board
    from pbem.rules.farrapos.legal import legal_actions
    from pbem.rules.farrapos.orders import Move

    moves = [a for a in legal_actions(RULES.setup(None, []), "republic") if isinstance(a, Move)]
    assert moves and not [m for m in moves if load_board().linked(m.origin, m.destination)]
    assert not [m for m in moves if "art-1" in m.units or "art-2" in m.units]  # artillery: MF 1
