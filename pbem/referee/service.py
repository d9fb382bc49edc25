"""The referee as a service: one pass (``pbem tick``) and passes forever (``pbem serve``).

A pass runs these steps in order, each a series of small transactions:

1. **intake**: every new message of each mailbox given (``--maildir``, ``--mbox``,
   ``--imap``) or turn file of ``--dir``, judged, recorded and answered through
   the outbox (pbem/referee/mail_room.py);
2. **clock**: reminders and late notices that are due (pbem/referee/deadlines.py);
3. **resolution**: every game that is ready or whose grace has ended, each
   resolution with its reports queued in the outbox;
4. **delivery**: the outbox's due rows over SMTP (``--smtp``), when given.

A delivery that fails leaves its rows queued and the pass still succeeds; an
intake source that cannot be read (an unreachable IMAP server, a refused login)
stops the pass before anything else is done.  ``stop`` is asked between
messages, games and deliveries: ``pbem serve`` finishes the current one on
SIGTERM or SIGINT and exits.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from pbem import store
from pbem.mail import outbox
from pbem.referee import deadlines
from pbem.referee import resolve as resolving

if TYPE_CHECKING:
    from pbem.store.database import Database

Log = Callable[[str], None]


class PassError(RuntimeError):
    """A pass could not run (its intake source cannot be read, the SMTP login was refused)."""


@dataclass(frozen=True)
class Options:
    directory: Path | None = None
    maildir: Path | None = None
    mbox: Path | None = None
    imap: Any = None  # pbem.mail.imap.ImapSource
    smtp: Any = None  # pbem.mail.smtp.SmtpServer
    sender: str = "referee@pbem.invalid"
    backoff: float = outbox.BACKOFF
    jobs: int = 1
    db: str | None = None  # for --jobs workers, which open the database themselves
    referee_key: Any = None  # pbem.referee.ledger.RefereeKey: signs deadline NMRs and granted vacations
    referee_key_path: str | None = None  # for --jobs workers, which read the key themselves


@dataclass
class PassReport:
    messages: int = 0
    notices: int = 0
    resolutions: list[resolving.ProcessOutcome] = field(default_factory=list)
    delivery: outbox.Delivery | None = None
    problems: list[str] = field(default_factory=list)


def _never() -> bool:
    return False


def intake(engine: Database, options: Options, log: Log, stop: Callable[[], bool] = _never) -> int:
    from pbem.mail.imap import ImapError
    from pbem.mail.readers import IngestError
    from pbem.referee import mail_room as room

    count = 0
    key = options.referee_key
    try:
        if options.directory is not None:
            count += _log_summary(room.run_ingest(engine, directory=options.directory, stop=stop, referee_key=key), log)
        if options.maildir is not None:
            count += _log_summary(
                room.run_ingest(engine, maildir=options.maildir, sender=options.sender, stop=stop, referee_key=key), log
            )
        if options.mbox is not None:
            count += _log_summary(
                room.run_ingest(engine, mbox=options.mbox, sender=options.sender, stop=stop, referee_key=key), log
            )
        if options.imap is not None:
            count += _log_summary(
                room.run_imap_intake(engine, options.imap, options.sender, stop=stop, referee_key=key), log
            )
    except (ImapError, IngestError) as exc:
        raise PassError(str(exc)) from None
    return count


def _log_summary(summary: Any, log: Log) -> int:
    done = 0
    for o in summary.outcomes:
        if o.verdict.value == "skipped":
            continue
        done += 1
        first = o.lines[0].splitlines()[0] if o.lines else ""
        answered = f" (answered {o.reply['To']})" if o.reply is not None else " (not answered)"
        log(
            f"{o.verdict.value}: {o.source}: {first}{answered if o.source and not o.source.startswith('file ') else ''}"
        )
    return done


def resolve(
    engine: Database, options: Options, now: datetime, log: Log, stop: Callable[[], bool] = _never
) -> list[resolving.ProcessOutcome]:
    games = resolving.pending_games(engine)
    if options.jobs <= 1 or len(games) < 2:
        outcomes = []
        for game_id in games:
            if stop():
                break
            outcomes.extend(deadlines.resolution_step(engine, now, log, [game_id], options.referee_key))
        return outcomes
    return _resolve_in_workers(options, games, now, log)


_worker_database: Database | None = None
_worker_key: Any = None


def _worker_init(db: str | None, key_path: str | None = None) -> None:
    global _worker_database, _worker_key
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_database = store.open_database(db, checked=True)  # the parent's pass opened it: its schema is checked
    if key_path is not None:
        from pbem.referee.ledger import RefereeKey

        _worker_key = RefereeKey.load(key_path)


def _worker_resolve(game_id: str, now: datetime) -> tuple[resolving.ProcessOutcome | None, list[str]]:
    assert _worker_database is not None
    lines: list[str] = []
    outcomes = deadlines.resolution_step(_worker_database, now, lines.append, [game_id], _worker_key)
    return (outcomes[0] if outcomes else None), lines


def _resolve_in_workers(options: Options, games: list[str], now: datetime, log: Log) -> list[resolving.ProcessOutcome]:
    """The resolution step with ``options.jobs`` worker processes, one game at a
    time each (every resolution is its own transaction; two workers never make
    the same one, see ``pipeline.resolve_next``)."""
    from concurrent.futures import ProcessPoolExecutor

    outcomes = []
    with ProcessPoolExecutor(
        max_workers=options.jobs, initializer=_worker_init, initargs=(options.db, options.referee_key_path)
    ) as pool:
        for outcome, lines in pool.map(_worker_resolve, games, [now] * len(games)):
            for line in lines:
                log(line)
            if outcome is not None:
                outcomes.append(outcome)
    return outcomes


def deliver(
    engine: Database, options: Options, now: datetime, log: Log, stop: Callable[[], bool] = _never
) -> outbox.Delivery | None:
    if options.smtp is None:
        return None
    result = outbox.deliver(engine, options.smtp, options.sender, now, options.backoff, log, stop)
    if result.login_refused:
        raise PassError(result.error or "SMTP login refused")
    if result.error:
        log(f"delivery: {result.error}; {len(result.deferred)} message(s) stay queued")
    return result


def tick(
    engine: Database,
    options: Options,
    log: Log = lambda _line: None,
    stop: Callable[[], bool] = _never,
    now: datetime | None = None,
) -> PassReport:
    """One pass (module docstring).  Raises :class:`PassError` when the intake
    source cannot be read (nothing else is done then) or the SMTP login is refused."""
    report = PassReport()
    report.messages = intake(engine, options, log, stop)
    if stop():
        return report
    report.notices = deadlines.notice_step(engine, now or store.utcnow(), log)
    if stop():
        return report
    report.resolutions = resolve(engine, options, now or store.utcnow(), log, stop)
    if stop():
        return report
    report.delivery = deliver(engine, options, now or store.utcnow(), log, stop)
    return report


class _Stopper:
    def __init__(self) -> None:
        self.stopping = False
        self.signal_name = ""

    def __call__(self) -> bool:
        return self.stopping

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        self.stopping = True
        self.signal_name = signal.Signals(signum).name


def serve(engine: Database, options: Options, every: float, log: Log, passes: int | None = None) -> int:
    """Passes every ``every`` seconds until SIGTERM or SIGINT (or ``passes``
    passes); the current step finishes first.  Returns how many passes ran.
    A pass that fails is logged and the next one tries again, except the first:
    a source or login that does not work at start-up is a configuration error."""
    stopper = _Stopper()
    previous = {sig: signal.signal(sig, stopper.handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    ran = 0
    try:
        log(f"serving: a pass every {every:g}s; stop with SIGTERM or SIGINT")
        while not stopper():
            started = time.monotonic()
            try:
                tick(engine, options, log, stopper)
            except PassError as exc:
                if ran == 0:
                    raise
                log(f"pass failed: {exc}; trying again in {every:g}s")
            ran += 1
            if passes is not None and ran >= passes:
                break
            while not stopper() and time.monotonic() - started < every:
                time.sleep(min(0.2, every))
        if stopper.signal_name:
            log(f"{stopper.signal_name}: stopped after {ran} pass(es)")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return ran
