"""What a Furor Barbarus map no longer puts together again in each map (the instruction
budget of ``process --all --reports``, ``bench/budgets.py``): each test counts what is
done, never time, and fails on the map before this round; the maps are the same bytes
(``bench/fingerprint.py``).

- the legend is drawn once per board, width and colour with its start left open
  (``svg_legend``): a map whose legend starts at a height new to the process (below
  its own combats) writes that height into it, and draws no type symbol, text or
  shape of it again (each start drew the whole legend, some 0.6 M instructions);
  the heights are worked out each once (from the steps they share) and written into
  one text cut where they go, in one join;
- a counter at a place new to the process, in a column and a row known to it, writes
  no number: its type symbol's places along x and along y are each written once per
  process, like the counter's own (``test_costs_vouille_reports.py``); the widths of
  its labels are measured once per unit and face and their edges along y once per
  row, and their marks made in place, without a call per label.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus import svg as furor_svg
from pbem.rules.furor_barbarus import svg_counters, svg_legend, svg_shapes
from pbem.rules.furor_barbarus.svg_board import board_of
from pbem.rules.furor_barbarus.svg_shapes import SIZE, TOP, H
from tests.support.map_positions import every_map

SCENARIOS = ("campus-mauriacus", "soissons", "tolbiac", "vouille")


def _board(scenario: str) -> tuple[Any, int, float]:
    """A scenario's board, its map's width and the height below the board."""
    ruleset = find_ruleset("furor-barbarus")
    gm = ruleset.field(ruleset.setup(scenario, ())).game_map
    return board_of(gm), round(SIZE * (1.5 * gm.columns + 0.5) + 2), TOP + H * (gm.rows + 0.5) + 2


def _joined(legend: tuple[float, tuple[str, ...]]) -> tuple[float, str]:
    """A legend's y below it and its text as the map writes it (its pieces joined by line breaks)."""
    return legend[0], "\n".join(legend[1])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_legend_at_any_height_is_the_legend_drawn_there(scenario: str) -> None:
    board, width, below = _board(scenario)
    rng = random.Random(scenario)
    # where a map's legend starts: below the board, its combats' lines (16 each) and gaps
    heights = [below + 14 + k for k in range(300)] + [
        below + 14 + 38 + 19 * n + 16 * k for n in range(8) for k in range(9)
    ]
    heights += [rng.uniform(0, 4000) for _ in range(200)] + [0.0, 0.05, 1e-9, 12345.678]
    for side in ("#2f5597", "#a83232"):
        assert svg_legend._shape(board, width, side) is not None
        for y in heights:
            drawn = svg_legend._drawn(board, width, y, side)
            assert _joined(svg_legend.legend(board, width, y, side)) == _joined(drawn), y


def test_a_legend_at_a_new_height_draws_no_symbol_or_text(monkeypatch: pytest.MonkeyPatch) -> None:
    board, width, below = _board("vouille")
    svg_legend.legend(board, width, below + 14, "#a83232")
    drawn: list[str] = []

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            drawn.append(name)
            return real(*args, **kwargs)

        return call

    for name in ("_text", "symbol", "corners", "text_width", "wrap"):
        monkeypatch.setattr(svg_legend, name, counted(name, getattr(svg_legend, name)))
    y, legend = svg_legend.legend(board, width, below + 14 + 57, "#a83232")  # a start no map had
    assert drawn == []
    monkeypatch.undo()
    assert _joined((y, legend)) == _joined(svg_legend._drawn(board, width, below + 14 + 57, "#a83232"))
    title = f'<text class="label" x="10.0" y="{below + 14 + 57 + 14:.1f}" font-size="14" text-anchor="start" '
    assert legend[0].startswith(title + 'font-weight="bold" fill="#222">Legend</text>\n')


def test_maps_whose_legends_start_apart_draw_one_legend(monkeypatch: pytest.MonkeyPatch) -> None:
    maps = [drawn for drawn in every_map() if drawn.rules_id != "farrapos"]
    drawn_legends: list[Any] = []
    real = svg_legend._drawn

    def counted(*args: Any) -> Any:
        drawn_legends.append(args[0])
        return real(*args)

    svg_legend._shape.cache_clear()
    svg_legend.legend.cache_clear()
    monkeypatch.setattr(svg_legend, "_drawn", counted)
    starts = set()
    for drawn in maps:
        svg = find_ruleset(drawn.rules_id).map_svg(drawn.position, drawn.events, None)
        starts.add((drawn.scenario, svg.split(">Legend<")[0].rsplit('y="', 1)[1]))
    assert len(starts) > len({board for board in drawn_legends})  # legends at several heights of one board
    assert len(drawn_legends) == len(set(drawn_legends)) <= len(SCENARIOS)  # each board's drawn once


def test_a_type_symbol_is_put_together_from_its_places() -> None:
    rng = random.Random(5)
    kinds = ("infantry", "missile_infantry", "cavalry", "missile_cavalry", "commander", "baggage", "unknown")
    for _ in range(3000):
        kind, x, y = rng.choice(kinds), rng.uniform(-20, 3000), rng.uniform(-20, 3000)
        markup = svg_shapes.symbol(kind, x, y, 18, 10, "#fff")
        assert markup.startswith(f'<rect x="{x:.1f}" y="{y:.1f}" width="18.0" height="10.0" stroke="#fff"')
        if kind == "commander":
            assert f'<path d="M{x + 18 * 0.3:.1f},{y + 10 * 0.85:.1f} L{x + 18 * 0.3:.1f},' in markup
        if kind == "baggage":
            assert f'<circle cx="{x + 18 / 2:.1f}" cy="{y + 10 / 2:.1f}" r="3.2"' in markup


def test_a_counter_at_a_new_place_measures_and_marks_no_label(monkeypatch: pytest.MonkeyPatch) -> None:
    unit = ("franks-infantry-1", "Frankish infantry", "infantry", "4-7", True)
    svg_counters.counter(*unit, "0101", 11.0, 22.0, "#2f5597", "fra-inf-1", False)
    calls: list[str] = []

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any) -> Any:
            calls.append(name)
            return real(*args)

        return call

    for name in ("text_width", "mark"):
        monkeypatch.setattr(svg_counters, name, counted(name, getattr(svg_counters, name)))
    _markup, id_mark, factors_mark = svg_counters.counter(*unit, "0102", 57.0, 22.0, "#2f5597", "fra-inf-1", False)
    assert calls == []
    monkeypatch.undo()
    assert id_mark == svg_counters._label_mark(80.0, 32.0, "fra-inf-1", 9.0)
    assert factors_mark == svg_counters._label_mark(80.0, 55.0, "4-7", 10.5)
    assert furor_svg.svg_counters is svg_counters


def test_a_counters_marks_are_its_labels_marks() -> None:
    rng = random.Random(6)
    for n in range(3000):
        x, y = rng.uniform(-50, 3000), rng.uniform(-50, 3000)
        short, factors = rng.choice(("vis-cav-2", "a", "WWW")), rng.choice(("4-6", "10-7-3", "a&b"))
        _markup, id_mark, factors_mark = svg_counters.counter(
            f"u{n}", "N", "infantry", factors, n % 2 == 0, "0101", x, y, "#a83232", short, n % 3 == 0
        )
        mid = float(svg_shapes.tenths(x + 23.0))
        assert id_mark == svg_counters._label_mark(mid, float(svg_shapes.tenths(y + 10)), short, 9.0)
        escaped = svg_shapes._t(factors)
        assert factors_mark == svg_counters._label_mark(mid, float(svg_shapes.tenths(y + 36.0 - 3)), escaped, 10.5)
