"""What the report pages no longer spend on the values they write (the instruction
budget of ``process --all --reports``, ``bench/budgets.py``): each test counts what
is done, never time, and fails on the pages before this work.

- an HTML template wrote each value through markupsafe's ``escape``, which made a
  ``Markup`` through its Python ``__new__`` for every value, some 5,000 instructions
  each and some two hundred values a resolution: a plain string with nothing to
  escape and a whole number are now written as they are (``html_escape.escape``), the
  same text, checked here against markupsafe on values holding every character
  escaping changes;
- the board in words of the text report called the ``wrap_indent`` filter once a
  line (the filter, its check and a loop step each, some forty lines a Campus
  Mauriacus board): the lines go to ``wrap_lines`` in one call, which gives lines that
  all fit back joined at once, the same text as the filter line by line.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from enum import IntEnum
from pathlib import Path
from typing import Any, cast

import jinja2
import pytest
from markupsafe import Markup
from markupsafe import escape as markup_escape

from pbem.reports import assemble as reporting
from pbem.reports import html_escape, wrap
from pbem.reports import render as report
from pbem.reports.battle_table import battle_blocks
from pbem.reports.event_lines import _event_details, detail_value, event_lines
from pbem.reports.parts import TextReportParts
from pbem.store.transaction import transaction
from tests.support.calls import python_codes


class _Html:
    def __html__(self) -> str:
        return "<b>made</b>"


def _values() -> list[Any]:
    rng = random.Random(7)
    alphabet = "ab &<>'\"éã-_:;0"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12))) for _ in range(3000)]
    return [
        *texts,
        *[Markup(t) for t in texts[:200]],
        0,
        -7,
        12345678901234567890,
        True,
        False,
        None,
        1.5,
        -0.0,
        ("a", "<b>"),
        _Html(),
    ]


def test_the_pages_escape_writes_what_markupsafe_writes() -> None:
    for value in _values():
        mine, theirs = html_escape.escape(value), markup_escape(value)
        assert str(mine) == str(theirs), value
        if str(theirs) != str(value) or isinstance(value, Markup):
            assert isinstance(mine, Markup)  # anything escaped, or already markup, stays markup


SOURCE = (
    "{{ a }}|{{ b }}|{{ c }}|{{ d }}|{{ e }}{% set x %}{{ a }}{% endset %}|{{ x }}"
    "{% macro m(v) %}[{{ v }}]{% endmacro %}{{ m(a) }}{% filter upper %}{{ a }}{{ b }}{% endfilter %}"
)


def test_a_template_of_the_environment_writes_through_it() -> None:
    env = report.environment()
    template = env.from_string(SOURCE)
    assert template.root_render_func.__globals__["escape"] is html_escape.escape
    values = {"a": "x<y", "b": 3, "c": Markup("<i>"), "d": "plain", "e": None}
    assert template.render(**values) == jinja2.Environment(autoescape=True).from_string(SOURCE).render(**values)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()


def test_a_page_makes_a_markup_only_for_a_value_with_something_to_escape(
    farrapos_game: tuple[Any, str],
) -> None:
    """Both sides' HTML pages of a resolution, rendered with what they share made
    first: the values written are some hundred a page, each a ``Markup`` made through
    its ``__new__`` before; now only the few that hold one of ``&<>'"`` or are markup."""
    db, game = farrapos_game
    with transaction(db, write=False) as tx:
        views = reporting.report_views(tx, game, 3, ("empire", "republic"))
    shared = report.Shared(views[0])
    report.render_html(views[0], shared=shared)  # the parts every reader sees, made once
    page, codes = python_codes(lambda: report.render_html(views[1], shared=shared))
    assert "republic" in page or "empire" in page
    assert codes.count(markup_escape.__code__) < 5  # each was markupsafe's escape
    assert codes.count(Markup.__new__.__code__) < 5  # and a Markup
    assert codes.count(html_escape.escape.__code__) > 20  # the values the page writes


def test_the_pages_are_the_same_text_with_markupsafes_escape(farrapos_game: tuple[Any, str], tmp_path: Path) -> None:
    db, game = farrapos_game
    with transaction(db, write=False) as tx:
        views = reporting.report_views(tx, game, 3, ("empire", "republic"))
    pages = [report.render_html(view) for view in views]
    report.environment.cache_clear()
    try:
        env = report.environment()
        env.template_class = jinja2.Template  # markupsafe's escape, as the templates' code imports it
        env.cache.clear()  # type: ignore[union-attr]
        assert [report.render_html(view) for view in views] == pages
    finally:
        report.environment.cache_clear()


def _board_lines(rng: random.Random) -> list[str]:
    words = ["inf-22", "cruz-alta", "Romans", "(roman-3)", "4-6", "Theodoric", "São", "x", "--", "a-b-c"]
    odd = [" ", "  ", "\t", "\xa0", ""]
    lines = []
    for _ in range(rng.randrange(0, 6)):
        line = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 16)))
        if rng.random() < 0.15:
            at = rng.randrange(0, len(line) + 1)
            line = line[:at] + rng.choice(odd) + line[at:]
        lines.append(line)
    return lines


