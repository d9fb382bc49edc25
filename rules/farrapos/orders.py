"""Order lines of a Farrapos turn file: values that parse and print back.

One line, one order, in the game's words (cities and MU by their ids; MU lists
separated by spaces or commas)::

    attack porto-alegre from triunfo with inf-1 inf-2 art-1 cav-1 until-won losses inf-2,inf-1
    invade piratini from pelotas with cav-2
    move inf-5 inf-6 from bage to cacapava
    pass
    carry inf-3 from pelotas to jaguarao          (advanced rule port-transport)
    place inf-7 pelotas                           (a new MU arriving this turn)
    militia pelotas                               (deploy a Militia counter)
    losses inf-3 inf-4 militia                    (standing loss order, any defence)
    defend porto-alegre losses inf-13 militia     (standing loss order, one city)

>>> order = parse_order("attack porto-alegre from triunfo with inf-1, inf-2 rounds 2")
>>> str(order)
'attack porto-alegre from triunfo with inf-1 inf-2 rounds 2'
>>> parse_order(str(order)) == order
True
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from enum import Enum
from typing import Union

from pbem.rules.base import OrderSyntaxError
from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.counters import load_counters

MILITIA = "militia"


class Persistence(str, Enum):
    """The attacker's standing decision, made in his order because he cannot be
    asked between rounds (rulebook, "Battles", 5)."""

    UNTIL_WON = "until-won"  # fight on until the city falls or his MU are gone
    ROUNDS = "rounds"  # at most N rounds
    STOP_AFTER = "stop-after"  # stop once he has lost N steps


@dataclass(frozen=True)
class Decision:
    kind: Persistence = Persistence.UNTIL_WON
    n: int = 0

    def __str__(self) -> str:
        return self.kind.value if self.kind is Persistence.UNTIL_WON else f"{self.kind.value} {self.n}"


@dataclass(frozen=True)
class Attack:
    """Action a): attack a directly linked enemy city."""

    target: str
    origin: str
    units: tuple[str, ...]
    decision: Decision = Decision()
    losses: tuple[str, ...] = ()
    occupy: tuple[str, ...] | None = None  # None: every surviving attacker moves in

    def __str__(self) -> str:
        text = f"attack {self.target} from {self.origin} with {' '.join(self.units)} {self.decision}"
        if self.losses:
            text += f" losses {' '.join(self.losses)}"
        if self.occupy is not None:
            text += f" occupy {' '.join(self.occupy) if self.occupy else 'none'}"
        return text


@dataclass(frozen=True)
class Invade:
    """Action b): enter a directly linked city the enemy does not hold."""

    target: str
    origin: str
    units: tuple[str, ...]

    def __str__(self) -> str:
        return f"invade {self.target} from {self.origin} with {' '.join(self.units)}"


@dataclass(frozen=True)
class Move:
    """Action c): move MU along path lines within their MF (one line per group)."""

    units: tuple[str, ...]
    origin: str
    destination: str

    def __str__(self) -> str:
        return f"move {' '.join(self.units)} from {self.origin} to {self.destination}"


@dataclass(frozen=True)
class Pass:
    """Action d): take no action."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Carry:
    """Advanced rule: carry up to 2 MU per turn between two held port cities."""

    units: tuple[str, ...]
    origin: str
    destination: str

    def __str__(self) -> str:
        return f"carry {' '.join(self.units)} from {self.origin} to {self.destination}"


@dataclass(frozen=True)
class Place:
    """Where new MU arriving this turn set up ("in any city of his possession")."""

    units: tuple[str, ...]
    city: str

    def __str__(self) -> str:
        return f"place {' '.join(self.units)} {self.city}"


@dataclass(frozen=True)
class DeployMilitia:
    """Deploy one Militia counter in a city of one's possession with no MU."""

    city: str

    def __str__(self) -> str:
        return f"militia {self.city}"


@dataclass(frozen=True)
class StandingLosses:
    """Which of one's counters takes each step lost when defending (``city`` None:
    any city).  Kept in the position until replaced."""

    losses: tuple[str, ...]
    city: str | None = None

    def __str__(self) -> str:
        prefix = f"defend {self.city} " if self.city else ""
        return f"{prefix}losses {' '.join(self.losses)}"


Order = Union[Attack, Invade, Move, Pass, Carry, Place, DeployMilitia, StandingLosses]
ACTIONS = (Attack, Invade, Move, Pass)

FORMS = (
    "attack CITY from CITY with MU... [until-won | rounds N | stop-after N] [losses MU...] [occupy MU...|all|none]",
    "invade CITY from CITY with MU...",
    "move MU... from CITY to CITY",
    "pass",
    "carry MU... from PORT to PORT",
    "place MU... CITY",
    "militia CITY",
    "losses MU|militia ...",
    "defend CITY losses MU|militia ...",
)


def _tokens(line: str) -> list[str]:
    return [t for t in re.split(r"[\s,]+", line.strip().lower()) if t]


