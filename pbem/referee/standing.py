"""Where every game not over stands against its clock, read in two statements,
without its position or its ruleset: what lets a pass (``pbem tick``) pass over
the games with nothing due for the cost of a row.

A game is **quiet** at a moment when neither the clock step nor the resolution
step can do anything for it (pbem/referee/deadlines.py): no file is queued for
the resolution awaited next, so every side due is still awaited (a ruleset's
``due`` is empty only when the game is over, rules/base.py), and its clock has
nothing to say yet: no deadline, a pause that holds it, or a moment before the
first reminder (before the deadline when there is no reminder).  A game that is
not quiet goes through the full steps, which read its position and its ruleset.

The deadline is counted as :class:`pbem.referee.deadlines.Timing` counts it,
with the same function (:func:`moment`): unpaused time from the last activity,
and a vacation granted for this resolution adds its days.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from pbem.store import absences
from pbem.store.clock import Clock, aware
from pbem.store.records import SubmissionStatus
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from pbem.store.database import Database
    from pbem.store.sql import Tx


def moment(
    clock: Clock, start: datetime, extra: int, pauses: tuple[absences.Pause, ...], offset: int
) -> datetime | None:
    """``offset`` seconds after the deadline of a game whose clock has one, its
    last activity ``start``, ``extra`` seconds of vacation and its pauses (None:
    a pause with no end comes first)."""
    assert clock.deadline is not None
    return absences.shifted(start, clock.deadline + extra + offset, list(pauses))


class Standing(NamedTuple):
    """One game not over: its clock, last activity, pauses and vacation for the
    resolution awaited next, and whether a file is queued for it (a named tuple: a frozen
    dataclass cost about 4 M instructions to make at each idle tick's import)."""

    game_id: str
    clock: Clock
    start: datetime
    queued: bool
    damaged: bool  # its current resolution is missing: the full steps say so
    pauses: tuple[absences.Pause, ...] = ()
    extra: int = 0

    def quiet(self, now: datetime) -> bool:
        """Nothing due at ``now`` (module docstring)."""
        if self.queued or self.damaged:
            return False
        if self.clock.deadline is None or absences.paused_at(list(self.pauses), now) is not None:
            return True
        first = moment(self.clock, self.start, self.extra, self.pauses, -self.clock.remind if self.clock.remind else 0)
        return first is None or now < first


_STANDINGS = """
SELECT g.id, g.next_k, c.deadline, c.grace, c.remind, c.wait,
       g.created, r.created, (SELECT MAX(at) FROM rollback WHERE game_id = g.id),
       EXISTS (SELECT 1 FROM submission s WHERE s.game_id = g.id AND s.turn = g.next_k AND s.status = :queued),
       (CASE WHEN g.current_k = 0 THEN g.initial_position ELSE r.position END) IS NULL
FROM game g LEFT JOIN game_clock c ON c.game_id = g.id
LEFT JOIN resolution r ON r.game_id = g.id AND r.k = g.current_k
WHERE g.over = :over ORDER BY g.id"""

_ABSENCES = """
SELECT l.game_id, l.act, l.time, l.details FROM ledger l JOIN game_clock c ON c.game_id = l.game_id
WHERE c.deadline IS NOT NULL AND l.act IN (:pause, :resume, :vacation) ORDER BY l.game_id, l.seq"""


def standings(engine: Database) -> list[Standing]:
    """Every game not over, in id order (one read, two statements)."""
    with transaction(engine, write=False) as tx:
        return read(tx)


def read(tx: Tx) -> list[Standing]:
    rows = tx.all(_STANDINGS, {"over": False, "queued": SubmissionStatus.QUEUED.name})
    ledger: dict[str, list[tuple[str, str, dict]]] = {}
    if any(row[2] is not None for row in rows):
        for game_id, act, time, details in tx.all(
            _ABSENCES, {"pause": "pause", "resume": "resume", "vacation": "vacation"}
        ):
            ledger.setdefault(game_id, []).append((act, time, json.loads(details)))
    out = []
    for game_id, next_k, deadline, grace, remind, wait, *activity, queued, damaged in rows:
        clock = Clock(deadline, grace or 0, remind or 0, bool(wait))  # only the deadline and reminder count here
        start = max(t for t in (aware(v) for v in activity) if t is not None)
        found = ledger.get(game_id, [])
        vacation = sum(v.days for v in absences._vacations(found) if v.k == next_k) * 86400
        out.append(
            Standing(game_id, clock, start, bool(queued), bool(damaged), tuple(absences._pauses(found)), vacation)
        )
    return out
