"""A Furor Barbarus counter as the map draws it (rules/furor_barbarus/svg.py): its
box, short id, type symbol and factors, or a tab above another counter for a
commander or a baggage; with the marks of its labels for the close-up
(``mapdraw.mark``).  Each is put together once per unit, face, place and colour in
a process: counters mostly stay where they were, so a map is mostly counters
drawn before."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pbem.rules.furor_barbarus.svg_shapes import (
    COUNTER_H,
    COUNTER_W,
    TAB_H,
    TYPE_WORDS,
    SymbolDrawer,
    _t,
    symbol_across,
    symbol_down,
    symbol_drawer,
    symbol_style,
    tenths,
)
from pbem.rules.mapdraw import LABEL_MARGIN, Mark, mark, text_width


@lru_cache(maxsize=1024)
def _across(x: float) -> tuple[str, str, str, float, tuple[str, ...]]:
    """A counter's places along x with its left edge at ``x``, as written: the box's
    edge, the ring's, the middle (and the middle as a number), and its type symbol's
    (``symbol_across``).  Kept by ``x`` alone (a column of hexes), not by the place: a
    counter drawn at a place new to the process mostly finds both its column's and its
    row's numbers written already."""
    mid = tenths(x + COUNTER_W / 2)
    return tenths(x), tenths(x - 2.5), mid, float(mid), symbol_across(x + COUNTER_W / 2 - 9, 18)


@lru_cache(maxsize=1024)
def _down(y: float) -> tuple[str, str, str, str, float, float, float, float, tuple[str, ...]]:
    """A counter's places along y with its top at ``y``, as written: the box's edge,
    the ring's, its id's and its factors' baselines; the top and bottom edges of
    its id's and its factors' marks (:func:`_label_mark`: the same arithmetic); and its
    type symbol's places (``symbol_down``)."""
    id_y, factors_y = tenths(y + 10), tenths(y + COUNTER_H - 3)
    id_top, factors_top = float(id_y) - 0.96 * 9.0, float(factors_y) - 0.96 * 10.5
    return (
        tenths(y),
        tenths(y - 2.5),
        id_y,
        factors_y,
        id_top - LABEL_MARGIN,
        id_top + 1.22 * 9.0 + LABEL_MARGIN,
        factors_top - LABEL_MARGIN,
        factors_top + 1.22 * 10.5 + LABEL_MARGIN,
        symbol_down(y + 12.5, 10),
    )


_SIZE = f'width="{COUNTER_W:.1f}" height="{COUNTER_H:.1f}"'
_RING_SIZE = f'width="{COUNTER_W + 5:.1f}" height="{COUNTER_H + 5:.1f}"'


def _label_mark(x: float, y: float, body: str, size: float) -> Mark:
    """The mark of the box ``label_boxes`` reads for a bold, centred text at (x, y)
    as written in the markup (a counter's labels are measured where they are drawn)."""
    w = text_width(body, size, True)
    return mark((x - w / 2, y - 0.96 * size, w, 1.22 * size))


@lru_cache(maxsize=1024)
def _head(uid: str, name: str, kind: str) -> str:
    """The opening of a unit's counter (or tab) and its title, up to its factors."""
    return f'<g class="counter" id="unit-{_t(uid)}"><title>{_t(name)} ({_t(uid)}), {TYPE_WORDS.get(kind, kind)}, '


def counter(
    uid: str,
    name: str,
    kind: str,
    factors: str,
    reduced: bool,
    where: str,
    x: float,
    y: float,
    colour: str,
    short: str,
    attacker: bool,
) -> tuple[str, Mark, Mark]:
    """The counter of unit ``uid`` (its ``name``, ``kind``, ``factors`` and short id)
    in hex ``where``, its top left corner at (x, y), in its side's ``colour``; ringed
    in red if it is an ``attacker``; and the marks of its id's and its factors' labels
    (:func:`_label_mark`, their widths measured once per unit and face, their edges
    along y once per row).  Kept by its face (``_faces``), then by its place: a place
    new to the process costs a look-up in its face's table, where a cache of all the
    arguments hashed eleven (two floats) and linked each new counter in its list."""
    face = _faces(uid, name, kind, factors, reduced, colour, short)
    placed = face[8]
    found = placed.get((where, x, y, attacker))
    if found is None:
        if len(placed) >= PLACES_KEPT:  # a long-running process meets a unit in many hexes over many games
            placed.clear()
        found = placed[(where, x, y, attacker)] = _put_together(face, where, x, y, attacker)
    return found


