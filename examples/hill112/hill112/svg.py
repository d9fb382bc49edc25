"""The map as SVG (RULES.md 2): places, roads, units by side, and the last
resolution's moves and battles."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from hill112.board import BOARD
from pbem.rules.base import Event, Position, side_title

COLOURS = {"british": "#8a6d3b", "germans": "#5a6470"}
SCALE = 6


def _xy(place: str) -> tuple[int, int]:
    p = BOARD.places[place]
    return 40 + p.x * SCALE, 40 + p.y * SCALE


def render(position: Position, events: Sequence[Event] = ()) -> str:
    width, height = 80 + 100 * SCALE, 120 + 100 * SCALE
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="#eef0e2"/>',
    ]
    done = set()
    for a, ends in sorted(BOARD.links.items()):
        for b in sorted(ends):
            if (b, a) in done:
                continue
            done.add((a, b))
            (x1, y1), (x2, y2) = _xy(a), _xy(b)
            out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#b9a77a" stroke-width="6"/>')
    for event in events:
        if event.get("type") == "move":
            (x1, y1), (x2, y2) = _xy(event["from"]), _xy(event["to"])
            out.append(
                f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#2a6" stroke-width="3" stroke-dasharray="8 4"/>'
            )
    battles = {e["place"] for e in events if e.get("type") == "battle"}
    for pid, place in BOARD.places.items():
        x, y = _xy(pid)
        ring = "#c22" if pid in battles else "#555"
        out.append(
            f'<circle cx="{x}" cy="{y}" r="{44 if place.hill else 34}" '
            f'fill="{"#d8cfa0" if place.hill else "#fff"}" stroke="{ring}" '
            f'stroke-width="{4 if pid in battles else 2}"/>'
        )
        out.append(f'<text x="{x}" y="{y - 48}" text-anchor="middle" font-size="16">{escape(place.title)}</text>')
        here = sorted(u for u, where in position["units"].items() if where == pid)
        for i, uid in enumerate(here):
            unit = BOARD.units[uid]
            ux, uy = x - 30, y - 22 + i * 16
            out.append(f'<rect x="{ux}" y="{uy}" width="60" height="15" fill="{COLOURS.get(unit.side, "#999")}"/>')
            out.append(
                f'<text x="{x}" y="{uy + 12}" text-anchor="middle" font-size="11" fill="#fff">{escape(uid)} '
                f"({unit.strength})</text>"
            )
    vp = position.get("vp", {})
    legend = "  ".join(f"{side_title(s)}: {v} VP" for s, v in sorted(vp.items()))
    caption = f"Turn {position.get('turn')}. {legend}"
    out.append(f'<text x="20" y="{height - 20}" font-size="16">{escape(caption)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
