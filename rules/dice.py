"""Dice streams that are pure enough for the rules layer and its tests.

The referee's real stream (dice v1, HMAC over the committed reveal) lives in
``pbem.dice``; rule cases use :class:`ScriptedDice`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Roll:
    index: int
    sides: int
    value: int
    purpose: str


class DiceExhausted(RuntimeError):
    """A scripted stream ran out: the case did not script enough dice."""


class ScriptedDice:
    """Gives scripted values in order; each may require the purpose to contain a
    given text and the die to have a given size.  Records every roll."""

    def __init__(self, script: Iterable[tuple[int, int | None, str | None]]) -> None:
        # each item: (value, sides or None, purpose substring or None)
        self._script = list(script)
        self.rolls: list[Roll] = []

    def roll(self, sides: int, purpose: str) -> int:
        if not 2 <= sides <= 256:
            raise ValueError(f"die size {sides} outside 2..256")
        index = len(self.rolls)
        if index >= len(self._script):
            raise DiceExhausted(
                f"roll {index} ({purpose!r}, d{sides}) was asked for but only {len(self._script)} dice were scripted"
            )
        value, want_sides, want_purpose = self._script[index]
        if want_sides is not None and want_sides != sides:
            raise AssertionError(f"roll {index}: scripted d{want_sides} but the rules asked for d{sides} ({purpose!r})")
        if want_purpose is not None and want_purpose.lower() not in purpose.lower():
            raise AssertionError(f"roll {index}: scripted for {want_purpose!r} but the rules asked for {purpose!r}")
        if not 1 <= value <= sides:
            raise ValueError(f"roll {index}: scripted value {value} is not on a d{sides}")
        self.rolls.append(Roll(index, sides, value, purpose))
        return value

    @property
    def unused(self) -> int:
        return len(self._script) - len(self.rolls)
