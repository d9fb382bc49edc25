"""The board: cities, their VP and colour groups, port cities and path lines.

The printed board is not in the rulebook; it is data (``data/board.toml``) that a
referee can correct.  Rulebook: "The MU can only move through path lines (point to
point connection)"; "value above the name of the city"; "all the cities of the same
color"; "all port cities".

>>> board = load_board()
>>> board.cities["porto-alegre"].vp
4
>>> "triunfo" in board.neighbours("porto-alegre")
True
"""

from __future__ import annotations

from collections import deque
from functools import cached_property, lru_cache
from pathlib import Path

from pbem.rules import data_cache
from pbem.rules.frozen import Frozen, setter

DATA = Path(__file__).with_name("data")


class BoardError(ValueError):
    """The board data file is inconsistent."""


class City(Frozen):
    """A city of the map: its name, place, VP, colour group and whether it is a port."""

    id: str
    name: str
    lat: float
    lon: float
    vp: int
    colour: str
    port: bool

    def __init__(self, id: str, name: str, lat: float, lon: float, vp: int, colour: str, port: bool) -> None:
        setter(self, "id", id)
        setter(self, "name", name)
        setter(self, "lat", lat)
        setter(self, "lon", lon)
        setter(self, "vp", vp)
        setter(self, "colour", colour)
        setter(self, "port", port)


class ColourGroup(Frozen):
    """A colour group of cities, worth ``bonus`` VP to the side holding all of them."""

    id: str
    name: str
    bonus: int
    fill: str
    cities: tuple[str, ...]

    def __init__(self, id: str, name: str, bonus: int, fill: str, cities: tuple[str, ...]) -> None:
        setter(self, "id", id)
        setter(self, "name", name)
        setter(self, "bonus", bonus)
        setter(self, "fill", fill)
        setter(self, "cities", cities)


class Board(Frozen):
    """The map: cities, colour groups, path lines and each city's neighbours."""

    cities: dict[str, City]
    colours: dict[str, ColourGroup]
    links: tuple[tuple[str, str], ...]
    port_bonus: int
    adjacency: dict[str, tuple[str, ...]]

    def __init__(
        self,
        cities: dict[str, City],
        colours: dict[str, ColourGroup],
        links: tuple[tuple[str, str], ...],
        port_bonus: int,
        adjacency: dict[str, tuple[str, ...]],
    ) -> None:
        setter(self, "cities", cities)
        setter(self, "colours", colours)
        setter(self, "links", links)
        setter(self, "port_bonus", port_bonus)
        setter(self, "adjacency", adjacency)

    @cached_property
    def ports(self) -> tuple[str, ...]:
        """The port cities (worked out once per board: every VP count asks)."""
        return tuple(c for c, city in self.cities.items() if city.port)

    @cached_property
    def by_vp(self) -> tuple[tuple[str, int], ...]:
        """Every city with its VP, from the highest VP down, in board order among
        equals (worked out once per board: new MU's default city is the first
        that fits, read from the top down instead of over the whole board)."""
        return tuple(sorted(((c, city.vp) for c, city in self.cities.items()), key=lambda pair: -pair[1]))

    def neighbours(self, city: str) -> tuple[str, ...]:
        return self.adjacency[city]

    def linked(self, a: str, b: str) -> bool:
        return b in self.adjacency.get(a, ())

    def name(self, city: str) -> str:
        return self.cities[city].name

    def distances_from(self, start: str) -> dict[str, int]:
        """Path-line steps from ``start`` to every city (the bots' distance to the
        enemy; what a side's MU reach, through cities the enemy does not hold, is
        ``View.reach``)."""
        dist = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in self.adjacency[here]:
                if there not in dist:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        return dist


def board_from_data(data: dict) -> Board:
    cities = {
        cid: City(
            id=cid,
            name=str(c["name"]),
            lat=float(c["lat"]),
            lon=float(c["lon"]),
            vp=int(c["vp"]),
            colour=str(c["colour"]),
            port=bool(c.get("port", False)),
        )
        for cid, c in data["cities"].items()
    }
    colours = {}
    for gid, g in data["colours"].items():
        members = tuple(c for c in cities if cities[c].colour == gid)
        colours[gid] = ColourGroup(gid, str(g["name"]), int(g["bonus"]), str(g["fill"]), members)
    for city in cities.values():
        if city.colour not in colours:
            raise BoardError(f"city {city.id!r} has unknown colour {city.colour!r}")
    adjacency: dict[str, list[str]] = {c: [] for c in cities}
    links = []
    for pair in data["links"]["paths"]:
        a, b = pair
        for end in (a, b):
            if end not in cities:
                raise BoardError(f"path line {a!r}-{b!r} names unknown city {end!r}")
        if b in adjacency[a]:
            raise BoardError(f"path line {a!r}-{b!r} is listed twice")
        adjacency[a].append(b)
        adjacency[b].append(a)
        links.append((a, b))
    return Board(
        cities=cities,
        colours=colours,
        links=tuple(links),
        port_bonus=int(data["ports"]["bonus"]),
        adjacency={c: tuple(sorted(n)) for c, n in adjacency.items()},
    )


@lru_cache(maxsize=1)
def load_board() -> Board:
    """The board data file, read once (immutable data)."""
    return board_from_data(data_cache.load_toml(DATA / "board.toml"))
