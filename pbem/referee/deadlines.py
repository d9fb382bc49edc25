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

import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pbem import store
from pbem.referee import disorder, ledger, notices, resolve, verdict
from pbem.referee.standing import moment
from pbem.rules import find_ruleset
from pbem.store import absences
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
            f"the reminder ({format_duration(clock.remind)} before the deadline) must come after the turn starts "
            f"(deadline {format_duration(clock.deadline)})"
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


def set_clock(
    engine: Engine,
    game_id: str,
    settings: Mapping[str, str],
    key: ledger.RefereeKey | None = None,
    now: datetime | None = None,
) -> Clock:
    """``pbem game set GAME deadline=48h grace=12h remind=6h wait=yes civil-disorder=3``
    (``deadline=none`` removes the deadline, and with it grace, remind, wait;
    ``civil-disorder=none`` puts no side in civil disorder from now on).  A change
    that puts the end of the current turn's grace later is a deadline extension,
    counted against ``--max-extensions``; a change of the clock is a ``deadline``
    act of the ledger, one of civil disorder a ``civil-disorder`` act."""
    problems = []
    for key_name in settings:
        if key_name not in (*CLOCK_KEYS, disorder.SETTING):
            problems.append(f"unknown setting {key_name!r} (settings: {', '.join((*CLOCK_KEYS, disorder.SETTING))})")
    civil = settings.get(disorder.SETTING)
    try:
        limit = disorder.parse_threshold(civil) if civil is not None else None
    except ValueError as exc:
        problems.append(str(exc))
    settings = {name: value for name, value in settings.items() if name != disorder.SETTING}
    if problems:
        raise verdict.Refused(problems)
    moment = now or store.utcnow()
    with transaction(engine) as tx:
        if tx.one("SELECT id FROM game WHERE id = :game", {"game": game_id}) is None:
            raise store.unknown_game(game_id, store.known_game_ids(tx))
        ledger.check_key(tx, game_id, key, "deadline change")
        if civil is not None:
            disorder.set_threshold(tx, game_id, limit)
            said = f"after {limit} missed deadlines in a row" if limit else "never"
            ledger.record(
                tx, game_id, "civil-disorder", {"threshold": limit}, key, summary=f"civil disorder: {said}", now=moment
            )
        clock = read_clock(tx, game_id)
        if not settings:
            return clock
        new = _changed_clock(clock, settings)
        extension = _count_extension(tx, game_id, new)
        params = {"game": game_id, "deadline": new.deadline, "grace": new.grace, "remind": new.remind, "wait": new.wait}
        if (
            tx.run(
                "UPDATE game_clock SET deadline = :deadline, grace = :grace, remind = :remind, wait = :wait "
                "WHERE game_id = :game",
                params,
            )
            == 0
        ):
            tx.run(
                "INSERT INTO game_clock (game_id, deadline, grace, remind, wait) VALUES (:game, :deadline, "
                ":grace, :remind, :wait)",
                params,
            )
        details = {"before": _clock_json(clock), "after": _clock_json(new), "extension": extension}
        summary = f"the clock is now: {new.describe()} (was: {clock.describe()})" + (
            "; this extends the current deadline" if extension else ""
        )
        ledger.record(tx, game_id, "deadline", details, key, summary=summary, now=moment)
        return new


def _clock_json(clock: Clock) -> dict[str, int | bool | None]:
    return {"deadline": clock.deadline, "grace": clock.grace, "remind": clock.remind, "wait": clock.wait}


def _changed_clock(clock: Clock, settings: Mapping[str, str]) -> Clock:
    """The clock with ``settings`` applied and checked."""
    problems = []
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
    return check_clock(
        Clock(fields["deadline"], int(fields["grace"] or 0), int(fields["remind"] or 0), bool(fields["wait"]))
    )


def _count_extension(tx: Tx, game_id: str, new: Clock) -> bool:
    """Whether the change puts the current turn's end of grace later (or removes
    it); refused past ``--max-extensions``."""
    old = timing(tx, game_id)
    if old is None or old.clock.deadline is None:
        return False
    before = old.grace_until
    after = dataclasses.replace(old, clock=new)
    later = after.grace_until
    if before is None or (later is not None and later <= before):
        return False
    row = tx.one("SELECT max_extensions FROM game WHERE id = :game", {"game": game_id})
    limit = row[0] if row else None
    used = sum(1 for e in ledger.entries(tx, game_id, ["deadline"]) if e.details.get("extension"))
    if limit is not None and used >= limit:
        raise verdict.Refused(
            [
                f"deadline change refused: the game allows at most {limit} deadline extension(s)"
                f" (--max-extensions), {used} used"
            ]
        )
    return True


# ------------------------------------------------------------------ timing


