"""What a Farrapos resolution's reports (the next turn file's order template and
the map) no longer work out, a fourth round: each test counts, never times, and
fails on the code before the change it guards.

- an order template looked at each city's MU through the View three times for
  each stack of the side (the stack itself, then again for its attacks and again
  for its invasions), and at the MU of each city holding only the other side's;
  it now reads each city's MU off the position once, and a stack's attacks and
  invasions in one pass over its path lines (``legal.linked_targets``), the same
  as ``attack_targets`` and ``invasion_targets`` give;
- the map wrote each float of a badge, an arrow or a battle's ring (some 1,500
  instructions a float) in every map; each is now written once per process
  (``svg._coord``), as the maps of a batch draw them at the same few places.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.rules import find_ruleset
from pbem.rules.farrapos import legal, svg
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


class _CountingCoords(dict[float, str]):
    """The map's written floats, counting each one written (not found)."""

    def __init__(self) -> None:
        super().__init__()
        self.written = 0

    def __setitem__(self, key: float, value: str) -> None:
        self.written += 1
        super().__setitem__(key, value)


def test_a_map_writes_each_float_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second map of a position with moves, battles and badges writes no float
    again (its badges drawn again too: their cache emptied), and the map is the same."""
    coords = _CountingCoords()
    monkeypatch.setattr(svg, "_COORDS", coords)
    drawn = 0
    for position, events in _positions_with_events()[::4]:
        svg._badge.cache_clear()
        first = svg.render(position, events)
        written = coords.written
        svg._badge.cache_clear()
        assert svg.render(position, events) == first
        assert coords.written == written
        drawn += written > 0
    assert drawn > 5


def test_a_coordinate_is_written_as_python_writes_it() -> None:
    rng = random.Random(3)
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 12, 0, 1e-7, 2.5e16]
    values += [round(rng.uniform(-1000, 1000), rng.choice((0, 1, 2))) for _ in range(2000)]
    for v in values + values:
        assert svg._coord(v) == f"{v}", v


def _positions_with_events() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each position of a bot game after a turn, with that turn's events."""
    seen: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    play_game(
        7, {"republic": "greedy", "empire": "random"}, after_turn=lambda b, after, s, ev: seen.append((after, ev))
    )
    return seen
