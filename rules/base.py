"""The interface every ruleset provides, and the values it trades in.

A ruleset is pure: it takes a position (a JSON-serialisable dict), orders and a
dice stream, and returns a new position and a list of events.  It never touches a
database, a file, the clock or the network, and keeps no module-level mutable
state.  ``pbem`` (the referee around it) does all of that.

The three steps are separate and each callable alone (see ``../../docs``):

1. ``parse_orders(text)``            -> orders + syntax problems (line-numbered)
2. ``validate(position, side, orders)`` -> problems ("not allowed here")
3. ``resolve(position, orders_by_side, dice)`` -> ``Resolution``

Bots and ``pbem check`` use the same legality code as ``pbem process``.
"""

from __future__ import annotations

import marshal
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from pbem.rules.frozen import Frozen, setter

if TYPE_CHECKING:
    import random
    from importlib.resources.abc import Traversable

Position = dict[str, Any]
"""A whole game position: JSON-serialisable (str keys, lists, ints, str, bool, None)."""

Event = dict[str, Any]
"""One thing that happened in a resolution.  Always has ``"type"`` (a short
snake_case word, e.g. ``"battle"``) and ``"text"`` (one English sentence a player
can read in a report).  Any other keys are the ruleset's own, JSON-serialisable."""


class OrderError(ValueError):
    """Base of order problems raised by single calls (``Order.parse`` ...)."""


class OrderSyntaxError(OrderError):
    """The line is not an order of this game (like python-chess InvalidMoveError)."""


class IllegalOrderError(OrderError):
    """The order is well formed but not allowed in this position."""


class Problem(Frozen):
    """One problem with a turn file, named by its line (1-based, counted in the
    whole turn file once ``pbem`` has added the header offset; 0 = the file as a
    whole)."""

    line: int
    message: str

    def __init__(self, line: int, message: str) -> None:
        setter(self, "line", line)
        setter(self, "message", message)

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class OrderLine(Frozen):
    """One order line of a turn file body, as the ruleset parsed it.

    ``line`` is the line number within the body text given to ``parse_orders``
    (1-based); ``text`` is the line without its comment; ``order`` is the
    ruleset's own frozen value (it must round-trip: ``str(order)`` parses back
    to an equal order)."""

    line: int
    text: str
    order: Any

    def __init__(self, line: int, text: str, order: Any) -> None:
        # set in the instance's own dict, as ``setter`` would (one per order line of every file:
        # ``object.__setattr__`` checks the class's bases at each of its three calls)
        fields = self.__dict__
        fields["line"] = line
        fields["text"] = text
        fields["order"] = order


class Orders(Frozen):
    """A side's parsed orders for one resolution, in file order."""

    lines: tuple[OrderLine, ...]

    def __init__(self, lines: tuple[OrderLine, ...] = ()) -> None:
        setter(self, "lines", lines)

    def __iter__(self):
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.lines)


NO_ORDERS = Orders()


def parse_order_lines(text: str, parse_one: Callable[[str], Any]) -> tuple[Orders, list[Problem]]:
    """Parse a turn file body line by line with ``parse_one`` (one order from one
    line, raising :class:`OrderSyntaxError`); blank lines and ``#`` comments are
    skipped; every syntax problem is kept with its line number."""
    lines: list[OrderLine] = []
    problems: list[Problem] = []
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            lines.append(OrderLine(number, body, parse_one(body)))
        except OrderSyntaxError as exc:
            problems.append(Problem(number, str(exc)))
    return Orders(tuple(lines)), problems


class OutcomeKind(str, Enum):
    WIN = "win"
    MAJOR_VICTORY = "major_victory"
    MINOR_VICTORY = "minor_victory"
    DRAW = "draw"


