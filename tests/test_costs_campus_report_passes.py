"""What the text report's events part no longer does per block, counted, never timed:

- the part read each event's number, label, text and dice through Jinja (its
  ``getattr``, some ten a block) and called the ``format`` and ``wrap_indent`` filters
  (and ``text_table`` then ``indent`` for a battle's table) from the template; each
  block's heading, table and dice line are now put together once per resolution in
  Python (``battle_table.text_blocks``), as those filters made them, and the part
  reads three values a block;
- ``text_table`` worked out each column's width with a generator over the rows and
  padded each row's cells in another; both now go through ``map`` and ``zip``;
- the close-up (``mapdraw.take_in_marks``, shared with Farrapos) handed every mark
  outside the box to ``_grown``, whose first pass sorted each beside the edge it lies
  beyond; the one pass that sorts the marks out now puts those outside the hull of
  the box and the core there itself (an edge of the box stays within that hull), and
  ``_grown`` looks only at the rest;
- the Furor Barbarus roster made a pass per side over every unit on the map; it now
  sorts the units into their sides in one pass over the hex index;
- the Furor Barbarus moves made a copy of every event's path (a comprehension an
  event, moves or not) and a table of dashes a move; a path is now copied only when it
  holds an empty hex, and the dashes are one table.

The same text: the part is compared here with the template it replaced on events that
wrap, hold dice, fold into a battle's table, or are none at all; the close-up with its
first version on random labels (``tests/test_report_map_costs.py``); besides the
``bench/fingerprint.py`` hashes."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.reports import render
from pbem.reports.battle_table import battle_blocks, text_blocks, text_table
from pbem.reports.event_lines import event_lines
from pbem.reports.render import RollLine
from pbem.rules import find_ruleset, mapdraw
from pbem.rules.furor_barbarus import svg as furor_svg
from tests.support.calls import opcodes, python_calls
from tests.support.map_positions import every_map

_BEFORE = (
    """{% macro events(blocks, k) %}
WHAT HAPPENED
{% for b in blocks %}
{% if b.kind == "table" %}
{{ "%d. %s"|format(loop.index, b.title) }}
{{ b.columns|text_table(b.rows)|indent(4, first=True) }}

{% else %}
{% set e = b.event %}
{{ ("%d. [%s] %s"|format(loop.index, e.label, e.text))|wrap_indent(72, 4) }}
{% if e.rolls %}
    dice: {% for r in e.rolls %}{{ r.sides|die_name }}={{ r.value }} ({{ r.purpose }})"""
    """{{ "; " if not loop.last }}{% endfor %}

