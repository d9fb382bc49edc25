"""The durable outbox: every message the referee owes is a row of the store.

A row is written by the same transaction as the decision it reports (a receipt
or refusal with the judgement of the message, a report with the resolution, a
reminder or late notice by the deadline step, a rollback or player notice with
the change), so a crash can never leave a decision without its message, nor a
message about a decision that was not made.

:func:`deliver` sends the rows that are due over SMTP, one at a time, and marks a
row ``sent`` only after the server accepted it.  A row's Message-ID is fixed
when it is written and reused by every attempt, so a message sent twice (a crash
between the server's acceptance and the mark) is one message to any client.

Claims: several deliveries may run at once (two ``pbem tick`` passes from cron
that overlap, ``serve`` beside a manual ``tick``, on SQLite or PostgreSQL).  Before
sending a row a delivery claims it, in its own committed transaction: one
``UPDATE`` that sets ``claimed_by`` (the holder: host, process id and a random
word) and ``claimed_at`` where the row is pending, due, and unclaimed or claimed
longer than :data:`CLAIM_LEASE` ago.  Only the delivery whose update changed the
row sends it; the others pass it by.  Marking the row sent or refused clears the
claim.  A holder that dies between claim and mark leaves a claim that lapses
after the lease, or at once for a delivery on the same host that finds the
holder's process gone (a ``serve`` killed and started again: the host names the
process ids); the row is then sent again, with the same Message-ID.  So each
row goes to the SMTP server at most once however many deliveries overlap, except
after a crash between the server's acceptance and the mark (or a send that took
longer than the lease), when it may go twice with the same Message-ID.

Retries: a refusal that may pass (no connection, a 4xx answer) leaves the row
``pending`` with ``attempts`` + 1 and its next attempt ``backoff * 2**(attempts-1)``
seconds later, at most :data:`BACKOFF_CAP` (1 hour); the default backoff is
:data:`BACKOFF` (60 s).  A permanent refusal of the message (a 5xx answer to it
or to all its recipients) makes it ``failed``; ``pbem outbox retry`` re-arms
failed rows (and makes pending ones due at once).

A reminder or late notice whose moment has passed when it is delivered (its
resolution made, its deadline changed, a reminded side's orders in) is marked
``superseded`` with the reason and never sent: a late mail cannot say what is no
longer true.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from pbem import store
from pbem.mail.holders import ended, holder_id
from pbem.mail.stale import stale_reason
from pbem.store.sql import Tx
from pbem.store.transaction import transaction

if TYPE_CHECKING:  # the email package is imported when a message is built, not at start-up
    from email.message import EmailMessage

    from pbem.store.database import Database

PENDING = "pending"
SENT = "sent"
FAILED = "failed"
SUPERSEDED = "superseded"  # a reminder or late notice whose moment passed before it could be sent
BACKOFF = 60.0
BACKOFF_CAP = 3600.0
MESSAGE_ID_DOMAIN = "pbem.invalid"
CLAIM_LEASE = timedelta(minutes=10)
"""How long a delivery's claim on a row holds (far longer than one SMTP send, whose
connection times out in under a minute); past it the row may be claimed again."""

KINDS = (
    "receipt",
    "refusal",
    "checked",
    "report",
    "game-over",
    "reminder",
    "late",
    "rollback",
    "player",
    "observer",
    "welcome",
    "webhook",
)
WEBHOOK = "webhook"
"""The kind of a row posted over HTTP (pbem/mail/webhook.py), not mailed: its ``to``
is the URL, its ``body`` the bytes to POST."""


def new_message_id(kind: str, game_id: str | None) -> str:
    """A fresh Message-ID for a row: ``<pbem.KIND.GAME.RANDOM@pbem.invalid>``."""
    import secrets

    from pbem.reports.message import id_word

    return f"<pbem.{kind}.{id_word(game_id or 'referee')}.{secrets.token_hex(8)}@{MESSAGE_ID_DOMAIN}>"


def addresses(to: Sequence[str | None]) -> list[str]:
    """The distinct addresses (case-insensitively), in order, without empty ones."""
    out: list[str] = []
    for addr in to:
        if addr and addr.lower() not in {a.lower() for a in out}:
            out.append(addr)
    return out


_INSERT = (
    'INSERT INTO outbox (kind, game_id, side, k, "to", subject, message_id, dedupe, body, state, attempts, '
    "next_attempt, created)"
    " VALUES (:kind, :game, :side, :k, :to, :subject, :message_id, :dedupe, :body, :state, 0, :now, :now)"
    " ON CONFLICT (dedupe) DO NOTHING"
)


def queue(
    tx: Tx,
    kind: str,
    to: Sequence[str],
    subject: str,
    message_id: str,
    dedupe: str,
    body: bytes | None,
    game_id: str | None = None,
    side: str | None = None,
    k: int | None = None,
) -> bool:
    """Write one row in the caller's transaction; False when a row with this
    ``dedupe`` key is already there (nothing is written then)."""
    if not to:
        return False
    return (
        tx.run(
            _INSERT,
            {
                "kind": kind,
                "game": game_id,
                "side": side,
                "k": k,
                "to": ", ".join(to),
                "subject": subject,
                "message_id": message_id,
                "dedupe": dedupe,
                "body": body,
                "state": PENDING,
                "now": store.utcnow(),
            },
        )
        > 0
    )


def queue_message(
    tx: Tx,
    kind: str,
    message: EmailMessage,
    dedupe: str,
    game_id: str | None = None,
    side: str | None = None,
    k: int | None = None,
) -> bool:
    """A built message as a row (its To, Subject and Message-ID are the row's)."""
    import email.utils

    to = addresses([a for _n, a in email.utils.getaddresses([str(v) for v in message.get_all("To", [])])])
    return queue(
        tx,
        kind,
        to,
        str(message["Subject"] or ""),
        str(message["Message-ID"]),
        dedupe,
        message.as_bytes(),
        game_id,
        side,
        k,
    )


def queue_report(tx: Tx, game_id: str, k: int, side: str, to: str, subject: str, over: bool) -> bool:
    """A side's report of resolution ``k``: rendered from the store when delivered
    (its Message-ID is the report's own, ``<pbem.GAME.kK.SIDE@pbem.invalid>``)."""
    from pbem.reports.message import report_message_id

    kind = "game-over" if over else "report"
    return queue(
        tx,
        kind,
        [to],
        subject,
        report_message_id(game_id, k, side),
        f"report:{game_id}:{k}:{side}",
        None,
        game_id,
        side,
        k,
    )


# ------------------------------------------------------------------ listing


@dataclass(frozen=True)
class Row:
    id: int
    kind: str
    game_id: str | None
    side: str | None
    k: int | None
    to: str
    subject: str
    message_id: str
    state: str
    attempts: int
    last_error: str | None
    next_attempt: datetime
    created: datetime
    sent: datetime | None

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "game": self.game_id,
            "side": self.side,
            "resolution": self.k,
            "to": self.to,
            "subject": self.subject,
            "message_id": self.message_id,
            "state": self.state,
            "attempts": self.attempts,
            "last_error": self.last_error,
            "next_attempt": _iso(self.next_attempt),
            "created": _iso(self.created),
            "sent": _iso(self.sent) if self.sent else None,
        }


