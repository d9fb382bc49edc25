"""Section 10: victory conditions (checked in phase 5) and the scenario's end.

Army morale total: the full strength of every eliminated unit, +4 for a
commander, +2 for baggage (kept in ``position["losses"]`` as units fall).  An
army whose total reaches its threshold has passed it.  One army passed: the
other wins a major victory.  Both in the same turn: the one that passed by the
least wins a minor victory (equal: a draw).  At the end of the last turn with
neither passed: the scenario decides (hook); the core answer is a minor victory
for the side with the lesser eliminated total, else a draw.
"""

from __future__ import annotations

from pbem.rules.base import Outcome, OutcomeKind, side_title
from pbem.rules.furor_barbarus.battlefield import Battlefield


def core_outcome(field: Battlefield, last_turn: bool) -> Outcome | None:
    sides = field.scenario.sides
    info = field.scenario.side_info
    over = {s: field.losses(s) - info[s].threshold for s in sides if field.losses(s) >= info[s].threshold}
    if len(over) == 1:
        loser = next(iter(over))
        winner = next(s for s in sides if s != loser)
        return Outcome(
            OutcomeKind.MAJOR_VICTORY,
            winner,
            f"{_possessive(loser)} losses {field.losses(loser)} against a threshold of {info[loser].threshold} "
            "(rule 10)",
        )
    if len(over) >= 2:
        a, b = sides[0], sides[1]
        if over[a] == over[b]:
            return Outcome(OutcomeKind.DRAW, None, f"both armies passed their thresholds by {over[a]} (rule 10)")
        winner = a if over[a] < over[b] else b
        return Outcome(
            OutcomeKind.MINOR_VICTORY,
            winner,
            f"both armies passed their thresholds, the {side_title(winner)} by the least ({over[winner]}) (rule 10)",
        )
    if last_turn:
        a, b = sides[0], sides[1]
        la, lb = field.losses(a), field.losses(b)
        if la == lb:
            return Outcome(OutcomeKind.DRAW, None, f"end of turn {field.turn}: equal losses {la} (scenario end)")
        winner = a if la < lb else b
        return Outcome(
            OutcomeKind.MINOR_VICTORY,
            winner,
            f"end of turn {field.turn}: the {side_title(winner)} lost less ({min(la, lb)} against {max(la, lb)}) "
            "(scenario end)",
        )
    return None


def _possessive(side: str) -> str:
    name = side_title(side)
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def check_victory(field: Battlefield, last_turn: bool) -> Outcome | None:
    return field.special.victory(field, core_outcome(field, last_turn), last_turn)
