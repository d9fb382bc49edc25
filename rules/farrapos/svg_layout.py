"""Where the Farrapos map draws each city: its true place projected onto the
board's box, then nudged apart where cities crowd; and where each city's label
goes (rules/farrapos/svg.py draws them)."""

from __future__ import annotations

import math

from pbem.rules.farrapos.board import Board
from pbem.rules.mapdraw import Box, overlaps, text_width

MAP_X0, MAP_Y0, MAP_W, MAP_H = 10, 44, 940, 760


def _projector(board: Board):
    cities = board.cities.values()
    lat_mid = math.radians(sum(c.lat for c in cities) / len(board.cities))
    xs = [c.lon * math.cos(lat_mid) for c in cities]
    ys = [-c.lat for c in cities]
    x_min, x_max, y_min, y_max = min(xs), max(xs), min(ys), max(ys)
    scale = min((MAP_W - 140) / (x_max - x_min), (MAP_H - 80) / (y_max - y_min))

    def project(lat: float, lon: float) -> tuple[float, float]:
        x = MAP_X0 + 60 + (lon * math.cos(lat_mid) - x_min) * scale
        y = MAP_Y0 + 40 + (-lat - y_min) * scale
        return round(x, 1), round(y, 1)

    return project


def _spread(at: dict[str, tuple[float, float]], gap: float = 40.0, rounds: int = 60) -> dict[str, tuple[float, float]]:
    """Nudge cities closer than ``gap`` apart (Porto Alegre and Viamão, Rio Grande
    and São José do Norte are a few pixels apart at true scale) so that each one
    stays readable; every city keeps within a few pixels of its true place."""
    pos = {c: [x, y] for c, (x, y) in at.items()}
    names = sorted(pos)
    for _ in range(rounds):
        moved = False
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                dx, dy = pos[b][0] - pos[a][0], pos[b][1] - pos[a][1]
                dist = math.hypot(dx, dy)
                if dist >= gap:
                    continue
                if dist < 1e-6:
                    dx, dy, dist = 1.0, 0.0, 1.0
                push = (gap - dist) / 2 + 0.5
                ux, uy = dx / dist, dy / dist
                pos[a][0] -= ux * push
                pos[a][1] -= uy * push
                pos[b][0] += ux * push
                pos[b][1] += uy * push
                moved = True
        if not moved:
            break
    return {c: (round(x, 1), round(y, 1)) for c, (x, y) in pos.items()}


def _layout(board: Board) -> tuple[dict[str, tuple[float, float]], Placement]:
    """Where each city is drawn (projected, then spread apart where crowded) and
    where its label goes."""
    project = _projector(board)
    at = _spread({cid: project(c.lat, c.lon) for cid, c in board.cities.items()})
    return at, _place_labels(board, at)


NAME_SIZE, BADGE_SIZE = 14, 12


WIDEST_BADGE = "88 MU +8 Mil"


def _block_size(name: str) -> tuple[float, float]:
    """Every city's label has room for its name and, below, the widest MU badge:
    so the placement depends on the board only and is worked out once."""
    w = max(text_width(name, NAME_SIZE), text_width(WIDEST_BADGE, BADGE_SIZE, bold=True))
    return w + 2, NAME_SIZE * 1.22 + BADGE_SIZE * 1.22


def _segment_hits(box: Box, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the segment a-b crosses the box (sampled; good enough for a cost)."""
    for i in range(21):
        t = i / 20
        x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        if box[0] <= x <= box[0] + box[2] and box[1] <= y <= box[1] + box[3]:
            return True
    return False


Placement = dict[str, tuple[Box, tuple[float, float, float, float] | None]]


def _place_labels(board: Board, at: dict[str, tuple[float, float]]) -> Placement:
    """Where each city's label (name, and its MU below) goes: the free place
    nearest its circle that covers no other circle or label and crosses the fewest
    path lines, the most crowded cities first; far from its city, a leader line
    joins them.  Only the drawing moves: the board's coordinates stay as printed."""
    circles = {cid: (x - 16, y - 16, 32.0, 32.0) for cid, (x, y) in at.items()}
    bounds = (MAP_X0 + 2, MAP_Y0 + 2, MAP_W - 4, MAP_H - 4)
    placed: dict[str, tuple[Box, tuple[float, float, float, float] | None]] = {}
    boxes: list[Box] = []
    crowd = {c: sum(1 for d in at if d != c and math.dist(at[c], at[d]) < 110) for c in at}
    # each path line with its bounding box (a hair wider): a line whose box misses a label's box cannot cross it
    lines = [
        (min(p[0], q[0]) - 1e-6, min(p[1], q[1]) - 1e-6, max(p[0], q[0]) + 1e-6, max(p[1], q[1]) + 1e-6, p, q)
        for p, q in ((at[a], at[b]) for a, b in board.links)
    ]
    for cid in sorted(at, key=lambda c: (-crowd[c], -board.cities[c].vp, c)):
        x, y = at[cid]
        w, h = _block_size(board.name(cid))
        # a label box lies within 74 + w (74 + h) of its city: only circles and labels that near can be in its way
        reach = 74 + w + h + 40
        near = [c for c in circles.values() if abs(c[0] - x) < reach and abs(c[1] - y) < reach]
        near_labels = [
            o for o in boxes if o[0] - reach < x < o[0] + o[2] + reach and o[1] - reach < y < o[1] + o[3] + reach
        ]
        best: tuple[float, Box, tuple[float, float, float, float] | None] | None = None
        for ring, gap in enumerate((3.0, 12.0, 24.0, 40.0, 60.0)):
            for angle in range(0, 360, 15):
                ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
                # the box's point nearest the circle sits ``gap`` beyond the circle's edge
                px, py = x + ux * (14 + gap), y + uy * (14 + gap)
                bx = px - w / 2 + ux * w / 2
                by = py - h / 2 + uy * h / 2
                box = (round(bx, 1), round(by, 1), w, h)
                if not (
                    bounds[0] <= box[0]
                    and box[0] + w <= bounds[0] + bounds[2]
                    and bounds[1] <= box[1]
                    and box[1] + h <= bounds[1] + bounds[3]
                ):
                    continue
                if any(overlaps(box, c, 2) for c in near) or any(overlaps(box, o, 3) for o in near_labels):
                    continue
                right, bottom = box[0] + w, box[1] + h
                crossings = sum(
                    1
                    for x0, y0, x1, y1, p, q in lines
                    if x0 <= right and box[0] <= x1 and y0 <= bottom and box[1] <= y1 and _segment_hits(box, p, q)
                )
                above = 0 if uy < -0.5 else 1  # names read best above their city
                cost = ring * 10 + crossings * 6 + above * 2 + abs(ux) * 1.5
                if best is None or cost < best[0]:
                    leader = None
                    if ring >= 2:
                        leader = (round(x + ux * 13, 1), round(y + uy * 13, 1), round(px, 1), round(py, 1))
                    best = (cost, box, leader)
            if best is not None and ring >= 1:
                break
        if best is None:  # nowhere free: below the city, as before
            best = (0.0, (x - w / 2, y + 16, w, h), None)
        placed[cid] = (best[1], best[2])
        boxes.append(best[1])
    return placed