def _iso(when: datetime) -> str:
    return _aware(when).isoformat().replace("+00:00", "Z")


def _aware(when: datetime | str) -> datetime:
    when = when if isinstance(when, datetime) else datetime.fromisoformat(when)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


_COLUMNS = (
    'id, kind, game_id, side, k, "to", subject, message_id, state, attempts, last_error, next_attempt, created, sent'
)


def _row(values: Sequence) -> Row:
    *head, next_attempt, created, sent = values
    # one starred tuple: mypy counts fixed arguments after a starred list as too many
    return Row(*(*head, _aware(next_attempt), _aware(created), _aware(sent) if sent else None))


def rows(engine: Database, state: str | None = None) -> list[Row]:
    with transaction(engine, write=False) as tx:
        if state is None:
            return [_row(r) for r in tx.all(f"SELECT {_COLUMNS} FROM outbox ORDER BY id", {})]
        return [
            _row(r) for r in tx.all(f"SELECT {_COLUMNS} FROM outbox WHERE state = :state ORDER BY id", {"state": state})
        ]


def retry(engine: Database, row_id: int | None = None) -> int:
    """Re-arm failed rows (all, or one): pending again and due now; pending rows
    are made due now too.  Returns how many rows were changed."""
    now = store.utcnow()
    with transaction(engine) as tx:
        if row_id is not None:
            found = tx.one("SELECT state FROM outbox WHERE id = :id", {"id": row_id})
            if found is None:
                raise LookupError(f"no outbox row {row_id}")
            if found[0] == SENT:
                raise LookupError(f"outbox row {row_id} was sent already; nothing to retry")
            if found[0] == SUPERSEDED:
                raise LookupError(f"outbox row {row_id} is superseded (its moment has passed); it is not sent")
            return tx.run(
                "UPDATE outbox SET state = :pending, next_attempt = :now WHERE id = :id",
                {"pending": PENDING, "now": now, "id": row_id},
            )
        return tx.run(
            "UPDATE outbox SET state = :pending, next_attempt = :now WHERE state IN (:pending, :failed)",
            {"pending": PENDING, "now": now, "failed": FAILED},
        )


