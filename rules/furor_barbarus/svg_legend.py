"""The legend below the Furor Barbarus map (rules/furor_barbarus/svg.py): the unit
types, a counter, the arrows and the terrain.  It is the same in every map of a
scenario but for the height it starts at, below this resolution's combats, which
differ from one map to the next: so it is drawn once per board, width and colour
with its start left open (:class:`_Below`), and each map writes its heights into that
shape (:meth:`_Shape.at`), the same text as the legend drawn at that height."""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from typing import Any

from pbem.rules.furor_barbarus.svg_board import Board
from pbem.rules.furor_barbarus.svg_shapes import (
    COUNTER_H,
    COUNTER_W,
    TERRAIN_COLOURS,
    TYPE_WORDS,
    _text,
    corners,
    symbol,
)
from pbem.rules.mapdraw import text_width, wrap

LEGEND_MARKS = [
    (
        '<line x1="10" y1="{y}" x2="44" y2="{y}" stroke="#555" stroke-width="3.5" marker-end="url(#fb-arrow-555555)"/>',
        "move",
    ),
    (
        '<line x1="10" y1="{y}" x2="44" y2="{y}" stroke="#555" stroke-width="3.5" stroke-dasharray="7,4" '
        'marker-end="url(#fb-arrow-555555)"/>',
        "retreat",
    ),
    (
        '<line x1="10" y1="{y}" x2="44" y2="{y}" stroke="#555" stroke-width="3.5" stroke-dasharray="2,3" '
        'marker-end="url(#fb-arrow-555555)"/>',
        "advance",
    ),
    (
        '<rect x="14" y="{y_box}" width="26" height="14" rx="3" fill="none" stroke="#d00000" stroke-width="3"/>',
        "attacked this resolution",
    ),
    (
        '<polygon points="{hex_pts}" fill="#d00000" fill-opacity="0.12" stroke="#d00000" stroke-width="3"/>',
        "combat (numbered above)",
    ),
    (
        '<line x1="10" y1="{y}" x2="40" y2="{y}" stroke="#d00000" stroke-width="3" stroke-dasharray="5,3" '
        'marker-end="url(#fb-attack)"/>',
        "missile fire at range",
    ),
    ('<line x1="10" y1="{y}" x2="44" y2="{y}" stroke="#2d6fb5" stroke-width="4"/>', "river"),
    ('<line x1="10" y1="{y}" x2="44" y2="{y}" stroke="#5aa0e0" stroke-width="2.5"/>', "stream"),
]
"""The legend's marks: an SVG shape (its ``y`` placeholders filled in where it is
drawn) and what it means."""


def _drawn(board: Board, width: int, y: Any, side: str) -> tuple[Any, tuple[str, ...]]:
    """The legend of ``board``'s map from ``y`` down, ``side`` the colour of its
    sample counters, and the y below it: ``y`` a height (a float) or the start left open
    (:class:`_Below`).  Nothing in it depends on ``y`` but the heights it writes."""
    out = [_text(10, y + 14, "Legend", 14, weight="bold")]
    y += 26
    x = 10.0
    for kind in ("infantry", "missile_infantry", "cavalry", "missile_cavalry", "commander", "baggage"):
        words = TYPE_WORDS[kind].split(" (")[0]
        need = 26 + text_width(words, 11) + 18
        if x + need > width - 10:
            x, y = 10.0, y + 22
        out.append(symbol(kind, x, y, 20, 12, "#333"))
        out.append(_text(x + 26, y + 10, words, 11))
        x += need
    y += 34
    out.append(
        f'<rect x="10" y="{y - 12:.1f}" width="{COUNTER_W}" height="{COUNTER_H}" rx="3" fill="{side}"/>'
        + _text(10 + COUNTER_W / 2, y - 2, "id", 9, "middle", "#fff", "bold")
        + symbol("infantry", 10 + COUNTER_W / 2 - 9, y + 0.5, 18, 10, "#fff")
        + _text(10 + COUNTER_W / 2, y + COUNTER_H - 15, "4-7", 10.5, "middle", "#fff", "bold")
    )
    out.append(
        f'<rect x="62" y="{y - 12:.1f}" width="{COUNTER_W}" height="{COUNTER_H}" rx="3" fill="#fff" '
        f'stroke="{side}" stroke-width="2"/>'
        + _text(62 + COUNTER_W / 2, y - 2, "id", 9, "middle", side, "bold")
        + symbol("infantry", 62 + COUNTER_W / 2 - 9, y + 0.5, 18, 10, side)
        + _text(62 + COUNTER_W / 2, y + COUNTER_H - 15, "2-7", 10.5, "middle", side, "bold")
    )
    words = (
        "A counter: short id; type symbol; strength - movement points (- range). White face: reduced "
        "(it has lost a step). A tab above: a commander or a baggage stacked on it."
    )
    lines = wrap(words, 11, width - 128)
    for i, part in enumerate(lines):
        out.append(_text(118, y + i * 14, part, 11))
    y += max(44, 14 * len(lines) + 8)
    x = 0.0
    for shape, words in LEGEND_MARKS:
        need = 50 + text_width(words, 11) + 16
        if x + need > width - 10:
            x, y = 0.0, y + 20
        shape = shape.format(y=f"{y - 4:.1f}", y_box=f"{y - 11:.1f}", hex_pts=corners(27, y - 4, 10))
        out.append(f'<g transform="translate({x:.1f},0)">' + shape + _text(50, y, words, 11) + "</g>")
        x += need
    y += 22
    x = 10.0
    for terrain, fill in TERRAIN_COLOURS.items():
        need = 22 + text_width(terrain, 11) + 14
        if x + need > width - 10:
            x, y = 10.0, y + 20
        out.append(
            f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="16" height="12" fill="{fill}" stroke="#999"/>'
            + _text(x + 22, y, terrain, 11)
        )
        x += need
    if gm_names := board.gm.names:
        y += 22
        places = "Places: " + "; ".join(f"{h} {name}" for h, name in sorted(gm_names.items()))
        for part in wrap(places, 11, width - 20):
            out.append(_text(10, y, part, 11, style="italic"))
            y += 15
    return y + 30, tuple(out)