PLACES_KEPT = 64
"""The counters kept per face, by place: a bound on what a process that draws many games'
maps keeps (1,024 faces at most, ``_faces``), well above the places a unit takes in a game."""


Face = tuple[str, str, str, str, float, float, tuple[str, str, str], SymbolDrawer, dict[Any, Any]]
"""What a counter's markup owes to the unit's state alone (``_faces``), with the table
of its counters already put together, by place."""


def _put_together(face: Face, where: str, x: float, y: float, attacker: bool) -> tuple[str, Mark, Mark]:
    """A counter's markup and marks, in one string from its face and its places along x and y."""
    box_x, ring_x, mid, mid_at, symbol_x = _across(x)
    box_y, ring_y, id_y, factors_y, id_y0, id_y1, factors_y0, factors_y1, symbol_y = _down(y)
    title, look, ident, value, id_w, factors_w, style, symbol, _placed = face
    ring = f'<rect class="attacker" x="{ring_x}" y="{ring_y}" {_RING_END}' if attacker else ""
    markup = (
        f'{title}{where}</title><rect class="counter-box" x="{box_x}" y="{box_y}" {_SIZE}{look}{ring}'
        f'<text class="counter-id" x="{mid}" y="{id_y}"{ident}'
        f"{symbol(symbol_x, symbol_y, style)}"
        f'<text class="counter-factors" x="{mid}" y="{factors_y}"{value}'
    )
    id_x, factors_x = mid_at - id_w / 2, mid_at - factors_w / 2  # the marks' left edges, as mark() works them out
    return (
        markup,
        (id_x - LABEL_MARGIN, id_y0, id_x + id_w + LABEL_MARGIN, id_y1),
        (factors_x - LABEL_MARGIN, factors_y0, factors_x + factors_w + LABEL_MARGIN, factors_y1),
    )


_RING_END = f'{_RING_SIZE} rx="4" fill="none" stroke="#d00000" stroke-width="3"/>'
"""The red ring of an attacker's counter, after its place."""


@lru_cache(maxsize=1024)
def _faces(uid: str, name: str, kind: str, factors: str, reduced: bool, colour: str, short: str) -> Face:
    """What a counter's markup owes to the unit's state alone, put together once per
    unit, face and colour in a process (a unit keeps them from one place to the
    next): its title up to its hex, its box's look, its id's and its factors' texts
    after their places, the widths of its id and its factors (bold), its type
    symbol's stroke and size (``symbol_style``) and drawer (``symbol_drawer``), and
    the table of its counters, by place and ring."""
    face, ink = ("#ffffff", colour) if reduced else (colour, "#ffffff")
    escaped = _t(factors)
    return (
        f"{_head(uid, name, kind)}{escaped}, {'reduced' if reduced else 'full strength'}, in ",
        f' rx="3" fill="{face}" stroke="{colour}" stroke-width="2"/>',
        f' font-size="9" text-anchor="middle" font-weight="bold" fill="{ink}">{_t(short)}</text>',
        f' font-size="10.5" text-anchor="middle" font-weight="bold" fill="{ink}">{escaped}</text></g>',
        text_width(short, 9.0, True),
        text_width(escaped, 10.5, True),
        symbol_style(18, 10, colour if reduced else "#ffffff"),
        symbol_drawer(kind),
        {},
    )


@lru_cache(maxsize=4096)
def tab(
    uid: str, name: str, kind: str, factors: str, where: str, x: float, y: float, colour: str, words: str
) -> tuple[str, Mark]:
    """The tab of unit ``uid`` (a commander or a baggage stacked on another counter)
    in hex ``where``, its top left corner at (x, y), in its side's ``colour``,
    reading ``words``; and the mark of its label."""
    mid, base = tenths(x + COUNTER_W / 2), tenths(y + TAB_H - 2.4)
    markup = (
        f"{_head(uid, name, kind)}{_t(factors)}, in {where}</title>"
        f'<rect class="counter-box" x="{tenths(x)}" y="{tenths(y)}" width="{COUNTER_W:.1f}" height="{TAB_H}" rx="2" '
        f'fill="#fffbe8" stroke="{colour}" stroke-width="1.5"/>'
        f'<text class="counter-id" x="{mid}" y="{base}" font-size="7.5" text-anchor="middle" '
        f'font-weight="bold" fill="{colour}">{_t(words)}</text></g>'
    )
    return markup, _label_mark(float(mid), float(base), words, 7.5)