def test_the_board_lines_are_wrapped_as_each_line_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same text as each line through ``wrap_indent`` and through Jinja's own
    ``wordwrap`` then ``indent``, on boards that fit, that wrap, and that hold odd spaces."""
    env = report.environment()
    rng = random.Random(11)
    one_by_one = wrap.wrap_indent
    lines_wrapped: list[str] = []

    def counted(environment: Any, s: Any, width: int, by: int = 4) -> Any:
        lines_wrapped.append(s)
        return one_by_one(environment, s, width, by)

    monkeypatch.setattr(wrap, "wrap_indent", counted)
    joined_whole = 0
    for _ in range(4000):
        lines = _board_lines(rng)
        width = rng.choice((20, 40, 70))
        before = len(lines_wrapped)
        mine = wrap.wrap_lines(env, lines, width, 4)
        joined_whole += bool(lines) and len(lines_wrapped) == before
        assert mine == "\n".join(one_by_one(env, line, width, 4) for line in lines), (lines, width)
        assert mine == "\n".join(
            jinja2.filters.do_indent(jinja2.filters.do_wordwrap(env, line, width, False), 4) for line in lines
        )
    assert 300 < joined_whole < 3000  # boards joined whole, and boards line by line


def test_the_board_in_words_is_one_filter_call() -> None:
    """The text report's board in words: one ``wrap_lines`` call and no Python step a
    line, where each line was a loop step and a ``wrap_indent`` call (some forty lines a
    Campus Mauriacus board, most of which fit)."""
    board = tuple(
        f"{hex:04d}: Visigoths (visigoth-{n}) 5-4 full, Alans (alan-{n}) 4-3 reduced"
        for n, hex in enumerate(range(101, 2500, 60))
    )
    assert len(board) == 40 and max(map(len, board)) <= 70
    env = report.environment()
    parts = cast(TextReportParts, env.get_template("report_parts.txt.j2").module)
    text, codes = python_codes(lambda: parts.board(board))
    assert text.endswith(":\n" + "".join(wrap.wrap_indent(env, line, 70, 4) + "\n" for line in board))
    assert codes.count(wrap.wrap_lines.__code__) == 1
    assert len(codes) < 20  # a wrap_indent call and its check a line (80 and more)


def _old_detail_value(value: Any) -> str:
    """``detail_value`` as it was: the checks in this order, each value."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_old_detail_value(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(_old_detail_value(v) for v in value)
    if value is None:
        return "-"
    return str(value)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(10 if depth < 2 else 6)
    if kind == 0:
        return rng.choice(["", "D2", "alan-2", "a&b", "<x>", "4/1", "São"])
    if kind == 1:
        return rng.randrange(-5, 30)
    if kind == 2:
        return rng.choice([True, False, None, 1.5, -0.0])
    if kind == 3:
        return Markup("<b>m</b>")
    if kind == 4:
        return IntEnum("Side", "romans huns").huns
    if kind == 5:
        return ("x", 3)
    if kind in (6, 7):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if kind == 8:
        return {f"k{n}": _random_value(rng, depth + 1) for n in range(rng.randrange(0, 3))}
    return tuple(_random_value(rng, depth + 1) for _ in range(rng.randrange(0, 3)))


def test_an_event_detail_reads_as_it_did() -> None:
    rng = random.Random(5)
    for _ in range(5000):
        value = _random_value(rng)
        assert detail_value(value) == _old_detail_value(value), value
        event = {"type": "combat", "text": "t", "roll_indices": [], "a_b": value, "c": rng.choice(["", [], {}, 0])}
        assert _event_details(event) == [
            (str(key).replace("_", " "), _old_detail_value(v))
            for key, v in event.items()
            if key not in ("type", "text", "roll_indices") and v not in (None, "", [], {})
        ]


def _combat(text: str) -> dict[str, Any]:
    return {
        "attack": 8,
        "attackers": ["alan-2", "visigoth-1", "visigoth-8"],
        "charge": None,
        "column": "4/1",
        "defence": 1,
        "defender": "hun-7",
        "die": 1,
        "from_hexes": ["0403", "0503", "0402"],
        "hex": "0603",
        "modifier": 0,
        "odds": "4/1",
        "result": "D2",
        "row": 1,
        "side": "romans",
        "text": text,
        "type": "combat",
    }


def test_a_combats_details_are_read_and_escaped_without_a_call_a_field() -> None:
    """A Campus Mauriacus combat has some fourteen fields: each was an ABC
    ``isinstance`` (a Python ``__instancecheck__``) and two ``html_text`` calls; the
    fields that need no escaping (all of them here) are now checked at once."""
    events = (_combat("alan-2, visigoth-1 (8) attack hun-7 in 0603 (1): odds 4/1, die 1: D2."),)
    lines, codes = python_codes(lambda: event_lines(events, ()))
    names = [code.co_name for code in codes]
    assert names.count("__instancecheck__") == 0  # one a field
    assert names.count("html_text") == 0  # two a field, and one each for the type and the text
    assert lines[0].html_details == lines[0].details and len(lines[0].details) == 13
    blocks, codes = python_codes(lambda: battle_blocks(lines))
    assert [code.co_name for code in codes].count("html_text") == 0  # one a cell
    assert blocks[0].rows[0].html_cells == blocks[0].rows[0].cells


def test_an_event_with_something_to_escape_is_escaped_as_before() -> None:
    escaped = _combat("a & b <c> \"d\" 'e'")
    escaped["odds"] = "<4/1>"
    escaped["side"] = "a&b"
    for event in (escaped, {**escaped, "type": "a_<b>_combat", "text": "plain"}):
        [line] = event_lines((event,), ())
        assert line.html_text == str(markup_escape(line.text))
        assert line.html_label == str(markup_escape(line.label))
        assert line.html_details == [(str(markup_escape(k)), str(markup_escape(v))) for k, v in line.details]
    [block] = battle_blocks(event_lines((escaped,), ()))
    assert block.rows[0].html_cells == [str(markup_escape(cell)) for cell in block.rows[0].cells]
    assert "&lt;4/1&gt;" in block.rows[0].html_cells
