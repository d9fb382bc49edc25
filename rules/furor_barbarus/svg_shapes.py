"""The pieces the Furor Barbarus map is drawn from: hex geometry, colours, text,
arrow markers, short counter ids and the NATO-style type symbols."""

from __future__ import annotations

import collections
import math
from collections.abc import Callable, Sequence
from functools import lru_cache

from pbem.rules.furor_barbarus.hexgrid import Hex
from pbem.rules.mapdraw import escape

SIZE = 32.0
H = math.sqrt(3) * SIZE
TOP = 40.0  # room for the title above the board
COUNTER_W, COUNTER_H = 46.0, 36.0
TAB_H = 11.0
TERRAIN_COLOURS = {
    "clear": "#eef3d8",
    "road": "#e9dcb5",
    "village": "#d8b48a",
    "woods": "#7fae6e",
    "hill": "#c7b07a",
    "bridge": "#b9a98f",
    "ford": "#a9cbe0",
}
SIDE_COLOURS = {
    "blue": "#2f5597",
    "red": "#a83232",
    "brown": "#6e4a2a",
    "green": "#2f6f2f",
    "yellow": "#8a6d0b",
    "grey": "#555555",
}
TYPE_WORDS = {
    "infantry": "infantry",
    "missile_infantry": "missile infantry (archers, javelins)",
    "cavalry": "cavalry",
    "missile_cavalry": "missile cavalry (horse archers)",
    "commander": "commander",
    "baggage": "baggage",
}


@lru_cache(maxsize=4096)
def centre(h: str) -> tuple[float, float]:
    """The centre of hex ``h`` on the drawing (worked out once per hex)."""
    x = Hex.parse(h)
    cx = SIZE + (x.col - 1) * 1.5 * SIZE
    cy = TOP + H / 2 + (x.row - 1) * H + (H / 2 if x.col % 2 == 0 else 0)
    return cx, cy


_CORNERS = tuple((math.cos(math.radians(60 * i)), math.sin(math.radians(60 * i))) for i in range(6))


@lru_cache(maxsize=4096)
def corners(cx: float, cy: float, size: float = SIZE) -> str:
    """The points of the hex of ``size`` centred on (cx, cy) (each worked out once per process)."""
    return " ".join(f"{cx + size * c:.1f},{cy + size * s:.1f}" for c, s in _CORNERS)


_TENTHS: dict[float, str] = {}


def tenths(v: float) -> str:
    """``f"{v:.1f}"``, each value written once per process (formatting a float is
    some 1,500 instructions, and a map writes the same coordinates again and
    again); zero each time, as 0.0 and -0.0 are one key and written apart."""
    found = _TENTHS.get(v)
    if found is None or not v:
        found = f"{v:.1f}"
        if v:
            if len(_TENTHS) > 65536:
                _TENTHS.clear()
            _TENTHS[v] = found
    return found


def _t(x: object) -> str:
    text = str(x)
    if "&" in text or "<" in text or ">" in text or '"' in text:
        return escape(text).replace('"', "&quot;")
    return text  # most texts (ids, numbers, names) have nothing to escape


def _text(
    x: float,
    y: float,
    body: str,
    size: float,
    anchor: str = "start",
    fill: str = "#222",
    weight: str = "normal",
    cls: str = "label",
    style: str = "",
) -> str:
    extra = f' font-style="{style}"' if style else ""
    return (
        f'<text class="{cls}" x="{tenths(x)}" y="{tenths(y)}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}"{extra}>{_t(body)}</text>'
    )


def _marker(colour: str) -> str:
    """The id of the arrowhead in ``colour`` (one per colour: mail renderers do not
    take ``context-stroke``)."""
    return "fb-arrow-" + colour.lstrip("#")


def short_ids(ids: Sequence[str]) -> dict[str, str]:
    """A short id for each unit, unique among ``ids``: ids of up to 8 characters as
    they are, longer ones cut to three letters a word (``visigoth-cavalry-2`` ->
    ``vis-cav-2``), a single long word to seven (``burgundians`` -> ``burgund``);
    any that would clash keep their full id (worked out once per roster in a
    process: a scenario's roster is the same in all its maps)."""
    return dict(_short_ids(tuple(ids)))


