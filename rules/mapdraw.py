"""Small drawing helpers the rulesets' map SVGs share (pure: text in, text out).

Both maps put two attributes on their root ``<svg>`` that the report layer reads:
``data-board`` names the ``<g>`` holding the board alone (without title, legend or
lists), and ``data-focus="x y w h"`` is the part of the board where this
resolution's action took place (or, in a quiet resolution, the front or the armies:
``data-focus-why`` says which).  A report shows that part enlarged first (a phone
sees it large) and the whole map after it; :func:`crop` cuts an SVG to its focus,
for the mailed picture.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from functools import lru_cache
from operator import itemgetter

Box = tuple[float, float, float, float]  # x, y, width, height
Mark = tuple[float, float, float, float]
"""A label's box with the room the close-up keeps around it (:data:`LABEL_MARGIN`), as its edges: x0, y0, x1, y1."""


def escape(text: str) -> str:
    """``text`` for XML character data: ``&``, ``<`` and ``>`` as entities, exactly
    as ``xml.sax.saxutils.escape`` (whose module imports ``urllib.request`` and
    ``ssl``: 18 ms of every report command's start-up)."""
    if "&" in text or "<" in text or ">" in text:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text  # most texts have nothing to escape


@lru_cache(maxsize=1024)
def quoteattr(text: str) -> str:
    """``text`` as a quoted XML attribute value, exactly as
    ``xml.sax.saxutils.quoteattr``: escaped, line breaks and tabs as character
    references, in double quotes (single quotes when it holds only ``"``).  Each
    value quoted once per process (a map quotes the same few colours again and again)."""
    text = escape(text).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"' + text.replace('"', "&quot;") + '"'


# Average advance of a sans-serif glyph as a share of the font size (DejaVu Sans and
# Liberation Sans, which Chromium and cairosvg fall back to, stay under these).
_NARROW = set("iljtfr.,:;'!|() -")
_WIDE = set("mwMW@")


_widths: dict[tuple[str, float, bool], float] = {}


def text_width(text: str, size: float, bold: bool = False) -> float:
    """A safe upper estimate of the width of ``text`` drawn at ``size`` in sans-serif
    (each text measured once per process: a map's texts are mostly the same)."""
    key = (text, size, bold)
    width = _widths.get(key)
    if width is None:
        if len(_widths) > 8192:
            _widths.clear()
        width = _widths[key] = _measure(text, size, bold)
    return width


def _measure(text: str, size: float, bold: bool) -> float:
    return _units(text, 0.0) * size * (1.08 if bold else 1.0)


_UNITS: dict[str, float] = {}  # each character's advance, as _unit works it out


def _units(text: str, units: float) -> float:
    """``units`` plus the advance of each character of ``text``, added one by one
    (so a line's width grows word by word to what measuring it whole gives)."""
    for ch in text:
        unit = _UNITS.get(ch)
        if unit is None:
            unit = _UNITS[ch] = _unit(ch)
        units += unit
    return units


def _unit(ch: str) -> float:
    if ch in _NARROW:
        return 0.36
    if ch in _WIDE:
        return 0.92
    if ch.isupper() or ch.isdigit():
        return 0.68
    return 0.58


def wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """``text`` in lines no wider than ``width`` at ``size`` (by :func:`text_width`;
    each text wrapped once per process: a map's legend is the same in every map)."""
    return list(_wrapped(text, size, width, bold))


@lru_cache(maxsize=1024)
def _wrapped(text: str, size: float, width: float, bold: bool) -> tuple[str, ...]:
    lines: list[str] = []
    units = 0.0  # the last line's advance, summed as text_width sums it
    scale = 1.08 if bold else 1.0
    for word in text.split():
        if lines:
            longer = _units(word, _units(" ", units))
            if longer * size * scale <= width:  # text_width(lines[-1] + " " + word, size, bold) <= width
                lines[-1] += " " + word
                units = longer
                continue
        lines.append(word)
        units = _units(word, 0.0)
    return tuple(lines or [""])


