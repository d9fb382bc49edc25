"""Orders as values (RULES.md 4 and 6): ``move UNIT... to PLACE`` and
``attack PLACE with UNIT...``.  Each parses from one line and prints back to it.

>>> str(parse_order("Move inf-1  tank-1 to hill"))
'move inf-1 tank-1 to hill'
>>> parse_order("attack hill with inf-2")
Attack(target='hill', units=('inf-2',))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.rules.base import OrderSyntaxError

FORMS = (
    "move UNIT [UNIT ...] to PLACE      e.g. move inf-1 tank-1 to hill",
    "attack PLACE with UNIT [UNIT ...]  e.g. attack hill with inf-2 inf-3",
)

_UNIT = r"[a-z]+-\d+"
_MOVE = re.compile(rf"move((?:\s+{_UNIT})+)\s+to\s+([a-z]+)")
_ATTACK = re.compile(rf"attack\s+([a-z]+)\s+with((?:\s+{_UNIT})+)")


@dataclass(frozen=True)
class Move:
    units: tuple[str, ...]
    to: str

    def __str__(self) -> str:
        return f"move {' '.join(self.units)} to {self.to}"


@dataclass(frozen=True)
class Attack:
    target: str
    units: tuple[str, ...]

    def __str__(self) -> str:
        return f"attack {self.target} with {' '.join(self.units)}"


Order = Move | Attack


def parse_order(line: str) -> Order:
    """One order from one line (case and spacing do not matter)."""
    text = " ".join(line.lower().split())
    if m := _MOVE.fullmatch(text):
        return Move(tuple(m.group(1).split()), m.group(2))
    if m := _ATTACK.fullmatch(text):
        return Attack(m.group(1), tuple(m.group(2).split()))
    raise OrderSyntaxError(f"not an order: {line!r} (orders: move UNIT... to PLACE, attack PLACE with UNIT...)")
