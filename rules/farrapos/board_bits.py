"""The board's cities as the bits of an int, for the order template's questions
about each of a side's stacks: which linked cities it may attack or invade, and
which cities each group of its MU may move to.

The template asked these of the View city by city: a breadth-first walk of the
path lines per stack and MF (dicts of steps, a frontier list, a holder looked up
per city met), a third of the template.  With a city a bit, a set of cities is an
int: a walk's step is the path lines out of its frontier (the union of its cities'
lines, kept per board and frontier, and the frontiers a process meets are few),
less what it has met; the cities the enemy holds are one mask per template.  The
bit of each city follows the order of the cities' ids, so a set's cities come out
sorted, as the template lists them (kept per board and set).

>>> from pbem.rules.farrapos.board import load_board
>>> bits = board_bits(load_board())
>>> bits.names(bits.moves("bage", 2, 0))  # MF 2, no enemy anywhere: bage's own links are no move
('cachoeira', 'cangucu', 'encruzilhada', 'jaguarao', 'livramento', 'pelotas', 'sao-gabriel')
"""

from __future__ import annotations

from typing import Any

from pbem.rules.farrapos.board import Board
from pbem.rules.kept import PerObject


class BoardBits:
    """A board's cities as bits (in the order of their ids), the path lines out of
    each, and what the template's questions met before, kept per board."""

    __slots__ = ("board", "bit", "lines", "_city", "_spread", "_names", "_linked")

    def __init__(self, board: Board) -> None:
        ids = sorted(board.cities)
        self.board = board
        self.bit = {c: 1 << i for i, c in enumerate(ids)}
        self._city = {1 << i: c for i, c in enumerate(ids)}
        self.lines = {c: _union(self.bit[n] for n in board.adjacency[c]) for c in ids}
        self._spread: dict[int, int] = {}  # a set of cities -> the cities one path line away from them
        self._names: dict[int, tuple[str, ...]] = {}  # a set of cities -> their ids, sorted
        self._linked: dict[tuple[str, int], tuple[list[str], list[str]]] = {}

    def cities(self, mask: int) -> list[str]:
        """The cities of ``mask``, in the order of their ids."""
        found = []
        city = self._city
        while mask:
            low = mask & -mask
            found.append(city[low])
            mask ^= low
        return found

    def names(self, mask: int) -> tuple[str, ...]:
        """:meth:`cities` of ``mask``, kept per set (a template's lists repeat)."""
        found = self._names.get(mask)
        if found is None:
            if len(self._names) > 4096:
                self._names.clear()
            found = self._names[mask] = tuple(self.cities(mask))
        return found

    def moves(self, origin: str, mf: int, foe: int) -> int:
        """``legal.destinations_within(view, side, origin, mf)`` as a mask, ``foe``
        the cities the enemy holds: the cities within ``mf`` path lines, passing only
        through cities the enemy does not hold, that the enemy does not hold and that
        have no path line to ``origin``."""
        start = self.bit[origin]
        seen = front = start
        spread = self._spread
        for _ in range(mf):
            out = spread.get(front)
            if out is None:
                out = self._spread_of(front)
            new = out & ~seen
            if not new:
                break
            seen |= new
            front = new & ~foe  # a path may end in a city the enemy holds, not go on through it
        return seen & ~(start | self.lines[origin] | foe)

    def _spread_of(self, front: int) -> int:
        if len(self._spread) > 4096:
            self._spread.clear()
        lines = self.lines
        out = self._spread[front] = _union(lines[c] for c in self.cities(front))
        return out

    def linked(self, origin: str, foe: int) -> tuple[list[str], list[str]]:
        """``legal.linked_targets``: the cities linked to ``origin`` that the enemy
        holds (to attack) and the others (to invade), each in the order of the
        path lines; kept per origin and which of its links the enemy holds.
        Shared: read-only."""
        key = (origin, self.lines[origin] & foe)
        found = self._linked.get(key)
        if found is None:
            if len(self._linked) > 4096:
                self._linked.clear()
            bit = self.bit
            attacks: list[str] = []
            invasions: list[str] = []
            for n in self.board.adjacency[origin]:
                (attacks if bit[n] & foe else invasions).append(n)
            found = self._linked[key] = (attacks, invasions)
        return found


def _union(masks: Any) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out


_BITS: PerObject[Board, BoardBits] = PerObject()


def board_bits(board: Board) -> BoardBits:
    """The :class:`BoardBits` of ``board``, made once per board."""
    return _BITS.get(board, BoardBits)