@lru_cache(maxsize=256)
def legend(board: Board, width: int, y: float, side: str) -> tuple[float, tuple[str, ...]]:
    """The legend of ``board``'s map from ``y`` down, ``side`` the colour of its sample
    counters (its pieces, to be joined by line breaks), and the y below it: its shape
    (drawn once per board, width and colour in a process) with the heights for ``y``
    written in, as one piece."""
    shape = _shape(board, width, side)
    return shape.at(y) if shape is not None else _drawn(board, width, y, side)


_SLOT = "\x00"


class _Below:
    """A height in the legend while its shape is drawn: the start, left open, and the
    steps added to it since, in their order.  Written (``format(h, ".1f")``, as
    ``tenths`` and the legend write a height) it is a numbered slot, and its steps are
    kept in ``written``: :meth:`_Shape.at` adds them to the start one by one, as the
    drawing added them to a float, so each height is the same float to the last bit
    (``a - b`` is ``a + (-b)`` in floating point, exactly)."""

    __slots__ = ("steps", "written")

    def __init__(self, steps: tuple[float, ...], written: list[tuple[float, ...]]) -> None:
        self.steps, self.written = steps, written

    def __add__(self, step: float) -> _Below:
        return _Below((*self.steps, step), self.written)

    def __sub__(self, step: float) -> _Below:
        return _Below((*self.steps, -step), self.written)

    def __format__(self, spec: str) -> str:
        if spec != ".1f":
            raise ValueError(f"a height of the legend is written with .1f, not {spec!r}")
        self.written.append(self.steps)
        return f"{_SLOT}{len(self.written) - 1}{_SLOT}"


class _Shape:
    """The legend with its heights left open: its text (its pieces joined by line
    breaks, as the map joins them) cut at each height it writes, ``texts`` with a slot
    between each two, and the field each slot writes; each field a height, worked out
    from the start by ``steps`` (each adds its step to an earlier one's height, the
    start being -1, in the order the drawing added them); and the steps to the y below it."""

    def __init__(
        self, texts: list[str], slots: tuple[int, ...], steps: tuple[tuple[int, float], ...], end: tuple[float, ...]
    ) -> None:
        self.texts, self.steps, self.end = texts, steps, end
        self.fields = itemgetter(*slots) if len(slots) > 1 else lambda written: tuple(written[i] for i in slots)

    def at(self, y: float) -> tuple[float, tuple[str, ...]]:
        """The legend from ``y`` down (one text), and the y below it."""
        heights: list[float] = []
        for before, step in self.steps:
            heights.append((heights[before] if before >= 0 else y) + step)
        written = [f"{v:.1f}" for v in heights]  # as tenths writes it
        text = self.texts.copy()
        text[1::2] = self.fields(written)
        for step in self.end:
            y += step
        return y, ("".join(text),)


@lru_cache(maxsize=64)
def _shape(board: Board, width: int, side: str) -> _Shape | None:
    """The legend of ``board``'s map, ``width`` wide, with its start left open; ``None``
    when a place's name holds the slots' mark itself."""
    if any(_SLOT in name for name in board.gm.names.values()):
        return None
    written: list[tuple[float, ...]] = []
    end, out = _drawn(board, width, _Below((), written), side)
    assert isinstance(end, _Below)
    parts = "\n".join(out).split(_SLOT)  # the text, and a slot's number between each two
    # each height once (however often it is written), each from the longest of its steps' beginnings seen
    known: dict[tuple[float, ...], int] = {}
    steps: list[tuple[int, float]] = []

    def height(path: tuple[float, ...]) -> int:
        found = known.get(path)
        if found is None:
            steps.append((height(path[:-1]) if len(path) > 1 else -1, path[-1]))
            found = known[path] = len(steps) - 1
        return found

    slots = tuple(height(written[int(slot)]) for slot in parts[1::2])
    return _Shape(_interleaved(parts[0::2]), slots, tuple(steps), end.steps)


def _interleaved(texts: list[str]) -> list[str]:
    """``texts`` with a place for a slot between each two."""
    out = [texts[0]]
    for text in texts[1:]:
        out += ("", text)
    return out