# ------------------------------------------------------------------ delivery


@dataclass
class Delivery:
    """What one delivery step did."""

    sent: list[Row]
    deferred: list[tuple[Row, str]]  # still pending: row, why
    failed: list[tuple[Row, str]]  # given up (permanent refusal): row, why
    error: str | None = None  # the step could not run at all (no connection, login refused)
    login_refused: bool = False  # the referee's SMTP user or password is wrong
    superseded: list[tuple[Row, str]] = field(default_factory=list)  # not sent: their moment passed


def backoff_after(attempts: int, base: float = BACKOFF) -> timedelta:
    """The wait before attempt ``attempts + 1``: ``base * 2**(attempts-1)``, capped."""
    return timedelta(seconds=min(BACKOFF_CAP, base * (2 ** max(0, attempts - 1))))


def due_rows(engine: Database, now: datetime) -> list[Row]:
    with transaction(engine, write=False) as tx:
        return [
            _row(r)
            for r in tx.all(
                f"SELECT {_COLUMNS} FROM outbox WHERE state = :pending AND next_attempt <= :now ORDER BY id",
                {"pending": PENDING, "now": now},
            )
        ]


def claim(engine: Database, row: Row, holder: str, now: datetime) -> bool:
    """Claim ``row`` for ``holder`` (see the module docstring): True if this
    delivery may send it, False if another holds it or it is no longer due."""
    with transaction(engine) as tx:
        held = tx.one("SELECT claimed_by FROM outbox WHERE id = :id", {"id": row.id})
        gone = held[0] if held is not None and held[0] is not None and ended(str(held[0])) else None
        return (
            tx.run(
                "UPDATE outbox SET claimed_by = :holder, claimed_at = :now WHERE id = :id AND state = :pending"
                " AND next_attempt <= :now AND (claimed_by IS NULL OR claimed_at < :lapsed OR claimed_by = :gone)",
                {
                    "holder": holder,
                    "now": now,
                    "id": row.id,
                    "pending": PENDING,
                    "lapsed": now - CLAIM_LEASE,
                    "gone": gone,
                },
            )
            == 1
        )


def _mark_sent(engine: Database, row: Row, now: datetime, subject: str) -> None:
    with transaction(engine) as tx:
        tx.run(
            "UPDATE outbox SET state = :sent, sent = :now, attempts = attempts + 1, last_error = NULL,"
            " subject = :subject, claimed_by = NULL, claimed_at = NULL WHERE id = :id",
            {"sent": SENT, "now": now, "subject": subject, "id": row.id},
        )


