"""Section 10: victory conditions, and the end of the scenario (3.1)."""

from __future__ import annotations

from pbem.rules.base import OutcomeKind
from pbem.rules.furor_barbarus.battlefield import morale_points
from pbem.rules.furor_barbarus.victory import core_outcome
from tests.support.furor_barbarus_test_map import RULES, battlefield, dice, position


def test_10_eliminated_strength_commander_plus_4_baggage_plus_2() -> None:
    field = battlefield({"neustrie": "0404", "charles": "0404", "baggage-c": "0504", "provence": "0604"})
    assert morale_points(field.counter("charles")) == 1 + 4
    assert morale_points(field.counter("baggage-c")) == 1 + 2
    field.eliminate("neustrie", "test")  # the commander dies with him
    field.eliminate("baggage-c", "test")
    assert field.losses("charles") == 3 + 5 + 3


def test_10_one_army_past_its_threshold_is_a_major_victory_for_the_other() -> None:
    field = battlefield({}, losses={"charles": 10, "lothaire": 3})  # charles' threshold is 10
    o = core_outcome(field, last_turn=False)
    assert o is not None and (o.kind, o.winner) == (OutcomeKind.MAJOR_VICTORY, "lothaire")
    assert core_outcome(battlefield({}, losses={"charles": 9}), last_turn=False) is None


def test_10_both_past_the_one_past_by_the_least_wins_a_minor_victory() -> None:
    o = core_outcome(battlefield({}, losses={"charles": 13, "lothaire": 12}), last_turn=False)  # 3 and 1 over
    assert o is not None and (o.kind, o.winner) == (OutcomeKind.MINOR_VICTORY, "lothaire")
    o = core_outcome(battlefield({}, losses={"charles": 11, "lothaire": 12}), last_turn=False)
    assert o is not None and o.kind is OutcomeKind.DRAW


def test_10_end_of_scenario_lesser_losses_minor_victory_else_draw() -> None:
    o = core_outcome(battlefield({}, losses={"charles": 2, "lothaire": 5}), last_turn=True)
    assert o is not None and (o.kind, o.winner) == (OutcomeKind.MINOR_VICTORY, "charles")
    o = core_outcome(battlefield({}, losses={"charles": 2, "lothaire": 2}), last_turn=True)
    assert o is not None and o.kind is OutcomeKind.DRAW


def test_10_checked_in_phase_5_after_player_2() -> None:
    pos = position({"neustrie": "0404", "bourgogne": "0901"}, losses={"charles": 10}, player="charles")
    res = RULES.resolve(pos, {}, dice())
    assert res.position["phase"] == "over"
    assert RULES.outcome(res.position).winner == "lothaire"  # type: ignore[union-attr]
    pos = position({"neustrie": "0404", "bourgogne": "0901"}, losses={"charles": 10}, player="lothaire")
    res = RULES.resolve(pos, {}, dice())
    assert res.position["phase"] == "play" and RULES.outcome(res.position) is None  # not checked mid-turn


def test_3_1_game_ends_after_the_last_turn() -> None:
    pos = position({"neustrie": "0404", "bourgogne": "0901"}, turn=6, player="charles")
    res = RULES.resolve(pos, {}, dice())
    assert res.position["phase"] == "over" and RULES.due(res.position) == ()
    pos = position({"neustrie": "0404", "bourgogne": "0901"}, turn=5, player="charles")
    res = RULES.resolve(pos, {}, dice())
    assert res.position["turn"] == 6 and RULES.due(res.position) == ("lothaire",)