def _suggest(word: str, known: list[str]) -> str:
    close = difflib.get_close_matches(word, known, n=3, cutoff=0.6)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _city(word: str, line: str) -> str:
    cities = list(load_board().cities)
    if word not in cities:
        raise OrderSyntaxError(f"unknown city {word!r} in {line!r}{_suggest(word, cities)}")
    return word


def _unit(word: str, line: str, militia: bool = False) -> str:
    if militia and word == MILITIA:
        return word
    units = list(load_counters().counters)
    if word not in units:
        raise OrderSyntaxError(f"unknown MU {word!r} in {line!r}{_suggest(word, units)}")
    return word


def _units(words: list[str], line: str, militia: bool = False) -> tuple[str, ...]:
    if not words:
        raise OrderSyntaxError(f"no MU listed in {line!r}")
    return tuple(_unit(w, line, militia) for w in words)


def _split(words: list[str], keyword: str, line: str, form: str) -> tuple[list[str], list[str]]:
    if keyword not in words:
        raise OrderSyntaxError(f"{line!r} has no {keyword!r}; the form is: {form}")
    i = words.index(keyword)
    return words[:i], words[i + 1 :]


def _number(word: str | None, line: str) -> int:
    if word is None or not word.isdigit() or int(word) < 1:
        raise OrderSyntaxError(f"{line!r}: expected a number of 1 or more after the decision, got {word!r}")
    return int(word)


_ATTACK_KEYWORDS = {"until-won", "rounds", "stop-after", "losses", "occupy"}


def _parse_attack(words: list[str], line: str) -> Attack:
    form = FORMS[0]
    head, rest = _split(words[1:], "with", line, form)
    if len(head) != 3 or head[1] != "from":
        raise OrderSyntaxError(f"{line!r} is not an attack; the form is: {form}")
    target, origin = _city(head[0], line), _city(head[2], line)
    units: list[str] = []
    while rest and rest[0] not in _ATTACK_KEYWORDS:
        units.append(rest.pop(0))
    decision = Decision()
    losses: tuple[str, ...] = ()
    occupy: tuple[str, ...] | None = None
    seen: set[str] = set()
    while rest:
        word = rest.pop(0)
        group = "decision" if word in ("until-won", "rounds", "stop-after") else word
        if group in seen:
            raise OrderSyntaxError(f"{line!r} gives {group!r} twice")
        seen.add(group)
        if word == "until-won":
            decision = Decision()
        elif word in ("rounds", "stop-after"):
            decision = Decision(Persistence(word), _number(rest.pop(0) if rest else None, line))
        elif word in ("losses", "occupy"):
            listed: list[str] = []
            while rest and rest[0] not in _ATTACK_KEYWORDS:
                listed.append(rest.pop(0))
            if word == "losses":
                losses = _units(listed, line)
            elif listed == ["all"]:
                occupy = None
            elif listed == ["none"]:
                occupy = ()
            else:
                occupy = _units(listed, line)
        else:
            raise OrderSyntaxError(f"{line!r}: unexpected {word!r}; the form is: {form}")
    return Attack(target, origin, _units(units, line), decision, losses, occupy)


def _parse_from_to(words: list[str], line: str, form: str) -> tuple[tuple[str, ...], str, str]:
    units, rest = _split(words[1:], "from", line, form)
    if len(rest) != 3 or rest[1] != "to":
        raise OrderSyntaxError(f"{line!r}: the form is: {form}")
    return _units(units, line), _city(rest[0], line), _city(rest[2], line)


def parse_order(line: str) -> Order:
    """One order from one line (comment already removed)."""
    words = _tokens(line)
    if not words:
        raise OrderSyntaxError("empty order line")
    verb = words[0]
    if verb == "attack":
        return _parse_attack(words, line)
    if verb == "invade":
        head, rest = _split(words[1:], "with", line, FORMS[1])
        if len(head) != 3 or head[1] != "from":
            raise OrderSyntaxError(f"{line!r}: the form is: {FORMS[1]}")
        return Invade(_city(head[0], line), _city(head[2], line), _units(rest, line))
    if verb == "move":
        return Move(*_parse_from_to(words, line, FORMS[2]))
    if verb == "pass" and len(words) == 1:
        return Pass()
    if verb == "carry":
        return Carry(*_parse_from_to(words, line, FORMS[4]))
    if verb == "place" and len(words) >= 3:
        return Place(_units(words[1:-1], line), _city(words[-1], line))
    if verb == "militia" and len(words) == 2:
        return DeployMilitia(_city(words[1], line))
    if verb == "losses":
        return StandingLosses(_units(words[1:], line, militia=True))
    if verb == "defend" and len(words) >= 4 and words[2] == "losses":
        return StandingLosses(_units(words[3:], line, militia=True), _city(words[1], line))
    raise OrderSyntaxError(f"{line!r} is not an order; the orders are: " + "; ".join(FORMS))
