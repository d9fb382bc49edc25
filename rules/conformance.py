"""The conformance suite: what pbem relies on a ruleset for, checked.

It drives only the ruleset interface (``pbem.rules.base``): no database, no
files but the ruleset's own rule cases, no clock.  Every game pbem referees, the
shipped ones included, must pass it::

    >>> from pbem.rules import find_ruleset
    >>> check(find_ruleset("farrapos"), games=1, checks=("templates", "svg"))
    []

:func:`check` returns a list of failures, each a line that starts with the name
of the check (one of :data:`CHECKS`) and says what went wrong where:

``json``          positions and events are plain JSON data that round-trip, and
                  every event has a ``type`` and a ``text``;
``determinism``   the same position, orders and dice give the same position
                  (hash), events and rolls; ``resolve`` does not change its input;
                  a bot given the same seed writes the same orders;
``templates``     the order template of every side parses with no problem and
                  orders nothing (every line a comment);
``bots``          every bot's orders parse, validate, and each order prints back
                  (``str(order)``) to an equal order;
``refusals``      a line that is no order is refused by its line number; orders
                  refused by ``validate`` name lines that exist;
``game-end``      bot games end within ``max_resolutions``; an ended game has an
                  outcome, and no side is due;
``svg``           the map is well-formed XML, one ``<svg>`` with a ``viewBox``;
``cases``         the ruleset's own rule cases pass (``Ruleset.cases_folder``, or
                  ``cases=``).

The pytest plug-in ``pbem.rules.conformance_plugin`` runs it in one line.
"""

from __future__ import annotations

import hashlib
import json
import random
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pbem.rules.base import NO_ORDERS, Event, Orders, Position, Ruleset

CHECKS = ("json", "determinism", "templates", "bots", "refusals", "game-end", "svg", "cases")

NOT_AN_ORDER = "zzq this is not an order of any game 42"
"""A line no ruleset accepts as an order."""


@dataclass(frozen=True)
class Roll:
    index: int
    sides: int
    value: int
    purpose: str


@dataclass
class SeededDice:
    """A dice stream from a seed (the suite's stand-in for the referee's dice v1
    stream), recording each roll."""

    seed: int
    rolls: list[Roll] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def roll(self, sides: int, purpose: str) -> int:
        if not 2 <= sides <= 256:
            raise ValueError(f"die size {sides} outside 2..256")
        value = self._rng.randint(1, sides)
        self.rolls.append(Roll(len(self.rolls), sides, value, purpose))
        return value


def position_hash(position: Position) -> str:
    """SHA-256 of the canonical JSON (docs/formats.md, "Positions")."""
    text = json.dumps(position, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check(
    ruleset: Ruleset,
    scenario: str | None = None,
    games: int = 2,
    seed: int = 1,
    max_resolutions: int = 400,
    cases: Traversable | Path | None = None,
    checks: Sequence[str] = CHECKS,
) -> list[str]:
    """Run the suite on ``ruleset`` (one scenario, or every scenario when
    ``scenario`` is ``None``): ``games`` bot-against-bot games per scenario from
    ``seed`` on, each checked at every resolution.  Returns the failures, empty
    when the ruleset conforms.  ``cases`` is a folder of rule cases to run instead
    of ``ruleset.cases_folder()``; ``checks`` limits the suite to some checks."""
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown} (checks: {', '.join(CHECKS)})")
    run = _Run(ruleset, set(checks))
    scenarios = [scenario] if scenario is not None else [s.id for s in ruleset.scenarios()]
    for sid in scenarios:
        for g in range(games):
            run.play(sid, seed + g, max_resolutions)
    if "cases" in checks:
        folder = cases if cases is not None else ruleset.cases_folder()
        if folder is not None:
            run.cases(folder)
    return run.failures


