"""Order lines of a Farrapos turn file: values that parse and print back.

One line, one order, in the game's words (cities by their ids or their names as the
map prints them, in any case, with or without accents, spaces or hyphens; MU by
their ids; MU lists separated by spaces or commas)::

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
>>> str(parse_order("attack Porto Alegre from Triunfo with INF_1"))
'attack porto-alegre from triunfo with inf-1 until-won'
>>> str(parse_order("move inf-5 from Bagé to Caçapava do Sul"))
'move inf-5 from bage to cacapava'
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from typing import Union

from pbem.rules.base import OrderSyntaxError
from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.counters import load_counters
from pbem.rules.frozen import Frozen
from pbem.rules.names import NameTable
from pbem.rules.suggest import did_you_mean

MILITIA = "militia"


class Persistence(str, Enum):
    """The attacker's standing decision, made in his order because he cannot be
    asked between rounds (rulebook, "Battles", 5)."""

    UNTIL_WON = "until-won"  # fight on until the city falls or his MU are gone
    ROUNDS = "rounds"  # at most N rounds
    STOP_AFTER = "stop-after"  # stop once he has lost N steps


class Decision(Frozen):
    """How long an attacker fights on (``until-won``, ``rounds N``, ``stop-after N``)."""

    kind: Persistence
    n: int

    def __init__(self, kind: Persistence = Persistence.UNTIL_WON, n: int = 0) -> None:
        fields = self.__dict__  # set in place: ``set_fields``'s call and its keywords cost about as much again
        fields["kind"] = kind
        fields["n"] = n

    def __str__(self) -> str:
        return self.kind.value if self.kind is Persistence.UNTIL_WON else f"{self.kind.value} {self.n}"


class Attack(Frozen):
    """Action a): attack a directly linked enemy city."""

    target: str
    origin: str
    units: tuple[str, ...]
    decision: Decision
    losses: tuple[str, ...]
    occupy: tuple[str, ...] | None  # None: every surviving attacker moves in

    def __init__(
        self,
        target: str,
        origin: str,
        units: tuple[str, ...],
        decision: Decision = Decision(),
        losses: tuple[str, ...] = (),
        occupy: tuple[str, ...] | None = None,
    ) -> None:
        fields = self.__dict__
        fields["target"] = target
        fields["origin"] = origin
        fields["units"] = units
        fields["decision"] = decision
        fields["losses"] = losses
        fields["occupy"] = occupy

    def __str__(self) -> str:
        text = f"attack {self.target} from {self.origin} with {' '.join(self.units)} {self.decision}"
        if self.losses:
            text += f" losses {' '.join(self.losses)}"
        if self.occupy is not None:
            text += f" occupy {' '.join(self.occupy) if self.occupy else 'none'}"
        return text


class Invade(Frozen):
    """Action b): enter a directly linked city the enemy does not hold."""

    target: str
    origin: str
    units: tuple[str, ...]

    def __init__(self, target: str, origin: str, units: tuple[str, ...]) -> None:
        fields = self.__dict__
        fields["target"] = target
        fields["origin"] = origin
        fields["units"] = units

    def __str__(self) -> str:
        return f"invade {self.target} from {self.origin} with {' '.join(self.units)}"


class Move(Frozen):
    """Action c): move MU along path lines within their MF (one line per group)."""

    units: tuple[str, ...]
    origin: str
    destination: str

    def __init__(self, units: tuple[str, ...], origin: str, destination: str) -> None:
        fields = self.__dict__
        fields["units"] = units
        fields["origin"] = origin
        fields["destination"] = destination

    def __str__(self) -> str:
        return f"move {' '.join(self.units)} from {self.origin} to {self.destination}"


class Pass(Frozen):
    """Action d): take no action."""

    def __init__(self) -> None:
        pass

    def __str__(self) -> str:
        return "pass"


class Carry(Frozen):
    """Advanced rule: carry up to 2 MU per turn between two held port cities."""

    units: tuple[str, ...]
    origin: str
    destination: str

    def __init__(self, units: tuple[str, ...], origin: str, destination: str) -> None:
        fields = self.__dict__
        fields["units"] = units
        fields["origin"] = origin
        fields["destination"] = destination

    def __str__(self) -> str:
        return f"carry {' '.join(self.units)} from {self.origin} to {self.destination}"


class Place(Frozen):
    """Where new MU arriving this turn set up ("in any city of his possession")."""

    units: tuple[str, ...]
    city: str

    def __init__(self, units: tuple[str, ...], city: str) -> None:
        fields = self.__dict__
        fields["units"] = units
        fields["city"] = city

    def __str__(self) -> str:
        return f"place {' '.join(self.units)} {self.city}"


class DeployMilitia(Frozen):
    """Deploy one Militia counter in a city of one's possession with no MU."""

    city: str

    def __init__(self, city: str) -> None:
        fields = self.__dict__
        fields["city"] = city

    def __str__(self) -> str:
        return f"militia {self.city}"


class StandingLosses(Frozen):
    """Which of one's counters takes each step lost when defending (``city`` None:
    any city).  Kept in the position until replaced."""

    losses: tuple[str, ...]
    city: str | None

    def __init__(self, losses: tuple[str, ...], city: str | None = None) -> None:
        fields = self.__dict__
        fields["losses"] = losses
        fields["city"] = city

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


@lru_cache(maxsize=1)
def city_names() -> NameTable:
    """Every city by its id and by the name the map prints."""
    return NameTable.kept((cid, [city.name]) for cid, city in load_board().cities.items())


