"""What a Farrapos map no longer draws again: its tracks.  The test counts, never
times, and fails on the code before the change it guards.

- the Phase, Turn and VP tracks were put together in every map (three headings
  through ``svg._text``, each cell picked, both VP markers and the score line
  written); they are now put together once per drawing and phase and turn, and
  once per drawing and score (the maps of a batch of games show the same few),
  the same markup as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.rules.farrapos import svg
from pbem.rules.farrapos.counters import SIDES
from pbem.rules.farrapos.position import View
from tests.support.farrapos_games import play_game


def _positions() -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    play_game(7, dict(zip(SIDES, ("random", "greedy"))), after_turn=lambda before, *_: seen.append(before))
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
