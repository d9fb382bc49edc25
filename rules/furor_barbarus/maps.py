"""Section 1 and 3: maps as data (terrain per hex and per hexside), scenario overlays."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.rules import data_cache
from pbem.rules.furor_barbarus.hexgrid import Hex, HexError, hex_id, side_key
from pbem.rules.furor_barbarus.terrain import Crossing, Feature, Hexside, Terrain


class MapDataError(ValueError):
    """A map or overlay file that does not follow the schema."""


@dataclass(frozen=True)
class GameMap:
    id: str
    title: str
    columns: int
    rows: int
    default_terrain: Terrain = Terrain.CLEAR
    terrain_of: Mapping[str, Terrain] = field(default_factory=dict)
    hexsides: Mapping[tuple[str, str], Hexside] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)

    def on_map(self, h: str) -> bool:
        return _on_map(h, self.columns, self.rows)

    def terrain(self, h: str) -> Terrain:
        return self.terrain_of.get(h, self.default_terrain)

    def hexside(self, a: str, b: str) -> Hexside | None:
        return self.hexsides.get(side_key(a, b))

    def neighbours(self, h: str) -> list[str]:
        """On-map neighbours."""
        return list(_neighbours(h, self.columns, self.rows))

    def neighbour_set(self, h: str) -> frozenset[str]:
        """The on-map neighbours of ``h`` as a set, worked out once per hex of this map."""
        table: dict[str, frozenset[str]] = self.__dict__.setdefault("_neighbour_set", {})
        found = table.get(h)
        if found is None:
            found = table[h] = frozenset(_neighbours(h, self.columns, self.rows))
        return found

    def on_edge(self, h: str) -> bool:
        return len(self.neighbours(h)) < 6

    def all_hexes(self) -> list[str]:
        return [f"{c:02d}{r:02d}" for c in range(1, self.columns + 1) for r in range(1, self.rows + 1)]

    def river_between(self, a: str, b: str) -> bool:
        """A river hexside without bridge (blocks ZOC, 8; a ford does not carry ZOC)."""
        side = self.hexside(a, b)
        return side is not None and side.feature is Feature.RIVER and not side.bridged

    def zoc_reach(self, h: str) -> frozenset[str]:
        """The neighbours a unit in ``h`` exerts its ZOC into (8: not across a river
        hexside without bridge), worked out once per hex of this map."""
        reach: dict[str, frozenset[str]] = self.__dict__.setdefault("_zoc_reach", {})
        found = reach.get(h)
        if found is None:
            sides = self.hexsides  # not river_between(h, n), without its three calls per neighbour
            out = []
            for n in _neighbours(h, self.columns, self.rows):
                side = sides.get((h, n) if h <= n else (n, h))
                if side is None or side.feature is not Feature.RIVER or side.bridged:
                    out.append(n)
            found = reach[h] = frozenset(out)
        return found

    def prepared(self) -> GameMap:
        """This map with the tables ``neighbour_set`` and ``zoc_reach`` keep filled
        for every hex at once (a map is immutable data: the battlefields of a
        scenario share one, and each game would otherwise work out the hexes its
        units reach for the first time)."""
        for h in self.all_hexes():
            self.neighbour_set(h)
            self.zoc_reach(h)
        return self

    def impassable_between(self, a: str, b: str) -> bool:
        """A river hexside without any crossing (TEC: impassable; no hand-to-hand
        combat, retreat or advance across it)."""
        side = self.hexside(a, b)
        return side is not None and not side.passable

    def with_overlay(self, overlay: Mapping[str, Any] | None) -> GameMap:
        """This map with a scenario's ``[overlay]`` applied."""
        if not overlay:
            return self
        terrain = dict(self.terrain_of)
        terrain.update(_terrain_table(overlay.get("terrain", {}), self.id))
        for h in overlay.get("ignore", {}).get("hexes", []):
            terrain[hex_id(h)] = Terrain.CLEAR
        sides = dict(self.hexsides)
        sides.update(_hexsides(overlay.get("hexside", []), self.id))
        names = dict(self.names)
        names.update({hex_id(k): str(v) for k, v in overlay.get("names", {}).items()})
        return GameMap(self.id, self.title, self.columns, self.rows, self.default_terrain, terrain, sides, names)