def overlaps(a: Box, b: Box, margin: float = 0.0) -> bool:
    return not (
        a[0] + a[2] + margin <= b[0]
        or b[0] + b[2] + margin <= a[0]
        or a[1] + a[3] + margin <= b[1]
        or b[1] + b[3] + margin <= a[1]
    )


def bounding(points: Iterable[tuple[float, float]]) -> Box | None:
    pts = list(points)
    if not pts:
        return None
    xs, ys = zip(*pts)  # in C, where two comprehensions were a Python step a point each
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def focus_box(
    points: Iterable[tuple[float, float]],
    board: Box,
    pad: float,
    min_size: tuple[float, float],
    marks: list[Mark] | None = None,
    limit: Box | None = None,
    core_pad: float = 0.0,
) -> Box:
    """The part of ``board`` to show enlarged: the bounding box of every point of
    this resolution's action padded by ``pad`` (however wide the action: the
    close-up holds all of it), at least ``min_size``, kept on the board; then grown
    by :func:`take_in_marks` to hold whole every label (each of ``marks``: its box
    and the room kept around it) it would cut, within ``limit`` (the whole drawing;
    the board when not given).  An edge that cuts a label may move in instead,
    keeping ``core_pad`` around the action."""
    box = bounding(points)
    if box is None:
        return board
    bx, by, bw, bh = board
    w = min(max(box[2] + 2 * pad, min_size[0]), bw)
    h = min(max(box[3] + 2 * pad, min_size[1]), bh)
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    x = min(max(cx - w / 2, bx), bx + bw - w)
    y = min(max(cy - h / 2, by), by + bh - h)
    core = (box[0] - core_pad, box[1] - core_pad, box[2] + 2 * core_pad, box[3] + 2 * core_pad)
    return take_in_marks((x, y, w, h), marks or [], limit or board, core)


LABEL_MARGIN = 4.0
"""Room kept around a label the close-up takes in whole."""


def mark(box: Box, margin: float = LABEL_MARGIN) -> Mark:
    """The edges of ``box`` with ``margin`` around it (what the close-up keeps clear)."""
    lx, ly, lw, lh = box
    return (lx - margin, ly - margin, lx + lw + margin, ly + lh + margin)


def take_in(box: Box, labels: list[Box], limit: Box, core: Box | None = None, margin: float = LABEL_MARGIN) -> Box:
    """``box`` with no label (with ``margin`` around it) crossing its edge: see :func:`take_in_marks`."""
    return take_in_marks(box, [mark(label, margin) for label in labels], limit, core)


def take_in_marks(box: Box, marks: list[Mark], limit: Box, core: Box | None = None) -> Box:
    """``box`` with no mark (a label's edges with the room kept around it) crossing
    its edge.  First each edge that cuts a mark moves in past it, as long as the
    edge stays outside ``core`` (what must show: the action and its marks); then
    the box grows to take in whole every mark it still meets, and any mark the
    grown box then meets; kept within ``limit``.  Rounded outwards to 0.1."""
    edges = [box[0], box[1], box[0] + box[2], box[1] + box[3]]
    x0, y0, x1, y1 = edges
    beyond: _Beyond = ([], [], [], [])
    if core is None:
        rest = [m for m in marks if m[0] < x0 or m[1] < y0 or m[2] > x1 or m[3] > y1]
    else:
        inner = [core[0], core[1], core[0] + core[2], core[1] + core[3]]
        rest, strips = _sorted_out(edges, marks, inner, beyond)
        x0, y0, x1, y1 = _step_in(edges, strips, inner)
        # a mark inside the box before its edges moved in and not inside after lies across one of the
        # strips: ``rest`` (each mark once) and ``beyond`` hold every mark outside the box, and ``rest``
        # some inside (passed over below)
    x0, y0, x1, y1 = _grown(x0, y0, x1, y1, rest, beyond)
    lx, ly, lw, lh = limit
    x0, y0, x1, y1 = max(x0, lx), max(y0, ly), min(x1, lx + lw), min(y1, ly + lh)
    x0, y0 = math.floor(x0 * 10) / 10, math.floor(y0 * 10) / 10
    return (x0, y0, round(math.ceil(x1 * 10) / 10 - x0, 1), round(math.ceil(y1 * 10) / 10 - y0, 1))


