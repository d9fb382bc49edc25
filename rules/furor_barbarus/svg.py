"""The map as a standalone SVG: terrain, hexsides, hex ids, counters, and the
last resolution's moves (arrows) and combats (marked)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from xml.sax.saxutils import escape

from pbem.rules.base import Event
from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.hexgrid import Hex

SIZE = 30.0
H = math.sqrt(3) * SIZE
TERRAIN_COLOURS = {
    "clear": "#eef3d8", "road": "#e9dcb5", "village": "#d8b48a", "woods": "#7fae6e",
    "hill": "#c7b07a", "bridge": "#b9a98f", "ford": "#a9cbe0",
}
SIDE_COLOURS = {"blue": "#3b5fa8", "red": "#b23a3a", "brown": "#7a5230", "green": "#3b7d3b",
                "yellow": "#c9a227", "grey": "#666666"}


def centre(h: str) -> tuple[float, float]:
    x = Hex.parse(h)
    cx = SIZE + (x.col - 1) * 1.5 * SIZE
    cy = H / 2 + (x.row - 1) * H + (H / 2 if x.col % 2 == 0 else 0)
    return cx, cy


def corners(cx: float, cy: float) -> str:
    return " ".join(f"{cx + SIZE * math.cos(math.radians(60 * i)):.1f},{cy + SIZE * math.sin(math.radians(60 * i)):.1f}"
                    for i in range(6))


def _t(x: object) -> str:
    return escape(str(x), {'"': "&quot;"})


def render(field: Battlefield, events: Sequence[Event] = ()) -> str:
    gm = field.game_map
    width = SIZE * (1.5 * gm.columns + 0.5) + 2
    height = H * (gm.rows + 0.5) + 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
           f'font-family="sans-serif"><title>{_t(gm.title)}: {_t(field.scenario.title)}</title>',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#222"/></marker></defs>']
    for h in gm.all_hexes():
        cx, cy = centre(h)
        colour = TERRAIN_COLOURS.get(gm.terrain(h).value, "#eee")
        out.append(f'<polygon points="{corners(cx, cy)}" fill="{colour}" stroke="#999" stroke-width="0.6"/>')
        out.append(f'<text x="{cx:.1f}" y="{cy - H / 2 + 9:.1f}" font-size="7" text-anchor="middle" fill="#555">{h}</text>')
        if h in gm.names:
            out.append(f'<text x="{cx:.1f}" y="{cy + H / 2 - 4:.1f}" font-size="7" text-anchor="middle" '
                       f'font-style="italic">{_t(gm.names[h])}</text>')
    for (a, b), side in gm.hexsides.items():
        (ax, ay), (bx, by) = centre(a), centre(b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        dx, dy = bx - ax, by - ay
        n = math.hypot(dx, dy) or 1
        px, py = -dy / n * SIZE / 2, dx / n * SIZE / 2
        colour, width_ = ("#2d6fb5", 4) if side.feature.value == "river" else ("#5aa0e0", 2.5)
        out.append(f'<line x1="{mx - px:.1f}" y1="{my - py:.1f}" x2="{mx + px:.1f}" y2="{my + py:.1f}" '
                   f'stroke="{colour}" stroke-width="{width_}" class="{side.feature.value}"/>')
        if side.crossing is not None:
            mark = "#6b4b2a" if side.crossing.value in ("bridge", "road") else "#e0f0ff"
            out.append(f'<rect x="{mx - 4:.1f}" y="{my - 4:.1f}" width="8" height="8" fill="{mark}" '
                       f'class="{side.crossing.value}"><title>{side.crossing.value}</title></rect>')
    for h in sorted({field.hex_of(u) for u in field.on_map()} - {None}):
        units = sorted(field.units_in(h), key=lambda u: (field.counter(u).is_combat_unit, u))
        cx, cy = centre(h)
        for i, uid in enumerate(units):
            c = field.counter(uid)
            info = field.scenario.side_info.get(field.side_of(uid))
            fill = SIDE_COLOURS.get(info.colour if info else "grey", "#666")
            face = "#ffffff" if field.is_reduced(uid) else fill
            text_colour = fill if field.is_reduced(uid) else "#ffffff"
            off = (len(units) - 1 - i) * -4
            x, y = cx - 13 + off, cy - 11 + off
            out.append(f'<g class="unit"><title>{_t(c.name)} ({_t(uid)})</title>'
                       f'<rect x="{x:.1f}" y="{y:.1f}" width="26" height="22" rx="2" fill="{face}" '
                       f'stroke="{fill}" stroke-width="1.5"/>')
            label = {"commander": "L", "baggage": "B"}.get(c.type.value, c.type.value[0].upper())
            if c.is_missile:
                label += "~"
            out.append(f'<text x="{x + 13:.1f}" y="{y + 9:.1f}" font-size="7" text-anchor="middle" '
                       f'fill="{text_colour}">{_t(label)} {_t(uid[:6])}</text>')
            values = f"{field.strength(uid)}-{c.mp}" + (f"-{c.range}" if c.range else "")
            out.append(f'<text x="{x + 13:.1f}" y="{y + 19:.1f}" font-size="8" text-anchor="middle" '
                       f'fill="{text_colour}">{_t(values)}</text></g>')
    for e in events:
        path = e.get("path")
        if e.get("type") in ("move", "retreat", "advance") and path and len(path) > 1:
            pts = " ".join(f"{centre(h)[0]:.1f},{centre(h)[1]:.1f}" for h in path if h)
            dash = ' stroke-dasharray="3,2"' if e["type"] != "move" else ""
            out.append(f'<polyline points="{pts}" fill="none" stroke="#222" stroke-width="1.5"{dash} '
                       f'marker-end="url(#arrow)" class="{_t(e["type"])}"/>')
        if e.get("type") == "combat" and e.get("hex") and not e.get("cancelled"):
            cx, cy = centre(e["hex"])
            out.append(f'<g class="combat"><circle cx="{cx:.1f}" cy="{cy:.1f}" r="{SIZE * 0.8:.1f}" fill="none" '
                       f'stroke="#d00" stroke-width="2"/><text x="{cx:.1f}" y="{cy + SIZE * 0.8 + 8:.1f}" '
                       f'font-size="8" text-anchor="middle" fill="#d00">{_t(e.get("result", ""))} '
                       f'{_t(e.get("odds", ""))}</text><title>{_t(e.get("text", ""))}</title></g>')
    out.append("</svg>")
    return "\n".join(out)