@dataclass(frozen=True)
class Timing:
    """Where a game stands against its clock, for the resolution awaited next.
    The deadline counts unpaused time only, and a vacation granted for this
    resolution moves it by its days (pbem/store/absences.py)."""

    game_id: str
    k: int
    label: str
    clock: Clock
    start: datetime  # last activity
    awaiting: tuple[str, ...]  # due sides whose file has not arrived
    current_k: int = 0  # the latest active resolution: its report carries the position file
    pauses: tuple[absences.Pause, ...] = ()
    extra: int = 0  # seconds of vacation granted for this resolution

    def _at(self, offset: int) -> datetime | None:
        return moment(self.clock, self.start, self.extra, self.pauses, offset)

    @property
    def deadline(self) -> datetime | None:
        """None: no deadline, or a pause with no end holds it."""
        return self._at(0) if self.clock.deadline is not None else None

    @property
    def remind_at(self) -> datetime | None:
        return self._at(-self.clock.remind) if self.clock.deadline is not None and self.clock.remind else None

    @property
    def grace_until(self) -> datetime | None:
        return self._at(self.clock.grace) if self.clock.deadline is not None else None

    def paused(self, now: datetime) -> bool:
        return absences.paused_at(list(self.pauses), now) is not None


def timing(tx: Tx, game_id: str) -> Timing | None:
    """None when the game is over or unknown."""
    game = store.game_state(tx, game_id)
    if game is None or game.over:
        return None
    ruleset = find_ruleset(game.rules)
    queued = {f.side for f in store.queued_files(tx, game_id, game.next_k)}
    awaiting = tuple(side for side in ruleset.due(game.position) if side not in queued)
    vacations = absences.vacations(tx, game_id)
    return Timing(
        game_id,
        game.next_k,
        ruleset.turn_label(game.position),
        read_clock(tx, game_id),
        last_activity(tx, game_id),
        awaiting,
        game.current_k,
        tuple(absences.pauses(tx, game_id)),
        sum(v.days for v in vacations if v.k == game.next_k) * 86400,
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
            if t is None or t.deadline is None or not t.awaiting or t.paused(now):
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
                        f"{game_id}: late notice, {', '.join(t.awaiting)} missed the deadline "
                        f"{_when(t.deadline)} (grace until {_when(t.grace_until)})"
                    )
    return made


def clocked_games(engine: Engine) -> list[str]:
    """The games not over that have a deadline (the only ones a notice can be due for)."""
    with transaction(engine, write=False) as tx:
        rows = tx.all(
            "SELECT g.id FROM game g JOIN game_clock c ON c.game_id = g.id WHERE g.over = :over AND c.deadline "
            "IS NOT NULL ORDER BY g.id",
            {"over": False},
        )
    return [r[0] for r in rows]


def _record_late(
    t: Timing, now: datetime, key: ledger.RefereeKey | None
) -> Callable[[Tx, resolve.ProcessOutcome], None]:
    def record(tx: Tx, made: resolve.ProcessOutcome) -> None:
        if made.resolved != t.k or not made.nmr or t.deadline is None or t.grace_until is None:
            return
        ledger.record(
            tx,
            t.game_id,
            "nmr",
            {"k": t.k, "sides": list(made.nmr), "why": "deadline", "grace_until": _iso(t.grace_until)},
            key,
            summary=f"resolution {t.k} resolved with no moves from {', '.join(made.nmr)}"
            " (the deadline and grace passed)",
            now=now,
        )
        tx.run(
            "INSERT INTO late_turn (game_id, k, deadline, grace_until, resolved_at, sides) VALUES (:game, :k, "
            ":deadline, :grace, :at, :sides)",
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
    engine: Engine,
    now: datetime,
    log: Log = lambda _line: None,
    games: list[str] | None = None,
    key: ledger.RefereeKey | None = None,
) -> list[resolve.ProcessOutcome]:
    """Resolve every game that is ready (every due file in, and not held by
    ``wait`` before its deadline) or whose grace has ended (NMR)."""
    outcomes = []
    for game_id in games if games is not None else resolve.pending_games(engine):
        outcome = resolve_if_due(engine, game_id, now, key)
        if outcome is None:
            continue
        outcomes.append(outcome)
        if outcome.resolved is not None:
            nmr = f", no moves received from {', '.join(outcome.nmr)} (deadline passed)" if outcome.nmr else ""
            if outcome.bot:
                nmr += f", civil disorder: the {disorder.BOT} bot wrote the orders of {', '.join(outcome.bot)}"
            log(
                f"{game_id}: resolution {outcome.resolved} - "
                f"{outcome.label}{nmr}{', game over' if outcome.over else ''}"
            )
        for problem in outcome.problems:
            log(f"{problem}")
    return outcomes


def resolve_if_due(
    engine: Engine, game_id: str, now: datetime, key: ledger.RefereeKey | None = None
) -> resolve.ProcessOutcome | None:
    """One game's resolution if it is due now; None when it waits.  A paused
    game is resolved only when every file is in (and ``wait`` does not hold it);
    its deadline waits for the pause to end."""
    with transaction(engine, write=False) as tx:
        t = timing(tx, game_id)
    if t is None:
        return None
    paused = t.paused(now)
    if paused and t.clock.wait:
        return None
    if t.deadline is None or paused or (now < t.deadline and not t.clock.wait):
        if t.awaiting:
            return None
        return resolve.process(engine, [game_id])[0]
    if now < t.deadline:  # wait: held until the deadline
        return None
    if t.awaiting and t.grace_until is not None and now < t.grace_until:
        return None
    return resolve.process(engine, [game_id], force_nmr=bool(t.awaiting), within=_record_late(t, now, key))[0]


def _iso(value: datetime | str) -> str:
    when = _aware(value)
    assert when is not None
    return when.isoformat().replace("+00:00", "Z")