_Beyond = tuple[list[Mark], list[Mark], list[Mark], list[Mark]]
"""The marks waiting beyond each edge of the box (x1, x0, y1, y0), as :func:`_grown` keeps them."""


def _grown(
    x0: float, y0: float, x1: float, y1: float, rest: list[Mark], beyond: _Beyond
) -> tuple[float, float, float, float]:
    """The smallest box holding (x0, y0, x1, y1) that holds whole every mark of ``rest`` it
    meets: the marks it meets and does not hold, taken in, until there is none.  The
    result is the same whatever the order the marks are taken in (a mark the box meets,
    it meets once grown too), and the box only grows, so a mark it holds stays held.  A
    mark it does not meet waits beside the first edge it lies beyond (right of x1, left
    of x0, below y1, above y0), and is looked at again only once that edge has moved
    past it (a pass over every mark the box did not meet, again after each pass that
    grew it, was up to eight passes over some two hundred marks in a close-up of Campus
    Mauriacus, whose labels chain across the board).  ``beyond`` may hold marks already, each
    beyond its edge of the box (right of x1, left of x0, below y1, above y0): :func:`_sorted_out`
    puts there the marks outside the box's and the core's hull, which this pass would only have
    sorted out again."""
    after_x1, before_x0, after_y1, before_y0 = beyond
    while rest:
        at = (x1, x0, y1, y0)
        for m in rest:
            a0, b0, a1, b1 = m
            if a0 >= x1:
                after_x1.append(m)
            elif a1 <= x0:
                before_x0.append(m)
            elif b0 >= y1:
                after_y1.append(m)
            elif b1 <= y0:
                before_y0.append(m)
            elif a0 < x0 or b0 < y0 or a1 > x1 or b1 > y1:
                x0, y0, x1, y1 = min(x0, a0), min(y0, b0), max(x1, a1), max(y1, b1)
        # each edge that moved in this pass: the marks waiting on it that it may now meet looked at
        # again (those still beyond it wait on: each list kept in order of its side facing the edge)
        rest = []
        for edge, was, waiting, side in zip((x1, x0, y1, y0), at, beyond, _FACING):
            if edge != was and waiting:
                waiting.sort(key=side)
                if side is _A0 or side is _B0:  # a0 >= x1 (b0 >= y1) waits: the first ones may be met
                    cut = bisect_left(waiting, edge, key=side)
                    rest += waiting[:cut]
                    del waiting[:cut]
                else:  # a1 <= x0 (b1 <= y0) waits: the last ones may be met
                    cut = bisect_right(waiting, edge, key=side)
                    rest += waiting[cut:]
                    del waiting[cut:]
    return x0, y0, x1, y1


_A0, _B0 = itemgetter(0), itemgetter(1)
_FACING = (_A0, itemgetter(2), _B0, itemgetter(3))
"""The side of a mark facing each edge it may wait beyond (x1, x0, y1, y0): a0, a1, b0, b1."""


