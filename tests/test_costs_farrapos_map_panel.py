"""What a Farrapos map no longer works out: each test counts, never times, and
fails on the code before the change it guards.

- the Phase, Turn and VP tracks were put together in every map (three headings
  through ``svg._text``, each cell picked, both VP markers and the score line
  written); they are now put together once per drawing and phase and turn, and
  once per drawing and score (the maps of a batch of games show the same few),
  the same markup as before;
- each stack's lines were listed first (a list comprehension a stack) and each
  line wrote its ``x``; a line is now written as its MU is met, from its stack's
  opening (``<text x="..." y="``) written once;
- a quiet resolution's close-up (the front, where MU of both sides face each
  other) asked the View for each city's MU and owner, a method call each (and a
  copy of the city's MU list); it reads them off the city's entry;
- the board's layers looked each city's marks and labels up in the drawing's
  tables city by city; the VP labels are added in one step (they are the same in
  every position) and the marks read in the drawing's order.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.rules.farrapos import svg, svg_focus
from pbem.rules.farrapos.counters import SIDES
from pbem.rules.farrapos.position import View
from tests.support.calls import counted_calls, opcodes
from tests.support.farrapos_games import play_game


def _positions() -> list[dict[str, Any]]:
    return [position for position, _ in _positions_with_events()]


def _positions_with_events() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each position of a bot game after a turn, with that turn's events."""
    seen: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    play_game(7, dict(zip(SIDES, ("random", "greedy"))), after_turn=lambda b, after, s, ev: seen.append((after, ev)))
    return seen


def _tracks_before(view: View, drawing: Any, px: float) -> list[str]:
    """The tracks as the map drew them before they were kept."""
    position = view.position
    out = [svg._text(px, svg.PHASE_TRACK_Y, "Phase track", 13, weight="bold")]
    out += [cell[phase == view.phase] for phase, cell in drawing.phases.items()]
    out.append(svg._text(px, svg.TURN_TRACK_Y, "Turn track", 13, weight="bold"))
    out += [cell[turn == view.turn] for turn, cell in drawing.turns.items()]
    out.append(svg._text(px, svg.VP_TRACK_Y, "VP track", 13, weight="bold"))
    out.append(drawing.vp_track)
    for n, s in enumerate(("empire", "republic")):
        value = int(position["vp"][s])
        slot = min(value, 30)
        cx, cy = px + (slot % 16) * 29, drawing.vp_track_y + (slot // 16) * 24
        out.append(
            f'<circle cx="{cx + 7 + n * 13}" cy="{cy + 16}" r="5" fill="{svg.SIDE_COLOURS[s]}">'
            f"<title>{svg.escape(svg.SIDE_NAMES[s])} {value} VP</title></circle>"
        )
    vp = position["vp"]
    line = f"Republic {vp['republic']} VP   Empire {vp['empire']} VP   (24 wins before 1845)"
    out.append(svg._text(px, svg.SCORE_Y, line, 12, weight="bold"))
    return out


def test_the_tracks_are_drawn_once_per_phase_turn_and_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """Maps drawn again draw their tracks without a call of ``_text`` (three or four a
    map before), and the tracks are the markup they were."""
    positions = _positions()
    drawing = svg._shipped_drawing()
    for position in positions:
        view = View(position)
        assert "\n".join(svg._tracks(view, drawing, 30)) == "\n".join(_tracks_before(view, drawing, 30))
    first = [svg.render(position) for position in positions]
    bodies: list[str] = []
    real = svg._text

    def counted(*args: Any, **kwargs: Any) -> str:
        bodies.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(svg, "_text", counted)
    assert [svg.render(position) for position in positions] == first
    assert not [b for b in bodies if b.endswith(" track") or b.startswith("Republic ")]
    assert len(positions) > 20


def _board_layers_drawn() -> list[tuple[View, list[dict[str, Any]], list[Any], list[Any]]]:
    """For each position of a bot game after a turn, the drawing's tables filled (its
    map drawn once): its View, the turn's events, and the labels and stacks the
    board's layers list."""
    drawn = []
    drawing = svg._shipped_drawing()
    for position, events in _positions_with_events():
        svg.render(position, events)
        view = View(position)
        labels: list[Any] = []
        stacks: list[Any] = []
        svg._board_layers(view, drawing, events, labels, [], stacks)
        drawn.append((view, events, labels, stacks))
    return drawn


def test_a_stack_line_is_written_in_fewer_steps() -> None:
    """The stacks of every map of a bot game (over a thousand lines) run fewer than 50
    bytecode instructions a line, the drawing's tables filled (68.6 before; 61.7 while
    the stacks read every city's entry again: they list the cities with MU or Militia
    the board's layers found, each with its holder, MU and Militia)."""
    drawing = svg._shipped_drawing()
    runs, lines = 0, 0
    for view, _events, _labels, stacks in _board_layers_drawn():
        out: list[str] = []
        svg._stacks(view, drawing, 30, out, stacks)
        lines += len(out)
        runs += opcodes(lambda v=view, s=stacks: svg._stacks(v, drawing, 30, [], s))
    assert lines > 1000
    assert runs < 50 * lines, runs / lines


def test_the_board_layers_look_up_less() -> None:
    """The board's layers of every map of a bot game run fewer than 3,100 bytecode
    instructions a map, the drawing's tables filled (3,843 before; 3,390 while each
    city's entry was read twice, once for its mark and once for its name: now once, in
    board order, each name put in its place among the labels, and each city with MU or
    Militia listed for the stacks: 2,849 without that list), and give the same VP
    labels, in board order, as the drawing's tables city by city, then each name's, in
    the labels' order."""
    drawing = svg._shipped_drawing()
    runs, maps = 0, 0
    for view, events, labels, _stacks in _board_layers_drawn():
        assert labels[: len(view.board.cities)] == [drawing.mark_labels[c] for c in view.board.cities]
        cities = view.cities
        held = {c: bool(cities[c]["units"]) or int(cities[c]["militia"]) > 0 for c in cities}
        assert labels[len(view.board.cities) :] == [drawing.name_labels[c][held[c]] for c in drawing.labels]
        runs += opcodes(lambda v=view, e=events: svg._board_layers(v, drawing, e, [], [], []))
        maps += 1
    assert maps > 20
    assert runs < 3100 * maps, runs / maps


def test_a_quiet_close_up_asks_the_view_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The maps of a bot game's positions drawn without events (quiet resolutions:
    the close-up is the front) ask the View for no city's MU or owner (the front was
    found with both, for each held city and its neighbours), and are the maps they
    were."""
    positions = _positions()
    first = [svg.render(position) for position in positions]
    drawing = svg._shipped_drawing()
    fronts = [svg_focus.focus(View(p), drawing.at, (), [], (0, 0, 960, 1500))[1] for p in positions].count("the front")
    units = counted_calls(monkeypatch, View, "units_in")
    owners = counted_calls(monkeypatch, View, "owner")
    assert [svg.render(position) for position in positions] == first
    assert units == [] and owners == [] and fronts > 10
