"""What drawing a map no longer does (the speed work), counted, never timed:
each map measured every label of its board again (the board is drawn once per
process, its labels were measured in every map), and its close-up tested every
label against each edge with the whole label list.  The close-up is the same."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from pbem.rules import find_ruleset, mapdraw
from pbem.rules.mapdraw import Box
from tests.support.calls import opcodes
from tests.support.map_positions import every_map


def _take_in_before(box: Box, labels: list[Box], limit: Box, core: Box | None = None, margin: float = 4.0) -> Box:
    """``mapdraw.take_in`` as it was before the speed work (the reference)."""
    marks = [(lx - margin, ly - margin, lx + lw + margin, ly + lh + margin) for lx, ly, lw, lh in labels]
    edges = [box[0], box[1], box[0] + box[2], box[1] + box[3]]
    if core is not None:
        inner = [core[0], core[1], core[0] + core[2], core[1] + core[3]]
        moved = True
        while moved:
            moved = False
            for i in range(4):
                axis, outer = i % 2, i < 2
                lo, hi = edges[1 - axis], edges[3 - axis]
                cut = [m for m in marks if m[1 - axis] < hi and lo < m[3 - axis] and m[axis] < edges[i] < m[axis + 2]]
                if not cut:
                    continue
                edge = max(m[axis + 2] for m in cut) if outer else min(m[axis] for m in cut)
                if (edge <= inner[i]) if outer else (edge >= inner[i]):
                    edges[i] = edge
                    moved = True
    x0, y0, x1, y1 = edges
    grown = True
    while grown:
        grown = False
        for a0, b0, a1, b1 in marks:
            if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1 and (a0 < x0 or b0 < y0 or a1 > x1 or b1 > y1):
                x0, y0, x1, y1 = min(x0, a0), min(y0, b0), max(x1, a1), max(y1, b1)
                grown = True
    lx, ly, lw, lh = limit
    x0, y0, x1, y1 = max(x0, lx), max(y0, ly), min(x1, lx + lw), min(y1, ly + lh)
    x0, y0 = math.floor(x0 * 10) / 10, math.floor(y0 * 10) / 10
    return (x0, y0, round(math.ceil(x1 * 10) / 10 - x0, 1), round(math.ceil(y1 * 10) / 10 - y0, 1))


def test_the_close_up_is_what_it_was() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        labels = [
            (rng.uniform(0, 900), rng.uniform(0, 700), rng.uniform(5, 120), rng.uniform(8, 20))
            for _ in range(rng.randint(0, 60))
        ]
        x, y = rng.uniform(0, 600), rng.uniform(0, 400)
        box = (x, y, rng.uniform(50, 400), rng.uniform(50, 300))
        core = (box[0] + rng.uniform(-30, 80), box[1] + rng.uniform(-30, 80), rng.uniform(0, 200), rng.uniform(0, 200))
        limit = (0.0, 0.0, 1000.0, 800.0)
        for c in (core, None):
            assert mapdraw.take_in(box, labels, limit, c) == _take_in_before(box, labels, limit, c)


def test_the_close_up_is_what_it_was_with_the_core_anywhere() -> None:
    """The action's core partly or wholly outside the box, or the box inside it: an
    edge's strip reaches outside the box (the one-pass sorting of the labels)."""
    rng = random.Random(11)
    for _ in range(3000):
        labels = [
            (rng.uniform(0, 600), rng.uniform(0, 500), rng.uniform(5, 120), rng.uniform(8, 20))
            for _ in range(rng.randint(0, 60))
        ]
        box = (rng.uniform(0, 400), rng.uniform(0, 300), rng.uniform(0, 300), rng.uniform(0, 250))
        core = (rng.uniform(-50, 600), rng.uniform(-50, 500), rng.uniform(0, 300), rng.uniform(0, 300))
        limit = (0.0, 0.0, 700.0, 600.0)
        assert mapdraw.take_in(box, labels, limit, core) == _take_in_before(box, labels, limit, core)


