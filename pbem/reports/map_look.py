"""What a report reads off its map (:class:`MapLook`): the SVG as it goes inside the
page, the close-up of this resolution's action, the board group, why that area, the
width."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.rules import mapdraw

_XML_PROLOG = re.compile(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", re.IGNORECASE)


def _embeddable_svg(svg: str) -> str:
    """The ruleset's SVG without an XML prolog or doctype (not allowed inside HTML): the
    map itself when it has neither (a copy of a map's 100 kB is some 100,000
    instructions).  The page writes it as it is, trusted markup (report.html.j2)."""
    prolog = _XML_PROLOG.match(svg)
    return svg[prolog.end() :] if prolog else svg


@dataclass(frozen=True)
class MapLook:
    """What a report reads off its map: the close-up (``x y w h``, when the map
    names one and it is a close-up), the board group, why that area, the width."""

    embedded: str  # the SVG as it goes inside the page ("" for no map)
    focus: str | None
    board_id: str | None
    why: str
    width: float | None


def map_look(svg: str) -> MapLook:
    if not svg:
        return MapLook("", None, None, "", None)
    focus = close_up(svg)
    board = mapdraw.board_of(svg)
    return MapLook(
        _embeddable_svg(svg),
        " ".join(f"{v:g}" for v in focus) if focus and board else None,
        board,
        mapdraw.focus_why(svg),
        mapdraw.width_of(svg),
    )


def close_up(svg: str) -> tuple[float, float, float, float] | None:
    """The area of this resolution's action, when the map names one that is a
    close-up (under 80% of the map's width); else ``None`` (the whole map says it)."""
    if not svg:
        return None
    focus = mapdraw.focus_of(svg)
    width = mapdraw.width_of(svg)
    if focus is None or width is None or focus[2] >= 0.8 * width:
        return None
    return focus
