"""The referee's mail room: the intake loop (``pbem.mail.readers``) on the real store.

The pipeline's ``submit`` and ``check`` judge each turn file; this module keeps
the loop's ledger in the store, so that for every message:

1. each of its turn files is judged in the pipeline's own transaction, with an
   ``intake_part`` row saying how (a crash before step 2 never judges it twice);
2. one transaction then records the message (``intake``: its mailbox, item,
   digest and Message-ID, the verdict and lines), a refusal with its bytes when
   nothing in it reached the pipeline, and its reply in the outbox;
3. only then is it marked seen in its mailbox (IMAP ``\\Seen``).

A message with the bytes or the Message-ID of one already recorded is skipped.
Replies go only to a message that carries a pbem turn file or comes from a
registered player's address (no backscatter to spam), and never to robots.  An
accepted file's receipt goes to the sender and, if different, to the side's
registered address.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

from pbem import store
from pbem.mail import folder, outbox
from pbem.mail import readers as ingest
from pbem.mail import smtp as smtp_send
from pbem.referee import intake, notices, verdict
from pbem.reports import message
from pbem.rules import find_ruleset
from pbem.store.sql import Conflict, Tx
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from pbem.mail.imap import ImapSource
    from pbem.store.database import Database


def _understood(checked: verdict.Checked) -> tuple[str, ...]:
    count = len(checked.orders)
    head = (
        f"{checked.game_id}, {checked.side}, resolution {checked.turn} - {checked.label}: {count} "
        f"{'order' if count == 1 else 'orders'}"
    )
    # a list, not a generator, the offset read once, each order's ``str`` called as such (``!s``), not through
    # ``format``: some 17 k instructions of the 86 k of a Campus Mauriacus file's fourteen lines
    offset = checked.turn_file.body_offset
    return (head, *[f"line {o.line + offset}: {o.order!s}" for o in checked.orders])


@dataclass
class StoreLedger:
    """The loop's ledger and pipeline callables, kept in the store (module docstring)."""

    engine: Database
    reached: set[str] = field(default_factory=set)
    digest: str = ""
    sides: list[tuple[str, str]] = field(default_factory=list)  # (game, side) of accepted files of the current message
    known_items: dict[str, set[str]] = field(default_factory=dict)
    referee_key: object = None  # signs a vacation granted by mail (pbem/referee/requests.py)

    # --- the pipeline as the loop's callables

    def submit(self, data: bytes, signature: str | None, source: str) -> ingest.SubmitOutcome:
        self.reached.add(source)
        if not self.digest:  # a turn file of a --dir folder: no message around it
            try:
                return ingest.SubmitOutcome(
                    True,
                    _understood(
                        intake.submit(self.engine, data, signature, source, referee_key=self.referee_key).checked
                    ),
                )
            except verdict.Refused as refusal:
                return ingest.SubmitOutcome(False, tuple(refusal.problems))
        with transaction(self.engine, write=False) as tx:
            row = tx.one(
                "SELECT accepted, lines, game_id, side FROM intake_part WHERE digest = :d AND part = :p",
                {"d": self.digest, "p": source},
            )
        if row is not None:  # judged before a crash, reply not yet committed
            if row[0] and row[2]:
                self.sides.append((row[2], row[3]))
            return ingest.SubmitOutcome(bool(row[0]), tuple(json.loads(row[1])))
        digest = self.digest

        def keep(tx: Tx, checked: verdict.Checked | None, problems: Sequence[str]) -> None:
            game_id = side = None
            if checked is not None:
                game_id, side, lines = checked.game_id, checked.side, _understood(checked)
            else:
                lines = tuple(problems)
            tx.run(
                "INSERT INTO intake_part (digest, part, accepted, lines, game_id, side) VALUES (:d, :p, :a, :l, "
                ":g, :s)",
                {
                    "d": digest,
                    "p": source,
                    "a": checked is not None,
                    "l": json.dumps(list(lines)),
                    "g": game_id,
                    "s": side,
                },
            )

        try:
            checked = intake.submit(
                self.engine, data, signature, source, within=keep, referee_key=self.referee_key
            ).checked
        except verdict.Duplicate as duplicate:  # a note to its sender, not a problem in anyone's report
            return ingest.SubmitOutcome(True, tuple(f"note: {line}" for line in duplicate.problems))
        except verdict.Refused as refusal:
            return ingest.SubmitOutcome(False, tuple(refusal.problems))
        self.sides.append((checked.game_id, checked.side))
        return ingest.SubmitOutcome(True, _understood(checked))

    def check(self, data: bytes, signature: str | None, source: str) -> ingest.SubmitOutcome:
        self.reached.add(source)
        try:
            checked = verdict.check(self.engine, data, signature)
        except verdict.Refused as refusal:
            return ingest.SubmitOutcome(False, tuple(refusal.problems))
        return ingest.SubmitOutcome(True, _understood(checked))

    # --- the ledger

    def seen(self, raw_sha256: str, message_id: str | None) -> bool:
        """By the bytes alone: a message whose Message-ID was seen with other bytes is
        judged on its own (whoever guesses a player's Message-ID cannot make that
        player's next message vanish)."""
        with transaction(self.engine, write=False) as tx:
            return tx.one("SELECT id FROM intake WHERE digest = :d", {"d": raw_sha256}) is not None

    def begin(self, incoming: ingest.Incoming, raw_sha256: str) -> None:
        self.digest = raw_sha256
        self.sides = []
        self.reached.clear()

    def may_answer(self, address: str) -> bool:
        with transaction(self.engine, write=False) as tx:
            return tx.one("SELECT id FROM player WHERE LOWER(email) = :a", {"a": address.lower()}) is not None

    def side_address(self, game_id: str, side: str | None) -> tuple[bool, str | None]:
        with transaction(self.engine, write=False) as tx:
            if tx.one("SELECT id FROM game WHERE id = :g", {"g": game_id}) is None:
                return False, None
            row = tx.one("SELECT email FROM player WHERE game_id = :g AND side = :s", {"g": game_id, "s": side or ""})
        return True, (row[0] or None) if row else None

    def item_done(self, mailbox: str, item: str) -> bool:
        """Whether a mailbox's item (a Maildir file name) was recorded already: the
        reader skips it without reading it."""
        if mailbox not in self.known_items:
            with transaction(self.engine, write=False) as tx:
                self.known_items[mailbox] = {
                    r[0] for r in tx.all("SELECT item FROM intake WHERE source = :s", {"s": mailbox})
                }
        return item.split(":2,")[0] in self.known_items[mailbox]

    def done(self, incoming: ingest.Incoming, outcome: ingest.MessageOutcome, reply: EmailMessage | None) -> None:
        reached = any(src.startswith(outcome.source) for src in self.reached)

        def record(tx: Tx, _checked: object = None, _problems: object = None) -> None:
            tx.run(
                "INSERT INTO intake (source, item, uidvalidity, uid, digest, message_id, verdict, lines, at)"
                " VALUES (:source, :item, :uidvalidity, :uid, :digest, :mid, :verdict, :lines, :at)",
                {
                    "source": incoming.mailbox or outcome.source,
                    "item": incoming.item.split(":2,")[0] or outcome.source,
                    "uidvalidity": incoming.uidvalidity,
                    "uid": incoming.uid,
                    "digest": outcome.raw_sha256,
                    "mid": outcome.message_id,
                    "verdict": outcome.verdict.value,
                    "lines": json.dumps(list(outcome.lines)),
                    "at": store.utcnow(),
                },
            )
            if reply is not None:
                to = [str(reply["To"] or "")]
                game_side = self.sides[0] if self.sides else (None, None)
                if outcome.verdict is ingest.Verdict.ACCEPTED:
                    registered = notices.player_addresses(tx, game_side[0]) if game_side[0] else {}
                    to += [registered[s] for g, s in self.sides if s in registered]
                recipients = outbox.addresses(to)
                del reply["To"]
                reply["To"] = ", ".join(recipients)
                kind = {"accepted": "receipt", "refused": "refusal", "checked": "checked"}[outcome.verdict.value]
                notices.queue_reply(tx, kind, reply, f"reply:{outcome.raw_sha256}", game_side[0], game_side[1])

        try:
            if outcome.verdict is ingest.Verdict.REFUSED and not reached:
                intake.record_refusal(
                    self.engine, outcome.raw, None, outcome.lines or ("refused",), outcome.source, within=record
                )
            else:
                with transaction(self.engine) as tx:
                    record(tx)
        except Conflict:
            pass  # another referee process recorded this very message first (intake.digest is unique)