def _mark_refused(
    engine: Database, row: Row, now: datetime, error: str, permanent: bool, base: float, holder: str = ""
) -> None:
    attempts = row.attempts + 1
    with transaction(engine) as tx:
        tx.run(
            "UPDATE outbox SET state = :state, attempts = :attempts, last_error = :error, next_attempt = :next,"
            " claimed_by = NULL, claimed_at = NULL WHERE id = :id AND state = :pending"
            # a row another delivery holds is its to mark
            " AND (claimed_by IS NULL OR claimed_by = :holder OR claimed_at < :lapsed)",
            {
                "state": FAILED if permanent else PENDING,
                "attempts": attempts,
                "error": error[:500],
                "next": now + backoff_after(attempts, base),
                "pending": PENDING,
                "id": row.id,
                "holder": holder,
                "lapsed": now - CLAIM_LEASE,
            },
        )


def mark_sent(engine: Database, row: Row, now: datetime, subject: str) -> None:
    """A row delivered by another transport (pbem/mail/webhook.py)."""
    _mark_sent(engine, row, now, subject)


def mark_refused(engine: Database, row: Row, now: datetime, error: str, permanent: bool, base: float) -> None:
    """A row another transport could not deliver: retried later, or failed."""
    _mark_refused(engine, row, now, error, permanent, base)


def stored_body(engine: Database, row: Row) -> bytes | None:
    with transaction(engine, write=False) as tx:
        found = tx.one("SELECT body FROM outbox WHERE id = :id", {"id": row.id})
    return bytes(found[0]) if found and found[0] is not None else None


def _mark_superseded(engine: Database, row: Row, reason: str) -> None:
    with transaction(engine) as tx:
        tx.run(
            "UPDATE outbox SET state = :superseded, last_error = :why, claimed_by = NULL, claimed_at = NULL"
            " WHERE id = :id AND state = :pending",
            {"superseded": SUPERSEDED, "why": reason, "id": row.id, "pending": PENDING},
        )


def message_of(engine: Database, row: Row, sender: str) -> EmailMessage:
    """The message a row stands for, From the referee's address: its stored bytes,
    or a report rendered from the store now (with the row's Message-ID)."""
    with transaction(engine, write=False) as tx:
        found = tx.one("SELECT body FROM outbox WHERE id = :id", {"id": row.id})
    body = found[0] if found else None
    if body is not None:
        import email
        from email.message import EmailMessage

        from pbem.reports.message import MAIL_POLICY

        msg = email.message_from_bytes(bytes(body), policy=MAIL_POLICY)
        assert isinstance(msg, EmailMessage)
    else:
        msg = _report_of(engine, row, sender)
    del msg["From"]
    msg["From"] = sender
    del msg["Message-ID"]
    msg["Message-ID"] = row.message_id
    return msg


def _report_of(engine: Database, row: Row, sender: str) -> EmailMessage:
    """A report row's message rendered from the store now: a side's report, an
    observer's public report, or the welcome of a player who takes a side over
    (its latest report, with the welcome before it)."""
    from dataclasses import replace

    from pbem.reports import assemble as reporting
    from pbem.reports.message import report_email, report_message_id

    if row.kind == "observer":
        with transaction(engine, write=False) as tx:
            data = reporting.public_view(tx, row.game_id or "", row.k)
    else:  # a side's report keeps its list of earlier resolutions for the next one's (pbem/reports/history.py)
        data = reporting.views_keeping_history(engine, row.game_id or "", row.k, [row.side])[0]
    if row.kind == "observer":
        return report_email(data, sender, row.to, report_message_id(data.game_id, 0, "observer"))
    if row.kind == "welcome":
        data = replace(data, preface=welcome_text(data.game_id, data.side or "", data.site_url))
        msg = report_email(data, sender, row.to, None)
        del msg["Subject"]
        msg["Subject"] = row.subject
        return msg
    return report_email(data, sender, row.to, None)


