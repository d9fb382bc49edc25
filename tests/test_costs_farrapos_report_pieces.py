"""What a Farrapos resolution's reports (the next turn file's order template and
the map) no longer work out, a fourth round: each test counts, never times, and
fails on the code before the change it guards.

- an order template looked at each city's MU through the View three times for
  each stack of the side (the stack itself, then again for its attacks and again
  for its invasions), and at the MU of each city holding only the other side's;
  it now reads each city's MU off the position once, and a stack's attacks and
  invasions in one pass over its path lines (``legal.linked_targets``), the same
  as ``attack_targets`` and ``invasion_targets`` give.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.rules import find_ruleset
from pbem.rules.farrapos import legal
from pbem.rules.farrapos import ruleset as farrapos_ruleset
from pbem.rules.farrapos.counters import SIDES
from pbem.rules.farrapos.position import View
from tests.support.calls import counted_calls
from tests.support.farrapos_games import play_game

RULES = find_ruleset("farrapos")


def _positions() -> list[dict[str, Any]]:
    """Every position of two bot games."""
    seen: list[dict[str, Any]] = []
    for seed, bots in enumerate((("greedy", "random"), ("random", "greedy"))):
        play_game(seed, dict(zip(SIDES, bots)), after_turn=lambda before, *_: seen.append(before))
    return seen


def test_linked_targets_are_the_attacks_and_invasions_of_a_stack() -> None:
    """For each side's stacks in many positions: ``linked_targets`` gives what
    ``attack_targets`` and ``invasion_targets`` give, in the same order."""
    checked = 0
    for position in _positions():
        view = View(position)
        for side in SIDES:
            for city in view.board.cities:
                if legal.mu_in(view, side, city):
                    expected = (legal.attack_targets(view, side, city), legal.invasion_targets(view, side, city))
                    assert legal.linked_targets(view, side, city) == expected
                    checked += 1
    assert checked > 500


def test_an_order_template_reads_each_stack_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """An order template asks the View for no city's MU (it read them three times a
    stack, and once for each city of the other side's), and finds each stack's
    attacks and invasions in one call; the template is the same as before: its
    stacks' lines list what ``attack_targets`` and ``invasion_targets`` give."""
    mu_of = counted_calls(monkeypatch, View, "mu_of")
    linked = counted_calls(monkeypatch, farrapos_ruleset, "linked_targets")
    templates = 0
    for position in _positions()[::4]:
        due = RULES.due(position)
        if not due:
            continue
        (side,) = due
        view = View(position)
        stacks = [c for c in view.board.cities if legal.mu_in(view, side, c)]
        mu_of.clear()
        linked.clear()
        text = RULES.order_template(position, side)
        assert mu_of == []
        assert [args[2] for args in linked] == stacks
        for city in stacks:
            attacks = legal.attack_targets(view, side, city)
            if attacks:
                assert f"#     attack: {' '.join(attacks)}" in text
        templates += 1
    assert templates > 10
