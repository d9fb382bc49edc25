"""What a resolution's reports no longer cost, a further round (the instruction
budget of ``process --all --reports``, ``bench/budgets.py``): each test counts what
is done, never time, and fails on the reports before this round; the reports are the
same bytes (``bench/fingerprint.py``).

- the text report wraps and indents each board line, event and refusal in one
  filter call (``wrap_indent``): ``wordwrap`` then ``indent`` split the wrapped text
  into lines again (Jinja's ``indent``) to indent it;
- the position file is written by one JSON encoder made at import, not one made by
  ``json.dumps`` at each call (with its circular check);
- the parts every reader sees alike are written into each HTML page as they were
  rendered: as ``Markup``, each page's autoescape copied each of them whole;
- an event's type is worded (``battle round``) once, where its line is made, not by a
  ``replace`` filter in each page's part;
- a move's line on the Furor Barbarus map writes each hex's centre and its arrow's end once per
  process (each move wrote every number of its line again);
- a hex holding one unit draws its counter at once: the counter of a hex with several
  (and the tabs above it) is the first combat unit, found by asking each unit its type;
- a Furor Barbarus order template is written from the position as it is, without the
  copy a field makes first (the template reads the position and changes nothing).
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jinja2.filters
import pytest
from jinja2.filters import do_indent, do_wordwrap

from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.reports.battle_table import text_blocks
from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus import ruleset as furor_ruleset
from pbem.rules.furor_barbarus import svg as furor_svg
from pbem.rules.furor_barbarus.counters import Counter
from pbem.turnfiles import position_file
from tests.support.calls import counted_calls
from tests.support.map_positions import every_map


def _counted_indent(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each call of Jinja's own ``indent`` (what ``wrap.indent`` hands a text of
    several lines to), recorded."""
    calls: list[Any] = []

    def counted(s: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(s)
        return do_indent(s, *args, **kwargs)

    monkeypatch.setattr(jinja2.filters, "do_indent", counted)
    return calls


def test_the_board_in_words_is_wrapped_and_indented_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    env = report.environment()
    parts = env.get_template("report_parts.txt.j2").module
    lines = tuple(
        f"{n:02d}01: visigoth-cavalry-{n} (vis-cav-{n}) Visigothic cavalry, visigoths cavalry 2-6"
        + (" and a long note" * (n % 3))
        for n in range(1, 12)
    )
    # as the template wrote each line, with both filters
    expected = "".join(do_indent(do_wordwrap(env, line, 70, False), 4) + "\n" for line in lines)
    indented = _counted_indent(monkeypatch)
    board = parts.board(lines)
    assert indented == []
    assert board == "Every place with units on it, both sides (the picture is in the HTML part):\n" + expected
    assert board.count("\n    ") >= 7  # lines wrapped


def test_wrap_indent_gives_what_wordwrap_then_indent_give() -> None:
    env = report.environment()
    wrap_indent = env.filters["wrap_indent"]
    rng = random.Random(11)
    words = ["a", "bb", "visigoth-cavalry-5", "(vis-cav-5)", "x" * 30, "-", "--", "a-b", "0104:", "é", " ", "\t", "\n"]
    for _ in range(4000):
        text = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 25)))
        for width in (10, 66, 70, 72):
            got, expected = wrap_indent(env, text, width, 4), do_indent(do_wordwrap(env, text, width, False), 4)
            assert got == expected and type(got) is type(expected), (text, width)