def run_ingest(
    engine: Database,
    *,
    directory: Path | None = None,
    maildir: Path | None = None,
    mbox: Path | None = None,
    outbox: Path | None = None,
    sender: str = notices.PLACEHOLDER_SENDER,
    progress: ingest.ProgressSink | None = None,
    stop: Callable[[], bool] | None = None,
    referee_key: object = None,
) -> ingest.IngestSummary:
    """``pbem ingest`` and the intake step of ``pbem tick``: every new message or
    file judged, recorded and answered through the outbox.  ``outbox`` (a
    Maildir) also gets a copy of each reply.  ``referee_key`` signs the vacations
    players ask for by mail."""
    ledger = StoreLedger(engine, referee_key=referee_key)
    if directory is not None:
        summary = folder.ingest_dir(directory, ledger.submit, ledger.check, progress=progress)
        for o in summary.outcomes:
            if o.verdict is ingest.Verdict.REFUSED and not any(src.startswith(o.source) for src in ledger.reached):
                intake.record_refusal(engine, o.raw, None, o.lines or ("refused",), o.source)
        return summary
    if maildir is not None:
        name = f"maildir {Path(maildir)}"
        messages = ingest.maildir_messages(maildir, known=lambda item: ledger.item_done(name, item))
        summary = ingest.ingest_messages(
            messages, ledger.submit, ledger.check, sender, ledger, progress=progress, stop=stop
        )
    elif mbox is not None:
        import mailbox as mailboxes

        path = Path(mbox)
        if not path.is_file():
            raise ingest.IngestError(f"no mbox file at {str(path)!r}")
        box = mailboxes.mbox(path, factory=None, create=False)
        try:
            summary = ingest.ingest_messages(
                ingest.mbox_messages(box, path),
                ledger.submit,
                ledger.check,
                sender,
                ledger,
                progress=progress,
                stop=stop,
            )
        finally:
            box.close()
    else:
        raise ValueError("give a directory, a Maildir or an mbox")
    if outbox is not None:
        import mailbox as mailboxes

        box_out = mailboxes.Maildir(outbox, create=True)
        for reply in summary.replies:
            box_out.add(reply.as_bytes())
    return summary


