"""What a Farrapos order template (the commented hints of the next turn file, sent
with every report) no longer works out: each test counts, never times, and fails
on the code before the change it guards.

- the cities a stack can move to were found by walking the path lines from its
  city over the whole board (a third of the template); the walk now stops at the
  largest MF the template asks for, going on from where a shorter question
  stopped, and gives the same cities in the same order, as do the checks of a
  move and the bots that share it (compared with the whole walk over many bot
  positions);
- a stack's attacks, invasions and moves read the View's map of holders (a
  call per city before), each MU's factors are read once, and the Militia left
  counted once;
- a long comment line was wrapped by adding its words to a line one at a time;
  it is now cut at the last space within the width (``rfind``), with the same
  lines as textwrap.
"""

from __future__ import annotations

import random
import sys
import textwrap
from typing import Any

import pytest

from pbem.rules import find_ruleset, template_text
from pbem.rules.farrapos import position as farrapos_position
from pbem.rules.farrapos.board import Board, load_board
from pbem.rules.farrapos.counters import SIDES, Counter
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


def _lines_run(traced: Any, function: Any, *args: Any) -> tuple[Any, int]:
    """``function(*args)`` and how many lines of ``traced`` ran in it."""
    code = traced.__code__
    count = [0]

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is not code:
            return None
        if event == "line":
            count[0] += 1
        return tracer

    sys.settrace(tracer)
    try:
        result = function(*args)
    finally:
        sys.settrace(None)
    return result, count[0]


def test_a_long_comment_line_is_cut_at_spaces_not_built_word_by_word() -> None:
    """A long line of an order template (a stack's moves, the cities a Militia may
    deploy in) was wrapped by adding its words to a line one at a time, some
    lines of Python a word; it is now cut at the last space within the width,
    a few lines of Python per line written, with the same lines as textwrap."""
    words = " ".join(f"city-{n}" for n in range(60))
    expected = textwrap.wrap(
        words,
        width=72,
        initial_indent="#     ",
        subsequent_indent="#       ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    wrapped, ran = _lines_run(template_text._wrap_words, template_text._wrap_line, "#     " + words, 72)
    assert list(wrapped) == expected
    assert ran <= 6 * len(expected) + 4, (ran, len(expected))  # 60 words: over 120 lines word by word


def test_an_order_template_asks_no_city_its_holder_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stack's attacks, invasions and moves asked the View who holds each
    neighbour and each city in reach, a method call each (and worked out the
    enemy again per neighbour); they now read the View's map of holders.  The
    Militia left are counted once (twice before: for the test, then the line),
    and each MU's factors once (each group's lowest MF was worked out from them
    again, for each MF among a stack's MU)."""
    positions = [position for position in _positions()[::5] if RULES.due(position)]
    mu = [sum(len(mu_in(View(p), RULES.due(p)[0], c)) for c in load_board().cities) for p in positions]
    asked = {"controller": 0, "militia_available": 0, "factors": 0}
    for name in asked:
        owner = Counter if name == "factors" else View  # each MU's factors read off its counter (View.factors)
        real = getattr(owner, name)

        def counting(self: Any, *args: Any, _name: str = name, _real: Any = real) -> Any:
            asked[_name] += 1
            return _real(self, *args)

        monkeypatch.setattr(owner, name, counting)
    for position, count in zip(positions, mu):
        militia, factors = asked["militia_available"], asked["factors"]
        assert "# Your MU" in RULES.order_template(position, RULES.due(position)[0])
        assert asked["militia_available"] - militia == 1
        # each MU's at most once, not again for each group's lowest MF (and once per process and face since
        # the MU's words are kept: tests/test_costs_farrapos_template_bits.py)
        assert asked["factors"] - factors <= count
    assert asked["controller"] == 0 and len(positions) > 20
