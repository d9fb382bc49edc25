"""Final Objective: 24 VP before Phase 11 (1845) wins at once; otherwise the most
VP at the end of the 4th turn of Phase 11.

Documented choices: the 24 VP check is made at the end of every turn of Phases
1835-1844 (the moment VP are computed); if both sides have 24 or more then, the
higher wins and equal totals play on; a tie at the end of 1845 is a draw (the
Peace of Ponche Verde).
"""

from __future__ import annotations

from pbem.rules.base import Outcome, OutcomeKind
from pbem.rules.farrapos.counters import LAST_PHASE, SIDE_NAMES
from pbem.rules.farrapos.sequence import is_last_turn

WINNING_VP = 24


def check_victory(phase: int, turn: int, vp: dict[str, int]) -> Outcome | None:
    """The outcome after the end-of-turn VP count of ``phase``/``turn``, if any."""
    empire, republic = vp["empire"], vp["republic"]
    if phase < LAST_PHASE:
        reached = [s for s in ("empire", "republic") if vp[s] >= WINNING_VP]
        if len(reached) == 1 or (len(reached) == 2 and empire != republic):
            winner = max(reached, key=lambda s: vp[s])
            return Outcome(OutcomeKind.WIN, winner, f"{SIDE_NAMES[winner]} totals {vp[winner]} VP before 1845")
        return None
    if not is_last_turn(phase, turn):
        return None
    if empire == republic:
        return Outcome(OutcomeKind.DRAW, None, f"equal VP ({empire}) at the end of 1845: peace of Ponche Verde")
    winner = "empire" if empire > republic else "republic"
    return Outcome(OutcomeKind.WIN, winner, f"most VP at the end of 1845 ({vp[winner]} to {min(empire, republic)})")
