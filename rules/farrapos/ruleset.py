"""``Farrapos``: the ruleset interface over the modules of this package."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pbem.rules.base import (
    Dice,
    Event,
    OptionInfo,
    Orders,
    Outcome,
    Position,
    Problem,
    Resolution,
    Ruleset,
    ScenarioInfo,
    ScoreLine,
    TableError,
    TableInfo,
    parse_order_lines,
)
from pbem.rules.farrapos import tables as house
from pbem.rules.farrapos.board import Board
from pbem.rules.farrapos.counters import SIDES, CounterSheet
from pbem.rules.farrapos.legal import validate_orders
from pbem.rules.farrapos.orders import parse_order
from pbem.rules.farrapos.position import View, due_side
from pbem.rules.farrapos.sequence import label
from pbem.rules.farrapos.setup import SCENARIO, opening_position
from pbem.rules.kept import PerObject

if TYPE_CHECKING:
    import random
    from importlib.resources.abc import Traversable


def _sorted_by_name(board: Board) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(((city.name, cid) for cid, city in board.cities.items()), key=lambda c: c[0]))


_BY_NAME: PerObject[Board, tuple[tuple[str, str], ...]] = PerObject()
"""Each city's name and id, sorted by name (board order among equal names), once
per board: the board in words lists its held cities in this order."""

_WORDS: PerObject[CounterSheet, dict[tuple[str, bool], str]] = PerObject()
"""Each MU's words in the board in words, by MU and face (reduced or not), per
counter sheet: filled as met (:func:`_unit_word`), once per process for the
shipped sheet."""


def _new_words(_sheet: CounterSheet) -> dict[tuple[str, bool], str]:
    return {}


def _unit_word(sheet: CounterSheet, unit: str, face: bool, words: dict[tuple[str, bool], str]) -> str:
    f = sheet.counters[unit].factors(face)
    word = words[unit, face] = f"{unit} {'reduced' if face else 'full'} MF{f.mf} AF{f.af} DF{f.df}"
    return word


OPTION_INFO = (
    OptionInfo(
        "siege", "Siege: a city surrounded by enemy-held cities loses its extra defence", "Advanced Rules (Optional)"
    ),
    OptionInfo(
        "port-transport",
        "Port transport: a side holding 2+ port cities carries up to 2 MU per turn between them",
        "Advanced Rules (Optional)",
    ),
)


_TURN: list[Callable[..., Resolution]] = []
"""The turn's resolution (:func:`pbem.rules.farrapos.turn.resolve_turn`), imported on
first use (a check resolves nothing) and kept: an import statement in a method runs
at each call (a package's ``from ... import`` goes through importlib's Python)."""


def _resolve_turn() -> Callable[..., Resolution]:
    if not _TURN:
        from pbem.rules.farrapos.turn import resolve_turn

        _TURN.append(resolve_turn)
    return _TURN[0]


_TEMPLATE: list[Callable[[Position, str], str]] = []
"""The order template (:func:`pbem.rules.farrapos.template.order_template`),
imported on first use (a check or a resolution makes none) and kept."""


def _order_template() -> Callable[[Position, str], str]:
    if not _TEMPLATE:
        from pbem.rules.farrapos.template import order_template

        _TEMPLATE.append(order_template)
    return _TEMPLATE[0]


class Farrapos(Ruleset):
    id = "farrapos"
    title = "Farrapos (Julio Trois, 2011)"
    map_depends_on_side = False  # nothing on the board is hidden from either side
    reuses_position_text = True  # the turn changes a working copy; a city's Militia is a count

    # --- house tables (rules/farrapos/tables.py) -----------------------------------

    def cases_folder(self) -> Traversable:
        """The rule cases shipped with this ruleset (docs/formats.md, "Rule cases")."""
        from importlib import resources  # only the conformance suite asks: a checked turn file never does

        return resources.files("pbem.rules.farrapos") / "cases"

    def tables(self, scenario_id: str | None = None) -> Sequence[TableInfo]:
        return house.TABLES

    def shipped_table(self, name: str, scenario_id: str | None = None) -> dict[str, Any]:
        if name not in house.SHIPPED:
            raise TableError(self._unknown_table(name, scenario_id))
        return house.SHIPPED[name]()

    def read_table(self, name: str, data: Mapping[str, Any], scenario_id: str | None = None) -> dict[str, Any]:
        if name not in house.READERS:
            raise TableError(self._unknown_table(name, scenario_id))
        return house.READERS[name](data)

    def scenarios(self) -> Sequence[ScenarioInfo]:
        return (
            ScenarioInfo(
                SCENARIO,
                "The Ragamuffin War, 1835-1845",
                SIDES,
                "The Republic Rio-Grandense against the Empire of Brazil, 11 Phases of 4 turns; the Republic "
                "moves first.",
            ),
        )

    def options(self) -> Sequence[OptionInfo]:
        return OPTION_INFO

    def setup(self, scenario_id: str | None, options: Sequence[str]) -> Position:
        scenario = self.scenario(scenario_id).id
        return opening_position(scenario, options)

    def due(self, position: Position) -> tuple[str, ...]:
        side = due_side(position)  # no View: the referee asks several times a resolution
        return () if side is None else (side,)

    def turn_label(self, position: Position) -> str:
        return label(int(position["phase"]), int(position["turn"]))

    def score(self, position: Position) -> list[ScoreLine]:
        from pbem.rules.farrapos.victory_points import breakdowns  # on first use: a check shows no score

        lines = []
        both = breakdowns(View(position))  # once per side (before the speed work, it was worked out twice)
        for side in SIDES:
            value = int(position["vp"][side])
            vp = both[side]
            lines.append(ScoreLine(side, value, str(vp) if vp.total == value else f"{value} VP", what="VP"))
        return lines

    def outcome(self, position: Position) -> Outcome | None:
        return Outcome.from_json(position.get("outcome"))

    def parse_orders(self, text: str) -> tuple[Orders, list[Problem]]:
        return parse_order_lines(text, parse_order)

    def validate(self, position: Position, side: str, orders: Orders) -> list[Problem]:
        return validate_orders(position, side, orders)

    def resolve(self, position: Position, orders: Mapping[str, Orders], dice: Dice) -> Resolution:
        return _resolve_turn()(position, orders, dice)

    def resolve_validated(
        self, position: Position, orders: Mapping[str, Orders], dice: Dice, owned: bool = False
    ) -> Resolution:
        """:meth:`resolve` without validating again; the turn reads the position
        as it began while it changes its working copy, so a position handed over
        (``owned``) is copied all the same."""
        return _resolve_turn()(position, orders, dice, validated=True)

    def order_template(self, position: Position, side: str) -> str:
        return _order_template()(position, side)

    def bots(self) -> tuple[str, ...]:
        from pbem.rules.farrapos import bots as farrapos_bots  # on first use: status, check and process need no bot

        return farrapos_bots.BOTS

    def bot_orders(self, position: Position, side: str, bot: str, rng: random.Random) -> str:
        from pbem.rules.farrapos import bots as farrapos_bots

        return farrapos_bots.bot_orders(position, side, bot, rng)

    def public_position(self, position: Position) -> Position:
        """Farrapos is a game of open information: both players see every army,
        city and track (docs/rules/farrapos.md), so the whole position is public."""
        return position

    def board_lines(self, position: Position, side: str | None = None) -> list[str]:
        """Each city with MU or Militia: its name and id, who holds it, each MU with
        its face and factors (nothing on this board is hidden from either side)."""
        from pbem.rules.farrapos.position import View

        view = View(position)
        cities, reduced, sheet = view.cities, view.reduced, view.sheet
        words = _WORDS.get(sheet, _new_words)
        lines = []  # read off the position's dicts: a View's questions per city and MU were most of the cost
        for name, cid in _BY_NAME.get(view.board, _sorted_by_name):  # in the order of the names, as sorted before
            data = cities[cid]
            units, militia = data["units"], int(data["militia"])
            if not (units or militia):
                continue
            parts = [words.get((u, u in reduced)) or _unit_word(sheet, u, u in reduced, words) for u in units]
            if militia:
                parts.append(f"militia x{militia} DF{sheet.militia_df}")
            lines.append(f"{name} ({cid}), {data['owner']}: " + ", ".join(parts))
        return lines

    def map_svg(self, position: Position, events: Sequence[Event] = (), side: str | None = None) -> str:
        from pbem.rules.farrapos import svg  # on first use: only reports draw the map

        return svg.render(position, events, side)

    def position_from_case(self, data: Mapping[str, Any], scenario_id: str | None, options: Sequence[str]) -> Position:
        from pbem.rules.farrapos import case_form  # on first use: only the rule cases read it

        return case_form.position_from_case(data, self.scenario(scenario_id).id, options)

    def position_to_case(self, position: Position) -> dict[str, Any]:
        from pbem.rules.farrapos import case_form

        return case_form.position_to_case(position)