@lru_cache(maxsize=1)
def mu_names() -> NameTable:
    """Every MU by its id (as its counter prints it)."""
    return NameTable.kept((cid, []) for cid in load_counters().counters)


def _tokens(line: str) -> list[str]:
    """The words of a line, lower-cased, split at runs of whitespace and commas
    (``str.split`` takes the same whitespace as the pattern ``[\\s,]+`` did, in
    one call instead of a regular expression and a filter)."""
    return line.lower().replace(",", " ").split()


def _city(words: list[str], line: str, form: str) -> str:
    """A city named by the words between two keywords.  Whether it exists, and
    whether it is legal there, is for ``validate`` to say (it knows the position,
    so it suggests only what is legal); a name typed with spaces
    (``porto alegre``) is kept as typed for it to point at ``porto-alegre``."""
    if not words:
        raise OrderSyntaxError(f"a city is missing; the form is: {form}")
    return city_names().name(" ".join(words))


def _unit(word: str, line: str, militia: bool = False) -> str:
    """A MU's id, however it was typed (a MU of no id is kept as typed: ``validate``
    says which are legal)."""
    return word if word == MILITIA else mu_names().name(word)


def _place(words: list[str], line: str) -> Place:
    """``place MU... CITY``: the city is the most trailing words that name one."""
    cities = city_names()
    for i in range(2, len(words)):
        city = cities.lookup(" ".join(words[i:]))
        if city is not None:
            return Place(_units(words[1:i], line), city)
    return Place(_units(words[1:-1], line), words[-1])


def _units(words: list[str], line: str, militia: bool = False) -> tuple[str, ...]:
    if not words:
        raise OrderSyntaxError(f"no MU listed in {line!r}")
    name = mu_names().name  # what :func:`_unit` does for each word, without a call and a generator step per MU
    return tuple([word if word == MILITIA else name(word) for word in words])


def _split(words: list[str], keyword: str, line: str, form: str) -> tuple[list[str], list[str]]:
    if keyword not in words:
        raise OrderSyntaxError(f"{line!r} has no {keyword!r}; the form is: {form}")
    i = words.index(keyword)
    return words[:i], words[i + 1 :]


def _number(word: str | None, decision: str) -> int:
    if word is None:
        raise OrderSyntaxError(f"{decision!r} needs a number of 1 or more after it (e.g. '{decision} 2')")
    if not word.isdigit() or int(word) < 1:
        raise OrderSyntaxError(f"{decision!r} needs a number of 1 or more after it (e.g. '{decision} 2'), not {word!r}")
    return int(word)


_ATTACK_KEYWORDS = {"until-won", "rounds", "stop-after", "losses", "occupy"}
_UNTIL_WON = Decision()  # a frozen value: one for every attack that fights on until won
_PERSISTENCE = {kind.value: kind for kind in Persistence}  # ``Persistence(word)`` without the enum's call


def _parse_attack(words: list[str], line: str) -> Attack:
    form = FORMS[0]
    head, rest = _split(words[1:], "with", line, form)
    if "from" not in head:
        raise OrderSyntaxError(f"{line!r} is not an attack; the form is: {form}")
    i = head.index("from")
    target, origin = _city(head[:i], line, form), _city(head[i + 1 :], line, form)
    units: list[str] = []
    while rest and rest[0] not in _ATTACK_KEYWORDS:
        units.append(rest.pop(0))
    decision = _UNTIL_WON
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
            decision = _UNTIL_WON
        elif word in ("rounds", "stop-after"):
            decision = Decision(_PERSISTENCE[word], _number(rest.pop(0) if rest else None, word))
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
    if "to" not in rest:
        raise OrderSyntaxError(f"{line!r}: the form is: {form}")
    i = rest.index("to")
    return _units(units, line), _city(rest[:i], line, form), _city(rest[i + 1 :], line, form)


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
        if "from" not in head:
            raise OrderSyntaxError(f"{line!r}: the form is: {FORMS[1]}")
        i = head.index("from")
        return Invade(_city(head[:i], line, FORMS[1]), _city(head[i + 1 :], line, FORMS[1]), _units(rest, line))
    if verb == "move":
        return Move(*_parse_from_to(words, line, FORMS[2]))
    if verb == "pass" and len(words) == 1:
        return Pass()
    if verb == "carry":
        return Carry(*_parse_from_to(words, line, FORMS[4]))
    if verb == "place" and len(words) >= 3:
        city, last = city_names().lookup(words[1]), mu_names().lookup(words[-1])
        if city is not None and last is not None:
            fixed = f"place {' '.join(words[2:])} {city}"
            raise OrderSyntaxError(f"the MU come first, then the city: {fixed!r}; the form is: {FORMS[5]}")
        return _place(words, line)
    if verb == "militia" and len(words) >= 2:
        return DeployMilitia(_city(words[1:], line, FORMS[6]))
    if verb == "losses":
        return StandingLosses(_units(words[1:], line, militia=True))
    if verb == "defend" and "losses" in words[2:]:
        i = words.index("losses")
        return StandingLosses(_units(words[i + 1 :], line, militia=True), _city(words[1:i], line, FORMS[8]))
    verbs = [form.split()[0] for form in FORMS]
    raise OrderSyntaxError(f"{line!r} is not an order{did_you_mean(verb, verbs)}; the orders are: " + "; ".join(FORMS))
