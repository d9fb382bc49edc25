"""Costs of checking a Furor Barbarus turn file that must not come back (each test
counts, never times); a Campus Mauriacus file is a dozen moves and a few attacks over
a battle of 44 units:

- the check of a file worked out each attack's strengths and odds (both sides'
  strengths, the commanders, the special rules' modifiers), which it never reads: it
  now works them out only where they decide whether the attack is legal (a lone
  missile unit attacking hand to hand, 9.3);
- the check's copy of the position copied each unit's entry in a comprehension (a
  Python step a unit); ``dict.copy`` is now called by ``map``;
- the enemy zone of control joined each enemy unit's reach into the zone with a call
  of ``set.update`` an enemy unit; the reach of all of them is now joined in one call.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus import combat, ruleset, zones_of_control
from pbem.rules.furor_barbarus.orders import AttackOrder
from tests.support.calls import c_calls, counted_calls, opcodes
from tests.support.furor_turns import bot_turns


def _with_attacks(scenario: str, count: int) -> list[tuple[Any, str, Any]]:
    """The play resolutions of a bot game of ``scenario`` whose orders hold an attack."""
    return [
        (position, side, orders)
        for position, side, orders in bot_turns(scenario, count)
        if any(isinstance(ol.order, AttackOrder) for ol in orders)
    ]


def test_a_file_s_check_works_out_no_attack_s_strengths(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = find_ruleset("furor-barbarus")
    turns = _with_attacks("campus-mauriacus", 12)
    worked_out = counted_calls(monkeypatch, combat, "compute_strengths")
    attacks = 0
    for position, side, orders in turns:
        rules.validate(position, side, orders)
        attacks += sum(isinstance(ol.order, AttackOrder) for ol in orders)
    assert attacks >= 5
    lone_missiles = [c for _field, c in worked_out if len(c.attackers) == 1 and c.melee]
    assert len(worked_out) == len(lone_missiles)  # one an attack before, read by no one


@pytest.mark.parametrize("scenario", ["campus-mauriacus", "vouille", "tolbiac", "soissons"])
def test_an_attack_is_refused_or_accepted_as_before_without_its_strengths(scenario: str) -> None:
    """The same faults with and without the strengths, and the same combat but its strengths."""
    rules = find_ruleset("furor-barbarus")
    compared = 0
    for position, side, orders in bot_turns(scenario, 12):
        field = rules.field(position)
        for ol in orders:
            o = ol.order
            if not isinstance(o, AttackOrder):
                continue
            for attackers in (o.all_attackers, o.all_attackers[:1], o.all_attackers[::-1]):
                faults, full = combat.declare(field, side, o.target, attackers, o.charge)
                checked, bare = combat.declare(field, side, o.target, attackers, o.charge, strengths=False)
                assert checked == faults
                assert (full is None) == (bare is None)
                if full is not None and bare is not None:
                    assert (bare.attackers, bare.melee, bare.ranged, bare.commanders) == (
                        full.attackers,
                        full.melee,
                        full.ranged,
                        full.commanders,
                    )
                compared += 1
    assert compared >= 3


def test_the_check_s_copy_of_the_units_takes_no_python_step_a_unit() -> None:
    rules = find_ruleset("furor-barbarus")
    position = bot_turns("campus-mauriacus", 1)[0][0]
    assert len(position["units"]) == 44

    def steps(pos: dict[str, Any]) -> int:
        copies: list[dict[str, Any]] = []
        count = opcodes(lambda: copies.append(ruleset.copied_position(pos)))
        [copy] = copies
        assert copy == pos and all(copy["units"][u] is not pos["units"][u] for u in pos["units"])
        return count

    no_units = dict(position, units={})
    assert steps(position) - steps(no_units) < 10  # some 16 Python steps a unit before (700 for 44)
    assert rules.field(position).units == position["units"]


def test_the_enemy_zone_is_joined_in_one_call() -> None:
    rules = find_ruleset("furor-barbarus")
    position, side, _orders = bot_turns("campus-mauriacus", 1)[0]
    field = rules.field(position)
    (zone, where), updates = c_calls(lambda: zones_of_control.zone_and_index(field, side), "update")
    assert updates == 0  # one an enemy unit before (22 in Campus Mauriacus)
    assert zone == zones_of_control._zone_of_enemies(rules.field(position), side)
    assert where == rules.field(position).occupied()