UNFETCHED = "unfetched"
"""The ``intake`` verdict of a message the IMAP server would not give (a FETCH
answered NO or BAD, or the connection failing during it): tried again each pass."""
REFUSED_TO_FETCH = "refused-to-fetch"
"""... until :data:`MAX_FETCH_FAILURES` passes have failed: then it is passed by."""
MAX_FETCH_FAILURES = 5


def run_imap_intake(
    engine: Database,
    source: ImapSource,
    sender: str = notices.PLACEHOLDER_SENDER,
    stop: Callable[[], bool] | None = None,
    referee_key: object = None,
) -> ingest.IngestSummary:
    """The intake step from an IMAP mailbox (pbem/mail/imap.py).

    A message the server refuses to FETCH is left out of this pass and tried
    again the next (an ``intake`` row with verdict ``unfetched`` counts the
    failed passes, one line each); after :data:`MAX_FETCH_FAILURES` of them it
    is recorded as ``refused-to-fetch`` and passed by, so it never blocks the
    mailbox.  The rest of the mailbox is read all the same.  A connection that
    fails part-way keeps what was read before it (judged now) and says why in
    the summary's ``failure``."""
    from pbem.mail import imap

    ledger = StoreLedger(engine, referee_key=referee_key)
    with imap.open_mailbox(source) as box:
        with transaction(engine, write=False) as tx:
            rows = tx.all(
                "SELECT uid, verdict, lines FROM intake WHERE source = :s AND uidvalidity = :v",
                {"s": box.name, "v": box.uidvalidity},
            )
        retrying = {r[0]: json.loads(r[2]) for r in rows if r[1] == UNFETCHED}
        done = {r[0] for r in rows if r[1] != UNFETCHED}
        read = done - {r[0] for r in rows if r[1] == REFUSED_TO_FETCH}
        box.mark_seen([uid for uid in box.unseen() if uid in read])
        start = min([max(done, default=0) + 1, *retrying])
        fetched = box.messages(start, skip=done)
        got = [m.uid for m in fetched.messages if m.uid is not None and m.uid in retrying]
        notes = [_fetch_refused(engine, box.name, box.uidvalidity, uid, why, retrying) for uid, why in fetched.refused]
        if got:
            with transaction(engine) as tx:
                for uid in got:
                    tx.run(
                        "DELETE FROM intake WHERE digest = :d", {"d": _unfetched_key(box.name, box.uidvalidity, uid)}
                    )
        summary = ingest.ingest_messages(fetched.messages, ledger.submit, ledger.check, sender, ledger, stop=stop)
        return ingest.IngestSummary(summary.outcomes, tuple(notes), fetched.failure)


