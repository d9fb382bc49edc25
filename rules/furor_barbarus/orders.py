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

A unit may be named by its id, by the short id its counter prints or by its name,
in any case and with spaces, hyphens or underscores (the ruleset passes its
:class:`~pbem.rules.names.NameTable`); the order keeps the id:

>>> from pbem.rules.names import FOUND_KEPT, NameTable
>>> units = NameTable([("visigoth-cavalry-1", ["vis-cav-1", "Visigoth cavalry"]), ("clovis", ["Clovis"])])
>>> str(Order.parse("place VIS_CAV_1 0406", units))
'place visigoth-cavalry-1 0406'
>>> str(Order.parse("attack Visigoth Cavalry with Clovis", units))
'attack visigoth-cavalry-1 with clovis'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from pbem.rules.base import OrderLine, Orders, OrderSyntaxError, Problem
from pbem.rules.names import FOUND_KEPT, NameTable
from pbem.rules.suggest import did_you_mean

_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_HEX = re.compile(r"^\d{4}$")
_NO_NAMES = NameTable(())
_ATTACK_WORDS = frozenset({"charge", "advance", "losses", "with"})


def _unit(token: str, line: str, names: NameTable = _NO_NAMES) -> str:
    """A unit's id where ``token`` names one unit of any scenario; else as typed
    (folded when it could be several), for ``validate`` to settle against the
    units of the game at hand."""
    t = names.settle(token).lower()
    if not _ID.match(t):
        raise OrderSyntaxError(f"not a unit id: {token!r} in {line!r}")
    return t


def _units_until(
    words: list[str], start: int, stop: frozenset[str], line: str, names: NameTable
) -> tuple[list[str], int]:
    """The units named from ``words[start]`` up to a word of ``stop`` (a name may
    take several words): their ids and the index after them."""
    found: list[str] = []
    i = start
    while i < len(words) and words[i].lower() not in stop:
        uid, i = names.take(words, i, stop)
        found.append(_unit(uid, line, names))
    return found, i


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


class MoveOrder(NamedTuple):
    """A unit's move along its path (a named tuple: most lines of a file, parsed at
    submit and again at resolve, where a frozen dataclass's ``__init__`` set each
    field through ``object.__setattr__``)."""

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

    def __init__(
        self,
        target: str,
        attackers: tuple[str, ...],
        charge: str | None = None,
        losses: tuple[str, ...] = (),
        advance: str | None = None,
    ) -> None:
        """The dataclass's own ``__init__``, with the five fields set at once in the
        instance's ``__dict__`` (a frozen dataclass sets each through ``object.__setattr__``)."""
        self.__dict__.update(target=target, attackers=attackers, charge=charge, losses=losses, advance=advance)

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
    def parse(line: str, names: NameTable = _NO_NAMES) -> AnyOrder:
        words = line.split()
        if not words:
            raise OrderSyntaxError("empty order")
        verb = words[0].lower()
        if verb == "move":  # most lines
            return _parse_move(words, line, names)
        if verb == "place":
            if len(words) < 3:
                raise OrderSyntaxError(f"expected 'place UNIT HEX', got {line!r}")
            unit = names.settle(" ".join(words[1:-1]))
            if len(words) != 3 and unit == " ".join(words[1:-1]):
                raise OrderSyntaxError(f"expected 'place UNIT HEX', got {line!r}")
            return PlaceOrder(_unit(unit, line, names), _hex(words[-1], line))
        if verb == "attack":
            return _parse_attack(words, line, names)
        if verb == "standing":
            return _parse_standing(words, line, names)
        if verb == "special":
            if len(words) < 2:
                raise OrderSyntaxError(f"expected 'special WORD ...', got {line!r}")
            return SpecialOrder(tuple(_special_word(w, names) for w in words[1:]))
        verbs = ("place", "move", "attack", "standing", "special")
        raise OrderSyntaxError(
            f"unknown order {words[0]!r} (orders: {', '.join(verbs)}){did_you_mean(words[0], verbs)}: {line!r}"
        )


