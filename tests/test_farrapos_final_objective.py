"""Rulebook, "Final Objective": 24 VP before Phase 11 (1845) wins at once;
otherwise the most VP at the end of the 4th turn of Phase 11; a tie is a draw
(documented)."""

from pbem.rules import find_ruleset
from pbem.rules.base import NO_ORDERS, OutcomeKind
from pbem.rules.dice import ScriptedDice
from pbem.rules.farrapos.victory import check_victory

RULES = find_ruleset("farrapos")


def test_final_objective_24_vp_before_1845_wins_at_once():
    outcome = check_victory(1844, 4, {"empire": 24, "republic": 3})
    assert outcome and outcome.kind is OutcomeKind.WIN and outcome.winner == "empire"
    assert check_victory(1844, 4, {"empire": 23, "republic": 3}) is None


def test_final_objective_24_vp_in_1845_does_not_end_the_game_early():
    assert check_victory(1845, 3, {"empire": 30, "republic": 3}) is None


def test_final_objective_both_over_24_the_higher_wins_equal_plays_on():
    assert check_victory(1840, 1, {"empire": 24, "republic": 25}).winner == "republic"
    assert check_victory(1840, 1, {"empire": 24, "republic": 24}) is None


def test_final_objective_most_vp_at_the_end_of_turn_4_of_1845_and_a_tie_is_a_draw():
    assert check_victory(1845, 4, {"empire": 10, "republic": 9}).winner == "empire"
    draw = check_victory(1845, 4, {"empire": 9, "republic": 9})
    assert draw.kind is OutcomeKind.DRAW and draw.winner is None


def test_final_objective_game_over_position_has_no_side_due_and_keeps_the_last_label():
    position = RULES.position_from_case(
        {"phase": 1845, "turn": 4, "cities": {"lages": {"units": ["inf-20"]}}}, None, []
    )
    final = RULES.resolve(position, {"empire": NO_ORDERS}, ScriptedDice([])).position
    assert RULES.due(final) == ()
    assert RULES.outcome(final).winner == "empire"
    assert RULES.turn_label(final) == "1845, turn 4 (Empire)"
    orders, _ = RULES.parse_orders("pass")
    assert "game is over" in RULES.validate(final, "republic", orders)[0].message
