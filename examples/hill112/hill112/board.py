"""The map, the units and the game's constants, read from ``data/board.toml``
(RULES.md 2, 3, 4.3, 6.2, 8) once, at import."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib.resources import files
from types import MappingProxyType

SIDES = ("british", "germans")
"""In side-id order; the British move first in each turn (RULES.md 5)."""


@dataclass(frozen=True)
class Place:
    id: str
    title: str
    x: int
    y: int
    hill: bool = False


@dataclass(frozen=True)
class Unit:
    id: str
    side: str
    strength: int
    start: str


@dataclass(frozen=True)
class Board:
    places: MappingProxyType[str, Place]
    links: MappingProxyType[str, frozenset[str]]
    units: MappingProxyType[str, Unit]
    turns: int
    stacking: int
    hill_bonus: int

    def linked(self, a: str, b: str) -> bool:
        return b in self.links.get(a, frozenset())

    @property
    def hill(self) -> str:
        return next(p.id for p in self.places.values() if p.hill)


def _load() -> Board:
    data = tomllib.loads((files("hill112") / "data" / "board.toml").read_text(encoding="utf-8"))
    places = {
        pid: Place(pid, p["title"], int(p["x"]), int(p["y"]), bool(p.get("hill", False)))
        for pid, p in data["places"].items()
    }
    links: dict[str, set[str]] = {pid: set() for pid in places}
    for a, b in data["links"]["pairs"]:
        links[a].add(b)
        links[b].add(a)
    units = {uid: Unit(uid, u["side"], int(u["strength"]), u["start"]) for uid, u in data["units"].items()}
    game = data["game"]
    return Board(
        MappingProxyType(places),
        MappingProxyType({k: frozenset(v) for k, v in links.items()}),
        MappingProxyType(units),
        int(game["turns"]),
        int(game["stacking"]),
        int(game["hill_bonus"]),
    )


BOARD = _load()
