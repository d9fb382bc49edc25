"""Where the Farrapos map draws each city: its true place projected onto the
board's box, then nudged apart where cities crowd (rules/farrapos/svg.py)."""

from __future__ import annotations

import math

from pbem.rules.farrapos.board import Board

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