def welcome_text(game_id: str, side: str, site_url: str | None) -> str:
    """The welcome of a player who takes a side over: the game's history and how to play."""
    site = (
        f"The whole game so far, every report and its audit: {site_url}"
        if site_url
        else (
            "The game has no published site; the referee can send you its archive (pbem export), which "
            "'pbem audit --archive FILE' checks."
        )
    )
    return "\n\n".join(
        [
            f"Welcome to game {game_id}: you now play the {side} side, with the key the referee registered for you.",
            site,
            "Below is the latest report; attached are your next turn file (when you are due) and the position "
            "file the report was written from.",
            f"How to play: write your orders below the turn file's header (see 'pbem orders {game_id} --side {side} "
            "--position POSFILE' for a template), check them offline with 'pbem check FILE --position POSFILE', "
            "sign the file with 'pbem sign FILE --key KEY' and mail it back with its .sig, or pasted with --inline.",
        ]
    )


class Sending(Protocol):
    """One open SMTP session (``pbem.mail.smtp.Connection``)."""

    def __enter__(self) -> Sending: ...

    def __exit__(self, *exc: object) -> None: ...

    def send(self, msg: EmailMessage) -> None: ...


class Server(Protocol):
    """Where deliveries go (``pbem.mail.smtp.SmtpServer``)."""

    def connect(self) -> Sending: ...


def deliver(
    engine: Database,
    server: Server,
    sender: str,
    now: datetime | None = None,
    backoff: float = BACKOFF,
    log: Callable[[str], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Delivery:
    """Send every due row over one connection to ``server``; see the module
    docstring.  Never raises for a refused message or an unreachable server: the
    rows stay queued and :class:`Delivery` says why."""
    from pbem.mail.smtp import LoginError, SendError

    fixed = now

    def clock() -> datetime:  # a claim's time: the caller's ``now`` if given, else the clock's
        return fixed if fixed is not None else store.utcnow()

    now = now or store.utcnow()
    due = [r for r in due_rows(engine, now) if r.kind != WEBHOOK]  # webhooks: pbem/mail/webhook.py
    result = Delivery([], [], [])
    if not due:
        return result
    connection = server.connect()
    try:
        connection.__enter__()
    except LoginError as exc:
        result.error = str(exc)
        result.login_refused = True
        return result
    except SendError as exc:
        result.error = str(exc)
        for row in due:
            _mark_refused(engine, row, now, str(exc), False, backoff)
            result.deferred.append((row, str(exc)))
        return result
    try:
        holder = holder_id()
        for row in due:
            if stop is not None and stop():
                break
            if claim(engine, row, holder, clock()):
                _deliver_one(engine, connection, row, holder, sender, now, backoff, result, log)
    finally:
        connection.__exit__(None, None, None)
    return result


def _deliver_one(
    engine: Database,
    connection: Sending,
    row: Row,
    holder: str,
    sender: str,
    now: datetime,
    backoff: float,
    result: Delivery,
    log: Callable[[str], None] | None,
) -> None:
    """Send one claimed row and mark it: sent, deferred or failed (the claim
    cleared by the mark)."""
    from pbem.mail.smtp import SendError

    try:
        msg = message_of(engine, row, sender)
    except Exception as exc:  # a row that cannot be built is failed, not retried forever
        _mark_refused(engine, row, now, f"cannot build the message: {type(exc).__name__}: {exc}", True, backoff, holder)
        result.failed.append((row, str(exc)))
        return
    stale = stale_reason(engine, row, msg)
    if stale is not None:
        _mark_superseded(engine, row, stale)
        result.superseded.append((row, stale))
        if log:
            log(f"outbox {row.id} ({row.kind}) not sent: {stale}")
        return
    try:
        connection.send(msg)
    except SendError as exc:
        _mark_refused(engine, row, now, str(exc), exc.permanent, backoff, holder)
        (result.failed if exc.permanent else result.deferred).append((row, str(exc)))
        if log:
            log(f"outbox {row.id}: {'failed' if exc.permanent else 'deferred'}: {exc}")
        return
    _mark_sent(engine, row, now, str(msg["Subject"] or row.subject))
    result.sent.append(row)
    if log:
        log(f"sent outbox {row.id} ({row.kind}) to {row.to}: {msg['Subject']}")
