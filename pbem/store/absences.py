"""Pauses and vacations as the referee's ledger records them (pbem/referee/ledger.py,
pbem/referee/absences.py): read here, below the referee, so that the clock
(pbem/referee/deadlines.py) and the reports read them alike.

A pause runs from its ``pause`` entry to the ``resume`` entry after it, or to its
``until`` if that comes first; a pause with neither is open.  A vacation
(``vacation`` entry) adds its days to the deadline of the resolution awaited
when it was granted (``k``).  A deadline is counted in time the game is not
paused: :func:`shifted` walks the pauses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.store.sql import Tx


def _time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


@dataclass(frozen=True)
class Pause:
    start: datetime
    until: datetime | None  # as asked at pause (None: until resumed)
    resumed: datetime | None  # the resume entry's time

    @property
    def end(self) -> datetime | None:
        """When the pause ends (None: it is open)."""
        ends = [t for t in (self.until, self.resumed) if t is not None]
        return min(ends) if ends else None

    def holds(self, now: datetime) -> bool:
        return self.start <= now and (self.end is None or now < self.end)

    def used(self, now: datetime) -> int:
        """Seconds of pause this one takes from the game's allowance (an open pause: so far)."""
        end = self.end
        return int(((end if end is not None else now) - self.start).total_seconds())


@dataclass(frozen=True)
class Vacation:
    side: str
    days: int
    k: int
    start: datetime

    @property
    def until(self) -> datetime:
        return self.start + timedelta(days=self.days)


def ledger_rows(tx: Tx, game_id: str) -> Sequence[Sequence[Any]]:
    """The game's pauses, resumes and vacations as the ledger records them, in its
    order: act, time and details (JSON), as :func:`lines_of` takes them."""
    return tx.all(
        "SELECT act, time, details FROM ledger WHERE game_id = :game AND act IN (:pause, :resume, :vacation)"
        " ORDER BY seq",
        {"game": game_id, "pause": "pause", "resume": "resume", "vacation": "vacation"},
    )


def _rows(tx: Tx, game_id: str) -> list[tuple[str, str, dict]]:
    return _parsed(ledger_rows(tx, game_id))


def _parsed(rows: Sequence[Sequence[Any]]) -> list[tuple[str, str, dict]]:
    return [(act, time, json.loads(details)) for act, time, details in rows]


def pauses(tx: Tx, game_id: str) -> list[Pause]:
    return _pauses(_rows(tx, game_id))


def _pauses(rows: list[tuple[str, str, dict]]) -> list[Pause]:
    out: list[Pause] = []
    for act, time, details in rows:
        if act == "pause":
            until = details.get("until")
            out.append(Pause(_time(time), _time(until) if until else None, None))
        elif act == "resume" and out and out[-1].resumed is None:
            out[-1] = Pause(out[-1].start, out[-1].until, _time(time))
    return out


def vacations(tx: Tx, game_id: str) -> list[Vacation]:
    return _vacations(_rows(tx, game_id))


def _vacations(rows: list[tuple[str, str, dict]]) -> list[Vacation]:
    return [
        Vacation(details["side"], int(details["days"]), int(details["k"]), _time(time))
        for act, time, details in rows
        if act == "vacation"
    ]


def paused_at(all_pauses: list[Pause], now: datetime) -> Pause | None:
    return next((p for p in all_pauses if p.holds(now)), None)


def shifted(start: datetime, seconds: int, all_pauses: list[Pause]) -> datetime | None:
    """The moment ``seconds`` of unpaused time after ``start`` (None: a pause that
    is still open comes first)."""
    moment = start + timedelta(seconds=seconds)
    for pause in sorted(all_pauses, key=lambda p: p.start):
        end = pause.end
        if end is None or end <= start or pause.start >= moment:
            if end is None and pause.start < moment:
                return None
            continue
        moment += end - max(pause.start, start)
    return moment


def absence_lines(tx: Tx, game_id: str, now: datetime) -> list[str]:
    """What a report says of the game's absences now: a pause, and each side on
    vacation (one statement)."""
    return lines_of(ledger_rows(tx, game_id), now)


def lines_of(ledger: Sequence[Sequence[Any]], now: datetime) -> list[str]:
    """:func:`absence_lines` of the game's :func:`ledger_rows` (read by the caller,
    with others: a report's small rows)."""
    lines: list[str] = []
    if not ledger:
        return lines
    rows = _parsed(ledger)
    pause = paused_at(_pauses(rows), now)
    if pause is not None:
        until = f" until {_shown(pause.end)}" if pause.end is not None else " (until the referee resumes it)"
        lines.append(f"paused since {_shown(pause.start)}{until}: no deadline runs")
    for vacation in _vacations(rows):
        if vacation.start <= now < vacation.until:
            lines.append(f"{vacation.side} on vacation until {_shown(vacation.until)}")
    return lines


def _shown(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