def test_a_text_report_indents_only_its_battle_tables_through_jinja(
    farrapos_game: tuple[Any, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, game = farrapos_game
    views = reporting.views_keeping_history(db, game, 3, None)
    data = views[0]
    blocks = report.Shared(data).blocks
    indented = _counted_indent(monkeypatch)
    text = report.render_text(data)
    assert "WHAT HAPPENED" in text
    assert any(len(b.event.text) > 72 for b in blocks if b.kind != "table")  # events wrapped on several lines
    # Jinja's indent: each battle's table (indented first line too), never an event's or a board line's words
    assert len(indented) == sum(1 for b in blocks if b.kind == "table")


def test_the_position_file_is_written_by_an_encoder_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = next(d for d in every_map() if d.rules_id != "farrapos")
    kept = position_file.PositionFile(
        "g1", drawn.rules_id, drawn.scenario or "", (), 3, 4, "turn 2", "0" * 64, False, None, {}, drawn.position
    )
    made = 0
    real = json.JSONEncoder

    class Counted(real):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            nonlocal made
            made += 1
            super().__init__(*args, **kwargs)

    expected = json.dumps(kept.to_json(), sort_keys=True, ensure_ascii=False) + "\n"
    monkeypatch.setattr(json, "JSONEncoder", Counted)
    assert kept.to_text() == expected
    assert made == 0


def test_a_page_writes_the_parts_every_reader_sees_as_they_were_rendered(farrapos_game: tuple[Any, str]) -> None:
    db, game = farrapos_game
    views = reporting.views_keeping_history(db, game, 3, None)
    shared = report.Shared(views[0])
    for data in views:
        pieces, alike = report._html_pieces(data, None, None, shared)
        parts = [part for part in alike[1:] if part]
        assert len(parts) >= 3  # the events, the dice, the footer (and the list of earlier resolutions)
        for part in parts:
            assert type(part) is str
            assert [piece for piece in pieces if piece is part] == [part]  # the part itself, not a copy


def test_an_order_template_is_written_without_a_copy_of_its_position(monkeypatch: pytest.MonkeyPatch) -> None:
    maps = [drawn for drawn in every_map() if drawn.rules_id != "farrapos"]
    assert maps
    ruleset = find_ruleset("furor-barbarus")
    expected = {
        drawn.name: [ruleset.order_template(drawn.position, s) for s in ruleset.due(drawn.position)] for drawn in maps
    }
    copies = counted_calls(monkeypatch, furor_ruleset, "copied_position")
    for drawn in maps:
        position = copy.deepcopy(drawn.position)
        assert [ruleset.order_template(position, s) for s in ruleset.due(position)] == expected[drawn.name]
        assert position == drawn.position  # nothing changed in it
    assert copies == []


def test_a_moves_line_writes_no_number_a_move_along_the_same_hexes_wrote(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = next(d for d in every_map() if d.rules_id != "farrapos" and any(e.get("type") == "move" for e in d.events))
    ruleset = find_ruleset(drawn.rules_id)
    field = ruleset.field(drawn.position)
    first = furor_svg._Drawing(field, drawn.events).movements()
    written: list[float] = []
    real = furor_svg.tenths

    def counted(v: float) -> str:
        written.append(v)
        return real(v)

    monkeypatch.setattr(furor_svg, "tenths", counted)
    again = furor_svg._Drawing(field, drawn.events).movements()
    assert again == first and any("<polyline" in line for line in again)
    assert written == []  # each hex's centre and each arrow's end written once per process


def test_an_events_type_is_worded_once_for_both_pages(farrapos_game: tuple[Any, str]) -> None:
    db, game = farrapos_game
    data = reporting.views_keeping_history(db, game, 3, None)[0]
    blocks = report.Shared(data).blocks
    report.environment.cache_clear()  # a fresh environment, its templates loaded with a counted ``replace``
    try:
        env = report.environment()
        replaced = 0
        real = env.filters["replace"]

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal replaced
            replaced += 1
            return real(*args, **kwargs)

        counted.jinja_pass_arg = real.jinja_pass_arg  # type: ignore[attr-defined]
        env.filters["replace"] = counted
        html = env.get_template("report_parts.html.j2").module.events(blocks, data.k)
        text = env.get_template("report_parts.txt.j2").module.events(text_blocks(blocks, env), data.k)
    finally:
        report.environment.cache_clear()
    events = [b.event for b in blocks if b.kind != "table"]
    assert events and all(e.label == e.type.replace("_", " ") for e in events)
    assert all(f'<span class="event-type">{e.label}</span>' in html and f"[{e.label}]" in text for e in events)
    assert replaced == 0


def test_a_hex_with_one_unit_draws_it_without_asking_its_type(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = next(d for d in every_map() if d.rules_id != "farrapos")
    field = find_ruleset(drawn.rules_id).field(drawn.position)
    where = field.occupied()
    alone = [h for h, units in where.items() if len(units) == 1]
    several = sum(len(units) for units in where.values() if len(units) > 1)
    assert len(alone) > several  # each hex was asked at least once
    first = furor_svg._Drawing(field, drawn.events).counters()
    asked = 0
    real = Counter.is_combat_unit

    def counted(self: Counter) -> bool:
        nonlocal asked
        asked += 1
        return real.fget(self)  # type: ignore[no-any-return,misc]

    monkeypatch.setattr(Counter, "is_combat_unit", property(counted))
    assert furor_svg._Drawing(field, drawn.events).counters() == first
    # only the units of a hex holding several (its counter and the tabs above it) are asked their type
    assert asked <= several
