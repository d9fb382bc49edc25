"""What the Farrapos map no longer does for each report: each test counts, never
times, and fails on the map before the change it guards.

- the close-up reads where each city's VP and name labels lie from the drawing
  of the board (worked out once per board from the numbers they are drawn with):
  it read them back from the markup of each city's piece (two regular
  expressions and a number parse per label) for each holder and look a process
  had not drawn yet, most pieces of a new game's map; the marks are those the
  markup gives, in every look.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.rules import find_ruleset, mapdraw
from pbem.rules.farrapos.counters import SIDES
from pbem.rules.farrapos.svg import _shipped_drawing
from tests.support.farrapos_games import play_game

RULES = find_ruleset("farrapos")


def test_each_citys_label_marks_are_those_its_markup_gives() -> None:
    drawing = _shipped_drawing()
    assert mapdraw.label_marks(drawing.top) == ()
    for cid, looks in drawing.marks.items():
        for piece in looks.values():
            assert mapdraw.label_marks(piece) == (drawing.mark_labels[cid],), cid
    for cid, looks in drawing.names.items():
        for (_, badge), piece in looks.items():
            assert mapdraw.label_marks(piece) == (drawing.name_labels[cid][badge],), cid


def test_a_map_reads_no_label_back_from_its_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[tuple[dict[str, Any], list[Any]]] = []
    play_game(
        3, dict(zip(SIDES, ("greedy", "random"))), after_turn=lambda _, after, __, events: drawn.append((after, events))
    )
    RULES.map_svg(*drawn[0])  # the board's drawing, once per process
    read = [0]
    real = mapdraw.label_boxes

    def counting(svg: str) -> list[mapdraw.Box]:
        read[0] += 1
        return real(svg)

    monkeypatch.setattr(mapdraw, "label_boxes", counting)
    monkeypatch.setattr(mapdraw, "_marks_of", {})  # as in a process that has drawn no map yet
    for position, events in drawn[1::4]:
        assert "data-focus=" in RULES.map_svg(position, events)
    assert read[0] == 0
