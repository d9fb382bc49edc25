"""A game's clock as stored (``game_clock``), its last activity, and the zones its
deadlines are shown in (``game.tz``, ``player.tz``): what the referee's deadline
step (pbem/referee/deadlines.py) and every report, status and listing read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

from pbem.store.database import unknown_game
from pbem.store.records import known_game_ids
from pbem.store.sql import Tx
from pbem.turnfiles.deadline import format_duration


class Clock(NamedTuple):
    """A game's clock in seconds; ``deadline`` None: the game waits forever.  A named tuple, not a
    frozen dataclass: making one at import was about 4 M instructions of every command that reads a clock
    (an idle ``pbem tick``)."""

    deadline: int | None = None
    grace: int = 0
    remind: int = 0
    wait: bool = False

    def describe(self) -> str:
        if self.deadline is None:
            return "no deadline"
        parts = [f"deadline {format_duration(self.deadline)}"]
        if self.grace:
            parts.append(f"grace {format_duration(self.grace)}")
        if self.remind:
            parts.append(f"remind {format_duration(self.remind)} before")
        if self.wait:
            parts.append("wait")
        return ", ".join(parts)


def read_clock(tx: Tx, game_id: str) -> Clock:
    row = tx.one("SELECT deadline, grace, remind, wait FROM game_clock WHERE game_id = :game", {"game": game_id})
    return Clock(row[0], row[1], row[2], bool(row[3])) if row else Clock()


def aware(value: datetime | str | None) -> datetime | None:
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def last_activity(tx: Tx, game_id: str) -> datetime:
    """The latest of the game's creation, its current resolution and its latest rollback."""
    row = tx.one(
        "SELECT g.created, r.created, (SELECT MAX(at) FROM rollback WHERE game_id = g.id)"
        " FROM game g LEFT JOIN resolution r ON r.game_id = g.id AND r.k = g.current_k WHERE g.id = :game",
        {"game": game_id},
    )
    if row is None:
        raise unknown_game(game_id, known_game_ids(tx))
    return max(t for t in (aware(v) for v in row) if t is not None)


def current_deadline(tx: Tx, game_id: str) -> tuple[datetime, int] | None:
    """The deadline of the resolution awaited now, and the grace after it in
    seconds; None when the game has no deadline, or a pause with no end holds it.
    Paused time does not count, and a vacation granted for this resolution moves
    the deadline by its days (:mod:`pbem.store.absences`)."""
    from pbem.store import absences

    clock = read_clock(tx, game_id)
    if clock.deadline is None:
        return None
    row = tx.one("SELECT next_k FROM game WHERE id = :game", {"game": game_id})
    extra = sum(v.days for v in absences.vacations(tx, game_id) if row and v.k == row[0]) * 86400
    due = absences.shifted(last_activity(tx, game_id), clock.deadline + extra, absences.pauses(tx, game_id))
    return (due, clock.grace) if due is not None else None


def zones(tx: Tx, game_id: str) -> tuple[str, dict[str, str]]:
    """The game's zone (``UTC`` unless set) and each side's own (the game's unless set)."""
    row = tx.one("SELECT tz FROM game WHERE id = :game", {"game": game_id})
    game_zone = (row[0] if row else None) or "UTC"
    sides = {
        side: tz or game_zone
        for side, tz in tx.all("SELECT side, tz FROM player WHERE game_id = :game ORDER BY side", {"game": game_id})
    }
    return game_zone, sides