class Outcome(Frozen):
    """Game end as a value.  ``winner`` is a side id or ``None`` for a draw;
    ``reason`` names the rule that ended the game (e.g. "24 VP before 1845")."""

    kind: OutcomeKind
    winner: str | None
    reason: str

    def __init__(self, kind: OutcomeKind, winner: str | None, reason: str) -> None:
        setter(self, "kind", kind)
        setter(self, "winner", winner)
        setter(self, "reason", reason)

    def in_words(self, winner_name: str | None = None, plural: bool = False) -> str:
        """The outcome as a sentence a player reads.

        >>> outcome = Outcome(OutcomeKind.MAJOR_VICTORY, "romans", "Huns' losses 37 against a threshold of 29")
        >>> outcome.in_words("Romans", plural=True)
        "Romans win a major victory: Huns' losses 37 against a threshold of 29"
        >>> Outcome(OutcomeKind.DRAW, None, "equal VP (20) at the end of 1845").in_words()
        'A draw: equal VP (20) at the end of 1845'
        """
        if self.kind is OutcomeKind.DRAW or self.winner is None:
            return f"A draw: {self.reason}"
        verb = "win" if plural else "wins"
        what = {OutcomeKind.MAJOR_VICTORY: " a major victory", OutcomeKind.MINOR_VICTORY: " a minor victory"}.get(
            self.kind, ""
        )
        return f"{winner_name or side_title(self.winner)} {verb}{what}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "winner": self.winner, "reason": self.reason}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any] | None) -> Outcome | None:
        """The outcome a position stored with :meth:`to_json` (``None`` if none)."""
        if not raw:
            return None
        return cls(OutcomeKind(raw["kind"]), raw["winner"], raw["reason"])


class Resolution(Frozen):
    """What ``resolve`` returns: the new position and the events, in order."""

    position: Position
    events: list[Event]

    def __init__(self, position: Position, events: list[Event] | None = None) -> None:
        setter(self, "position", position)
        setter(self, "events", [] if events is None else events)


class ScenarioInfo(Frozen):
    """One scenario of a game: its id, title, sides and a description."""

    id: str
    title: str
    sides: tuple[str, ...]
    description: str

    def __init__(self, id: str, title: str, sides: tuple[str, ...], description: str = "") -> None:
        setter(self, "id", id)
        setter(self, "title", title)
        setter(self, "sides", sides)
        setter(self, "description", description)


class OptionInfo(Frozen):
    """One optional rule of a game (``pbem new --option ID``), under ``section``."""

    id: str
    title: str
    section: str

    def __init__(self, id: str, title: str, section: str = "") -> None:
        setter(self, "id", id)
        setter(self, "title", title)
        setter(self, "section", section)


class ScoreLine(Frozen):
    """One line of the score shown in reports and ``pbem status`` (e.g. side
    ``republic``, value ``9``, detail ``"9 VP"``; or value ``12`` of ``what``
    ``"losses"``, where lower is better, detail ``"losses 12 against a threshold
    of 30"``)."""

    side: str
    value: int
    detail: str
    what: str
    higher_is_better: bool

    def __init__(self, side: str, value: int, detail: str, what: str = "score", higher_is_better: bool = True) -> None:
        setter(self, "side", side)
        setter(self, "value", value)
        setter(self, "detail", detail)
        setter(self, "what", what)
        setter(self, "higher_is_better", higher_is_better)

    @property
    def heading(self) -> str:
        """The column heading for ``value``: ``"VP"``, ``"losses (lower is better)"``."""
        return self.what if self.higher_is_better else f"{self.what} (lower is better)"


def side_title(side: str) -> str:
    """A side id as a name: ``gallo-romans`` -> ``Gallo-Romans``.

    >>> side_title("gallo-romans"), side_title("republic")
    ('Gallo-Romans', 'Republic')
    """
    return "-".join(word.capitalize() for word in side.split("-"))


HOUSE_TABLES = "house_tables"
"""The position key holding a game's house tables: ``{name: data}`` for every table
that replaces a shipped one (absent when the game plays the shipped tables).  The
tables ride in the position, so the engines stay pure (the data is passed in with
the position, never read from a file while resolving) and the position hash covers
them (docs/formats.md, "House tables")."""