def _special_word(word: str, names: NameTable) -> str:
    """A word of a special order: a unit's id where it names one, else as typed."""
    found = names.find(word)
    return found[0] if len(found) == 1 else word.lower()


def _parse_move(words: list[str], line: str, names: NameTable) -> MoveOrder:
    # a hex: ``_HEX.match(w)`` for a word of ``line.split()`` (no whitespace, so ``$``
    # cannot stop before a newline), four decimal digits as ``\d`` reads them; the
    # test is written out where it is made (a call per word cost more than the test)
    if len(words) < 3:
        raise OrderSyntaxError(f"expected 'move UNIT HEX HEX ...', got {line!r}")
    w = words[2]
    if len(w) == 4 and w.isdecimal():  # most lines: a one-word unit, then the hexes
        first_hex = 2
        typed = words[1]
    else:
        first_hex = 2
        for i in range(3, len(words)):
            w = words[i]
            if len(w) == 4 and w.isdecimal():
                first_hex = i
                break
        typed = " ".join(words[1:first_hex])
    found = _UNIT_OF.get((names, typed))
    unit = typed
    if found is None:
        unit = names.settle(typed)
        if first_hex != 2 and unit == typed:
            raise OrderSyntaxError(f"expected 'move UNIT HEX HEX ...', got {line!r}")
    path = words[first_hex:]
    if set(map(len, path)) != _FOUR or not "".join(path).isdecimal():  # (parse_lines' test: every word a hex)
        for w in path:
            if len(w) != 4 or not w.isdecimal():
                _hex(w, line)  # raises, with the message of every hex
    if found is None:
        found = _unit(unit, line, names)
        if len(_UNIT_OF) >= FOUND_KEPT:
            _UNIT_OF.clear()
        _UNIT_OF[names, typed] = found
    return MoveOrder(found, tuple(path))


def parse_lines(text: str, names: NameTable = _NO_NAMES) -> tuple[Orders, list[Problem]]:
    """``parse_order_lines(text, lambda line: Order.parse(line, names))``: the same
    orders and problems.  A move line naming a unit named before (``_UNIT_OF``) with a
    one-word name and a path of hexes is read here, without the three calls (the
    parse callable, ``Order.parse``, ``_parse_move``) and the named tuple's ``__new__``
    of each line (most lines of a file, at submit and again at resolve); any other
    line goes through ``Order.parse``."""
    lines: list[OrderLine] = []
    problems: list[Problem] = []
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        words = body.split()
        if len(words) >= 3 and words[0].lower() == "move":
            unit = _UNIT_OF.get((names, words[1]))  # one key and one look-up, the path sliced once
            path = words[2:]
            # each a hex: four characters (_parse_move's test of a word), all decimal digits
            if unit is not None and set(map(len, path)) == _FOUR and "".join(path).isdecimal():
                ol = _new(OrderLine)  # ``OrderLine(number, body, order)``, its fields set as its __init__ sets them
                ol.__dict__.update(line=number, text=body, order=_tuple_new(MoveOrder, (unit, tuple(path))))
                lines.append(ol)
                continue
        try:
            order: AnyOrder = Order.parse(body, names)
        except OrderSyntaxError as exc:
            problems.append(Problem(number, str(exc)))
            continue
        ol = _new(OrderLine)
        ol.__dict__.update(line=number, text=body, order=order)
        lines.append(ol)
    orders = _new(Orders)  # ``Orders(tuple(lines))``, as above
    orders.__dict__["lines"] = tuple(lines)
    return orders, problems


_FOUR = frozenset((4,))  # the lengths of a path's words that are all hexes (a regular expression costs
# some 0.4 M instructions to compile, in every process)
_tuple_new = tuple.__new__  # a named tuple's ``__new__`` with all its fields given, without its Python frame
_new = object.__new__  # an order line and the orders without their Python ``__init__`` (a frame and, for the
# orders, an ``object.__setattr__``, for each line of each file at submit and again at resolve)