@functools.lru_cache(maxsize=8192)
def _on_map(h: str, columns: int, rows: int) -> bool:
    try:
        x = Hex.parse(h)
    except HexError:
        return False
    return 1 <= x.col <= columns and 1 <= x.row <= rows


def _offsets(col: int) -> tuple[tuple[int, int], ...]:
    """(column, row) steps to the six neighbours of a hex of ``col``'s parity, in
    ``Hex.neighbours`` order (the layout shifts every other column)."""
    h = Hex(col, 10)
    return tuple((n.col - h.col, n.row - h.row) for n in h.neighbours())


_OFFSETS = (_offsets(10), _offsets(11))  # even columns, odd columns
_STEPS = tuple(tuple(dc * 100 + dr for dc, dr in steps) for steps in _OFFSETS)  # the same, on ``CCRR`` as a number


@functools.lru_cache(maxsize=8192)
def _neighbours(h: str, columns: int, rows: int) -> tuple[str, ...]:
    """The on-map neighbours of ``h`` in ``Hex.neighbours`` order, from the column
    and row steps of its column's parity (no hex objects made)."""
    if len(h) != 4 or not h.isdigit():
        h = str(Hex.parse(h))  # raises HexError as before, or reads " 0907" as before
    col, row = int(h[:2]), int(h[2:])
    if 1 < col < columns and 1 < row < rows:  # all six on the map: each is ``CCRR`` plus a step
        n = col * 100 + row
        a, b, c, d, e, f = _STEPS[col & 1]
        return (f"{n + a:04d}", f"{n + b:04d}", f"{n + c:04d}", f"{n + d:04d}", f"{n + e:04d}", f"{n + f:04d}")
    return tuple(
        f"{col + dc:02d}{row + dr:02d}"
        for dc, dr in _OFFSETS[col & 1]
        if 1 <= col + dc <= columns and 1 <= row + dr <= rows
    )


def _terrain_table(table: Mapping[str, Any], where: str) -> dict[str, Terrain]:
    out: dict[str, Terrain] = {}
    for name, hexes in table.items():
        try:
            kind = Terrain(name)
        except ValueError:
            raise MapDataError(f"{where}: unknown terrain {name!r}") from None
        for h in hexes:
            out[hex_id(h)] = kind
    return out


def _hexsides(items: list[Mapping[str, Any]], where: str) -> dict[tuple[str, str], Hexside]:
    out: dict[tuple[str, str], Hexside] = {}
    for item in items:
        a, b = (hex_id(h) for h in item["hexes"])
        if Hex.parse(a).direction_to(Hex.parse(b)) is None:
            raise MapDataError(f"{where}: hexside {a}-{b} joins hexes that are not adjacent")
        try:
            feature = Feature(item["feature"])
            crossing = Crossing(item["crossing"]) if item.get("crossing") else None
        except ValueError as exc:
            raise MapDataError(f"{where}: hexside {a}-{b}: {exc}") from None
        out[side_key(a, b)] = Hexside(feature, crossing)
    return out


def map_from_dict(data: Mapping[str, Any]) -> GameMap:
    where = str(data.get("id", "?"))
    try:
        return GameMap(
            id=str(data["id"]),
            title=str(data.get("title", data["id"])),
            columns=int(data["columns"]),
            rows=int(data["rows"]),
            default_terrain=Terrain(data.get("default_terrain", "clear")),
            terrain_of=_terrain_table(data.get("terrain", {}), where),
            hexsides=_hexsides(data.get("hexside", []), where),
            names={hex_id(k): str(v) for k, v in data.get("names", {}).items()},
        )
    except KeyError as exc:
        raise MapDataError(f"map {where}: missing key {exc}") from None


def load_map(path: Path) -> GameMap:
    return map_from_dict(data_cache.load_toml(path))
