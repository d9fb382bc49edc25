"""The referee as a service: one pass (``pbem tick``) and passes forever (``pbem serve``).

A pass runs these steps in order, each a series of small transactions:

1. **intake**: every new message of each mailbox given (``--maildir``, ``--mbox``,
   ``--imap``) or turn file of ``--dir``, judged, recorded and answered through
   the outbox (pbem/referee/mail_room.py);
2. **clock**: reminders and late notices that are due (pbem/referee/deadlines.py);
3. **resolution**: every game that is ready or whose grace has ended, each
   resolution with its reports queued in the outbox;
4. **delivery**: the outbox's webhook rows over HTTP (pbem/mail/webhook.py), then
   its mail over SMTP (``--smtp``), when given.

A delivery that fails leaves its rows queued and the pass still succeeds.  An
intake source that cannot be read (an unreachable or misbehaving IMAP server, a
refused login, a connection that drops part-way) is that pass's failure: it is
logged, the messages read before it are judged, and the pass goes on with the
other sources, the clock, resolution and delivery.  A message the IMAP server
refuses to give is left for the next pass (pbem/referee/mail_room.py), and is
not a failure.  ``stop`` is asked between messages, games and deliveries:
``pbem serve`` finishes the current one on SIGTERM or SIGINT and exits.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NamedTuple

from pbem import store
from pbem.mail import outbox
from pbem.referee import standing

if TYPE_CHECKING:
    from pbem.referee import resolve as resolving
    from pbem.store.database import Database

Log = Callable[[str], None]


class PassError(RuntimeError):
    """``pbem serve``'s first pass found the configuration wrong (a source that
    cannot be read, a login refused): the service does not start."""


class Failure(NamedTuple):
    """One step of a pass that failed, logged; ``configuration``: the referee's
    settings are wrong (a refused login, no such mailbox), not the network.  (A named
    tuple: a frozen dataclass cost about 4 M instructions at every tick's import.)"""

    text: str
    configuration: bool = False


class Options(NamedTuple):
    """What a pass reads and where it delivers (a named tuple: a frozen dataclass cost about
    4 M instructions to make at every tick's import)."""

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


class PassReport:
    """What one pass did: the messages judged, the notices sent, the resolutions made,
    the deliveries (mail, webhooks), and what went wrong.  A plain class, not a
    dataclass: making one at import was about 3 M instructions of every tick."""

    def __init__(self) -> None:
        self.messages = 0
        self.notices = 0
        self.resolutions: list[resolving.ProcessOutcome] = []
        self.delivery: outbox.Delivery | None = None
        self.posted: outbox.Delivery | None = None  # webhooks
        self.problems: list[str] = []
        """Lines logged about mail left for a later pass (not failures)."""
        self.failures: list[Failure] = []


def _never() -> bool:
    return False


def intake(
    engine: Database,
    options: Options,
    log: Log,
    stop: Callable[[], bool] = _never,
    report: PassReport | None = None,
) -> int:
    """The intake step: each source in turn; one that fails is logged (and noted
    in ``report.failures``) and the others are still read."""
    if options.directory is None and options.maildir is None and options.mbox is None and options.imap is None:
        return 0  # nothing to read: none of the mail modules is imported
    from pbem.mail.imap import ImapError
    from pbem.mail.readers import IngestError
    from pbem.referee import mail_room as room

    report = report if report is not None else PassReport()
    key = options.referee_key
    sources: list[tuple[str, Callable[[], Any]]] = []
    if options.directory is not None:
        sources.append(
            ("--dir", partial(room.run_ingest, engine, directory=options.directory, stop=stop, referee_key=key))
        )
    if options.maildir is not None:
        sources.append(
            (
                "--maildir",
                partial(
                    room.run_ingest, engine, maildir=options.maildir, sender=options.sender, stop=stop, referee_key=key
                ),
            )
        )
    if options.mbox is not None:
        sources.append(
            (
                "--mbox",
                partial(room.run_ingest, engine, mbox=options.mbox, sender=options.sender, stop=stop, referee_key=key),
            )
        )
    if options.imap is not None:
        sources.append(
            ("--imap", partial(room.run_imap_intake, engine, options.imap, options.sender, stop=stop, referee_key=key))
        )
    count = 0
    for _what, read in sources:
        if stop():
            break
        try:
            summary = read()
        except ImapError as exc:
            _fail(report, log, Failure(str(exc), configuration=not exc.transient))
            continue
        except IngestError as exc:
            _fail(report, log, Failure(str(exc), configuration=True))
            continue
        count += _log_summary(summary, log)
        for note in summary.notes:
            report.problems.append(note)
            log(note)
        if summary.failure:
            _fail(report, log, Failure(f"{summary.failure} (the messages read before it were judged)"))
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


def _fail(report: PassReport, log: Log, failure: Failure) -> None:
    report.failures.append(failure)
    log(f"intake failed: {failure.text}")


def resolve(
    engine: Database,
    options: Options,
    now: datetime,
    log: Log,
    stop: Callable[[], bool] = _never,
    games: list[str] | None = None,
) -> list[resolving.ProcessOutcome]:
    """The resolution step over ``games`` (default: every game not over)."""
    if games is None:
        from pbem.referee import resolve as resolving

        games = resolving.pending_games(engine)
    if not games:
        return []
    from pbem.referee import deadlines

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
    from pbem.referee import deadlines

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
        return result
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
    """One pass (module docstring).  Never raises for a mail fault: what failed is
    logged and listed in the report's ``failures``, and the other steps run."""
    report = PassReport()
    for line in unaddressed(engine):
        log(line)
    report.messages = intake(engine, options, log, stop, report)
    if stop():
        return report
    games = standing.standings(engine)  # the games with nothing due cost a row each, not a ruleset
    report.notices = notice_step(engine, now or store.utcnow(), log, games)
    if stop():
        return report
    moment = now or store.utcnow()
    report.resolutions = resolve(engine, options, moment, log, stop, [g.game_id for g in games if not g.quiet(moment)])
    if stop():
        return report
    report.posted = post_hooks(engine, options, now or store.utcnow(), log, stop)
    report.delivery = deliver(engine, options, now or store.utcnow(), log, stop)
    if report.delivery is not None and report.delivery.login_refused:
        failure = Failure(report.delivery.error or "SMTP login refused", configuration=True)
        report.failures.append(failure)
        log(f"delivery failed: {failure.text}")
    return report


def notice_step(engine: Database, now: datetime, log: Log, games: list[standing.Standing]) -> int:
    """The clock step (``deadlines.notice_step``) over the games with a deadline
    that are not quiet at ``now``."""
    due = [g.game_id for g in games if g.clock.deadline is not None and not g.quiet(now)]
    if not due:
        return 0
    from pbem.referee import deadlines

    return deadlines.notice_step(engine, now, log, due)


def post_hooks(
    engine: Database, options: Options, now: datetime, log: Log, stop: Callable[[], bool] = _never
) -> outbox.Delivery:
    """The webhooks' due rows (apart from mail: a hook that is down holds up no message)."""
    from pbem.mail import webhook

    return webhook.deliver(engine, now, options.backoff, log, stop)


def unaddressed(engine: Database) -> list[str]:
    """One line for each side of a game still going that has no address: its
    reports are written (``pbem report``, ``pbem site``) but never mailed."""
    from pbem.store.transaction import transaction

    with transaction(engine, write=False) as tx:
        rows = tx.all(
            "SELECT p.game_id, p.side FROM player p JOIN game g ON g.id = p.game_id"
            " WHERE g.over = :over AND (p.email IS NULL OR p.email = '') ORDER BY p.game_id, p.side",
            {"over": False},
        )
    return [f"{game}: {side} has no address: its reports are kept, not mailed" for game, side in rows]


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
    A pass that fails is logged and the next one tries again, except the first
    when the failure is the configuration's (a refused login, a missing Maildir
    or mailbox): that stops the service at start-up.  A fault of the network or
    the mail server (dropped, stalled, a malformed answer) never stops it."""
    stopper = _Stopper()
    previous = {sig: signal.signal(sig, stopper.handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    ran = 0
    try:
        log(f"serving: a pass every {every:g}s; stop with SIGTERM or SIGINT")
        while not stopper():
            started = time.monotonic()
            report = tick(engine, options, log, stopper)
            configuration = [f.text for f in report.failures if f.configuration]
            if ran == 0 and configuration:
                raise PassError("; ".join(configuration))
            if report.failures:
                log(f"pass failed: {'; '.join(f.text for f in report.failures)}; trying again in {every:g}s")
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
