"""What a Furor Barbarus map no longer does per counter, per roster line and per
combat, counted (Python calls and reads), never timed:

- a counter at a place new to the process went through a cache of all its eleven
  arguments (two of them floats, hashed at every call, and a link kept for each new
  counter) and then a symbol function that tested the unit's kind against each kind;
  a counter is now kept by its face (``svg_counters._faces``), then by its place in
  its face's own table, and its symbol is written by its kind's own drawer, picked
  once per face (``svg_shapes.symbol_drawer``);
- each map looked up each unit's factors through a call, and the first time in the
  map through the table kept per printed counter (``kept.PerObject``, a call more); the
  counters' pass reads them from a table kept per counter sheet, unit by unit;
- the roster below the board sorted the hex index again and looked each unit's
  factors up again; its rows (hex, unit, state, factors) are gathered, by side, by
  the counters' pass over the same hexes in the same order;
- every piece that reads the combats (the attackers, the red hexes, the badges and
  the panel below the board) went through all the events again; they are found once
  per map, and the close-up's action (a pass of its own over the events, a hex's
  centre for each hex of each path) is the hexes the moves and the combats met, each
  once.

The same markup: each kind's drawer is compared here with the symbol as it was
written, besides the ``bench/fingerprint.py`` hashes."""

from __future__ import annotations

from typing import Any

from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus import svg as furor_svg
from pbem.rules.furor_barbarus import svg_counters, svg_shapes
from tests.support.calls import python_calls
from tests.support.map_positions import every_map

_KINDS = ("infantry", "missile_infantry", "cavalry", "missile_cavalry", "commander", "baggage", "other")


def _symbol_as_it_was(kind: str, across: tuple[str, ...], down: tuple[str, ...], style: tuple[str, str, str]) -> str:
    x0, x1, x3, xm, x7, x75 = across
    y0, y1, y35, y85, y15, y32, y5, ym = down
    s, size, r = style
    out = f'<rect x="{x0}" y="{y0}" {size} {s}/>'
    if kind in ("infantry", "missile_infantry"):
        out += f'<path d="M{x0},{y0} L{x1},{y1} M{x1},{y0} L{x0},{y1}" {s}/>'
    if kind in ("cavalry", "missile_cavalry"):
        out += f'<path d="M{x0},{y1} L{x1},{y0}" {s}/>'
    if kind in ("missile_infantry", "missile_cavalry"):
        out += f'<path d="M{x3},{y1} Q{xm},{y35} {x7},{y1}" {s}/>'
    if kind == "commander":
        out += f'<path d="M{x3},{y85} L{x3},{y15} L{x75},{y32} L{x3},{y5}" {s}/>'
    if kind == "baggage":
        out += f'<circle cx="{xm}" cy="{ym}" r="{r}" {s}/><path d="M{x0},{ym} L{x1},{ym}" {s}/>'
    return out


def test_each_kind_s_drawer_writes_the_symbol_as_it_was() -> None:
    for kind in _KINDS:
        for x, y, colour in ((311.0, 422.5, "#fff"), (12.34, 0.05, "#a83232"), (-4.0, 1e3 / 3, "#2f5597")):
            across, down = svg_shapes.symbol_across(x, 18), svg_shapes.symbol_down(y, 10)
            style = svg_shapes.symbol_style(18, 10, colour)
            assert svg_shapes.symbol_at(kind, across, down, style) == _symbol_as_it_was(kind, across, down, style)


def test_a_counter_at_a_new_place_is_put_together_by_its_kind_s_drawer() -> None:
    unit = ("visigoth-cavalry-2", "Visigoth cavalry", "cavalry", "4-7", False)
    svg_counters.counter(*unit, "0101", 11.0, 22.0, "#a83232", "vis-cav-2", True)  # its face, column and row
    svg_counters.counter(*unit, "0202", 57.0, 44.0, "#a83232", "vis-cav-2", True)
    (markup, *_marks), called = python_calls(
        lambda: svg_counters.counter(*unit, "0102", 11.0, 44.0, "#a83232", "vis-cav-2", True)
    )
    # before: the counter's body then ``symbol_at``, which tested the kind against each kind
    assert called == ["<lambda>", "counter", "_put_together", "_cavalry"]
    assert markup.count('class="attacker"') == 1 and "in 0102</title>" in markup
    again, called = python_calls(lambda: svg_counters.counter(*unit, "0102", 11.0, 44.0, "#a83232", "vis-cav-2", True))
    assert called == ["<lambda>", "counter"] and again[0] is markup  # the same place again: found in its face's table


