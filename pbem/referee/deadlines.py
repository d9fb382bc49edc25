"""Deadlines, reminders, late notices and NMR: the judges' clock.

A game's clock (``pbem new --deadline DUR [--grace DUR] [--remind DUR] [--wait]``,
changed by ``pbem game set GAME deadline=DUR ...``) counts from the game's last
activity: its creation, its latest resolution, or its latest rollback.  For the
resolution awaited next:

- ``remind`` before the deadline, each side whose file has not arrived is sent a
  reminder (once);
- at the deadline with a side still missing, every side is sent a late notice
  (once);
- at the end of ``grace`` after the deadline, the turn is resolved with no orders
  from the missing sides (NMR); the archive records the deadline and the time
  (``late_turn``; docs/formats.md).

A game is resolved as soon as every side due has sent its file, unless ``wait``
holds it until the deadline (the judges' SET WAIT).  A game without a deadline
waits forever.  A duration is a whole number and a unit: ``90s``, ``45m``,
``72h``, ``3d``.

>>> parse_duration("72h")
259200
>>> format_duration(259200)
'3d'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem import store
from pbem.referee import notices, resolve, verdict
from pbem.rules import find_ruleset
from pbem.store.clock import Clock, last_activity, read_clock
from pbem.store.clock import aware as _aware
from pbem.store.sql import Tx
from pbem.store.transaction import transaction
from pbem.turnfiles.deadline import UNITS, format_duration

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine

_DURATION = re.compile(r"(\d{1,9})([smhd])")
_UNITS = UNITS
MAX_DURATION = 366 * 86400
CLOCK_KEYS = ("deadline", "grace", "remind", "wait")


def parse_duration(text: str) -> int:
    """Seconds in ``90s``, ``45m``, ``72h`` or ``3d``; :class:`ValueError` otherwise."""
    m = _DURATION.fullmatch(text.strip())
    if not m:
        raise ValueError(f"bad duration {text!r}: write a whole number and a unit, like 90s, 45m, 72h or 3d")
    seconds = int(m.group(1)) * _UNITS[m.group(2)]
    if seconds > MAX_DURATION:
        raise ValueError(f"duration {text!r} is over a year")
    return seconds


def check_clock(clock: Clock) -> Clock:
    """:class:`verdict.Refused` naming each setting that makes no sense."""
    problems = []
    if clock.deadline is None and (clock.grace or clock.remind or clock.wait):
        problems.append("grace, remind and wait need a deadline (give --deadline DUR)")
    if clock.deadline is not None and clock.deadline <= 0:
        problems.append("the deadline must be longer than 0s")
    if clock.deadline is not None and clock.remind >= clock.deadline:
        problems.append(
            f"the reminder ({format_duration(clock.remind)} before the deadline) must come after the turn starts (deadline {format_duration(clock.deadline)})"
        )
    if problems:
        raise verdict.Refused(problems)
    return clock


def clock_from_options(deadline: str | None, grace: str | None, remind: str | None, wait: bool) -> Clock | None:
    """The clock ``pbem new`` was given, or None (no deadline options)."""
    if deadline is None and grace is None and remind is None and not wait:
        return None
    problems = []
    values: dict[str, int | None] = {}
    for name, text in (("deadline", deadline), ("grace", grace), ("remind", remind)):
        try:
            values[name] = parse_duration(text) if text is not None else None
        except ValueError as exc:
            problems.append(f"--{name}: {exc}")
    if problems:
        raise verdict.Refused(problems)
    return check_clock(Clock(values["deadline"], values["grace"] or 0, values["remind"] or 0, wait))


def set_clock(engine: Engine, game_id: str, settings: Mapping[str, str]) -> Clock:
    """``pbem game set GAME deadline=48h grace=12h remind=6h wait=yes``
    (``deadline=none`` removes the deadline, and with it grace, remind, wait)."""
    problems = []
    for key in settings:
        if key not in CLOCK_KEYS:
            problems.append(f"unknown setting {key!r} (settings: {', '.join(CLOCK_KEYS)})")
    if problems:
        raise verdict.Refused(problems)
    with transaction(engine) as tx:
        if tx.one("SELECT id FROM game WHERE id = :game", {"game": game_id}) is None:
            raise store.unknown_game(game_id, store.known_game_ids(tx))
        clock = read_clock(tx, game_id)
        fields = {"deadline": clock.deadline, "grace": clock.grace, "remind": clock.remind, "wait": clock.wait}
        for key, value in settings.items():
            try:
                if key == "wait":
                    if value.lower() not in ("yes", "no", "true", "false", "on", "off", "1", "0"):
                        raise ValueError(f"wait is yes or no, not {value!r}")
                    fields["wait"] = value.lower() in ("yes", "true", "on", "1")
                elif value.lower() in ("none", "off", "no", "0"):
                    fields[key] = None if key == "deadline" else 0
                else:
                    fields[key] = parse_duration(value)
            except ValueError as exc:
                problems.append(f"{key}: {exc}")
        if problems:
            raise verdict.Refused(problems)
        if fields["deadline"] is None and "deadline" in settings:
            fields.update(grace=0, remind=0, wait=False)
        new = check_clock(
            Clock(fields["deadline"], int(fields["grace"] or 0), int(fields["remind"] or 0), bool(fields["wait"]))
        )  # type: ignore[arg-type]
        params = {"game": game_id, "deadline": new.deadline, "grace": new.grace, "remind": new.remind, "wait": new.wait}
        if (
            tx.run(
                "UPDATE game_clock SET deadline = :deadline, grace = :grace, remind = :remind, wait = :wait WHERE game_id = :game",
                params,
            )
            == 0
        ):
            tx.run(
                "INSERT INTO game_clock (game_id, deadline, grace, remind, wait) VALUES (:game, :deadline, :grace, :remind, :wait)",
                params,
            )
        return new


# ------------------------------------------------------------------ timing


@dataclass(frozen=True)
class Timing:
    """Where a game stands against its clock, for the resolution awaited next."""

    game_id: str
    k: int
    label: str
    clock: Clock
    start: datetime  # last activity
    awaiting: tuple[str, ...]  # due sides whose file has not arrived
    current_k: int = 0  # the latest active resolution: its report carries the position file

    @property
    def deadline(self) -> datetime | None:
        return self.start + timedelta(seconds=self.clock.deadline) if self.clock.deadline is not None else None

    @property
    def remind_at(self) -> datetime | None:
        return self.deadline - timedelta(seconds=self.clock.remind) if self.deadline and self.clock.remind else None

    @property
    def grace_until(self) -> datetime | None:
        return self.deadline + timedelta(seconds=self.clock.grace) if self.deadline else None


def timing(tx: Tx, game_id: str) -> Timing | None:
    """None when the game is over or unknown."""
    game = store.game_state(tx, game_id)
    if game is None or game.over:
        return None
    ruleset = find_ruleset(game.rules)
    queued = {f.side for f in store.queued_files(tx, game_id, game.next_k)}
    awaiting = tuple(side for side in ruleset.due(game.position) if side not in queued)
    return Timing(
        game_id,
        game.next_k,
        ruleset.turn_label(game.position),
        read_clock(tx, game_id),
        last_activity(tx, game_id),
        awaiting,
        game.current_k,
    )


# ------------------------------------------------------------------ steps


Log = Callable[[str], None]


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def notice_step(engine: Engine, now: datetime, log: Log = lambda _line: None, games: list[str] | None = None) -> int:
    """Reminders and late notices that are due, each queued once; returns how many."""
    made = 0
    for game_id in games if games is not None else clocked_games(engine):
        with transaction(engine) as tx:
            t = timing(tx, game_id)
            if t is None or t.deadline is None or not t.awaiting:
                continue
            if t.remind_at is not None and t.remind_at <= now < t.deadline:
                for side in t.awaiting:
                    if notices.queue_reminder(tx, game_id, t.k, side, t.label, t.deadline, t.current_k):
                        made += 1
                        log(f"{game_id}: reminder to {side} (resolution {t.k}, deadline {_when(t.deadline)})")
            if now >= t.deadline and t.grace_until is not None:
                if notices.queue_late_notice(
                    tx, game_id, t.k, t.awaiting, t.label, t.deadline, t.grace_until, t.current_k
                ):
                    made += 1
                    log(
                        f"{game_id}: late notice, {', '.join(t.awaiting)} missed the deadline {_when(t.deadline)} (grace until {_when(t.grace_until)})"
                    )
    return made


def clocked_games(engine: Engine) -> list[str]:
    """The games not over that have a deadline (the only ones a notice can be due for)."""
    with transaction(engine, write=False) as tx:
        rows = tx.all(
            "SELECT g.id FROM game g JOIN game_clock c ON c.game_id = g.id WHERE g.over = :over AND c.deadline IS NOT NULL ORDER BY g.id",
            {"over": False},
        )
    return [r[0] for r in rows]


def _record_late(t: Timing, now: datetime) -> Callable[[Tx, resolve.ProcessOutcome], None]:
    def record(tx: Tx, made: resolve.ProcessOutcome) -> None:
        if made.resolved != t.k or not made.nmr or t.deadline is None or t.grace_until is None:
            return
        tx.run(
            "INSERT INTO late_turn (game_id, k, deadline, grace_until, resolved_at, sides) VALUES (:game, :k, :deadline, :grace, :at, :sides)",
            {
                "game": t.game_id,
                "k": t.k,
                "deadline": t.deadline,
                "grace": t.grace_until,
                "at": now.replace(microsecond=0),
                "sides": json.dumps(list(made.nmr)),
            },
        )

    return record


def resolution_step(
    engine: Engine, now: datetime, log: Log = lambda _line: None, games: list[str] | None = None
) -> list[resolve.ProcessOutcome]:
    """Resolve every game that is ready (every due file in, and not held by
    ``wait`` before its deadline) or whose grace has ended (NMR)."""
    outcomes = []
    for game_id in games if games is not None else resolve.pending_games(engine):
        outcome = resolve_if_due(engine, game_id, now)
        if outcome is None:
            continue
        outcomes.append(outcome)
        if outcome.resolved is not None:
            nmr = f", no moves received from {', '.join(outcome.nmr)} (deadline passed)" if outcome.nmr else ""
            log(
                f"{game_id}: resolution {outcome.resolved} - {outcome.label}{nmr}{', game over' if outcome.over else ''}"
            )
        for problem in outcome.problems:
            log(f"{problem}")
    return outcomes


def resolve_if_due(engine: Engine, game_id: str, now: datetime) -> resolve.ProcessOutcome | None:
    """One game's resolution if it is due now; None when it waits."""
    with transaction(engine, write=False) as tx:
        t = timing(tx, game_id)
    if t is None:
        return None
    if t.deadline is None or (now < t.deadline and not t.clock.wait):
        if t.awaiting:
            return None
        return resolve.process(engine, [game_id])[0]
    if now < t.deadline:  # wait: held until the deadline
        return None
    if t.awaiting and t.grace_until is not None and now < t.grace_until:
        return None
    return resolve.process(engine, [game_id], force_nmr=bool(t.awaiting), within=_record_late(t, now))[0]


def late_turns(session_or_tx: Tx, game_id: str) -> dict[int, dict[str, str | list[str]]]:
    """The archive's record of each resolution made at the end of grace."""
    rows = session_or_tx.all(
        "SELECT k, deadline, grace_until, resolved_at, sides FROM late_turn WHERE game_id = :game ORDER BY k",
        {"game": game_id},
    )
    out: dict[int, dict[str, str | list[str]]] = {}
    for k, deadline, grace, at, sides in rows:
        out[k] = {
            "deadline": _iso(deadline),
            "grace_until": _iso(grace),
            "resolved_at": _iso(at),
            "sides": json.loads(sides),
        }
    return out


def _iso(value: datetime | str) -> str:
    when = _aware(value)
    assert when is not None
    return when.isoformat().replace("+00:00", "Z")
