"""Order syntax of a Furor Barbarus turn file (one order per line, ``#`` comments).

Set-up (the set-up resolutions, section 3)::

    place clovis 0907                 # a unit of a deployment you choose

Each player's movement + combat (moves first, in order, then attacks in order)::

    move aquitaine 0710 0709          # the path, hex by hex (the start hex may be given first)
    special feigned-flight huns-1 ostro-2   # a scenario's special order (in the move part)
    attack provence with austrasie bourgogne charge aquitaine losses bourgogne,austrasie advance austrasie
    attack 0708 with bowmen           # the target is a unit id or a hex id

Standing orders (any turn file; kept until changed)::

    standing advance yes              # the defender advances after an attacker's retreat (default no)
    standing losses salian-1,salian-2 # preferred order of your units for step losses you choose
    standing retreat 0405,0406        # preferred retreat hexes among hexes of equal priority (9.8)
    standing breton-evasion no        # a scenario's own standing order (standing.py checks keys and values)

>>> str(Order.parse("attack provence with austrasie bourgogne charge aquitaine"))
'attack provence with austrasie bourgogne charge aquitaine'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.rules.base import OrderSyntaxError
from pbem.rules.suggest import did_you_mean

_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_HEX = re.compile(r"^\d{4}$")


def _unit(token: str, line: str) -> str:
    t = token.lower()
    if not _ID.match(t):
        raise OrderSyntaxError(f"not a unit id: {token!r} in {line!r}")
    return t


def _hex(token: str, line: str) -> str:
    if not _HEX.match(token):
        raise OrderSyntaxError(f"not a hex id (4 digits CCRR): {token!r} in {line!r}")
    return token


@dataclass(frozen=True)
class PlaceOrder:
    unit: str
    hex: str

    def __str__(self) -> str:
        return f"place {self.unit} {self.hex}"


@dataclass(frozen=True)
class MoveOrder:
    unit: str
    path: tuple[str, ...]

    def __str__(self) -> str:
        return f"move {self.unit} {' '.join(self.path)}"


@dataclass(frozen=True)
class AttackOrder:
    target: str
    attackers: tuple[str, ...]
    charge: str | None = None
    losses: tuple[str, ...] = ()
    advance: str | None = None

    def __str__(self) -> str:
        out = " ".join(["attack", self.target, "with", *self.attackers])
        if self.charge:
            out += f" charge {self.charge}"
        if self.losses:
            out += f" losses {','.join(self.losses)}"
        if self.advance:
            out += f" advance {self.advance}"
        return out

    @property
    def all_attackers(self) -> tuple[str, ...]:
        extra = (self.charge,) if self.charge and self.charge not in self.attackers else ()
        return self.attackers + extra


@dataclass(frozen=True)
class StandingOrder:
    kind: str  # "advance" | "losses" | a scenario's own key (e.g. "breton-evasion")
    values: tuple[str, ...]

    def __str__(self) -> str:
        sep = "," if self.kind in ("losses", "retreat") else " "
        return f"standing {self.kind} {sep.join(self.values)}"


@dataclass(frozen=True)
class SpecialOrder:
    words: tuple[str, ...]

    def __str__(self) -> str:
        return "special " + " ".join(self.words)


AnyOrder = PlaceOrder | MoveOrder | AttackOrder | StandingOrder | SpecialOrder


class Order:
    """Parser for every order form."""

    @staticmethod
    def parse(line: str) -> AnyOrder:
        words = line.split()
        if not words:
            raise OrderSyntaxError("empty order")
        verb = words[0].lower()
        if verb == "place":
            if len(words) != 3:
                raise OrderSyntaxError(f"expected 'place UNIT HEX', got {line!r}")
            return PlaceOrder(_unit(words[1], line), _hex(words[2], line))
        if verb == "move":
            if len(words) < 3:
                raise OrderSyntaxError(f"expected 'move UNIT HEX HEX ...', got {line!r}")
            return MoveOrder(_unit(words[1], line), tuple(_hex(w, line) for w in words[2:]))
        if verb == "attack":
            return _parse_attack(words, line)
        if verb == "standing":
            if len(words) != 3 or not _ID.match(words[1].lower()):
                raise OrderSyntaxError(f"expected 'standing KEY VALUE' (e.g. 'standing advance yes'), got {line!r}")
            kind = words[1].lower()
            if kind == "advance":
                if words[2].lower() not in ("yes", "no"):
                    raise OrderSyntaxError(f"'standing advance' takes yes or no, not {words[2]!r}")
                return StandingOrder(kind, (words[2].lower(),))
            if kind == "losses":
                return StandingOrder(kind, tuple(_unit(w, line) for w in words[2].split(",") if w))
            if kind == "retreat":
                return StandingOrder(kind, tuple(_hex(w, line) for w in words[2].split(",") if w))
            return StandingOrder(kind, (words[2].lower(),))
        if verb == "special":
            if len(words) < 2:
                raise OrderSyntaxError(f"expected 'special WORD ...', got {line!r}")
            return SpecialOrder(tuple(w.lower() for w in words[1:]))
        verbs = ("place", "move", "attack", "standing", "special")
        raise OrderSyntaxError(
            f"unknown order {words[0]!r} (orders: {', '.join(verbs)}){did_you_mean(words[0], verbs)}: {line!r}"
        )


def _parse_attack(words: list[str], line: str) -> AttackOrder:
    if len(words) < 4 or words[2].lower() != "with":
        raise OrderSyntaxError(f"expected 'attack TARGET with UNIT ...', got {line!r}")
    t = words[1].lower()
    target = t if _HEX.match(t) else _unit(t, line)
    attackers: list[str] = []
    charge = advance = None
    losses: tuple[str, ...] = ()
    i = 3
    while i < len(words):
        w = words[i].lower()
        if w in ("charge", "advance", "losses"):
            if i + 1 >= len(words):
                raise OrderSyntaxError(f"{w!r} needs a unit in {line!r}")
            arg = words[i + 1]
            if w == "charge":
                if charge:
                    raise OrderSyntaxError(f"one charging unit per attack: {line!r}")
                charge = _unit(arg, line)
            elif w == "advance":
                advance = _unit(arg, line)
            else:
                losses = tuple(_unit(x, line) for x in arg.split(",") if x)
            i += 2
            continue
        attackers.append(_unit(w, line))
        i += 1
    if not attackers and not charge:
        raise OrderSyntaxError(f"an attack needs at least one unit after 'with': {line!r}")
    return AttackOrder(target, tuple(attackers), charge, losses, advance)