def test_a_face_keeps_a_bounded_number_of_places() -> None:
    unit = ("frank-infantry-9", "Frank infantry", "infantry", "3-4", True)
    places = [(f"{9 + i // 40:02d}{i % 40:02d}", 10.0 + i, 20.0 + i) for i in range(svg_counters.PLACES_KEPT + 5)]
    drawn = [svg_counters.counter(*unit, h, x, y, "#2f5597", "frk-inf-9", False) for h, x, y in places]
    face = svg_counters._faces(*unit, "#2f5597", "frk-inf-9")
    assert 0 < len(face[8]) <= svg_counters.PLACES_KEPT  # a serving process meets a unit in ever more hexes
    again = [svg_counters.counter(*unit, h, x, y, "#2f5597", "frk-inf-9", False) for h, x, y in places]
    assert again == drawn  # a place dropped from the table is put together the same again


def test_the_roster_reads_the_rows_the_counters_gathered() -> None:
    lines = 0
    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        field = find_ruleset(drawn.rules_id).field(drawn.position, copy=False)
        d = furor_svg._Drawing(field, drawn.events)
        d.counters()
        out: list[str] = []
        _y, called = python_calls(lambda d=d, out=out: furor_svg._armies_panel(d, 1300, 900.0, out))
        lines += sum('class="roster"' in line for line in out)
        # before: a sort of the hex index and a call of ``factors`` a line
        assert "factors" not in called and "roster_rows" not in called, drawn.name
        fresh = furor_svg._Drawing(field, drawn.events)  # the roster drawn on its own is the same
        assert furor_svg._armies_panel(fresh, 1300, 900.0, []) is not None
        again: list[str] = []
        furor_svg._armies_panel(fresh, 1300, 900.0, again)
        assert again == out, drawn.name
    assert lines > 100


def test_the_counters_pass_reads_the_factors_without_a_call() -> None:
    maps, singles, stacks = 0, 0, 0
    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        field = find_ruleset(drawn.rules_id).field(drawn.position, copy=False)
        furor_svg._Drawing(field, drawn.events).counters()  # every unit's factors written once
        d = furor_svg._Drawing(field, drawn.events)
        _out, called = python_calls(d.counters)
        stacked = sum(len(units) for units in field.occupied().values() if len(units) > 1)
        # before: ``factors`` for each counter, and ``PerObject.get`` the first time in each map; now
        # only a stack's counter and tabs call it (its main counter, each tab's factors and words)
        assert "get" not in called and called.count("factors") <= 3 * stacked, drawn.name
        singles += sum(len(units) == 1 for units in field.occupied().values())
        stacks += stacked
        maps += 1
    assert maps >= 8 and singles > 3 * stacks  # before: a call for each single counter too


class _Read(dict):  # type: ignore[type-arg]
    """An event that counts the reads of its type."""

    reads = 0

    def get(self, key: str, default: Any = None) -> Any:
        if key == "type":
            _Read.reads += 1
        return super().get(key, default)


def test_a_map_reads_each_event_s_type_twice_at_most() -> None:
    maps = 0
    for drawn in every_map():
        if drawn.rules_id == "farrapos" or not any(e.get("type") == "combat" for e in drawn.events):
            continue
        events = [_Read(e) for e in drawn.events]
        _Read.reads = 0
        svg = find_ruleset(drawn.rules_id).map_svg(drawn.position, events, None)
        assert svg == find_ruleset(drawn.rules_id).map_svg(drawn.position, drawn.events, None)
        # the moves once and the combats once (the close-up's action reads what they found): up to
        # seven times before (the combats four, the action twice)
        assert _Read.reads <= 2 * len(events), drawn.name
        maps += 1
    assert maps >= 2
