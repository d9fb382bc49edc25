"""What a Farrapos order template (the commented hints of the next turn file, sent
with every report) no longer works out: each test counts, never times, and fails
on the code before the change it guards.

- the cities a stack can move to were found by walking the path lines from its
  city over the whole board (a third of the template); the walk now stops at the
  largest MF the template asks for, going on from where a shorter question
  stopped, and gives the same cities in the same order, as do the checks of a
  move and the bots that share it (compared with the whole walk over many bot
  positions).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.rules import find_ruleset
from pbem.rules.farrapos import position as farrapos_position
from pbem.rules.farrapos.board import Board, load_board
from pbem.rules.farrapos.counters import SIDES
from pbem.rules.farrapos.legal import move_destinations, mu_in
from pbem.rules.farrapos.position import View
from tests.support.farrapos_games import play_game
from tests.support.farrapos_walks import whole_destinations, whole_reach

RULES = find_ruleset("farrapos")


def _positions() -> list[dict[str, Any]]:
    """Every position of four bot games (greedy and random, both sides)."""
    seen: list[dict[str, Any]] = []
    for seed, bots in enumerate(
        (("greedy", "random"), ("random", "random"), ("random", "greedy"), ("greedy", "greedy"))
    ):
        play_game(seed, dict(zip(SIDES, bots)), after_turn=lambda before, *_: seen.append(before))
    return seen


def test_a_bounded_walk_finds_what_the_whole_walk_found() -> None:
    """For each side and each city with its MU, in many positions: the cities each
    group of the stack can move to (the whole stack, each MU alone, each MF level
    of the template) are the whole walk's, in its order, whichever MF is asked
    first of a View; and ``steps_to`` gives the whole walk's steps within each limit."""
    rng = random.Random(5)
    checked = 0
    for position in _positions():
        for side in SIDES:
            view = View(position)
            stacks = [(c, mu_in(view, side, c)) for c in view.board.cities if mu_in(view, side, c)]
            groups = [
                (origin, group)
                for origin, mu in stacks
                for group in [mu, *([u] for u in mu)]
                + [[u for u in mu if view.factors(u).mf >= mf] for mf in {view.factors(u).mf for u in mu}]
            ]
            rng.shuffle(groups)  # one View: walks asked short and long in any order
            for origin, group in groups:
                assert move_destinations(view, side, origin, group) == whole_destinations(view, side, origin, group)
                checked += 1
            for origin, _ in stacks:
                whole = whole_reach(view, side, origin)
                fresh = View(position)
                for destination in rng.sample(sorted(view.board.cities), 8):
                    for limit in rng.sample(range(5), 5):
                        steps = whole.get(destination, 0)
                        expected = steps if steps <= limit else 0
                        assert fresh.steps_to(side, origin, destination, limit) == expected
                        assert View(position).steps_to(side, origin, destination, limit) == expected
    assert checked > 2000


class _CountingAdjacency(dict[str, tuple[str, ...]]):
    """A board's neighbours, counting each city whose neighbours are read."""

    def __init__(self, real: dict[str, tuple[str, ...]]) -> None:
        super().__init__(real)
        self.read: list[str] = []

    def __getitem__(self, city: str) -> tuple[str, ...]:
        self.read.append(city)
        return super().__getitem__(city)


def test_an_order_template_walks_no_farther_than_a_stacks_mf(monkeypatch: pytest.MonkeyPatch) -> None:
    """An order template's walk reads the neighbours of a city only when it lies
    within the stack's largest MF less one line of the stack's city (the walk goes
    no farther than the MF asked), and at most once per stack: the whole walk read
    every city a stack could reach, however far.  Beside the walk, a stack's
    attacks and invasions read its city's neighbours once each, and each of its
    MF levels once (the cities its moves may not end in)."""
    shipped = load_board()
    adjacency = _CountingAdjacency(dict(shipped.adjacency))
    board = Board(shipped.cities, shipped.colours, shipped.links, shipped.port_bonus, adjacency)
    monkeypatch.setattr(farrapos_position, "load_board", lambda: board)
    fewer = 0
    for position in _positions()[::3]:
        (side,) = RULES.due(position) or ("republic",)
        view = View(position, shipped)
        allowed = 0
        whole = 0
        for city in shipped.cities:
            mu = mu_in(view, side, city)
            if mu:
                walk = whole_reach(view, side, city)
                levels = {view.factors(u).mf for u in mu}
                foe = farrapos_position.enemy(side)
                expanded = [c for c in walk if c == city or view.controller(c) != foe]
                allowed += sum(1 for c in expanded if walk[c] < max(levels)) + 2 + len(levels)
                whole += len(expanded) + 2 + len(levels)
        adjacency.read.clear()
        RULES.order_template(position, side)
        assert len(adjacency.read) <= allowed, (len(adjacency.read), allowed)
        fewer += allowed < whole
    assert fewer > 10