class _Run:
    """One pass of the suite; collects failures, at most a few per check."""

    PER_CHECK = 5

    def __init__(self, ruleset: Ruleset, checks: set[str]) -> None:
        self.ruleset = ruleset
        self.checks = checks
        self.failures: list[str] = []
        self._count: dict[str, int] = {}

    def fail(self, name: str, message: str) -> None:
        self._count[name] = self._count.get(name, 0) + 1
        if self._count[name] <= self.PER_CHECK:
            self.failures.append(f"{name}: {message}")

    def on(self, name: str) -> bool:
        return name in self.checks

    # --- one game ---------------------------------------------------------------
    def play(self, scenario: str, seed: int, max_resolutions: int) -> None:
        r = self.ruleset
        where = f"{r.id} {scenario} game seed {seed}"
        try:
            position = r.setup(scenario, [])
        except Exception as exc:  # the suite reports, it does not stop
            self.fail("game-end", f"{where}: setup raised {type(exc).__name__}: {exc}")
            return
        sides = tuple(r.sides(scenario))
        bots = tuple(r.bots())
        if "random" not in bots:
            self.fail("bots", f"{r.id}: bots() {bots} lacks 'random'")
        events: list[Event] = []
        self.look(position, events, sides, f"{where}, opening position")
        rng = random.Random(seed)
        for k in range(1, max_resolutions + 1):
            due = tuple(r.due(position))
            if not due:
                break
            label = f"{where}, resolution {k} ({r.turn_label(position)})"
            if list(due) != sorted(due) or not set(due) <= set(sides):
                self.fail("game-end", f"{label}: due() gave {due}, not sides of {sides} in side-id order")
            orders: dict[str, Orders] = {}
            for i, side in enumerate(due):
                bot = bots[(i + k) % len(bots)] if bots else "random"
                orders[side] = self.bot_turn(position, side, bot, rng.randrange(2**32), label)
            if k == 1 and self.on("refusals"):
                self.refusals(position, due, orders, label)
            dice_seed = rng.randrange(2**32)
            try:
                resolution = r.resolve(position, orders, SeededDice(dice_seed))
            except Exception as exc:
                self.fail("game-end", f"{label}: resolve raised {type(exc).__name__}: {exc}")
                return
            if self.on("determinism"):
                self.determinism(position, orders, dice_seed, resolution.position, resolution.events, label)
            position, events = resolution.position, list(resolution.events)
            self.look(position, events, sides, label)
        else:
            if r.due(position) and self.on("game-end"):
                self.fail(
                    "game-end", f"{where}: not over after {max_resolutions} resolutions ({r.turn_label(position)})"
                )
                return
        if self.on("game-end"):
            outcome = r.outcome(position)
            if outcome is None:
                self.fail("game-end", f"{where}: no side is due but outcome() is None")
            elif outcome.winner is not None and outcome.winner not in sides:
                self.fail("game-end", f"{where}: the winner {outcome.winner!r} is not a side of {sides}")
            if self.on("svg"):
                self.svg(position, events, sides, f"{where}, final position")

    def look(self, position: Position, events: list[Event], sides: tuple[str, ...], label: str) -> None:
        """The checks on one position (and the events that led to it)."""
        r = self.ruleset
        if self.on("json"):
            self.plain(position, f"{label}: the position")
            for n, event in enumerate(events):
                self.plain(event, f"{label}: event {n}")
                if (
                    not isinstance(event, Mapping)
                    or not isinstance(event.get("type"), str)
                    or not isinstance(event.get("text"), str)
                ):
                    self.fail("json", f"{label}: event {n} lacks a string 'type' and 'text': {event!r:.200}")
        if self.on("templates"):
            for side in sides:
                try:
                    text = r.order_template(position, side)
                    parsed, problems = r.parse_orders(text)
                except Exception as exc:
                    self.fail("templates", f"{label}: the template of {side} raised {type(exc).__name__}: {exc}")
                    continue
                if problems or len(parsed):
                    self.fail(
                        "templates",
                        f"{label}: the template of {side} does not parse back to no orders: "
                        f"{[str(p) for p in problems] or [o.text for o in parsed]}",
                    )
        if self.on("svg") and (not events or len(events) % 3 == 0):  # a sample: the map is the slow part
            self.svg(position, events, sides, label)
        if self.on("game-end"):
            over = r.outcome(position) is not None
            if over and r.due(position):
                self.fail("game-end", f"{label}: the game has an outcome but {r.due(position)} are still due")
            for line in r.score(position):
                if line.side not in sides:
                    self.fail("game-end", f"{label}: a score line for {line.side!r}, not a side")

    def plain(self, value: Any, what: str) -> None:
        try:
            text = json.dumps(value, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            self.fail("json", f"{what} is not JSON data: {exc}")
            return
        if json.loads(text) != value or not _plain(value):
            self.fail("json", f"{what} does not round-trip through JSON (tuples, non-str keys or other types in it)")

    def bot_turn(self, position: Position, side: str, bot: str, seed: int, label: str) -> Orders:
        r = self.ruleset
        try:
            text = r.bot_orders(position, side, bot, random.Random(seed))
        except Exception as exc:
            self.fail("bots", f"{label}: bot {bot} for {side} raised {type(exc).__name__}: {exc}")
            return NO_ORDERS
        if self.on("determinism") and r.bot_orders(position, side, bot, random.Random(seed)) != text:
            self.fail("determinism", f"{label}: bot {bot} for {side} wrote different orders from the same seed")
        parsed, problems = r.parse_orders(text)
        if not problems:
            problems = r.validate(position, side, parsed)
        if problems:
            self.fail(
                "bots",
                f"{label}: bot {bot} for {side} wrote orders that are refused: {[str(p) for p in problems]} in "
                f"{text!r:.300}",
            )
            return NO_ORDERS
        if self.on("bots"):
            for line in parsed:
                again, trouble = r.parse_orders(str(line.order))
                if trouble or len(again) != 1 or again.lines[0].order != line.order:
                    self.fail(
                        "bots",
                        f"{label}: order {line.text!r} prints as {str(line.order)!r}, which does not parse back to it",
                    )
        return parsed

    def refusals(self, position: Position, due: tuple[str, ...], orders: Mapping[str, Orders], label: str) -> None:
        r = self.ruleset
        body = f"# a comment\n\n{NOT_AN_ORDER}\n"
        _, problems = r.parse_orders(body)
        if [p.line for p in problems] != [3]:
            self.fail(
                "refusals",
                f"{label}: {NOT_AN_ORDER!r} on line 3 gave problems {[str(p) for p in problems]}, not one on line 3",
            )
        for side in due:
            for other, theirs in orders.items():
                if other == side or not len(theirs):
                    continue
                # the other side's legal orders, two lines down: refused or not, a problem names a line that exists
                text = "# moved\n\n" + "\n".join(line.text for line in theirs) + "\n"
                parsed, problems = r.parse_orders(text)
                if not problems:
                    problems = r.validate(position, side, parsed)
                lines = {line.line for line in parsed} | {0}
                bad = [str(p) for p in problems if p.line not in lines]
                if bad:
                    self.fail("refusals", f"{label}: {side} given {other}'s orders: problems name no order line: {bad}")

    def determinism(
        self,
        position: Position,
        orders: Mapping[str, Orders],
        dice_seed: int,
        new: Position,
        events: list[Event],
        label: str,
    ) -> None:
        r = self.ruleset
        before = position_hash(position)
        first = SeededDice(dice_seed)
        again = SeededDice(dice_seed)
        a = r.resolve(position, orders, first)
        if position_hash(position) != before:
            self.fail("determinism", f"{label}: resolve changed the position it was given")
        b = r.resolve(position, orders, again)
        if position_hash(a.position) != position_hash(b.position) or position_hash(a.position) != position_hash(new):
            self.fail("determinism", f"{label}: the same position, orders and dice gave different positions")
        if json.dumps(a.events, sort_keys=True, default=repr) != json.dumps(b.events, sort_keys=True, default=repr):
            self.fail("determinism", f"{label}: the same position, orders and dice gave different events")
        if first.rolls != again.rolls:
            self.fail("determinism", f"{label}: the same position, orders and dice rolled different dice")
        if self.on("json"):
            copy = json.loads(json.dumps(position))
            c = r.resolve(copy, orders, SeededDice(dice_seed))
            if position_hash(c.position) != position_hash(a.position):
                self.fail("json", f"{label}: the position read back from JSON resolves differently")

    def svg(self, position: Position, events: Sequence[Event], sides: tuple[str, ...], label: str) -> None:
        r = self.ruleset
        for side in (None, *sides) if r.map_depends_on_side else (None,):
            try:
                text = r.map_svg(position, events, side)
                root = ET.fromstring(text)
            except ET.ParseError as exc:
                self.fail("svg", f"{label}: the map{f' for {side}' if side else ''} is not well-formed XML: {exc}")
                continue
            except Exception as exc:
                self.fail("svg", f"{label}: map_svg raised {type(exc).__name__}: {exc}")
                continue
            if root.tag != "{http://www.w3.org/2000/svg}svg" or "viewBox" not in root.attrib:
                self.fail(
                    "svg", f"{label}: the map's root is {root.tag!r}, not an <svg> in the SVG namespace with a viewBox"
                )

    # --- rule cases --------------------------------------------------------------------
    def cases(self, folder: Traversable | Path) -> None:
        from pbem.rules.cases import run_case

        found = 0
        for name, item in _toml_files(folder):
            found += 1
            try:
                data = tomllib.loads(item.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                self.fail("cases", f"{name}: {exc}")
                continue
            result = run_case(data, name, self.ruleset)
            if not result.passed:
                self.fail("cases", result.summary())
        if not found:
            self.fail("cases", f"{folder}: no rule cases (*.toml) in the cases folder")


def _toml_files(folder: Traversable | Path, prefix: str = "") -> Iterator[tuple[str, Traversable | Path]]:
    for item in sorted(folder.iterdir(), key=lambda t: t.name):
        if item.is_dir():
            yield from _toml_files(item, f"{prefix}{item.name}/")
        elif item.name.endswith(".toml"):
            yield f"{prefix}{item.name}", item


def _plain(value: Any) -> bool:
    """Only the JSON types: dict with str keys, list, str, int, float, bool, None."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def failures_text(failures: Iterable[str]) -> str:
    """The failures as one message, one per line."""
    return "\n".join(f"  - {f}" for f in failures)