class TableError(ValueError):
    """A house table that does not fit its ruleset: the message names the cell
    (row and column, unit and value) and what is wrong there."""


class TableInfo(Frozen):
    """One replaceable table: ``name`` (as ``--table NAME=FILE`` spells it), a
    ``title``, what the rulebook prints of it (``status``: ``designed``, or
    ``printed in part: ...``), and where it is documented."""

    name: str
    title: str
    status: str
    documented: str
    notes: tuple[str, ...]
    """Lines that head the table printed as TOML (``pbem table``): its shape and
    which cells are printed."""

    def __init__(self, name: str, title: str, status: str, documented: str, notes: tuple[str, ...] = ()) -> None:
        setter(self, "name", name)
        setter(self, "title", title)
        setter(self, "status", status)
        setter(self, "documented", documented)
        setter(self, "notes", notes)


class Dice(Protocol):
    """The only source of randomness a ruleset may use.

    ``roll(sides, purpose)`` returns a value in ``1..sides`` and records it with a
    purpose a person can read ("battle of Porto Alegre, round 2, attacker")."""

    def roll(self, sides: int, purpose: str) -> int: ...


class Ruleset(ABC):
    """What every game provides.  Subclasses override the hooks; the registry
    (``rules/registry.py``) finds them by ``id`` through the ``pbem.rulesets``
    entry-point group.  ``pbem.rules.conformance`` checks what pbem relies on."""

    id: str = ""
    """The ruleset id: lowercase words joined by ``-`` (``furor-barbarus``), the
    name of its entry point, the ``rules:`` header of its turn files."""
    title: str = ""
    """The game's name as players know it, with its author where there is one."""
    version: str = "1"
    """The version of the rules as this engine plays them (a string).  Bump it
    when the same position, orders and dice would resolve differently."""
    side_names_are_plural: bool = False
    """Whether a side's name takes a plural verb ("the Romans win"; Farrapos's
    "the Empire wins" does not)."""
    reuses_position_text: bool = False
    """Whether the referee may write a resolution's new position copying, from the
    stored text of the position before, the text of each entry of its first
    member (a dict of flat dicts) that is the very object of the position before
    (``canonical_json_after``: a working copy shares the entries it does not
    change): ``resolve_validated`` leaves the position it is handed as it was,
    owned or not."""
    map_depends_on_side: bool = True
    """Whether ``map_svg`` draws something only one side may see (hidden units);
    when ``False`` the referee draws one map per resolution for every side."""

    # --- metadata -------------------------------------------------------------
    @abstractmethod
    def scenarios(self) -> Sequence[ScenarioInfo]:
        """Every scenario; a game with one set-up has one scenario (its id is used
        when ``pbem new`` is given no ``--scenario``)."""

    def default_scenario(self) -> str:
        return self.scenarios()[0].id

    def scenario(self, scenario_id: str | None) -> ScenarioInfo:
        wanted = scenario_id or self.default_scenario()
        for info in self.scenarios():
            if info.id == wanted:
                return info
        from pbem.rules.suggest import did_you_mean

        known = [s.id for s in self.scenarios()]
        raise ValueError(
            f"unknown scenario {wanted!r} for {self.id} (scenarios: {', '.join(known)}){did_you_mean(wanted, known)}"
        )

    def options(self) -> Sequence[OptionInfo]:
        """Optional rules of the game that ``pbem new --option NAME`` may switch on."""
        return ()

    def scenario_options(self, scenario_id: str) -> Sequence[OptionInfo]:
        """Options of one scenario only (e.g. a scenario's variant set-up)."""
        return ()

    def sides(self, scenario_id: str | None = None) -> tuple[str, ...]:
        return self.scenario(scenario_id).sides

    # --- the position ----------------------------------------------------------
    @abstractmethod
    def setup(self, scenario_id: str | None, options: Sequence[str]) -> Position:
        """The opening position (before resolution 1).  Must record the scenario
        and options inside the position, so every later call needs only it."""

    @abstractmethod
    def due(self, position: Position) -> tuple[str, ...]:
        """Sides whose turn file the next resolution needs, in side-id order;
        empty when the game is over."""

    @abstractmethod
    def turn_label(self, position: Position) -> str:
        """The game's own name for the next turn to play, e.g. "1837, turn 3"
        or "turn 4, Franks (player 1)"; after the end, the last turn played."""

    @abstractmethod
    def score(self, position: Position) -> list[ScoreLine]:
        """The score as reports and ``pbem status`` show it."""

    @abstractmethod
    def outcome(self, position: Position) -> Outcome | None:
        """``None`` while the game goes on."""

    def outcome_text(self, outcome: Outcome | Mapping[str, Any] | None) -> str:
        """An outcome (or its stored JSON form) in plain words: "Romans win a major
        victory: Huns' losses 37 against a threshold of 29"."""
        value = Outcome.from_json(outcome) if isinstance(outcome, Mapping) else outcome
        if value is None:
            return "no result yet"
        return value.in_words(side_title(value.winner) if value.winner else None, self.side_names_are_plural)

    # --- orders ----------------------------------------------------------------
    def prepare_parsing(self) -> None:
        """Load what every parse of orders needs, once per process (a table of
        names, say), so that the referee's time limit on a turn file's orders
        covers the parse alone and not this one-off load.  Default: nothing."""
        return None

    @abstractmethod
    def parse_orders(self, text: str) -> tuple[Orders, list[Problem]]:
        """Parse a turn file body (comments already allowed: ``#`` to end of line).
        Problems carry line numbers within ``text`` (1-based)."""

    @abstractmethod
    def validate(self, position: Position, side: str, orders: Orders) -> list[Problem]:
        """Every reason these orders are not allowed for ``side`` now; empty if
        legal.  Messages say what would be legal where that helps."""

    @abstractmethod
    def resolve(
        self,
        position: Position,
        orders: Mapping[str, Orders],
        dice: Dice,
    ) -> Resolution:
        """Apply the due sides' orders (``NO_ORDERS`` for a side that sent none:
        "no moves received") and return the new position and events.  Must not
        mutate ``position``.  Every random number comes from ``dice``."""

    def resolve_validated(
        self,
        position: Position,
        orders: Mapping[str, Orders],
        dice: Dice,
        owned: bool = False,
    ) -> Resolution:
        """:meth:`resolve` for orders the caller has already passed through
        :meth:`validate` against this very position (the referee's ``process``,
        whose files ``submit`` checked; the audit, which checks each file before
        replaying it).  A ruleset whose ``resolve`` validates the orders again
        skips that second check here; anything else calls :meth:`resolve`, which
        stays safe against illegal orders.  ``owned``: the caller hands
        ``position`` over (it reads it no more), so a ruleset may work on it in
        place instead of on a copy; the new position returned is the same either way."""
        return self.resolve(position, orders, dice)

    # --- help for players and bots ----------------------------------------------
    @abstractmethod
    def order_template(self, position: Position, side: str) -> str:
        """The body of a fresh turn file: every line a comment (``#``) listing the
        order forms and the units/places that may act now."""

    def bots(self) -> tuple[str, ...]:
        return ("random",)

    @abstractmethod
    def bot_orders(self, position: Position, side: str, bot: str, rng: random.Random) -> str:
        """A body of legal orders chosen by ``bot`` (at least ``random``), using
        only ``rng`` for its choices.  Must pass ``validate``."""

    def public_position(self, position: Position) -> Position:
        """What of ``position`` every side may see: the position an observer's
        report is drawn from (its map and score).  A game with hidden information
        (units only their owner sees, secret notes kept in the position) returns
        a copy without it; the default returns ``position`` itself, for a game
        whose positions hold no secret."""
        return position

    def board_lines(self, position: Position, side: str | None = None) -> list[str]:
        """The board in words, for a player who reads no pictures: one line per
        place with units on it (both sides' units with their factors), only what
        ``side`` may see (``None``: the referee).  The text report prints them
        under the map's heading.  Default: none (the report then says the map is
        in the HTML part only)."""
        return []

    # --- pictures -------------------------------------------------------------
    @abstractmethod
    def map_svg(self, position: Position, events: Sequence[Event] = (), side: str | None = None) -> str:
        """A standalone ``<svg>`` element (with ``viewBox`` and xmlns) of the board,
        drawing ``events`` of the last resolution (moves, battles) where it can.
        All text must be XML-escaped."""

    # --- rule cases (rules/<ruleset>/cases/*.toml) -------------------------------
    @abstractmethod
    def position_from_case(self, data: Mapping[str, Any], scenario_id: str | None, options: Sequence[str]) -> Position:
        """Build a position from a rule case's compact ``[position]`` table (each
        ruleset documents its compact form in ``docs/rules/<id>.md``)."""

    @abstractmethod
    def position_to_case(self, position: Position) -> dict[str, Any]:
        """The compact form of a position, the same keys ``position_from_case``
        reads, used to compare a case's expected ``[expect.position]``."""

    def cases_folder(self) -> Traversable | None:
        """The folder of this ruleset's own rule cases (``*.toml``, docs/formats.md
        "Rule cases"), shipped with it, that the conformance suite runs; ``None``
        when it ships none (pbem's own games keep theirs in ``rules/<package>/cases/``).
        A ruleset in package ``mygame`` returns
        ``importlib.resources.files("mygame") / "cases"``."""
        return None

    # --- house tables (docs/formats.md, "House tables") ----------------------------
    def tables(self, scenario_id: str | None = None) -> Sequence[TableInfo]:
        """The tables of this game (and scenario) a game may replace: every table
        the rulebook does not print whole.  None by default."""
        return ()

    def shipped_table(self, name: str, scenario_id: str | None = None) -> dict[str, Any]:
        """The shipped table ``name`` as data, in the form :meth:`read_table` takes
        (and ``pbem table`` prints as TOML)."""
        raise TableError(self._unknown_table(name, scenario_id))

    def read_table(self, name: str, data: Mapping[str, Any], scenario_id: str | None = None) -> dict[str, Any]:
        """Check a house table and return it in canonical form; raise
        :class:`TableError` naming the cell that does not fit (wrong shape, an
        unknown result, a missing row, a printed value changed)."""
        raise TableError(self._unknown_table(name, scenario_id))

    def _unknown_table(self, name: str, scenario_id: str | None) -> str:
        known = ", ".join(t.name for t in self.tables(scenario_id)) or "none"
        return f"{self.id} has no replaceable table {name!r} (tables: {known})"

    def with_house_tables(self, position: Position, tables: Mapping[str, Mapping[str, Any]]) -> Position:
        """``position`` (an opening position) playing with ``tables``: each is
        checked with :meth:`read_table`; one equal to the shipped table is left
        out, so a game that names only shipped tables is an ordinary game."""
        scenario_id = position.get("scenario")
        house: dict[str, Any] = {}
        for name in sorted(tables):
            data = self.read_table(name, tables[name], scenario_id)
            if data != self.shipped_table(name, scenario_id):
                house[name] = data
        out = self.copy_position(position)
        out.pop(HOUSE_TABLES, None)
        if house:
            out[HOUSE_TABLES] = house
        return out

    @staticmethod
    def house_table(position: Position, name: str) -> Mapping[str, Any] | None:
        """The house table ``name`` a position plays with, or ``None`` (shipped)."""
        return position.get(HOUSE_TABLES, {}).get(name)

    # --- helpers shared by rulesets ----------------------------------------------
    @staticmethod
    def copy_position(position: Position) -> Position:
        """A deep copy of a position (JSON data only, so ``marshal`` round-trips it
        exactly, about twice as fast as ``copy.deepcopy``).

        >>> p = {"units": [{"id": "inf-1"}]}; q = Ruleset.copy_position(p); q["units"][0]["id"] = "x"; p
        {'units': [{'id': 'inf-1'}]}
        """
        return marshal.loads(marshal.dumps(position))
