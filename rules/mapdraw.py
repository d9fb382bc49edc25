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

import re
from collections.abc import Iterable

Box = tuple[float, float, float, float]  # x, y, width, height


def escape(text: str) -> str:
    """``text`` for XML character data: ``&``, ``<`` and ``>`` as entities, exactly
    as ``xml.sax.saxutils.escape`` (whose module imports ``urllib.request`` and
    ``ssl``: 18 ms of every report command's start-up)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """``text`` as a quoted XML attribute value, exactly as
    ``xml.sax.saxutils.quoteattr``: escaped, line breaks and tabs as character
    references, in double quotes (single quotes when it holds only ``"``)."""
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


def text_width(text: str, size: float, bold: bool = False) -> float:
    """A safe upper estimate of the width of ``text`` drawn at ``size`` in sans-serif."""
    units = 0.0
    for ch in text:
        if ch in _NARROW:
            units += 0.36
        elif ch in _WIDE:
            units += 0.92
        elif ch.isupper() or ch.isdigit():
            units += 0.68
        else:
            units += 0.58
    return units * size * (1.08 if bold else 1.0)


def wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """``text`` in lines no wider than ``width`` at ``size`` (by :func:`text_width`)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(lines[-1] + " " + word, size, bold) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


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
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def focus_box(
    points: Iterable[tuple[float, float]],
    board: Box,
    pad: float,
    min_size: tuple[float, float],
    max_size: tuple[float, float],
    centre_of: Iterable[tuple[float, float]] = (),
) -> Box:
    """The part of ``board`` to show enlarged: the points' bounding box padded by
    ``pad``, at least ``min_size`` and at most ``max_size``, kept on the board.  When
    the action is wider than that, the window of the largest size that holds the
    most ``centre_of`` points (e.g. the combats), then the most points, is taken."""
    pts = list(points)
    hot = list(centre_of)
    box = bounding(pts)
    if box is None:
        return board
    bx, by, bw, bh = board
    x, y, w, h = box[0] - pad, box[1] - pad, box[2] + 2 * pad, box[3] + 2 * pad
    cx, cy = x + w / 2, y + h / 2
    if w > max_size[0] or h > max_size[1]:
        w, h = max_size
        half_w, half_h = w / 2 - pad, h / 2 - pad

        def score(c: tuple[float, float]) -> tuple[int, int]:
            inside = lambda p: abs(p[0] - c[0]) <= half_w and abs(p[1] - c[1]) <= half_h  # noqa: E731
            return (sum(1 for p in hot if inside(p)), sum(1 for p in pts if inside(p)))

        cx, cy = max(hot or pts, key=score)
    w = min(max(w, min_size[0]), max_size[0], bw)
    h = min(max(h, min_size[1]), max_size[1], bh)
    x = min(max(cx - w / 2, bx), bx + bw - w)
    y = min(max(cy - h / 2, by), by + bh - h)
    return (round(x, 1), round(y, 1), round(w, 1), round(h, 1))


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