_UNIT_OF: dict[tuple[NameTable, str], str] = {}
"""The unit a move names, by name table and the words typed (a name table never
changes once made): ``_unit(names.settle(typed))``, which settled the name twice
and matched the id, for each line of each file; a name it refuses is not kept."""


def know_ids(names: NameTable) -> None:
    """Tell the move lines' memory (``_UNIT_OF``) every id of ``names`` that names
    itself (``NameTable.own_ids()``: ``settle`` answers it with itself, and being
    folded it is lower-case and an ``_ID``), as ``_parse_move`` would find it: a
    move of a unit is then read by ``parse_lines`` alone the first time a process
    meets that unit too (the ids of a turn file's units, mostly met first in it)."""
    own = names.own_ids()
    if len(_UNIT_OF) + len(own) >= FOUND_KEPT:
        _UNIT_OF.clear()
    _UNIT_OF.update(((names, uid), uid) for uid in own)


def _parse_standing(words: list[str], line: str, names: NameTable) -> StandingOrder:
    if len(words) < 3 or not _ID.match(words[1].lower()):
        raise OrderSyntaxError(f"expected 'standing KEY VALUE' (e.g. 'standing advance yes'), got {line!r}")
    kind = words[1].lower()
    if kind == "losses":  # names may have spaces: the list is split at its commas
        items = [w.strip() for w in " ".join(words[2:]).split(",") if w.strip()]
        return StandingOrder(kind, tuple(_unit(names.settle(w), line, names) for w in items))
    if len(words) != 3:
        raise OrderSyntaxError(f"expected 'standing KEY VALUE' (e.g. 'standing advance yes'), got {line!r}")
    if kind == "advance":
        if words[2].lower() not in ("yes", "no"):
            raise OrderSyntaxError(f"'standing advance' takes yes or no, not {words[2]!r}")
        return StandingOrder(kind, (words[2].lower(),))
    if kind == "retreat":
        return StandingOrder(kind, tuple(_hex(w, line) for w in words[2].split(",") if w))
    return StandingOrder(kind, (words[2].lower(),))


def _parse_attack(words: list[str], line: str, names: NameTable = _NO_NAMES) -> AttackOrder:
    lowered = [w.lower() for w in words]
    if "with" not in lowered[2:]:
        raise OrderSyntaxError(f"expected 'attack TARGET with UNIT ...', got {line!r}")
    w_at = lowered.index("with", 2)
    typed = " ".join(words[1:w_at])
    target = typed if _HEX.match(typed) else _unit(names.settle(typed), line, names)
    if w_at != 2 and target == typed:
        raise OrderSyntaxError(f"expected 'attack TARGET with UNIT ...', got {line!r}")
    attackers, i = _units_until(words, w_at + 1, _ATTACK_WORDS, line, names)
    charge = advance = None
    losses: tuple[str, ...] = ()
    while i < len(words):
        w = words[i].lower()
        if w not in ("charge", "advance", "losses"):
            raise OrderSyntaxError(f"unexpected {words[i]!r} in {line!r}")
        if w == "losses":  # one word: the units split at commas
            if i + 1 >= len(words):
                raise OrderSyntaxError(f"{w!r} needs a unit in {line!r}")
            losses = tuple(_unit(names.settle(x), line, names) for x in words[i + 1].split(",") if x)
            i += 2
            continue
        listed, i = _units_until(words, i + 1, _ATTACK_WORDS, line, names)
        if not listed:
            raise OrderSyntaxError(f"{w!r} needs a unit in {line!r}")
        if w == "charge":
            if charge:
                raise OrderSyntaxError(f"one charging unit per attack: {line!r}")
            charge = listed[0]
            attackers += listed[1:]
        else:
            advance = listed[0]
            attackers += listed[1:]
    if not attackers and not charge:
        raise OrderSyntaxError(f"an attack needs at least one unit after 'with': {line!r}")
    return AttackOrder(target, tuple(attackers), charge, losses, advance)
