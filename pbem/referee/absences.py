"""Absences: ``pbem pause``, ``pbem resume`` and vacations (``pbem vacation``, or a
player's own signed request by mail), each an act of the referee's ledger, within
the limits the game was created with (``--max-pause``, ``--vacation-days``).

While a game is paused no deadline, reminder or late notice fires and nothing is
resolved for want of orders; orders are still accepted, and a turn whose files
are all in is resolved (a pause holds the clock, not the players).  The deadline
counts only unpaused time (pbem/store/absences.py).  A vacation adds its days to
the deadline of the resolution awaited when it is granted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem import store
from pbem.referee import ledger
from pbem.referee.deadlines import format_duration
from pbem.referee.verdict import Refused
from pbem.store import absences as stored
from pbem.store.sql import Tx
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine

DAY = 86400


@dataclass(frozen=True)
class Limits:
    """The game's allowances and limits (``pbem new``); None: not set."""

    vacation_days: int | None = None
    civil_disorder: int | None = None
    max_pause: int | None = None  # seconds
    max_extensions: int | None = None

    def to_json(self) -> dict[str, int | None]:
        return {
            "vacation_days": self.vacation_days,
            "civil_disorder": self.civil_disorder,
            "max_pause": self.max_pause,
            "max_extensions": self.max_extensions,
        }


def read_limits(tx: Tx, game_id: str) -> Limits:
    row = tx.one(
        "SELECT g.vacation_days, a.civil_disorder, g.max_pause, g.max_extensions"
        " FROM game g LEFT JOIN game_allowance a ON a.game_id = g.id WHERE g.id = :game",
        {"game": game_id},
    )
    if row is None:
        raise store.unknown_game(game_id, store.known_game_ids(tx))
    return Limits(*row)


def _live_game(tx: Tx, game_id: str, act: str) -> store.GameState:
    game = store.known_game(tx, game_id)
    if game.over:
        raise Refused([f"{act} refused: game {game_id} is over"])
    return game


def pause(
    engine: Engine, game_id: str, until: datetime | None, key: ledger.RefereeKey | None, now: datetime
) -> ledger.Entry:
    """Pause the game's clock from ``now`` (until ``until``, or until resumed).
    With ``--max-pause``, a pause without ``until`` lasts what is left of it."""
    with transaction(engine) as tx:
        game = _live_game(tx, game_id, "pause")
        ledger.check_key(tx, game_id, key, "pause")
        all_pauses = stored.pauses(tx, game_id)
        current = stored.paused_at(all_pauses, now)
        if current is not None:
            raise Refused([f"pause refused: game {game_id} is already paused since {ledger.iso(current.start)}"])
        if until is not None and until <= now:
            raise Refused([f"pause refused: --until {ledger.iso(until)} is not after now ({ledger.iso(now)})"])
        limit = read_limits(tx, game_id).max_pause
        if limit is not None:
            used = sum(p.used(now) for p in all_pauses)
            left = limit - used
            wanted = int((until - now).total_seconds()) if until is not None else left
            if left <= 0 or wanted > left:
                raise Refused(
                    [
                        f"pause refused: the game allows at most {format_duration(limit)} of pause in all"
                        f" (--max-pause), {format_duration(used)} used"
                        + (f"; this one would take {format_duration(wanted)}" if until is not None and left > 0 else "")
                    ]
                )
            until = until or now + timedelta(seconds=left)
        shown = f"until {ledger.iso(until)}" if until else "until the referee resumes it"
        return ledger.record(
            tx,
            game_id,
            "pause",
            {"k": game.next_k, "until": ledger.iso(until) if until else None},
            key,
            summary=f"the game is paused {shown}: no deadline runs meanwhile",
            now=now,
        )


def resume(engine: Engine, game_id: str, key: ledger.RefereeKey | None, now: datetime) -> ledger.Entry:
    """End the pause that holds now; every deadline moves on by its length."""
    with transaction(engine) as tx:
        game = _live_game(tx, game_id, "resume")
        ledger.check_key(tx, game_id, key, "resume")
        current = stored.paused_at(stored.pauses(tx, game_id), now)
        if current is None:
            raise Refused([f"resume refused: game {game_id} is not paused"])
        length = int((now - current.start).total_seconds())
        return ledger.record(
            tx,
            game_id,
            "resume",
            {"k": game.next_k, "paused_since": ledger.iso(current.start), "paused_for": length},
            key,
            summary=f"the game is resumed after {format_duration(length)} of pause; the deadline moves on by as much",
            now=now,
        )


def vacation(
    engine: Engine,
    game_id: str,
    side: str,
    days: int,
    key: ledger.RefereeKey | None,
    now: datetime,
    request: str | None = None,
) -> ledger.Entry:
    """Grant ``side`` a vacation of ``days``: the current deadline moves by as much.
    ``request``: the SHA-256 of the player's signed request (granted once)."""
    with transaction(engine) as tx:
        return grant_vacation(tx, game_id, side, days, key, now, request)


def grant_vacation(
    tx: Tx,
    game_id: str,
    side: str,
    days: int,
    key: ledger.RefereeKey | None,
    now: datetime,
    request: str | None = None,
) -> ledger.Entry:
    """:func:`vacation` in the caller's transaction."""
    game = _live_game(tx, game_id, "vacation")
    ledger.check_key(tx, game_id, key, "vacation")
    sides = [r[0] for r in tx.all("SELECT side FROM player WHERE game_id = :game ORDER BY side", {"game": game_id})]
    if side not in sides:
        raise Refused([f"vacation refused: no side {side!r} in game {game_id} (sides: {', '.join(sides)})"])
    if days < 1:
        raise Refused([f"vacation refused: {days} days; a vacation is 1 day or more"])
    taken = stored.vacations(tx, game_id)
    if request is not None and any(
        v for v in ledger.entries(tx, game_id, ["vacation"]) if v.details.get("request") == request
    ):
        raise Refused(["vacation refused: this signed request was granted already (a signed request counts once)"])
    allowance = read_limits(tx, game_id).vacation_days or 0
    used = sum(v.days for v in taken if v.side == side)
    if used + days > allowance:
        given = f"at most {allowance} days of vacation per player" if allowance else "no vacation"
        raise Refused(
            [f"vacation refused: the game allows {given} (--vacation-days), {side} has used {used}; asked {days}"]
        )
    until = now + timedelta(days=days)
    return ledger.record(
        tx,
        game_id,
        "vacation",
        {"side": side, "days": days, "k": game.next_k, "until": ledger.iso(until), "request": request},
        key,
        summary=f"{side} on vacation until {ledger.iso(until)} ({days} of {allowance} days);"
        f" the deadline moves by {days}d",
        now=now,
    )