@lru_cache(maxsize=64)
def _short_ids(ids: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    def cut(uid: str) -> str:
        if len(uid) <= 8:
            return uid
        if "-" not in uid:
            return uid[:7]
        return "-".join(p if p.isdigit() else p[:3] for p in uid.split("-"))

    wanted = {u: cut(u) for u in ids}
    uses = collections.Counter(wanted.values())
    return tuple((u, u if uses[s] > 1 or (s != u and s in wanted) else s) for u, s in wanted.items())


def symbol(kind: str, x: float, y: float, w: float, h: float, colour: str) -> str:
    """The NATO-style symbol of a unit type in the box (x, y, w, h): infantry a
    cross, cavalry one diagonal, a missile unit adds a bow (an arc with its string)
    under the box's top, a commander a flag, baggage a wheel.  Its places along x and
    along y are each written once per process: a counter drawn at a place new to the
    process mostly finds its column's and its row's places written already."""
    return symbol_at(kind, symbol_across(x, w), symbol_down(y, h), symbol_style(w, h, colour))


def symbol_at(kind: str, across: tuple[str, ...], down: tuple[str, ...], style: tuple[str, str, str]) -> str:
    """:func:`symbol` of ``kind`` from its places along x (``symbol_across``) and along y
    (``symbol_down``) and its stroke and size (``symbol_style``), as written: a counter
    finds them among its column's, its row's and its face's (``svg_counters``)."""
    return symbol_drawer(kind)(across, down, style)


def symbol_drawer(kind: str) -> SymbolDrawer:
    """The function that writes the symbol of ``kind`` in one string (a counter's face
    keeps it: its kind is looked at once per face, not at each place)."""
    return _SYMBOLS.get(kind, _box)


SymbolDrawer = Callable[[tuple[str, ...], tuple[str, ...], tuple[str, str, str]], str]
"""A symbol of one kind written from its places along x and y and its stroke and size."""


def _box(a: tuple[str, ...], d: tuple[str, ...], st: tuple[str, str, str]) -> str:
    return f'<rect x="{a[0]}" y="{d[0]}" {st[1]} {st[0]}/>'


def _infantry(a: tuple[str, ...], d: tuple[str, ...], st: tuple[str, str, str]) -> str:
    x0, x1, s, y0, y1 = a[0], a[1], st[0], d[0], d[1]
    return f'<rect x="{x0}" y="{y0}" {st[1]} {s}/><path d="M{x0},{y0} L{x1},{y1} M{x1},{y0} L{x0},{y1}" {s}/>'


def _cavalry(a: tuple[str, ...], d: tuple[str, ...], st: tuple[str, str, str]) -> str:
    x0, s, y0, y1 = a[0], st[0], d[0], d[1]
    return f'<rect x="{x0}" y="{y0}" {st[1]} {s}/><path d="M{x0},{y1} L{a[1]},{y0}" {s}/>'


def _missile_infantry(a: tuple[str, ...], d: tuple[str, ...], st: tuple[str, str, str]) -> str:
    x0, x1, s, y0, y1 = a[0], a[1], st[0], d[0], d[1]
    return (
        f'<rect x="{x0}" y="{y0}" {st[1]} {s}/><path d="M{x0},{y0} L{x1},{y1} M{x1},{y0} L{x0},{y1}" {s}/>'
        f'<path d="M{a[2]},{y1} Q{a[3]},{d[2]} {a[4]},{y1}" {s}/>'
    )


def _missile_cavalry(a: tuple[str, ...], d: tuple[str, ...], st: tuple[str, str, str]) -> str:
    x0, s, y0, y1 = a[0], st[0], d[0], d[1]
    return (
        f'<rect x="{x0}" y="{y0}" {st[1]} {s}/><path d="M{x0},{y1} L{a[1]},{y0}" {s}/>'
        f'<path d="M{a[2]},{y1} Q{a[3]},{d[2]} {a[4]},{y1}" {s}/>'
    )


def _commander(a: tuple[str, ...], d: tuple[str, ...], st: tuple[str, str, str]) -> str:
    x3, s = a[2], st[0]
    return (
        f'<rect x="{a[0]}" y="{d[0]}" {st[1]} {s}/>'
        f'<path d="M{x3},{d[3]} L{x3},{d[4]} L{a[5]},{d[5]} L{x3},{d[6]}" {s}/>'
    )


def _baggage(a: tuple[str, ...], d: tuple[str, ...], st: tuple[str, str, str]) -> str:
    x0, s, ym = a[0], st[0], d[7]
    return (
        f'<rect x="{x0}" y="{d[0]}" {st[1]} {s}/>'
        f'<circle cx="{a[3]}" cy="{ym}" r="{st[2]}" {s}/><path d="M{x0},{ym} L{a[1]},{ym}" {s}/>'
    )


_SYMBOLS: dict[str, SymbolDrawer] = {
    "infantry": _infantry,
    "missile_infantry": _missile_infantry,
    "cavalry": _cavalry,
    "missile_cavalry": _missile_cavalry,
    "commander": _commander,
    "baggage": _baggage,
}
"""Each kind's symbol, written in one string: infantry a cross, cavalry one diagonal, a
missile unit adds a bow, a commander a flag, baggage a wheel (any other kind its box)."""


@lru_cache(maxsize=1024)
def symbol_across(x: float, w: float) -> tuple[str, ...]:
    """The places along x a symbol in the box from ``x``, ``w`` wide, is drawn at, as written."""
    return tenths(x), tenths(x + w), tenths(x + w * 0.3), tenths(x + w / 2), tenths(x + w * 0.7), tenths(x + w * 0.75)


@lru_cache(maxsize=1024)
def symbol_down(y: float, h: float) -> tuple[str, ...]:
    """The places along y a symbol in the box from ``y``, ``h`` high, is drawn at, as written."""
    return (
        tenths(y),
        tenths(y + h),
        tenths(y + h * 0.35),
        tenths(y + h * 0.85),
        tenths(y + h * 0.15),
        tenths(y + h * 0.32),
        tenths(y + h * 0.5),
        tenths(y + h / 2),
    )


@lru_cache(maxsize=256)
def symbol_style(w: float, h: float, colour: str) -> tuple[str, str, str]:
    """A symbol's stroke in ``colour``, its box's size and a baggage wheel's radius, as written."""
    return (
        f'stroke="{colour}" stroke-width="1.3" fill="none"',
        f'width="{tenths(w)}" height="{tenths(h)}"',
        tenths(h * 0.32),
    )
