"""What a Farrapos order template no longer works out, a further round: each test
counts, never times, and fails on the code before the change it guards.

- each stack's moves were a breadth-first walk of the View per MF level (dicts
  of steps, a frontier list, the holder of each city met), and its attacks and
  invasions a pass over its path lines asking the holder of each: they are now
  read off the board's cities as the bits of an int (``board_bits``), the enemy's
  cities one mask per template, a walk's step the path lines out of a frontier
  kept per board and frontier; the same cities in the same order, compared with
  ``legal`` over every stack of many bot positions;
- the lines between the title and the side's MU (the order forms and their
  notes) were fitted to the width in every template; they are fitted once per
  process.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from pbem.rules import find_ruleset, template_text
from pbem.rules.farrapos import legal
from pbem.rules.farrapos import template as farrapos_template
from pbem.rules.farrapos.board_bits import board_bits
from pbem.rules.farrapos.counters import SIDES, Counter
from pbem.rules.farrapos.position import View, enemy
from tests.support.calls import counted_calls
from tests.support.farrapos_games import play_game

RULES = find_ruleset("farrapos")


@cache
def _positions() -> list[dict[str, Any]]:
    """Every position of three bot games, played once per test process (read, never changed)."""
    seen: list[dict[str, Any]] = []
    for seed, bots in enumerate((("greedy", "random"), ("random", "random"), ("random", "greedy"))):
        play_game(40 + seed, dict(zip(SIDES, bots)), after_turn=lambda before, *_: seen.append(before))
    return seen


def test_the_bits_give_what_legal_gives() -> None:
    """For each side and each city with its MU, in many positions: the attacks and
    invasions are ``legal.linked_targets``'s, and the moves at each MF from 1 to 4
    are ``legal.destinations_within``'s, sorted; the enemy's mask is the cities the
    View says the enemy holds."""
    checked = 0
    for position in _positions():
        for side in SIDES:
            view = View(position)
            bits = board_bits(view.board)
            owned, stacks, foe = farrapos_template._survey(view, side)
            assert bits.cities(foe) == sorted(c for c in view.board.cities if view.controller(c) == enemy(side))
            assert owned == legal.placement_cities(view, side)
            assert stacks == [
                (c, legal.mu_in(view, side, c), int(view.cities[c]["militia"]))
                for c in view.board.cities
                if legal.mu_in(view, side, c)
            ]
            for city in view.board.cities:
                if not legal.mu_in(view, side, city):
                    continue
                assert bits.linked(city, foe) == legal.linked_targets(view, side, city)
                for mf in range(1, 5):
                    moves = bits.moves(city, mf, foe)
                    assert list(bits.names(moves)) == sorted(legal.destinations_within(view, side, city, mf))
                    checked += 1
    assert checked > 2000


def test_an_order_template_walks_no_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """An order template asks the View for no walk and no holder (a walk per stack
    and MF level, and a holder per neighbour, before), and the order forms' lines
    are fitted once per process: a template's fit looks at no line of them."""
    positions = [p for p in _positions()[::4] if RULES.due(p)]
    walks = counted_calls(monkeypatch, View, "_walk")
    holders: list[View] = []
    real_holders = View.holders.fget
    assert real_holders is not None
    monkeypatch.setattr(View, "holders", property(lambda view: holders.append(view) or real_holders(view)))
    RULES.order_template(positions[0], RULES.due(positions[0])[0])  # the forms' lines fitted
    wrapped = counted_calls(monkeypatch, template_text, "_wrap_line")
    template_text._wrapped.clear()  # no long line kept: each one the template fits is wrapped again
    stacks = 0
    for position in positions:
        wrapped.clear()
        text = RULES.order_template(position, RULES.due(position)[0])
        assert "# Order forms:" in text
        stacks += text.count(" move ")
        assert not [args[0] for args in wrapped if args[0].startswith("#   attack CITY")]
    assert walks == [] and holders == [] and stacks > 50


def test_a_frontier_is_spread_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Templates made again find every walk's steps kept: the path lines out of a
    frontier are worked out once per board and frontier."""
    positions = [p for p in _positions()[::3] if RULES.due(p)]
    first = [RULES.order_template(p, RULES.due(p)[0]) for p in positions]
    spread = counted_calls(monkeypatch, type(board_bits(View(positions[0]).board)), "_spread_of")
    assert [RULES.order_template(p, RULES.due(p)[0]) for p in positions] == first
    assert spread == []


def test_each_mu_is_worded_once_per_face(monkeypatch: pytest.MonkeyPatch) -> None:
    """Templates made again read no MU's factors off its counter: each MU's MF and
    words (``inf-3 2/2/3``) are kept per counter sheet and face; the templates are
    the same."""
    positions = [p for p in _positions()[::3] if RULES.due(p)]
    first = [RULES.order_template(p, RULES.due(p)[0]) for p in positions]
    factors = counted_calls(monkeypatch, Counter, "factors")
    assert [RULES.order_template(p, RULES.due(p)[0]) for p in positions] == first
    assert factors == [] and len(positions) > 20
