"""Small SVG charts for the audit page: a histogram of die faces and a line chart.

Standalone ``<svg>`` elements with ``viewBox`` and xmlns, no scripts, all text
XML-escaped, scaling to their container (``width:100%`` in the page's CSS).

>>> svg = histogram_svg([1, 6, 6], 6)
>>> svg.startswith("<svg") and 'viewBox="0 0 ' in svg
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pbem.rules.mapdraw import escape, quoteattr

SVG_NS = "http://www.w3.org/2000/svg"
PALETTE = ("#1f5fa8", "#b3261e", "#2e7d32", "#8e44ad", "#c77700", "#00838f")

_W, _H = 480, 240
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 12, 28, 34


def _open(title: str) -> list[str]:
    return [
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 {_W} {_H}" role="img" aria-label={quoteattr(title)} class="chart">',
        f"<title>{escape(title)}</title>",
        f'<text x="{_W / 2:g}" y="18" text-anchor="middle" font-size="13" '
        f'font-family="sans-serif">{escape(title)}</text>',
    ]


def _nice_max(value: float) -> int:
    """A round axis maximum at or above ``value`` (1, 2, 5 x 10^n)."""
    if value <= 1:
        return 1
    step = 1
    while True:
        for m in (1, 2, 5):
            if m * step >= value:
                return m * step
        step *= 10


def histogram_svg(values: Sequence[int], sides: int, title: str | None = None) -> str:
    """Bars of how often each face 1..``sides`` came up, with a dashed line at the
    count a fair die would give on average (``len(values) / sides``)."""
    title = title or f"d{sides}: {len(values)} rolls"
    counts = Counter(values)
    expected = len(values) / sides if sides else 0.0
    top = _nice_max(max([*counts.values(), expected, 1]))
    plot_w = _W - _LEFT - _RIGHT
    plot_h = _H - _TOP - _BOTTOM
    slot = plot_w / max(sides, 1)
    parts = _open(title)
    parts.append(f'<line x1="{_LEFT}" y1="{_TOP + plot_h}" x2="{_W - _RIGHT}" y2="{_TOP + plot_h}" stroke="#444"/>')
    for tick in (0, top / 2, top):
        y = _TOP + plot_h - plot_h * tick / top
        parts.append(
            f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="10" '
            f'font-family="sans-serif">{tick:g}</text>'
        )
    label_every = 1 if sides <= 20 else (sides + 19) // 20
    for face in range(1, sides + 1):
        count = counts.get(face, 0)
        h = plot_h * count / top
        x = _LEFT + (face - 1) * slot
        parts.append(
            f'<rect x="{x + slot * 0.1:.1f}" y="{_TOP + plot_h - h:.1f}" width="{slot * 0.8:.1f}" '
            f'height="{h:.1f}" fill="{PALETTE[0]}">'
            f"<title>{face}: {count}</title></rect>"
        )
        if (face - 1) % label_every == 0 or face == sides:
            parts.append(
                f'<text x="{x + slot / 2:.1f}" y="{_TOP + plot_h + 14}" text-anchor="middle" font-size="10" '
                f'font-family="sans-serif">{face}</text>'
            )
    if values:
        y = _TOP + plot_h - plot_h * expected / top
        parts.append(
            f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_W - _RIGHT}" y2="{y:.1f}" stroke="#b3261e" stroke-dasharray="5 3">'
            f"<title>fair die: {expected:.1f} each</title></line>"
        )
    parts.append(
        f'<text x="{_W / 2:g}" y="{_H - 4}" text-anchor="middle" font-size="10" font-family="sans-serif">face '
        "(dashed: a fair die's average)</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def line_chart_svg(series: Mapping[str, Sequence[tuple[int, int]]], title: str = "", x_label: str = "") -> str:
    """One line per series of ``(x, y)`` points (e.g. a side's score by
    resolution), with a legend."""
    points = [p for pts in series.values() for p in pts]
    xs = [x for x, _ in points] or [0]
    ys = [y for _, y in points] or [0]
    x0, x1 = min(xs), max(xs)
    y_low = min(0, min(ys))
    y_top = _nice_max(max(ys)) if max(ys) > 0 else 1
    if x1 == x0:
        x1 = x0 + 1
    plot_w = _W - _LEFT - _RIGHT
    plot_h = _H - _TOP - _BOTTOM - 14 * ((len(series) + 2) // 3)
    span_y = (y_top - y_low) or 1

    def sx(x: float) -> float:
        return _LEFT + plot_w * (x - x0) / (x1 - x0)

    def sy(y: float) -> float:
        return _TOP + plot_h - plot_h * (y - y_low) / span_y

    parts = _open(title or "chart")
    parts.append(f'<line x1="{_LEFT}" y1="{sy(y_low):.1f}" x2="{_W - _RIGHT}" y2="{sy(y_low):.1f}" stroke="#444"/>')
    parts.append(f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_TOP + plot_h}" stroke="#444"/>')
    for tick in sorted({y_low, (y_low + y_top) / 2, y_top}):
        parts.append(
            f'<text x="{_LEFT - 4}" y="{sy(tick) + 4:.1f}" text-anchor="end" font-size="10" '
            f'font-family="sans-serif">{tick:g}</text>'
        )
    for tick in sorted({x0, x1, (x0 + x1) // 2}):
        parts.append(
            f'<text x="{sx(tick):.1f}" y="{_TOP + plot_h + 14}" text-anchor="middle" font-size="10" '
            f'font-family="sans-serif">{tick:g}</text>'
        )
    if x_label:
        parts.append(
            f'<text x="{_W - _RIGHT}" y="{_TOP + plot_h + 26}" text-anchor="end" font-size="10" '
            f'font-family="sans-serif">{escape(x_label)}</text>'
        )
    legend_y = _TOP + plot_h + 40
    for i, (name, pts) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        ordered = sorted(pts)
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in ordered)
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" '
            f'stroke-width="2"><title>{escape(name)}</title></polyline>'
        )
        for x, y in ordered:
            parts.append(
                f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{colour}"><title>{escape(name)} {x}: '
                f"{y}</title></circle>"
            )
        lx = _LEFT + (i % 3) * (plot_w / 3)
        ly = legend_y + 14 * (i // 3)
        parts.append(f'<rect x="{lx:.1f}" y="{ly - 8}" width="10" height="10" fill="{colour}"/>')
        parts.append(
            f'<text x="{lx + 14:.1f}" y="{ly + 1}" font-size="11" font-family="sans-serif">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
