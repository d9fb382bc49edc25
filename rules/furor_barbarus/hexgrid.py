"""Section 1: the hex grid.

Hex ids are four digits ``CCRR`` (column, row) as printed.  Layout: flat-topped
hexes in vertical columns, **even columns shifted half a hex down** ("even-q").
Neighbours of an odd column hex (c, r): (c, r-1), (c, r+1), (c-1, r-1), (c-1, r),
(c+1, r-1), (c+1, r); of an even column hex: (c, r-1), (c, r+1), (c-1, r),
(c-1, r+1), (c+1, r), (c+1, r+1).

>>> Hex.parse("0711").neighbours()[:2]
(Hex(col=7, row=10), Hex(col=7, row=12))
>>> distance(Hex.parse("0711"), Hex.parse("0708"))
3
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


class HexError(ValueError):
    """Not a hex id of the form CCRR."""


@dataclass(frozen=True, order=True)
class Hex:
    col: int
    row: int

    @classmethod
    def parse(cls, text: str) -> Hex:
        t = str(text).strip()
        if len(t) != 4 or not t.isdigit():
            raise HexError(f"not a hex id (4 digits CCRR): {text!r}")
        return cls(int(t[:2]), int(t[2:]))

    def __str__(self) -> str:
        return f"{self.col:02d}{self.row:02d}"

    # cube coordinates (x + y + z == 0)
    def cube(self) -> tuple[int, int, int]:
        x = self.col
        z = self.row - (self.col + (self.col & 1)) // 2
        return (x, -x - z, z)

    @classmethod
    def from_cube(cls, x: int, y: int, z: int) -> Hex:
        return cls(x, z + (x + (x & 1)) // 2)

    def neighbours(self) -> tuple[Hex, ...]:
        """The six neighbours, in direction order (see ``DIRECTIONS``)."""
        return tuple(self.step(d) for d in range(6))

    def step(self, direction: int) -> Hex:
        x, y, z = self.cube()
        dx, dy, dz = DIRECTIONS[direction]
        return Hex.from_cube(x + dx, y + dy, z + dz)

    def direction_to(self, other: Hex) -> int | None:
        """The direction index if ``other`` is adjacent, else None."""
        for d in range(6):
            if self.step(d) == other:
                return d
        return None


# north, south, north-west, south-west, north-east, south-east (cube deltas)
DIRECTIONS: tuple[tuple[int, int, int], ...] = (
    (0, 1, -1),
    (0, -1, 1),
    (-1, 1, 0),
    (-1, 0, 1),
    (1, 0, -1),
    (1, -1, 0),
)


def distance(a: Hex, b: Hex) -> int:
    ax, ay, az = a.cube()
    bx, by, bz = b.cube()
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def hex_id(text: str) -> str:
    """Normalised hex id string ('0907')."""
    return str(Hex.parse(text))


def _cube(h: str) -> tuple[int, int, int]:
    """``Hex.parse(h).cube()`` without the hex object, for a plain ``CCRR`` id."""
    if len(h) != 4 or not h.isdigit():
        return Hex.parse(h).cube()  # raises HexError as before, or reads " 0907" as before
    col, row = int(h[:2]), int(h[2:])
    z = row - (col + (col & 1)) // 2
    return (col, -col - z, z)


@functools.lru_cache(maxsize=65536)
def hex_distance(a: str, b: str) -> int:
    ax, ay, az = _cube(a)
    bx, by, bz = _cube(b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def adjacent(a: str, b: str) -> bool:
    return hex_distance(a, b) == 1


def straight_line(path: list[str] | tuple[str, ...]) -> int | None:
    """The one direction every step of ``path`` (consecutive hex ids) takes, or
    None if the steps change direction or the path has no step."""
    hexes = [Hex.parse(h) for h in path]
    if len(hexes) < 2:
        return None
    direction = hexes[0].direction_to(hexes[1])
    for a, b in zip(hexes, hexes[1:]):
        if direction is None or a.direction_to(b) != direction:
            return None
    return direction


def side_key(a: str, b: str) -> tuple[str, str]:
    """Key of the hexside between two adjacent hexes (order-independent)."""
    return (a, b) if a <= b else (b, a)