def _unfetched_key(mailbox: str, uidvalidity: int, uid: int) -> str:
    """The ``digest`` of an unfetched message's row: not a SHA-256 of bytes (none
    were read), so it can never match a message's."""
    import hashlib

    return "unfetched:" + hashlib.sha256(f"{mailbox}\n{uidvalidity}\n{uid}".encode()).hexdigest()


def _fetch_refused(
    engine: Database, mailbox: str, uidvalidity: int, uid: int, why: str, retrying: dict[int, list[str]]
) -> str:
    """Count one more failed pass for a message; the line to log."""
    lines = [*retrying.get(uid, []), f"{store.utcnow().isoformat(timespec='seconds')}: {why}"]
    final = len(lines) >= MAX_FETCH_FAILURES
    values = {
        "source": mailbox,
        "item": str(uid),
        "uidvalidity": uidvalidity,
        "uid": uid,
        "digest": _unfetched_key(mailbox, uidvalidity, uid),
        "verdict": REFUSED_TO_FETCH if final else UNFETCHED,
        "lines": json.dumps(lines),
        "at": store.utcnow(),
    }
    try:
        with transaction(engine) as tx:
            if uid in retrying:
                tx.run("UPDATE intake SET verdict = :verdict, lines = :lines, at = :at WHERE digest = :digest", values)
            else:
                tx.run(
                    "INSERT INTO intake (source, item, uidvalidity, uid, digest, message_id, verdict, lines, at)"
                    " VALUES (:source, :item, :uidvalidity, :uid, :digest, NULL, :verdict, :lines, :at)",
                    values,
                )
    except Conflict:
        pass  # another referee process counted this pass's failure first
    if final:
        return (
            f"{mailbox}: UID {uid} could not be fetched in {len(lines)} passes: recorded as {REFUSED_TO_FETCH}"
            f" and passed by (last: {why})"
        )
    return f"{mailbox}: UID {uid} left for the next pass ({len(lines)} of {MAX_FETCH_FAILURES} tries): {why}"


def report_messages(db: Database, game_id: str, k: int | None, sender: str) -> list[EmailMessage]:
    """Each side's report of resolution ``k`` (default the latest) as an email, to
    the side's registered address; sides without one are skipped."""
    from pbem.reports import assemble as reporting
    from pbem.reports import reads as report_reads  # the report stack: not for a pass with nothing to mail

    with transaction(db, write=False) as tx:
        game = report_reads.game(tx, game_id)
        roster = {p.side: p.email for p in report_reads.players(tx, game_id) if p.email}  # the sides with an address
        sides = [side for side in find_ruleset(game.rules).sides(game.scenario) if roster.get(side)]
        views = reporting.report_views(tx, game_id, k, sides) if sides else []
    return [message.report_email(data, sender, roster[data.side], None) for data in views if data.side]


def send_reports(
    db: Database,
    game_id: str,
    k: int | None,
    server: smtp_send.SmtpServer,
    sender: str,
) -> Sequence[EmailMessage]:
    messages = report_messages(db, game_id, k, sender)
    if not messages:
        raise verdict.Refused([f"no side of game {game_id} has an email address (give --email SIDE=ADDR at pbem new)"])
    try:
        with server.connect() as connection:
            for message in messages:
                connection.send(message)
    except smtp_send.SendError as exc:
        raise verdict.Refused([str(exc)]) from None
    return messages
