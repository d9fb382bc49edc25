"""The Terrain Effects Chart (TEC).

Movement costs are kept in half movement points (a road hex costs 1 half-MP) so
that all arithmetic stays in integers.

| terrain | movement | combat |
| --- | --- | --- |
| clear | 1 | - |
| road | 1/2 (from a road hex, 7) | - |
| village | 1 | +1 on the die |
| woods | 2 | -1 column |
| hill | 2 | -1 column |
| river (hexside) | impassable | no retreat, no ZOC |
| bridge | 1 (1/2 if road) | +1 on the die unless a shot (9.6) |
| ford | 2 | - |
| stream (hexside, designed) | +1 | +1 on the die (9.3 example, 9.6) |
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Terrain(str, Enum):
    CLEAR = "clear"
    ROAD = "road"
    VILLAGE = "village"
    WOODS = "woods"
    HILL = "hill"
    BRIDGE = "bridge"
    FORD = "ford"


class Feature(str, Enum):
    """What runs along a hexside."""

    RIVER = "river"
    STREAM = "stream"


class Crossing(str, Enum):
    BRIDGE = "bridge"
    FORD = "ford"
    ROAD = "road"


@dataclass(frozen=True)
class Hexside:
    feature: Feature
    crossing: Crossing | None = None

    @property
    def bridged(self) -> bool:
        """A bridge or a road crosses it (a road over a river is a bridge)."""
        return self.crossing in (Crossing.BRIDGE, Crossing.ROAD)

    @property
    def passable(self) -> bool:
        return self.feature is Feature.STREAM or self.crossing is not None


# half movement points to enter a hex of this terrain
MOVE_COST_HALF: dict[Terrain, int] = {
    Terrain.CLEAR: 2,
    Terrain.ROAD: 2,
    Terrain.VILLAGE: 2,
    Terrain.WOODS: 4,
    Terrain.HILL: 4,
    Terrain.BRIDGE: 2,
    Terrain.FORD: 4,
}
ROAD_COST_HALF = 1
ROAD_TERRAIN = frozenset({Terrain.ROAD, Terrain.BRIDGE})
STREAM_EXTRA_HALF = 2  # designed: +1 MP to cross a stream hexside without bridge or road
FORD_CROSSING_HALF = 4  # a ford crossing costs 2 MP in all (TEC "Ford 2")

COLUMN_SHIFT: dict[Terrain, int] = {Terrain.WOODS: -1, Terrain.HILL: -1}
DIE_MODIFIER: dict[Terrain, int] = {Terrain.VILLAGE: 1, Terrain.BRIDGE: 1}
STREAM_DIE_MODIFIER = 1
CHARGE_PATH_TERRAIN = frozenset({Terrain.CLEAR, Terrain.ROAD})
CHARGE_TARGET_TERRAIN = frozenset({Terrain.CLEAR, Terrain.ROAD, Terrain.BRIDGE})
