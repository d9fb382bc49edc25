"""Soissons, 486: the special rules of scenario 2.

1. Chararic.  His three units are neutral at the start (``side = "neutral"`` in the
   scenario file: they block their hexes, have no ZOC and do not move).  A camp that
   attacks one of them while it is neutral sends that unit (and only it: "it
   automatically becomes part of the opponent's camp") to the other camp for the
   rest of the game.  At the beginning of each turn from the 3rd, while Chararic is
   undecided and one of his units is still neutral, the Frankish player rolls 1d6:
   1, Chararic betrays Clovis (his units still neutral are Gallo-Roman to the end);
   2-5, still neutral; 6, he joins Clovis (they are Frankish to the end).
2. Victory: with no army past its threshold at the end of turn 6, the Gallo-Roman
   player wins a minor victory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.rules.base import Outcome, OutcomeKind
from pbem.rules.furor_barbarus.scenario_rules import ScenarioRules
from pbem.rules.furor_barbarus.special_rules import REGISTRY

if TYPE_CHECKING:  # pragma: no cover
    from pbem.rules.furor_barbarus.battlefield import Battlefield
    from pbem.rules.furor_barbarus.combat import Combat

SCENARIO = "soissons"
FRANKS = "franks"
GALLO_ROMANS = "gallo-romans"
NEUTRAL = "neutral"
CHARARIC = ("chararic-salian-3", "chararic-salian-2", "chararic-light")
CHARARIC_MEMO = "chararic"  # Chararic's choice by the roll: "neutral" | "franks" | "gallo-romans"
FIRST_ROLL_TURN = 3


def chararic_camp(field: Battlefield) -> str:
    return str(field.memo.get(CHARARIC_MEMO, NEUTRAL))


def still_neutral(field: Battlefield) -> list[str]:
    """Chararic's units on the map that no camp has won yet."""
    return [u for u in CHARARIC if field.exists(u) and field.side_of(u) == NEUTRAL]


def chararic_joins(field: Battlefield, side: str, why: str) -> None:
    """Chararic chooses ``side`` (the roll): his units still neutral join it."""
    field.memo[CHARARIC_MEMO] = side
    units = still_neutral(field)
    for uid in units:
        field.set_side(uid, side)
    army = field.scenario.side_info[side].name
    field.add_event(
        "chararic",
        f"Chararic joins the {army} with {', '.join(units) or 'no unit left'}: {why} (special rule 1).",
        side=side,
        reason=why,
        units=units,
    )


def unit_joins(field: Battlefield, uid: str, side: str, why: str) -> None:
    """One neutral unit of Chararic's attacked: it (only it) joins ``side``."""
    field.set_side(uid, side)
    army = field.scenario.side_info[side].name
    field.add_event(
        "chararic",
        f"{field.counter(uid).name} ({uid}) of Chararic's corps joins the {army}: {why} (special rule 1).",
        side=side,
        reason=why,
        units=[uid],
    )


class SoissonsRules(ScenarioRules):
    scenario_id = SCENARIO

    def start_of_turn(self, field: Battlefield) -> None:
        if field.turn < FIRST_ROLL_TURN or chararic_camp(field) != NEUTRAL or not still_neutral(field):
            return
        die = field.dice.roll(6, f"Chararic's choice, turn {field.turn} (special rule 1)")
        if die == 1:
            chararic_joins(field, GALLO_ROMANS, f"the Frankish player rolls {die}, Chararic betrays Clovis")
        elif die == 6:
            chararic_joins(field, FRANKS, f"the Frankish player rolls {die}, Chararic sides with Clovis")
        else:
            field.add_event(
                "chararic",
                f"The Frankish player rolls {die}: Chararic remains neutral (special rule 1).",
                side=NEUTRAL,
                die=die,
            )

    def on_attacked(self, field: Battlefield, combat: Combat) -> bool:
        defender = combat.defender
        if defender in CHARARIC and field.side_of(defender) == NEUTRAL:
            attacker_side = field.side_of(combat.attackers[0])
            other = GALLO_ROMANS if attacker_side == FRANKS else FRANKS
            unit_joins(field, defender, other, f"the {field.scenario.side_info[attacker_side].name} attacked it")
        return False

    def victory(self, field: Battlefield, core: Outcome | None, last_turn: bool) -> Outcome | None:
        if not last_turn or any(field.losses(s) >= field.scenario.side_info[s].threshold for s in field.scenario.sides):
            return core
        return Outcome(
            OutcomeKind.MINOR_VICTORY,
            GALLO_ROMANS,
            f"no army past its morale threshold at the end of turn {field.scenario.turns}: "
            "the Frankish threat has been temporarily repelled",
        )


REGISTRY[SCENARIO] = SoissonsRules