{% endif %}
{% endif %}
{% else %}
Nothing happened{% if k == 0 %}: the game has just been set up{% endif %}.
{% endfor %}
{%- endmacro %}"""
)
"""The text events part as it was (``report_parts.txt.j2``), every value through Jinja."""

_COMBAT = {
    "type": "combat",
    "hex": "1505",
    "text": "Alans (alan-3) and Huns (hun-1) attack Romans (roman-1) at 1505: 2-1, die 4, DR.",
    "attackers": ["alan-3", "hun-1"],
    "defender": "roman-1",
    "attack": 6,
    "defence": 3,
    "odds": "2-1",
    "column": "2-1",
    "die": 4,
    "modifier": -1,
    "row": 4,
    "result": "defender retreats two hexes and takes a step loss (the longest result)",
}


_TWO_DICE = {"roll_indices": [0, 2]}


def _events() -> list[dict[str, Any]]:
    long = " ".join(f"0{n}0{n}" for n in range(1, 10)) + " then on, well past the line's end, as a long move does"
    return [
        {"type": "turn", "text": "Turn 3 begins."},
        {"type": "move", "text": f"Ostrogoths (ostrogoth-5) moves {long}", "path": ["0209", "0210"]},
        {"type": "morale_check", "text": 'Huns\' <b>charge</b> & "flank" - a check', "unit": "hun-2", **_TWO_DICE},
        {"type": "move", "text": "Visigoths (visigoth-1) moves a long-winded-hyphenated-way " * 3},
        _COMBAT,
        {**_COMBAT, "hex": "1506"},
        {"type": "step_loss", "text": "Romans (roman-1) lose a step.", "roll_indices": [1]},
    ]


_ROLLS = [RollLine(0, 6, 3, "morale check of hun-2"), RollLine(1, 10, 7, "step loss"), RollLine(2, 6, 1, "again")]


_compiled: list[Any] = []


def _before(blocks: Any, k: int) -> str:
    if not _compiled:  # compiled once, as the installed templates are
        _compiled.append(render.environment().overlay(autoescape=False).from_string(_BEFORE).module)
    return str(_compiled[0].events(blocks, k))


def _part(blocks: Any, k: int) -> str:
    parts: Any = render.environment().get_template("report_parts.txt.j2").module
    return str(parts.events(text_blocks(blocks, render.environment()), k))


def test_the_text_events_part_is_the_same_text() -> None:
    events = _events()
    blocks = battle_blocks(event_lines(events, _ROLLS))
    assert [b.kind for b in blocks] == ["event"] * 4 + ["table"] * 2 + ["event"]
    assert any(b.event and len(b.event.rolls) > 1 for b in blocks)  # a line of several dice
    assert any(b.event and len(b.event.rolls) == 1 for b in blocks)
    text = _part(blocks, 3)
    assert text == _before(blocks, 3)
    assert "\n    dice: d6=3 (morale check of hun-2)" in text and "5. Combat at 1505\n" in text
    assert "\n    0909 then on" in text or "\n    " in text.split("2. [move]")[1].split("3. [")[0]  # it wraps
    for k in (0, 3):
        assert _part([], k) == _before([], k)
    assert _part([], 0).endswith("Nothing happened: the game has just been set up.\n")


def test_the_text_events_part_reads_three_values_a_block_and_calls_no_filter() -> None:
    blocks = battle_blocks(event_lines(_events(), _ROLLS))
    _part(blocks, 3)
    _before(blocks, 3)
    text, called = python_calls(lambda: _part(blocks, 3))
    old, called_before = python_calls(lambda: _before(blocks, 3))
    assert text == old
    # Jinja's getattr: kind, heading, and the table or the dice of each block, and two for the macro
    assert called.count("getattr") == 3 * len(blocks) + 2 < called_before.count("getattr")
    assert called.count("do_format") == 0 < called_before.count("do_format")
    assert called.count("wrap_indent") == 5  # once an event, from Python, none from the template
    assert called.count("text_table") == 2
    assert called.count("__next__") == 0 < called_before.count("__next__")  # no LoopContext (it numbered the blocks)


def test_a_text_table_takes_no_generator_a_column_or_a_row() -> None:
    blocks = [b for b in battle_blocks(event_lines(_events(), _ROLLS)) if b.kind == "table"]
    table, called = python_calls(lambda: text_table(blocks[0].columns, blocks[0].rows))
    assert called.count("<genexpr>") == 0  # before: a generator a column and a row, each resumed a cell: 42
    assert table.splitlines()[0].split() == ["attackers", "defender", "odds", "column", "die", "row"]
    assert table.splitlines()[2].startswith("alan-3, hun-1 (6)  roman-1 (3)  2-1   2-1     4-1 = 3  4")
    assert table.splitlines()[3] == f"     result: {_COMBAT['result']}"


def test_the_close_up_grows_over_the_marks_within_its_reach_only(monkeypatch: pytest.MonkeyPatch) -> None:
    handed: list[tuple[int, int]] = []
    real = mapdraw._grown

    def counted(*args: Any) -> tuple[float, float, float, float]:
        rest, beyond = args[4], args[5]
        handed.append((len(rest), sum(map(len, beyond))))
        return real(*args)

    monkeypatch.setattr(mapdraw, "_grown", counted)
    for drawn in every_map():  # both games' maps
        find_ruleset(drawn.rules_id).map_svg(drawn.position, drawn.events, None)
    looked_at, waiting = sum(r for r, _ in handed), sum(w for _, w in handed)
    assert len(handed) == 10
    # before, _grown's first pass looked at every mark outside the box (1,543 over these maps, some of them
    # twice, in more than one strip); each is handed to it once now (1,272), and it looks at under half
    assert looked_at < 600 and looked_at + waiting > 1200


def test_the_roster_sorts_the_units_into_sides_in_one_pass() -> None:
    runs, lines = 0, 0
    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        d = furor_svg._Drawing(find_ruleset(drawn.rules_id).field(drawn.position, copy=False), drawn.events)
        out: list[str] = []
        furor_svg._armies_panel(d, 1300, 900.0, out)  # each line's words put together (once per process)
        lines += len(out) - 1 - len(d.field.scenario.side_info)
        runs += opcodes(lambda d=d: furor_svg._armies_panel(d, 1300, 900.0, []))
    assert lines == 190
    assert runs < 195 * lines, runs / lines  # before: 214 bytecode instructions a line


def test_the_moves_copy_no_path_and_look_at_no_other_event() -> None:
    comprehensions, moves = 0, 0
    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        d = furor_svg._Drawing(find_ruleset(drawn.rules_id).field(drawn.position, copy=False), drawn.events)
        d.movements()
        drawn_moves, called = python_calls(d.movements)
        comprehensions += called.count("<listcomp>")
        moves += (len(drawn_moves) - 2) // 2  # a circle and a line a move, in one group
    assert moves == 8
    assert comprehensions == moves  # each move's points alone (before: 50, a copy of every one of 42 events' path)
