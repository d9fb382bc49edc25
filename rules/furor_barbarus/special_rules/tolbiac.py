"""Tolbiac, 496: the special rules of scenario 3.

1. Aid of the god of Clotilde.  If the Frankish army is the first to reach or pass
   12 army morale points lost, during the following turn (and only that turn):
   +1 strength for every Frankish unit adjacent to Clovis, +2 strength for Clovis,
   +1 morale for every Frankish unit.  The "Divine Help" marker is kept in the
   position (``special.divine_help_turn``) and announced by an event.
2. Terrain: the track running from 0114 and the farms in 1115 and 0214 have no
   effect (data: ``[overlay.ignore]`` of the scenario file).
3. Victory: with no army past its threshold at the end of turn 8, the lesser
   losses win a minor victory; equal losses, the Alemanni.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.rules.base import Outcome, OutcomeKind
from pbem.rules.furor_barbarus.scenario_rules import ScenarioRules
from pbem.rules.furor_barbarus.special_rules import REGISTRY

if TYPE_CHECKING:  # pragma: no cover
    from pbem.rules.furor_barbarus.battlefield import Battlefield

SCENARIO = "tolbiac"
FRANKS = "franks"
ALEMANNI = "alemanni"
CLOVIS = "clovis"
DIVINE_HELP_LIMIT = 12
DIVINE_HELP_TURN = "divine_help_turn"  # memo: the turn of the Divine Help marker
FIRST_TO_LIMIT = "first_to_12"  # memo: the army that reached 12 first


def divine_help_now(field: Battlefield) -> bool:
    return field.memo.get(DIVINE_HELP_TURN) == field.turn


class TolbiacRules(ScenarioRules):
    scenario_id = SCENARIO

    def on_elimination(self, field: Battlefield, uid: str, cause: str) -> None:
        if FIRST_TO_LIMIT in field.memo:
            return
        for side in (FRANKS, ALEMANNI):
            if field.losses(side) >= DIVINE_HELP_LIMIT:
                field.memo[FIRST_TO_LIMIT] = side
                if side == FRANKS:
                    field.memo[DIVINE_HELP_TURN] = field.turn + 1
                    field.add_event(
                        "divine_help",
                        f"The Frankish army is the first to lose {DIVINE_HELP_LIMIT}: "
                        f"Clovis invokes the god of Clotilde; Divine Help on turn {field.turn + 1} "
                        "(special rule 1).",
                        turn=field.turn + 1,
                        marker="Divine Help",
                    )
                return

    def start_of_turn(self, field: Battlefield) -> None:
        if divine_help_now(field):
            field.add_event(
                "divine_help",
                f"Divine Help (Aide divine) this turn {field.turn}: +2 to Clovis, +1 to units "
                "next to him, +1 morale to every Frankish unit (special rule 1).",
                turn=field.turn,
                marker="Divine Help",
            )

    def strength_modifier(self, field: Battlefield, uid: str, role: str) -> int:
        if not divine_help_now(field) or field.side_of(uid) != FRANKS:
            return 0
        if uid == CLOVIS:
            return 2
        clovis_hex = field.hex_of(CLOVIS)
        here = field.hex_of(uid)
        if clovis_hex is not None and here is not None and here in field.game_map.neighbours(clovis_hex):
            return 1
        return 0

    def morale_modifier(self, field: Battlefield, uid: str) -> int:
        return 1 if divine_help_now(field) and field.side_of(uid) == FRANKS else 0

    def victory(self, field: Battlefield, core: Outcome | None, last_turn: bool) -> Outcome | None:
        if not last_turn or any(field.losses(s) >= field.scenario.side_info[s].threshold for s in field.scenario.sides):
            return core
        franks, alemanni = field.losses(FRANKS), field.losses(ALEMANNI)
        if franks < alemanni:
            return Outcome(
                OutcomeKind.MINOR_VICTORY, FRANKS, f"end of turn 8: Frankish losses {franks} < Alemannic {alemanni}"
            )
        reason = (
            f"end of turn 8: Alemannic losses {alemanni} < Frankish {franks}"
            if alemanni < franks
            else f"end of turn 8: equal losses ({franks}), victory goes to the Alemanni"
        )
        return Outcome(OutcomeKind.MINOR_VICTORY, ALEMANNI, reason)


REGISTRY[SCENARIO] = TolbiacRules
