"""What a Campus Mauriacus map no longer works out again, counted, never timed:

- the close-up (``mapdraw.take_in_marks``), growing its box to take in whole the
  labels it meets, went over every label it did not meet once per pass, and again
  after each pass that grew it (a chain of labels across a Campus Mauriacus board took
  up to eight passes over some two hundred labels); a label the box does not meet now
  waits beside the edge it lies beyond and is looked at again only once that edge has
  moved past it.  The close-up is the same box (``tests/test_report_map_costs.py``
  compares it with the first version on random labels);
- each map wrote every unit's factors again; now once per printed counter and face
  in a process;
- a counter at a new place looked its type symbol's places up again, beside its
  column's and its row's own: they are kept together (and the symbol's stroke with the
  counter's face);
- each counter alone in its hex and each roster line was a call of the map's own
  around the piece it puts together;
- a move's line wrote each new hex's centre's numbers twice."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.rules import find_ruleset, mapdraw
from pbem.rules.furor_barbarus import svg as furor_svg
from pbem.rules.furor_barbarus import svg_counters, svg_shapes
from pbem.rules.furor_barbarus.counters import Counter
from tests.support.calls import counted_calls
from tests.support.furor_turns import bot_turns


class _Looked(tuple[float, float, float, float]):
    """A mark that counts how often it is taken apart (``a0, b0, a1, b1 = m``)."""

    looks = 0

    def __iter__(self) -> Iterator[float]:
        _Looked.looks += 1
        return super().__iter__()


def test_a_chain_of_labels_does_not_look_again_at_the_labels_far_away() -> None:
    box = (100.0, 100.0, 200.0, 200.0)  # edges 100 to 300
    # a chain of labels up from the box's top, the farthest first: the box takes in one a pass
    chain = [(150.0, 100.0 - 10 * (i + 1) - 1, 160.0, 100.0 - 10 * i + 1) for i in range(10)][::-1]
    far = [_Looked((1000.0 + 20 * i, 150.0, 1010.0 + 20 * i, 160.0)) for i in range(100)]  # right of the box
    _Looked.looks = 0
    found = mapdraw.take_in_marks(box, [*chain, *far], (0.0, -500.0, 2000.0, 2000.0))
    assert found == (100.0, -1.0, 200.0, 301.0)  # up to the chain's last label, the far ones left out
    assert _Looked.looks == len(far)  # each far label looked at once (it was eleven times: a pass per label taken)


def test_a_counters_factors_are_written_once_per_face_in_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each map wrote every unit's factors again (its strength on the face showing, its
    MP and range); now once per printed counter and face in a process: a second map
    of the same units writes none."""
    ruleset = find_ruleset("furor-barbarus")
    position = bot_turns("campus-mauriacus", 1)[0][0]
    written: list[str] = []
    real = Counter.value

    def value(self: Counter, reduced: bool) -> int:
        caller = sys._getframe(1).f_code.co_name
        if caller in ("factors", "strength") and sys._getframe(2).f_code.co_name in ("factors", "counters"):
            written.append(self.id)
        return real(self, reduced)

    first = ruleset.map_svg(position)
    monkeypatch.setattr(Counter, "value", value)
    again = ruleset.map_svg(position)
    assert again == first
    assert "counter-factors" in again and written == []  # it was one a unit on the map


def test_a_counter_finds_its_type_symbols_places_with_its_column_and_row() -> None:
    """A counter drawn at a new place looked its type symbol's places along x and along
    y up again (two look-ups a counter, and a call to put the symbol together): they
    are now kept with its column's and its row's own places, and its stroke with its face."""
    across, down = svg_shapes.symbol_across, svg_shapes.symbol_down
    unit = ("franks-infantry-1", "Frankish infantry", "infantry", "4-7", False)
    svg_counters.counter(*unit, "0101", 311.0, 422.0, "#2f5597", "fra-inf-1", False)  # its column, row and face
    svg_counters.counter(*unit, "0202", 357.0, 468.0, "#2f5597", "fra-inf-1", False)
    before = across.cache_info(), down.cache_info()
    markup, *_marks = svg_counters.counter(*unit, "0102", 311.0, 468.0, "#2f5597", "fra-inf-1", False)
    after = across.cache_info(), down.cache_info()
    assert [a.hits + a.misses - b.hits - b.misses for a, b in zip(after, before)] == [0, 0]  # one each before
    assert svg_shapes.symbol("infantry", 311.0 + 23 - 9, 468.0 + 12.5, 18, 10, "#ffffff") in markup


def test_a_maps_single_counters_and_roster_lines_take_no_call_of_their_own() -> None:
    """Each counter alone in its hex and each roster line was a call of the map's
    (``_Drawing.counter``, ``_roster_line``) around the piece it puts together."""
    ruleset = find_ruleset("furor-barbarus")
    position = bot_turns("campus-mauriacus", 1)[0][0]
    first = ruleset.map_svg(position)
    called: list[str] = []

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename == furor_svg.__file__:
            called.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        again = ruleset.map_svg(position)
    finally:
        sys.setprofile(None)
    assert again == first
    stacked = sum(1 for units in ruleset.field(position).occupied().values() if len(units) > 1)
    assert called.count("counter") == stacked < 10 and "_roster_line" not in called  # they were one a unit


def test_a_hexs_centre_is_written_once_for_a_moves_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move's line wrote each new hex's centre's numbers twice (as x and y, then again
    as the point ``x,y``)."""
    written = counted_calls(monkeypatch, furor_svg, "tenths")
    furor_svg._point.cache_clear()
    x, y, point = furor_svg._point("2417")
    assert point == f"{x},{y}" == "{:.1f},{:.1f}".format(*svg_shapes.centre("2417"))
    assert len(written) == 2  # it was four
