"""What a process works out once per object it meets (a board, a counter sheet, a
printed counter), kept by the object's identity beside the object itself: an id
freed and reused by another object never answers for it, and the kept object is
never freed while its values are kept.  A bounded number of objects (the shipped
ones, a referee's house tables): past ``size``, everything kept is let go.

>>> kept: PerObject[list[int], int] = PerObject()
>>> numbers = [3, 1, 2]
>>> kept.get(numbers, sum), kept.get(numbers, len)  # the second is the first's
(6, 6)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

Obj = TypeVar("Obj")
V = TypeVar("V")


class PerObject(Generic[Obj, V]):
    """Values made by ``make(obj)`` once per object ``obj``, by its identity."""

    __slots__ = ("_kept", "_size")

    def __init__(self, size: int = 8) -> None:
        self._kept: dict[int, tuple[Obj, V]] = {}
        self._size = size

    def get(self, obj: Obj, make: Callable[[Obj], V]) -> V:
        kept = self._kept.get(id(obj))
        if kept is None or kept[0] is not obj:
            if len(self._kept) >= self._size:
                self._kept.clear()
            kept = self._kept[id(obj)] = (obj, make(obj))
        return kept[1]

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)