def _sorted_out(
    edges: list[float], marks: list[Mark], core: list[float], beyond: _Beyond
) -> tuple[list[Mark], list[list[Mark]]]:
    """In one pass over ``marks``: those not inside the box of ``edges`` or across a strip,
    each once (those outside the hull of the box and ``core`` put in ``beyond`` instead, each
    in the list of the first edge of the hull it lies beyond, in :func:`_grown`'s order: an
    edge of the box stays within the hull), and for each edge (x0, y0, x1, y1) those across the strip between it and
    ``core``'s same edge (an edge moves in only within that strip, so only those can ever
    be cut by it)."""
    x0, y0, x1, y1 = edges
    lo0, hi0 = min(x0, core[0]), max(x0, core[0])
    lo1, hi1 = min(y0, core[1]), max(y0, core[1])
    lo2, hi2 = min(x1, core[2]), max(x1, core[2])
    lo3, hi3 = min(y1, core[3]), max(y1, core[3])
    out: list[Mark] = []
    s0: list[Mark] = []
    s1: list[Mark] = []
    s2: list[Mark] = []
    s3: list[Mark] = []
    after_x1, before_x0, after_y1, before_y0 = beyond
    # every strip lies within the box and the core's hull: a mark that does not meet it is across none
    u0, u1, u2, u3 = min(x0, core[0]), min(y0, core[1]), max(x1, core[2]), max(y1, core[3])
    for m in marks:
        a0, b0, a1, b1 = m
        if hi0 <= a0 and a1 <= lo2 and hi1 <= b0 and b1 <= lo3:
            continue  # inside the box and across no strip: most marks of a close-up
        # outside the hull (so outside the box) and across no strip: waits beyond an edge, as _grown puts it
        if a0 >= u2:
            after_x1.append(m)
            continue
        if a1 <= u0:
            before_x0.append(m)
            continue
        if b0 >= u3:
            after_y1.append(m)
            continue
        if b1 <= u1:
            before_y0.append(m)
            continue
        near = a0 < x0 or b0 < y0 or a1 > x1 or b1 > y1  # not inside the box
        # each strip's far side tested first (most marks are not near it), then the box's span
        # across it (an edge cuts only a mark within the span of the others, which only narrows)
        if a0 < hi0 and lo0 < a1 and b0 < y1 and y0 < b1:
            s0.append(m)
            near = True
        if b0 < hi1 and lo1 < b1 and a0 < x1 and x0 < a1:
            s1.append(m)
            near = True
        if lo2 < a1 and a0 < hi2 and b0 < y1 and y0 < b1:
            s2.append(m)
            near = True
        if lo3 < b1 and b0 < hi3 and a0 < x1 and x0 < a1:
            s3.append(m)
            near = True
        if near:
            out.append(m)
    return out, [s0, s1, s2, s3]


def _step_in(edges: list[float], strips: list[list[Mark]], core: list[float]) -> list[float]:
    """The edges (x0, y0, x1, y1) each moved in past the marks it cuts while it
    stays outside ``core``'s edge, each edge's cut looked for among ``strips``, the
    marks across its strip; edges only move in, so this ends.  (A mark an edge
    cuts lies within the box's reach, between its edges and the core's far ones.)"""
    x0, y0, x1, y1 = edges
    c0, d0, c1, d1 = core
    s0, s1, s2, s3 = strips
    moved = True
    while moved:  # each edge in turn (x0, y0, x1, y1), with the others as they stand
        moved = False
        if s0:  # the marks across x0 within the span of y: it moves to their largest a1
            cut = [a1 for a0, b0, a1, b1 in s0 if a0 < x0 < a1 and b0 < y1 and y0 < b1]
            if cut and (inner := max(cut)) <= c0:
                x0, moved = inner, True
        if s1:  # across y0 within the span of x: to their largest b1
            cut = [b1 for a0, b0, a1, b1 in s1 if b0 < y0 < b1 and a0 < x1 and x0 < a1]
            if cut and (inner := max(cut)) <= d0:
                y0, moved = inner, True
        if s2:  # across x1: to their smallest a0
            cut = [a0 for a0, b0, a1, b1 in s2 if a0 < x1 < a1 and b0 < y1 and y0 < b1]
            if cut and (inner := min(cut)) >= c1:
                x1, moved = inner, True
        if s3:  # across y1: to their smallest b0
            cut = [b0 for a0, b0, a1, b1 in s3 if b0 < y1 < b1 and a0 < x1 and x0 < a1]
            if cut and (inner := min(cut)) >= d1:
                y1, moved = inner, True
    return [x0, y0, x1, y1]


_TEXT = re.compile(r"<text\b([^>]*)>([^<]*)</text>")
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')


