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
  (``svg._coord``), as the maps of a batch draw them at the same few places;
- each stack's heading in the map's stacks (its city and holder) was put
  together again in every map (``_text``, its escape and quoted colour); it is
  made once per board, city and holder (``svg._heading``);
- the board in words worded each MU (its face and factors) again in every
  report and sorted the held cities by name; each MU is worded once per sheet,
  MU and face, and the cities' order by name is worked out once per board.
"""

from __future__ import annotations

import random
import re
import textwrap
from typing import Any

import pytest

from pbem.rules import find_ruleset, template_text
from pbem.rules.farrapos import legal, svg
from pbem.rules.farrapos.board_bits import BoardBits
from pbem.rules.farrapos.counters import SIDES, Counter
from pbem.rules.farrapos.position import View
from pbem.rules.kept import PerObject
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
    linked = counted_calls(monkeypatch, BoardBits, "linked")  # ``linked_targets`` read off the board's bits
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
        assert [args[1] for args in linked] == stacks
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
        svg._shipped_drawing().badge_texts.clear()
        first = svg.render(position, events)
        written = coords.written
        svg._shipped_drawing().badge_texts.clear()
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


def test_a_stacks_heading_is_made_once_per_city_and_holder(monkeypatch: pytest.MonkeyPatch) -> None:
    """A map made again makes none of its stacks' headings again; the map is the same."""
    made = counted_calls(monkeypatch, svg, "_heading")
    monkeypatch.setattr(svg, "_HEADINGS", PerObject())
    for position, events in _positions_with_events()[::8]:
        first = svg.render(position, events)
        made.clear()
        assert svg.render(position, events) == first
        assert made == []
    assert svg._HEADINGS


def _old_board_lines(position: dict[str, Any]) -> list[str]:
    """The board in words as it was worked out before: each MU worded in each report."""
    view = View(position)
    board, cities, counters, reduced = view.board, view.cities, view.sheet.counters, view.reduced
    held = []
    for cid in board.cities:
        data = cities[cid]
        units, militia = data["units"], int(data["militia"])
        if units or militia:
            held.append((board.cities[cid].name, cid, data["owner"], units, militia))
    lines = []
    for name, cid, owner, units, militia in sorted(held, key=lambda h: h[0]):
        parts = []
        for unit in units:
            face = unit in reduced
            f = counters[unit].factors(face)
            parts.append(f"{unit} {'reduced' if face else 'full'} MF{f.mf} AF{f.af} DF{f.df}")
        if militia:
            parts.append(f"militia x{militia} DF{view.sheet.militia_df}")
        lines.append(f"{name} ({cid}), {owner}: " + ", ".join(parts))
    return lines


def test_the_board_in_words_words_each_mu_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board in words of a position, asked again, asks no counter its factors
    and sorts nothing; its lines are those worked out before, in every position of
    two games."""
    positions = _positions()
    for position in positions:
        assert RULES.board_lines(position) == _old_board_lines(position)
    factors = counted_calls(monkeypatch, Counter, "factors")
    sorts: list[Any] = []
    real_sorted = sorted
    monkeypatch.setattr("builtins.sorted", lambda *a, **k: sorts.append(a) or real_sorted(*a, **k))
    for position in positions[::10]:
        RULES.board_lines(position)
        factors.clear()
        sorts.clear()
        assert RULES.board_lines(position)
        assert factors == [] and sorts == []


class _CountingPattern:
    """A compiled expression, counting its uses."""

    def __init__(self, real: Any) -> None:
        self.real, self.used = real, 0

    def match(self, text: str) -> Any:
        self.used += 1
        return self.real.match(text)

    def fullmatch(self, text: str) -> Any:
        self.used += 1
        return self.real.fullmatch(text)


def _old_wrap_line(line: str, width: int) -> tuple[str, ...]:
    """``template_text._wrap_line`` as it was: the lead by one expression, the words
    checked by another, else textwrap."""
    match = re.match(r"^(#\s*)(.*)$", line)
    if match is None:
        return (line,)
    lead, words = match.group(1), match.group(2)
    if re.fullmatch(r"[^\s]+(?: [^\s]+)*", words):
        return tuple(template_text._wrap_words(words, width, lead, lead + "  "))
    return tuple(
        textwrap.wrap(
            words,
            width=width,
            initial_indent=lead,
            subsequent_indent=lead + "  ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    )


def test_a_long_comment_line_of_plain_words_is_cut_without_expressions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The long lines of the order templates of many positions are cut with no
    regular expression; random lines (tabs, odd spaces, lines that are not
    comments) are cut as before."""
    rng = random.Random(11)
    pieces = ["#", " ", "  ", "\t", "\xa0", "\u200b", "\u2028", "\x1f", "a", "bb", "cruz-alta", "São", "é", "-"]
    for _ in range(4000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randrange(30, 90)))
        line = rng.choice(("#", "# ", "#   ", "", " #")) + line
        for width in (20, 40, 72):
            if len(line) > width:
                assert template_text._wrap_line(line, width) == _old_wrap_line(line, width), repr(line)
    lead = _CountingPattern(template_text._COMMENT)
    plain = _CountingPattern(template_text._PLAIN_WORDS)
    monkeypatch.setattr(template_text, "_COMMENT", lead)
    monkeypatch.setattr(template_text, "_PLAIN_WORDS", plain)
    long_lines = 0
    for position in _positions()[::3]:
        due = RULES.due(position)
        if due:
            template_text._wrapped.clear()
            text = RULES.order_template(position, due[0])
            long_lines += sum(line.startswith("#     ") for line in text.split("\n"))
    assert lead.used == plain.used == 0 and long_lines > 20
