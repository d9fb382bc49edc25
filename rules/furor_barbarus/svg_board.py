"""The Furor Barbarus board as the map draws it (rules/furor_barbarus/svg.py): its
terrain, then each hex's id and name where no counter covers them, with the marks
of their labels for the close-up (``mapdraw.mark``).  What a board owes to the map
alone is drawn once per map in a process; a map then writes the hexes' labels as
runs cut from one text made once, with a look at each covered hex only."""

from __future__ import annotations

import math

from pbem.rules.furor_barbarus.maps import GameMap
from pbem.rules.furor_barbarus.svg_shapes import (
    COUNTER_H,
    COUNTER_W,
    SIZE,
    TAB_H,
    TERRAIN_COLOURS,
    H,
    _text,
    centre,
    corners,
)
from pbem.rules.mapdraw import Mark, label_marks, overlaps, text_width


def _terrain(gm: GameMap) -> str:
    """The terrain group's opening and content: hexes, rivers, streams, crossings."""
    out = ['<g class="terrain">']
    for h in gm.all_hexes():
        cx, cy = centre(h)
        colour = TERRAIN_COLOURS.get(gm.terrain(h).value, "#eee")
        out.append(f'<polygon points="{corners(cx, cy)}" fill="{colour}" stroke="#a0a090" stroke-width="0.7"/>')
    for (a, b), side in gm.hexsides.items():
        (ax, ay), (bx, by) = centre(a), centre(b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        dx, dy = bx - ax, by - ay
        n = math.hypot(dx, dy) or 1
        px, py = -dy / n * SIZE / 2, dx / n * SIZE / 2
        colour, width_ = ("#2d6fb5", 4) if side.feature.value == "river" else ("#5aa0e0", 2.5)
        out.append(
            f'<line x1="{mx - px:.1f}" y1="{my - py:.1f}" x2="{mx + px:.1f}" y2="{my + py:.1f}" '
            f'stroke="{colour}" stroke-width="{width_}" class="{side.feature.value}"/>'
        )
        if side.crossing is not None:
            mark = "#6b4b2a" if side.crossing.value in ("bridge", "road") else "#e0f0ff"
            out.append(
                f'<rect x="{mx - 4:.1f}" y="{my - 4:.1f}" width="8" height="8" fill="{mark}" stroke="#333" '
                f'stroke-width="0.6" class="{side.crossing.value}"><title>{side.crossing.value}</title></rect>'
            )
    return "\n".join(out)


class Board:
    """What a map's drawing owes to the map alone: the terrain (one text) and each
    hex's labels, its id and its name, in the order of the map's hexes: all of them
    as one text (lines joined as the map joins its pieces) with where each hex's
    labels start and end in it, and their marks in one list with the same bounds;
    and for each hex, the names its counter would cover (a hex name wider than its
    hex is drawn only where no counter next to it would cover it; the legend's list
    of places names every one anyway)."""

    def __init__(self, gm: GameMap) -> None:
        self.gm = gm
        self.terrain = _terrain(gm)
        ids: list[tuple[str, tuple[Mark, ...]]] = []  # each hex's id alone, and its marks
        texts: list[str] = []
        self.marks: list[Mark] = []
        self.at: dict[str, int] = {}  # each hex's place in the order
        self.bounds: list[tuple[int, int, int, int]] = []  # its labels' start and end in the text and the marks
        self.covers: dict[str, list[str]] = {}  # hex -> the hexes whose name its counter would cover
        text_at = 0
        for i, h in enumerate(gm.all_hexes()):
            cx, cy = centre(h)
            id_text = _text(cx, cy - H / 2 + 10, h, 8, "middle", "#6a6a5a", cls="hex-id")
            ids.append((id_text, label_marks(id_text)))
            labels = [id_text]
            if h in gm.names:
                labels.append(
                    _text(cx, cy + H / 2 - 5, gm.names[h], 8, "middle", "#333", style="italic", cls="hex-name")
                )
                for blocker in _name_blockers(gm, h):
                    self.covers.setdefault(blocker, []).append(h)
            text = "\n".join(labels)
            marks_at = len(self.marks)
            for label in labels:
                self.marks += label_marks(label)
            self.at[h] = i
            self.bounds.append((text_at, text_at + len(text), marks_at, len(self.marks)))
            texts.append(text)
            text_at += len(text) + 1
        self.text = "\n".join(texts)
        self.ids = tuple(ids)

    def draw(self, occupied: set[str], marks: list[Mark]) -> list[str]:
        """The terrain, then each hex's id and name where no counter covers them (no
        label in an occupied hex, no name a counter next to it would cover); their
        labels' marks go to ``marks``.  The labels between two covered hexes are one
        run of the text made once, their marks one slice of the list."""
        at, bounds = self.at, self.bounds
        skipped = {at[h] for h in occupied if h in at}
        named = {at[h] for n in occupied for h in self.covers.get(n, ())}  # a name a counter would cover
        out = [self.terrain, '</g><g class="hex-ids">']
        start = 0
        for i in sorted(skipped | named):
            if start < i:  # the hexes since the last covered one, whole
                out.append(self.text[bounds[start][0] : bounds[i - 1][1]])
                marks += self.marks[bounds[start][2] : bounds[i - 1][3]]
            if i not in skipped:  # its name covered: its id alone
                text, id_marks = self.ids[i]
                out.append(text)
                marks += id_marks
            start = i + 1
        if start < len(bounds):
            out.append(self.text[bounds[start][0] :])
            marks += self.marks[bounds[start][2] :]
        out.append("</g>")
        return out


def _name_blockers(gm: GameMap, h: str) -> tuple[str, ...]:
    """The neighbours of ``h`` whose counter (and tabs) would cover its name."""
    cx, cy = centre(h)
    w = text_width(gm.names[h], 8) * 1.1
    box = (cx - w / 2, cy + H / 2 - 13, w, 11.0)
    blockers = []
    for n in gm.neighbours(h):
        nx, ny = centre(n)
        counter = (nx - COUNTER_W / 2 - 3, ny - COUNTER_H / 2 - TAB_H * 2 - 3, COUNTER_W + 6, COUNTER_H + TAB_H * 2 + 8)
        if overlaps(box, counter):
            blockers.append(n)
    return tuple(blockers)


_BOARDS: dict[int, tuple[GameMap, Board]] = {}


def board_of(gm: GameMap) -> Board:
    """The board of ``gm``, drawn once per map in a process (the maps themselves are
    loaded once per process: ``scenarios._load_map_cached``); the map is kept beside
    its drawing, so its id is never reused for another."""
    kept = _BOARDS.get(id(gm))
    if kept is None or kept[0] is not gm:
        if len(_BOARDS) >= 16:  # maps made afresh (tests, a ruleset's checks): keep the last few
            _BOARDS.clear()
        kept = _BOARDS[id(gm)] = (gm, Board(gm))
    return kept[1]
