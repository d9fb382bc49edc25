"""What a map's close-up (``mapdraw.focus_box``) no longer works out again in each
map, counted (bytecode instructions run and objects made), never timed; the
close-up is the same box (``tests/test_report_map_costs.py`` compares it with the
first version on random labels):

- each label's mark (its box with the room kept around it) is made once per text and
  place in a process, not once per map: the Furor Barbarus board keeps its hex
  labels' marks, counters' labels are marked once per place and text, and the
  Farrapos pieces are marked once each;
- the close-up sorts the marks in one pass (those outside the box, and those across
  the strip each edge may move in through) where it made four passes over every
  label and four more over those within its reach;
- a Furor Barbarus counter, tab and roster line is put together once per unit's
  state and place in a process (``svg_counters``), not in every map (read from the
  hex index and the printed values, without a copy of a hex's units or a call per
  unit to look its counter up), and the legend
  once per scenario's board and place; a Farrapos
  MU's line in the stacks once per MU and face;
- a Furor Barbarus map writes each coordinate once per process (``svg_shapes.tenths``:
  formatting a float is some 1,500 instructions, and a map wrote hundreds, most of
  them the same in every map);
- the Furor Barbarus board's hex labels are written as runs of one text made once
  per map, a few pieces a map where each hex's labels were a piece or two (and the
  terrain one piece, not one a hex and hexside).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.rules import find_ruleset, mapdraw
from pbem.rules.farrapos import svg as farrapos_svg
from pbem.rules.furor_barbarus import svg as furor_svg
from pbem.rules.furor_barbarus import svg_board, svg_counters, svg_shapes
from tests.support.calls import opcodes
from tests.support.map_positions import every_map


def test_a_second_map_makes_no_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    made = 0
    real = mapdraw.mark

    def counted(*args: Any) -> mapdraw.Mark:
        nonlocal made
        made += 1
        return real(*args)

    for drawn in every_map():
        ruleset = find_ruleset(drawn.rules_id)
        svg = ruleset.map_svg(drawn.position, drawn.events, None)
        for module in (mapdraw, farrapos_svg, svg_counters):
            monkeypatch.setattr(module, "mark", counted)
        made = 0
        assert ruleset.map_svg(drawn.position, drawn.events, None) == svg
        assert made == 0, drawn.name
        monkeypatch.undo()


def test_the_close_up_looks_at_each_mark_a_few_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the Furor Barbarus maps' close-ups (some 200 to 400 labels each, most
    within the close-up): about 150 bytecode instructions a label before, under 100 now."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    real = mapdraw.focus_box

    def kept(*args: Any, **kwargs: Any) -> mapdraw.Box:
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(furor_svg, "focus_box", kept)
    for drawn in every_map():
        if drawn.rules_id != "farrapos":
            find_ruleset(drawn.rules_id).map_svg(drawn.position, drawn.events, None)
    assert len(calls) == 8
    marks = sum(len(args[4]) for args, _ in calls)
    run = sum(opcodes(lambda a=args, k=kwargs: real(*a, **k)) for args, kwargs in calls)
    assert marks > 1500
    assert run < 100 * marks, run / marks


def test_a_second_map_puts_no_counter_roster_line_or_legend_together(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if name != "_text" or kwargs.get("cls") == "roster" or args[2] == "Legend":
                made.append(name)
            return real(*args, **kwargs)

        return call

    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        ruleset = find_ruleset(drawn.rules_id)
        svg = ruleset.map_svg(drawn.position, drawn.events, None)
        assert 'class="roster"' in svg and 'class="counter"' in svg
        faces = svg_counters._faces.cache_info().misses  # a counter's face is looked up, never made again
        for name in ("_put_together", "_head", "_label_mark"):
            monkeypatch.setattr(svg_counters, name, counted(name, getattr(svg_counters, name)))
        monkeypatch.setattr(furor_svg, "_text", counted("_text", furor_svg._text))
        made.clear()
        assert ruleset.map_svg(drawn.position, drawn.events, None) == svg
        assert made == [], drawn.name
        assert svg_counters._faces.cache_info().misses == faces, drawn.name
        monkeypatch.undo()


def test_a_second_farrapos_map_words_no_mu_line(monkeypatch: pytest.MonkeyPatch) -> None:
    worded = 0
    real = farrapos_svg._counter_label

    def counted(*args: Any) -> str:
        nonlocal worded
        worded += 1
        return real(*args)

    for drawn in every_map():
        if drawn.rules_id != "farrapos":
            continue
        ruleset = find_ruleset(drawn.rules_id)
        svg = ruleset.map_svg(drawn.position, drawn.events, None)
        assert " MF" in svg  # the stacks list MU
        monkeypatch.setattr(farrapos_svg, "_counter_label", counted)
        worded = 0
        assert ruleset.map_svg(drawn.position, drawn.events, None) == svg
        assert worded == 0, drawn.name
        monkeypatch.undo()


def test_the_board_is_written_in_runs() -> None:
    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        field = find_ruleset(drawn.rules_id).field(drawn.position)
        occupied = {h for h in field.occupied() if h}
        marks: list[mapdraw.Mark] = []
        pieces = furor_svg._Drawing(field, drawn.events).board(occupied, marks)
        board = svg_board.board_of(field.game_map)
        covered = occupied | {h for n in occupied for h in board.covers.get(n, ())}
        assert len(pieces) <= 2 * len(covered) + 4, drawn.name
        text = "\n".join(pieces)
        assert text.count('class="hex-id"') == len(board.at) - len(occupied & set(board.at)), drawn.name
        assert marks == [mapdraw.mark(b) for b in mapdraw.label_boxes(text)], drawn.name


def test_a_coordinate_is_written_once_per_process() -> None:
    rng = random.Random(3)
    values = [0.0, -0.0, 0.0, -0.04, 0.04, 0.05, -0.05, 1, 2.25, -2.25, 1e-9, -1e-9]
    values += [rng.uniform(-2000, 2000) for _ in range(2000)]
    values += [round(rng.uniform(0, 1500), 2) for _ in range(2000)]
    for v in values * 2:  # each value again, once written
        assert svg_shapes.tenths(v) == f"{v:.1f}", v
    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        ruleset = find_ruleset(drawn.rules_id)
        svg = ruleset.map_svg(drawn.position, drawn.events, None)
        written = len(svg_shapes._TENTHS)
        assert ruleset.map_svg(drawn.position, drawn.events, None) == svg
        assert len(svg_shapes._TENTHS) == written, drawn.name


def test_counters_and_roster_read_the_hex_index(monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.rules.furor_barbarus.battlefield import Battlefield

    calls: list[str] = []
    for name in ("units_in", "counter"):
        real = getattr(Battlefield, name)
        monkeypatch.setattr(Battlefield, name, lambda self, *a, _n=name, _r=real: calls.append(_n) or _r(self, *a))
    for drawn in every_map():
        if drawn.rules_id == "farrapos":
            continue
        field = find_ruleset(drawn.rules_id).field(drawn.position)
        d = furor_svg._Drawing(field, drawn.events)
        calls.clear()
        assert 'class="counter"' in "".join(d.counters())
        furor_svg._armies_panel(d, 1200, 100.0, [])
        assert calls == [], drawn.name
