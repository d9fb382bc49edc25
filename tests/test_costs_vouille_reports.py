"""What a Vouille resolution's reports no longer cost (the instruction budget of
``process --all --reports``, ``bench/budgets.py``): each test counts what is done,
never time, and fails on the reports before this work; the reports are the same
bytes (``bench/fingerprint.py``).

- a Furor Barbarus map is drawn on the position it is given, without the copy a
  field makes first (the drawing reads the position and changes nothing);
- a counter's numbers are written once per column and once per row of its place
  (``svg_counters._across`` and ``_down``), not once per place: a counter drawn at
  a place new to the process finds them written;
- a unit's words in the board in words are put together once per counter, side and
  face in a process (units keep them from one resolution to the next), its roster
  line's words and look once per unit's state and column (its row and hex written
  into them), and what its counter owes to its state alone once per unit, face and
  colour (its place's pieces written into it);
- a page writes the map as the rules layer gave it: not a copy made by the regular
  expression that takes out an XML prolog the map does not have, then one as
  ``Markup``, then one more per page as Jinja escaped that ``Markup`` (a copy of a
  Vouille map's 100 kB is some 100,000 instructions);
- each page works out the names of its next turn file and of its position file
  once (each is a property of the report's data, worked out where it is named: up
  to eleven times a page);
- the text report's ``wordwrap`` gives a line that fits back at once (without
  keeping it to find it again), and its ``indent`` a one-line text (Jinja's own
  split the text into lines and joined them again); both give Jinja's text.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from jinja2.filters import do_indent
from markupsafe import Markup

from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.reports import wrap
from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus import ruleset as furor_ruleset
from pbem.rules.furor_barbarus import svg as furor_svg
from pbem.rules.furor_barbarus import svg_counters, svg_shapes
from pbem.rules.furor_barbarus.counters import Counter
from pbem.turnfiles import position_file
from tests.support.calls import counted_calls
from tests.support.map_positions import every_map


def test_a_map_is_drawn_without_a_copy_of_its_position(monkeypatch: pytest.MonkeyPatch) -> None:
    maps = [drawn for drawn in every_map() if drawn.rules_id != "farrapos"]
    assert maps
    copies = counted_calls(monkeypatch, furor_ruleset, "copied_position")
    for drawn in maps:
        position = copy.deepcopy(drawn.position)
        svg = find_ruleset(drawn.rules_id).map_svg(position, drawn.events, None)
        assert 'class="counter"' in svg
        assert position == drawn.position  # nothing changed in it
    assert copies == []


def test_a_counter_at_a_new_place_in_a_known_column_and_row_writes_no_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x1, x2, y1, y2 = 1001.5, 1049.5, 2003.25, 2058.75  # places no map draws a counter at
    unit = ("visigoth-cavalry-2", "Visigothic cavalry", "missile_cavalry", "4-6", False)
    for x, y in ((x1, y1), (x2, y2)):
        svg_counters.counter(*unit, "0101", x, y, "#a83232", "vis-cav-2", True)
    written: list[float] = []

    def counted(real: Any) -> Any:
        def call(v: float) -> str:
            written.append(v)
            return str(real(v))

        return call

    monkeypatch.setattr(svg_counters, "tenths", counted(svg_counters.tenths))
    monkeypatch.setattr(svg_shapes, "tenths", counted(svg_shapes.tenths))  # the type symbol's numbers too
    markup, id_mark, factors_mark = svg_counters.counter(*unit, "0102", x1, y2, "#a83232", "vis-cav-2", True)
    assert written == []
    assert f'<rect class="counter-box" x="{x1:.1f}" y="{y2:.1f}" width="46.0" height="36.0"' in markup
    assert f'<path d="M{x1 + 23 - 9 + 18 * 0.3:.1f},{y2 + 12.5 + 10:.1f} Q' in markup  # the bow of a missile unit
    assert id_mark == svg_counters._label_mark(float(f"{x1 + 23:.1f}"), float(f"{y2 + 10:.1f}"), "vis-cav-2", 9.0)
    assert factors_mark == svg_counters._label_mark(float(f"{x1 + 23:.1f}"), float(f"{y2 + 33:.1f}"), "4-6", 10.5)


def test_a_unit_known_to_the_process_is_worded_again_nowhere(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = next(d for d in every_map() if d.rules_id != "farrapos")
    ruleset = find_ruleset(drawn.rules_id)
    lines = ruleset.board_lines(drawn.position)
    moved = copy.deepcopy(drawn.position)
    for entry in moved["units"].values():  # every unit one hex further down its column
        if entry["hex"]:
            entry["hex"] = entry["hex"][:2] + f"{int(entry['hex'][2:]) + 1:02d}"
    valued = 0
    real_value = Counter.value

    def value(self: Counter, reduced: bool) -> int:
        nonlocal valued
        valued += 1
        return real_value(self, reduced)

    monkeypatch.setattr(Counter, "value", value)
    moved_lines = ruleset.board_lines(moved)
    assert valued == 0
    assert [line.split(": ", 1)[1] for line in moved_lines] == [line.split(": ", 1)[1] for line in lines]


def test_a_known_unit_at_a_new_place_is_put_together_again_nowhere(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ("0101", "salian-9", "sal-9", "4-4", False, "Salian Franks", "#2f5597")
    first = furor_svg._roster_line(10.0, 2001.5, *args)
    texts, escaped = 0, 0
    real_text, real_t = furor_svg._text, svg_counters._t

    def text(*a: Any, **k: Any) -> str:
        nonlocal texts
        texts += 1
        return real_text(*a, **k)

    def t(x: object) -> str:
        nonlocal escaped
        escaped += 1
        return real_t(x)

    svg_counters.counter(
        "salian-9", "Salian Franks", "infantry", "4-4", False, "0101", 9.0, 2.5, "#2f5597", "sal-9", False
    )
    monkeypatch.setattr(furor_svg, "_text", text)
    monkeypatch.setattr(svg_counters, "_t", t)
    second = furor_svg._roster_line(10.0, 2017.5, "0102", *args[1:])
    markup, *_marks = svg_counters.counter(
        "salian-9", "Salian Franks", "infantry", "4-4", False, "0102", 9.0, 58.0, "#2f5597", "sal-9", True
    )
    assert texts == 0 and escaped == 0
    assert second == first.replace('y="2001.5"', 'y="2017.5"').replace(">0101 ", ">0102 ")
    assert 'class="attacker"' in markup and "in 0102</title>" in markup


def test_a_page_names_its_files_once(farrapos_game: tuple[Any, str], monkeypatch: pytest.MonkeyPatch) -> None:
    db, game = farrapos_game
    views = reporting.views_keeping_history(db, game, 3, None)
    data = next(v for v in views if v.next_turn_file)
    shared = report.Shared(data)
    report.render_html(data, shared=shared)  # the downloads' links made once for the resolution
    named = {"turn": 0, "position": 0}
    real_turn, real_position = report.turn_file_name, position_file.file_name

    def turn(*args: Any) -> str:
        named["turn"] += 1
        return real_turn(*args)

    def position(*args: Any) -> str:
        named["position"] += 1
        return real_position(*args)

    monkeypatch.setattr(report, "turn_file_name", turn)
    monkeypatch.setattr(position_file, "file_name", position)
    html, text = report.render_html(data, shared=shared), report.render_text(data, shared)
    name = data.next_turn_file_name
    assert html.count(name) >= 7 and text.count(name) >= 9
    # each page once, and the HTML page's list of its files once more for the turn file; the position
    # file's name is kept per game and resolution (named by the first render above: never again)
    assert named == {"turn": 3 + 1, "position": 0}


def test_a_page_writes_the_map_itself(farrapos_game: tuple[Any, str]) -> None:
    db, game = farrapos_game
    views = reporting.views_keeping_history(db, game, 3, None)
    shared = report.Shared(views[0])
    for data in views:
        assert data.map_svg.startswith("<svg")
        pieces, alike = report._html_pieces(data, None, None, shared)
        assert alike[0] is data.map_svg
        assert [piece for piece in pieces if piece is data.map_svg] == [data.map_svg]


def test_wordwrap_gives_a_line_that_fits_back_without_keeping_it() -> None:
    env = report.environment()
    line = "0101: laeti Laeti, visigoths infantry 2-4 (a line no map names)"
    wrap._wrapped.clear()
    assert wrap.wordwrap(env, line, 70, False) is line
    assert wrap._wrapped == {}
    longer = line + " and more words, to go past seventy columns"
    assert wrap.wordwrap(env, longer, 70, False) == "\n".join(wrap.fill(longer, 70))
    assert len(wrap._wrapped) == 1


def test_indent_gives_a_one_line_text_back_and_jinjas_text_always() -> None:
    indent = report.environment().filters["indent"]
    line = "visigoth-cavalry-5 (vis-cav-5) Visigothic cavalry"
    assert indent(line, 4) is line
    rng = random.Random(7)
    pieces = ["a", "b c", " ", "\n", "\r", "\r\n", "\x85", "\u2028", "\x0b", "\t", "-", ""]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        for value in (text, Markup(text)):
            width = rng.choice([4, 2, "> "])
            first, blank = rng.random() < 0.3, rng.random() < 0.3
            got, expected = indent(value, width, first, blank), do_indent(value, width, first, blank)
            assert got == expected and type(got) is type(expected), (value, width, first, blank)