def test_a_map_measures_its_boards_labels_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each map measured every label of its board (a regular expression over the
    board's markup, then each text's width): now each piece of the board (drawn
    once per process) is measured once, and a second map of the same position
    measures nothing; a list of pieces has the labels of the whole markup."""
    measured: list[str] = []
    real = mapdraw.label_boxes

    def counted(svg: str) -> list[Box]:
        measured.append(svg)
        return real(svg)

    for drawn in every_map():
        ruleset = find_ruleset(drawn.rules_id)
        svg = ruleset.map_svg(drawn.position, drawn.events, None)
        monkeypatch.setattr(mapdraw, "label_boxes", counted)
        measured.clear()
        assert ruleset.map_svg(drawn.position, drawn.events, None) == svg
        assert measured == [], drawn.name
        monkeypatch.setattr(mapdraw, "label_boxes", real)
        pieces = svg.split("\n")  # each line of a map holds whole elements
        assert mapdraw.pieces_label_marks(pieces) == [mapdraw.mark(b) for b in real(svg)], drawn.name


def test_a_second_map_measures_no_text_and_places_no_hex_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each map measured each of its texts character by character (a fifth of a
    Furor Barbarus report) and worked out each hex's centre from its name; now
    each text and each hex once per process."""
    from pbem.rules.furor_barbarus import svg_shapes

    measured = 0
    real = mapdraw._measure

    def counted(*args: Any) -> float:
        nonlocal measured
        measured += 1
        return real(*args)

    for drawn in every_map():
        ruleset = find_ruleset(drawn.rules_id)
        svg = ruleset.map_svg(drawn.position, drawn.events, None)
        monkeypatch.setattr(mapdraw, "_measure", counted)
        placed = svg_shapes.centre.cache_info().misses
        assert ruleset.map_svg(drawn.position, drawn.events, None) == svg
        assert measured == 0 and svg_shapes.centre.cache_info().misses == placed, drawn.name
        monkeypatch.undo()


def _wrap_before(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """``mapdraw.wrap`` as it was before the speed work (each candidate line measured whole)."""
    lines: list[str] = []
    for word in text.split():
        if lines and mapdraw._measure(lines[-1] + " " + word, size, bold) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def test_wrapping_is_what_it_was() -> None:
    rng = random.Random(7)
    letters = "aiMW.,-( )19&<xyzQ"
    for _ in range(3000):
        text = "".join(rng.choice(letters) for _ in range(rng.randint(0, 120)))
        size, width, bold = rng.choice((8, 10.5, 11, 12)), rng.uniform(10, 400), rng.random() < 0.5
        assert mapdraw.wrap(text, size, width, bold) == _wrap_before(text, size, width, bold)


def test_the_close_up_grows_over_each_mark_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The marks across an edge's strip were handed to the close-up's growth once per strip
    and once more when outside the box (some 40 % of a Farrapos map's 44, each looked at
    again in each pass); each is handed once now, and every map is the same."""
    handed: list[list[mapdraw.Mark]] = []
    real = mapdraw._grown

    def kept(x0: float, y0: float, x1: float, y1: float, rest: list[mapdraw.Mark], beyond: Any) -> Any:
        handed.append(list(rest))
        return real(x0, y0, x1, y1, rest, beyond)

    for drawn in every_map():
        ruleset = find_ruleset(drawn.rules_id)
        svg = ruleset.map_svg(drawn.position, drawn.events, None)
        monkeypatch.setattr(mapdraw, "_grown", kept)
        assert ruleset.map_svg(drawn.position, drawn.events, None) == svg
        monkeypatch.undo()
    assert sum(map(len, handed)) > 300
    assert all(len({id(m) for m in rest}) == len(rest) for rest in handed)


def test_the_close_up_steps_in_without_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edge stepping in listed the marks across it as pairs of sides, then found the
    farthest by a generator over the pairs; it lists the one side it moves to and takes
    its ``max`` or ``min`` (and skips an empty strip).  Over the close-ups of every map
    (some 2,200 marks), 54.5 bytecode instructions a mark (56.6 with the pairs, 60.7 with
    each mark handed to the growth once per strip as well), the same boxes."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    real = mapdraw.focus_box

    def kept(*args: Any, **kwargs: Any) -> Box:
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    from pbem.rules.farrapos import svg_focus
    from pbem.rules.furor_barbarus import svg as furor_svg

    for module in (svg_focus, furor_svg):
        monkeypatch.setattr(module, "focus_box", kept)
    for drawn in every_map():
        find_ruleset(drawn.rules_id).map_svg(drawn.position, drawn.events, None)
    marks = sum(len(args[4]) for args, _ in calls)
    run = sum(opcodes(lambda a=args, k=kwargs: real(*a, **k)) for args, kwargs in calls)
    assert len(calls) == 10 and marks > 2000
    assert run < 55.5 * marks, run / marks