def label_boxes(svg: str) -> list[Box]:
    """The box of each ``<text>`` of ``svg`` (a map's board markup, each with ``x``,
    ``y``, ``font-size`` and maybe ``text-anchor`` and ``font-weight``): its width
    by :func:`text_width`, from a font's ascent above the baseline to its descent."""
    out: list[Box] = []
    for m in _TEXT.finditer(svg):
        attrs = dict(_ATTR.findall(m.group(1)))
        if "x" not in attrs or "y" not in attrs:
            continue
        size = float(attrs.get("font-size", "12"))
        body = m.group(2).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
        w = text_width(body, size, attrs.get("font-weight") == "bold")
        x = float(attrs["x"]) - {"middle": w / 2, "end": w}.get(attrs.get("text-anchor", "start"), 0.0)
        out.append((x, float(attrs["y"]) - 0.96 * size, w, 1.22 * size))
    return out


_marks_of: dict[str, tuple[Mark, ...]] = {}


def label_marks(piece: str) -> tuple[Mark, ...]:
    """The :func:`mark` of each box of ``label_boxes(piece)`` (``piece`` holding whole
    elements), each piece measured once per process: a map is mostly the same
    pieces (the board drawn once, each city's mark and name drawn once per owner),
    so its labels were measured again in every map, a sixth of a Farrapos report."""
    marks = _marks_of.get(piece)
    if marks is None:
        if len(_marks_of) > 4096:
            _marks_of.clear()
        marks = _marks_of[piece] = tuple(map(mark, label_boxes(piece)))
    return marks


def pieces_label_marks(pieces: Iterable[str]) -> list[Mark]:
    """:func:`label_marks` of ``"".join(pieces)``, each piece measured once per process."""
    out: list[Mark] = []
    for piece in pieces:
        out += _marks_of.get(piece) or label_marks(piece)  # found without a call, mostly
    return out


def focus_attrs(board_id: str, focus: Box, why: str = "this resolution's action") -> str:
    """The root element's attributes: the board group, the close-up and what it shows."""
    return f'data-board="{board_id}" data-focus="{" ".join(str(v) for v in focus)}" data-focus-why="{why}"'


_ROOT = re.compile(r"<svg\b[^>]*>")
_FOCUS = re.compile(r'data-focus="([-\d. ]+)"')


def focus_of(svg: str) -> Box | None:
    """The ``data-focus`` box of a map SVG, if it has one."""
    root = _ROOT.search(svg)
    m = _FOCUS.search(root.group(0)) if root else None
    if not m:
        return None
    x, y, w, h = (float(v) for v in m.group(1).split())
    return (x, y, w, h)


def focus_why(svg: str) -> str:
    """What the close-up shows (``data-focus-why``), in words for a caption."""
    root = _ROOT.search(svg)
    m = re.search(r'data-focus-why="([^"<>&]*)"', root.group(0)) if root else None
    return m.group(1) if m else "this resolution's action"


def board_of(svg: str) -> str | None:
    """The id of the ``<g>`` holding the board alone, if the map names one."""
    root = _ROOT.search(svg)
    m = re.search(r'data-board="([A-Za-z][\w-]*)"', root.group(0)) if root else None
    return m.group(1) if m else None


def width_of(svg: str) -> float | None:
    """The width of the map's viewBox (its natural size in pixels)."""
    root = _ROOT.search(svg)
    m = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"', root.group(0)) if root else None
    return float(m.group(1)) if m else None


def crop(svg: str, box: Box, width: int | None = None) -> str:
    """The same SVG showing only ``box`` (its viewBox, width and height replaced)."""
    x, y, w, h = box
    root = _ROOT.search(svg)
    if root is None:
        return svg
    tag = root.group(0)
    tag = re.sub(r'\s(viewBox|width|height)="[^"]*"', "", tag)
    px = width or round(w)
    tag = tag.replace("<svg", f'<svg viewBox="{x} {y} {w} {h}" width="{px}" height="{round(px * h / w)}"', 1)
    return svg[: root.start()] + tag + svg[root.end() :]
