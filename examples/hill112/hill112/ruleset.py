"""``Hill112``: the pbem ruleset interface over the modules of this package."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from hill112 import engine
from hill112.board import BOARD, SIDES
from hill112.orders import FORMS, parse_order
from pbem.rules.base import (
    Dice,
    Event,
    Orders,
    Outcome,
    Position,
    Problem,
    Resolution,
    Ruleset,
    ScenarioInfo,
    ScoreLine,
    parse_order_lines,
    side_title,
)


class Hill112(Ruleset):
    id = "hill-112"
    title = "Hill 112"
    version = "1"
    side_names_are_plural = True  # "the Germans win"
    map_depends_on_side = False  # nothing is hidden

    def scenarios(self) -> Sequence[ScenarioInfo]:
        return (
            ScenarioInfo(
                engine.SCENARIO,
                "Hill 112, July 1944",
                SIDES,
                f"British infantry and tanks against the Germans holding Hill 112; {BOARD.turns} turns, the "
                "British move first.",
            ),
        )

    def setup(self, scenario_id: str | None, options: Sequence[str]) -> Position:
        self.scenario(scenario_id)  # an unknown scenario is refused by name
        if options:
            raise ValueError(f"hill-112 has no options (given: {', '.join(options)})")
        return engine.opening_position()

    def due(self, position: Position) -> tuple[str, ...]:
        return () if position.get("outcome") is not None else (position["side"],)

    def turn_label(self, position: Position) -> str:
        return f"turn {position['turn']}, {side_title(position['side'])}"

    def score(self, position: Position) -> list[ScoreLine]:
        return [ScoreLine(side, int(position["vp"][side]), f"{position['vp'][side]} VP", what="VP") for side in SIDES]

    def outcome(self, position: Position) -> Outcome | None:
        return Outcome.from_json(position.get("outcome"))

    def parse_orders(self, text: str) -> tuple[Orders, list[Problem]]:
        return parse_order_lines(text, parse_order)

    def validate(self, position: Position, side: str, orders: Orders) -> list[Problem]:
        return engine.validate_orders(position, side, orders)

    def resolve(self, position: Position, orders: Mapping[str, Orders], dice: Dice) -> Resolution:
        return engine.resolve_turn(position, orders, dice)

    def order_template(self, position: Position, side: str) -> str:
        out = [f"# Hill 112 - {self.turn_label(position)} - orders of the {side_title(side)}"]
        if side not in self.due(position):
            out.append("# It is not your turn: nothing to order.")
            return "\n".join(out) + "\n"
        out.append("# One order per unit; a unit with no order holds.  Moves first, then attacks in file order.")
        out.extend(f"#   {form}" for form in FORMS)
        out.append("# Your units (strength): may move to / may attack")
        for uid in sorted(u for u in position["units"] if BOARD.units[u].side == side):
            moves, attacks = engine.legal_targets(position, side, uid)
            out.append(
                f"#   {uid} ({BOARD.units[uid].strength}) in {position['units'][uid]}: move "
                f"{' '.join(moves) or '-'}; attack {' '.join(attacks) or '-'}"
            )
        return "\n".join(out) + "\n"

    def bots(self) -> tuple[str, ...]:
        from hill112 import bots

        return bots.BOTS

    def bot_orders(self, position: Position, side: str, bot: str, rng: random.Random) -> str:
        from hill112 import bots

        return bots.bot_orders(position, side, bot, rng)

    def map_svg(self, position: Position, events: Sequence[Event] = (), side: str | None = None) -> str:
        from hill112 import svg

        return svg.render(position, events)

    def position_from_case(self, data: Mapping[str, Any], scenario_id: str | None, options: Sequence[str]) -> Position:
        return engine.case_position(data)

    def position_to_case(self, position: Position) -> dict[str, Any]:
        return engine.case_form(position)

    def cases_folder(self) -> Traversable | None:
        return files("hill112") / "cases"
