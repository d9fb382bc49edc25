"""Batch intake of turn files: a Maildir, an mbox or a directory (``pbem ingest``).

The pipeline is injected as two callables, so this module knows nothing of the
database: ``submit(turn_file_bytes, armored_signature_or_None, source)`` verifies
and queues a turn file, ``check(...)`` only validates it (a message whose subject
has the word ``check``).  Both return a :class:`SubmitOutcome`: accepted, and one
line per order as understood or per problem (``"line 7: ..."``).  The pipeline
records refused submissions itself; refusals that never reach it (a message with
no turn file, an oversized or broken message) are in the returned summary, with
the raw bytes, for the caller to record.

Rules of the loop:

- **Sending order.** Every message is read first, then processed by its Date
  header (UTC), ties and undated messages by file order (Maildir: file name, which
  starts with the delivery time; mbox: position); undated messages come last.  So
  when one side sends several messages for one turn, the latest is submitted last
  and supersedes the earlier ones (the pipeline replaces a queued file of the same
  side and turn).
- **Nothing twice.**  A ledger remembers each judged message by the SHA-256 of
  its raw bytes and its Message-ID: here a state file (``M/.pbem-ingest-seen``
  inside a Maildir or a directory, ``F.pbem-ingest-seen`` beside an mbox ``F``;
  one line per entry, ``sha256 HEX`` or ``message-id <ID>``), in the referee's
  store for ``pbem ingest`` and ``pbem tick`` (``pbem.referee.service.mail_room``, where the
  judgement, the record and the reply commit together).  A message seen before
  is ``SKIPPED``: not submitted and not answered again.  The pipeline
  independently refuses a byte-identical resubmission of a queued or resolved
  turn file.  A message whose submit raised an exception is not remembered, so
  the next run retries it.
- **Every message ends accepted, refused, checked or skipped**, with its lines;
  the messages stay in the mailbox untouched.
- **Answers.** A message that carries a turn file, or comes from an address the
  ledger knows as a player's, gets a receipt (orders as understood) or a refusal
  (each problem by line); any other message (spam) is judged and kept but not
  answered, and neither is one with no address to answer or one that is itself
  automatic (``Auto-Submitted``, ``Precedence: bulk/junk/list``, mailer-daemon),
  which keeps two robots from answering each other forever.  A reply that
  cannot be written (an undecodable subject, say) is left out and the message
  is still judged.  Answers are kept by the ledger (the state-file ledger writes
  them to the ``outbox`` Maildir when one is given) and returned in the summary.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import mailbox
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage, Message
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Protocol, TypedDict

from pbem.mail.build import named_in, receipt_email, reply_subject
from pbem.mail.intake import (
    HEAD_BYTES,
    MAX_MESSAGE_BYTES,
    Candidate,
    Intake,
    read_headers,
    read_message,
    sent_of,
)

SEEN_FILE_NAME = ".pbem-ingest-seen"
MAX_FILE_BYTES = 1 << 20


class IngestError(ValueError):
    """The mailbox or directory itself cannot be read (missing, not a Maildir)."""


@dataclass(frozen=True)
class SubmitOutcome:
    """What the pipeline said about one turn file: accepted or not, and the orders
    as understood or one problem per line (``"line 7: ..."``)."""

    accepted: bool
    lines: tuple[str, ...]

    def __init__(self, accepted: bool, lines: tuple[str, ...]) -> None:
        self.__dict__.update(accepted=accepted, lines=lines)  # the fields at once: see MessageOutcome.__init__


Submit = Callable[[bytes, "str | None", str], SubmitOutcome]
"""(turn file bytes, armored signature or None, source description) -> outcome."""
Check = Callable[[bytes, "str | None", str], SubmitOutcome]
"""The same, validating only (nothing is queued)."""


class Verdict(str, Enum):
    ACCEPTED = "accepted"
    REFUSED = "refused"
    CHECKED = "checked"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class MessageOutcome:
    """How one message (or file) ended."""

    source: str
    verdict: Verdict
    lines: tuple[str, ...]
    message_id: str | None = None
    sender: str | None = None
    sent: datetime | None = None
    raw_sha256: str = ""
    valid: bool = False
    """For ``CHECKED``: the orders passed the check."""
    raw: bytes = field(default=b"", repr=False, compare=False)
    """The message's bytes (of an oversized message, only its first 256 KiB; the
    message itself stays in the mailbox); ``raw_sha256`` is of the whole message."""
    reply: EmailMessage | None = field(default=None, repr=False, compare=False)

    def __init__(
        self,
        source: str,
        verdict: Verdict,
        lines: tuple[str, ...],
        message_id: str | None = None,
        sender: str | None = None,
        sent: datetime | None = None,
        raw_sha256: str = "",
        valid: bool = False,
        raw: bytes = b"",
        reply: EmailMessage | None = None,
    ) -> None:
        """The dataclass's own ``__init__``, with the fields set at once in the
        instance's ``__dict__``: a frozen dataclass sets each through
        ``object.__setattr__``, some 1.5 k instructions a field, ten a message or file."""
        self.__dict__.update(
            source=source,
            verdict=verdict,
            lines=lines,
            message_id=message_id,
            sender=sender,
            sent=sent,
            raw_sha256=raw_sha256,
            valid=valid,
            raw=raw,
            reply=reply,
        )


@dataclass(frozen=True)
class IngestSummary:
    outcomes: tuple[MessageOutcome, ...]
    notes: tuple[str, ...] = ()
    """Lines about the mailbox rather than a message: a message the server would
    not give this pass (an IMAP FETCH refused), left for the next."""
    failure: str | None = None
    """Why reading the mailbox stopped early (the IMAP connection failed); the
    messages read before it are judged all the same."""

    def count(self, verdict: Verdict) -> int:
        return sum(1 for o in self.outcomes if o.verdict is verdict)

    @property
    def accepted(self) -> int:
        return self.count(Verdict.ACCEPTED)

    @property
    def refused(self) -> int:
        return self.count(Verdict.REFUSED)

    @property
    def checked(self) -> int:
        return self.count(Verdict.CHECKED)

    @property
    def skipped(self) -> int:
        return self.count(Verdict.SKIPPED)

    @property
    def replies(self) -> tuple[EmailMessage, ...]:
        return tuple(o.reply for o in self.outcomes if o.reply is not None)


class ProgressSink(Protocol):
    """What a progress display needs (``pbem.cli.progress.BatchProgress`` is one)."""

    def start(self, total: int) -> None: ...

    def advance(self, outcome: MessageOutcome) -> None: ...


class Ledger(Protocol):
    """Where the loop keeps what it has judged.  :class:`SeenStore` (a file beside
    the mailbox) is the plain one; ``pbem.referee.service.mail_room`` keeps it in the store, in
    the transaction that records the judgement and queues the reply."""

    def seen(self, raw_sha256: str, message_id: str | None) -> bool: ...

    def begin(self, incoming: Incoming, raw_sha256: str) -> None:
        """A message is about to be judged (its turn files go to ``submit`` next)."""
        ...

    def may_answer(self, address: str) -> bool:
        """True for a registered player's address (answered even without a turn file)."""
        ...

    def side_address(self, game_id: str, side: str | None) -> tuple[bool, str | None]:
        """(whether game ``game_id`` exists, the address registered for ``side`` in it)."""
        ...

    def done(self, incoming: Incoming, outcome: MessageOutcome, reply: EmailMessage | None) -> None:
        """The message is judged: remember it and keep its reply, together."""
        ...


class SeenStore:
    """The ``.pbem-ingest-seen`` state file: raw-byte hashes and Message-IDs of the
    messages already processed; replies go to an ``outbox`` Maildir if given."""

    def __init__(self, path: Path, outbox: Path | None = None, players: Iterable[str] = ()) -> None:
        self.path = Path(path)
        self.entries: set[str] = set()
        self.outbox = outbox
        self.players = {a.lower() for a in players}
        if self.path.exists():
            self.entries = {
                line.strip() for line in self.path.read_text("utf-8", errors="replace").splitlines() if line.strip()
            }

    @staticmethod
    def _keys(raw_sha256: str, message_id: str | None) -> list[str]:
        keys = [f"sha256 {raw_sha256}"]
        if message_id:
            keys.append(f"message-id {message_id}")
        return keys

    def seen(self, raw_sha256: str, message_id: str | None) -> bool:
        """By the bytes alone: a message that reuses a Message-ID is judged."""
        return f"sha256 {raw_sha256}" in self.entries

    def begin(self, incoming: Incoming, raw_sha256: str) -> None:
        return None

    def may_answer(self, address: str) -> bool:
        return address.lower() in self.players

    def side_address(self, game_id: str, side: str | None) -> tuple[bool, str | None]:
        return False, None  # no games known here: nothing names one

    def done(self, incoming: Incoming, outcome: MessageOutcome, reply: EmailMessage | None) -> None:
        if reply is not None and self.outbox is not None:
            mailbox.Maildir(self.outbox, create=True).add(reply.as_bytes())
        self.add(outcome.raw_sha256, outcome.message_id)

    def add(self, raw_sha256: str, message_id: str | None) -> None:
        new = [key for key in self._keys(raw_sha256, message_id) if key not in self.entries]
        if not new:
            return
        import pbem.paths as paths  # (not ``from``: no Python call, ``_handle_fromlist``, a file)

        paths.append_file(self.path, "".join(key + "\n" for key in new))
        self.entries.update(new)


class MessageFile(Protocol):
    """What a message is read through: a binary file, or a mailbox's proxy of one."""

    def read(self, size: int, /) -> bytes: ...
    def close(self) -> None: ...


Opener = Callable[[], MessageFile]


@dataclass(frozen=True)
class Incoming:
    """One message of a mailbox: ``mailbox`` names the mailbox (``maildir PATH``,
    ``imap user@host:port/INBOX``), ``item`` the message in it (a file name, a
    UID); ``after`` runs once its judgement is kept (IMAP sets ``\\Seen`` there)."""

    source: str
    open: Opener
    mailbox: str = ""
    item: str = ""
    uid: int | None = None
    uidvalidity: int | None = None
    after: Callable[[], None] | None = None
    known: bool = False
    """Recorded before by its mailbox and item: skipped without being read."""


# --- mailboxes -------------------------------------------------------------------------


def maildir_messages(path: Path | str, known: Callable[[str], bool] = lambda _item: False) -> list[Incoming]:
    """Every message of a Maildir (``new`` and ``cur``); those ``known`` by their
    file name (without the ``:2,`` flags, which a mail client may change) are
    marked so, and skipped unread."""
    path = Path(path)
    if not ((path / "cur").is_dir() and (path / "new").is_dir()):
        raise IngestError(f"not a Maildir: {str(path)!r} (it needs cur/ and new/ folders)")
    box = mailbox.Maildir(path, factory=None, create=False)
    keyed: list[tuple[str, str]] = []
    for key in box.keys():
        subdir = "new" if (path / "new" / key).exists() else "cur"
        keyed.append((key, subdir))
    keyed.sort(key=lambda item: item[0])
    name = f"maildir {path}"
    return [
        Incoming(f"{name}: {subdir}/{key}", partial(box.get_file, key), name, key, known=known(key))
        for key, subdir in keyed
    ]


def ingest_maildir(
    path: Path | str,
    submit: Submit,
    check: Check,
    outbox: Path | None,
    sender: str,
    *,
    seen_file: Path | None = None,
    max_bytes: int = MAX_MESSAGE_BYTES,
    progress: ProgressSink | None = None,
    ledger: Ledger | None = None,
    players: Iterable[str] = (),
) -> IngestSummary:
    """Every message of a Maildir (``new`` and ``cur``), in sending order.
    ``players``: the registered addresses, answered even without a turn file."""
    messages = maildir_messages(path)
    ledger = ledger or SeenStore(seen_file or Path(path) / SEEN_FILE_NAME, outbox, players)
    return ingest_messages(messages, submit, check, sender, ledger, max_bytes, progress)


def mbox_messages(box: mailbox.mbox, path: Path) -> list[Incoming]:
    name = f"mbox {path}"
    return [
        Incoming(f"{name}: message {n}", partial(box.get_file, key), name, str(n))
        for n, key in enumerate(box.keys(), start=1)
    ]


def ingest_mbox(
    path: Path | str,
    submit: Submit,
    check: Check,
    outbox: Path | None,
    sender: str,
    *,
    seen_file: Path | None = None,
    max_bytes: int = MAX_MESSAGE_BYTES,
    progress: ProgressSink | None = None,
    ledger: Ledger | None = None,
    players: Iterable[str] = (),
) -> IngestSummary:
    """Every message of an mbox file, in sending order."""
    path = Path(path)
    if not path.is_file():
        raise IngestError(f"no mbox file at {str(path)!r}")
    box = mailbox.mbox(path, factory=None, create=False)
    try:
        ledger = ledger or SeenStore(seen_file or path.with_name(path.name + SEEN_FILE_NAME), outbox, players)
        return ingest_messages(mbox_messages(box, path), submit, check, sender, ledger, max_bytes, progress)
    finally:
        box.close()


@dataclass(frozen=True)
class _Read:
    raw: bytes
    """The whole message, or only its first ``HEAD_BYTES`` when it is over the limit."""
    size: int
    sha256: str


def _read_limited(open_message: Opener, max_bytes: int) -> _Read:
    """Read a message in chunks: its SHA-256 and size always, its bytes only up
    to ``max_bytes`` (beyond that, only the head for the reply), so an oversized
    message never sits whole in memory."""
    digest = hashlib.sha256()
    kept = bytearray()
    size = 0
    over = False
    f = open_message()
    try:
        while chunk := f.read(1 << 16):
            digest.update(chunk)
            size += len(chunk)
            if not over:
                kept += chunk
                if len(kept) > max_bytes:
                    over = True
                    del kept[min(HEAD_BYTES, max_bytes) :]
    finally:
        f.close()
    return _Read(bytes(kept), size, digest.hexdigest())


def ingest_messages(
    messages: Sequence[Incoming],
    submit: Submit,
    check: Check,
    sender: str,
    ledger: Ledger,
    max_bytes: int = MAX_MESSAGE_BYTES,
    progress: ProgressSink | None = None,
    stop: Callable[[], bool] | None = None,
) -> IngestSummary:
    """Judge every message in sending order (see the module docstring); ``stop``
    is asked between messages (``pbem serve`` finishing on SIGTERM)."""
    # First pass: when each was sent (keeps only the small Intake of each message).
    dated = []
    skipped = [
        MessageOutcome(i.source, Verdict.SKIPPED, ("already processed (seen before)",)) for i in messages if i.known
    ]
    for n, incoming in enumerate(m for m in messages if not m.known):
        first = _read_limited(incoming.open, max_bytes)
        dated.append((n, incoming, sent_of(first.raw)))  # the header alone: the message is parsed once, below
    dated.sort(key=lambda item: (item[2] is None, item[2].timestamp() if item[2] else 0.0, item[0]))
    if progress:
        progress.start(len(dated) + len(skipped))
        for outcome in skipped:
            progress.advance(outcome)
    outcomes: list[MessageOutcome] = list(skipped)
    for _n, incoming, _sent in dated:
        if stop is not None and stop():
            break
        outcome = _one_message(incoming, submit, check, sender, ledger, max_bytes)
        outcomes.append(outcome)
        if progress:
            progress.advance(outcome)
    return IngestSummary(tuple(outcomes))


class _Common(TypedDict):
    """The fields every outcome of one message carries."""

    message_id: str | None
    sender: str | None
    sent: datetime | None
    raw_sha256: str
    raw: bytes


def _one_message(
    incoming: Incoming, submit: Submit, check: Check, sender: str, ledger: Ledger, max_bytes: int
) -> MessageOutcome:
    source = incoming.source
    read = _read_limited(incoming.open, max_bytes)
    raw, digest = read.raw, read.sha256
    intake = read_message(raw, max_bytes, size=read.size)
    common = _Common(message_id=intake.message_id, sender=intake.sender, sent=intake.sent, raw_sha256=digest, raw=raw)
    if ledger.seen(digest, intake.message_id):
        if incoming.after is not None:
            incoming.after()
        return MessageOutcome(source, Verdict.SKIPPED, ("already processed (seen before)",), **common)
    ledger.begin(incoming, digest)
    verdict, lines, valid, failed = _judge(intake.candidates, intake.problems, intake.check_only, submit, check, source)
    reply = None
    try:
        original = intake.parsed if intake.parsed is not None else _original(raw, max_bytes, read.size)
        answer = bool(intake.candidates) or bool(intake.sender and ledger.may_answer(intake.sender))
        to, game = _answer_to(intake, verdict, ledger)
        if answer and _should_answer(original, to, sender):
            ok = valid if verdict is Verdict.CHECKED else verdict is Verdict.ACCEPTED
            reply = receipt_email(
                original,
                sender,
                ok,
                lines,
                check_only=verdict is Verdict.CHECKED,
                recipient=to,
                subject=reply_subject(game, verdict.value, ok),
                identity=digest,
            )
            reply.as_bytes()  # a reply that cannot be written out is no reply
    except Exception as exc:  # a message we cannot answer is still judged and kept
        reply = None
        lines += (f"no reply could be written ({type(exc).__name__}: {exc})",)
    outcome = MessageOutcome(source, verdict, lines, valid=valid, reply=reply, **common)
    if not failed:
        ledger.done(incoming, outcome, reply)
        if incoming.after is not None:
            incoming.after()
    return outcome


def _answer_to(intake: Intake, verdict: Verdict, ledger: Ledger) -> tuple[str | None, str | None]:
    """(whom to answer, the game the answer is about) — docs/guide.md, "Who gets an
    answer".  A receipt of accepted orders goes to the sender (and, added by the
    ledger, to the side's registered address).  Any other answer goes only to an
    address a game knows: the side's that a turn file names in a game that exists
    (nobody when that side has none), else the sender's when it is a registered
    player's, else, when nothing names a game, the envelope sender.  Reply-To and
    From alone never steer a refusal to a stranger."""
    games = [(game, side, *ledger.side_address(game, side)) for game, side in named_in(intake.candidates)]
    known = [(game, side, address) for game, side, exists, address in games if exists]
    game = known[0][0] if known else None
    if verdict is Verdict.ACCEPTED:
        return intake.sender, game
    if known:
        address = next((a for _g, _s, a in known if a), None)
        return address, game
    if intake.sender and ledger.may_answer(intake.sender):
        return intake.sender, None
    return intake.return_path, None


def _judge(
    candidates: Sequence[Candidate],
    problems: Sequence[str],
    check_only: bool,
    submit: Submit,
    check: Check,
    source: str,
) -> tuple[Verdict, tuple[str, ...], bool, bool]:
    """(verdict, lines, valid, failed): submit or check every candidate."""
    if not candidates:
        return Verdict.REFUSED, tuple(problems), False, False
    call = check if check_only else submit
    results: list[tuple[Candidate, SubmitOutcome]] = []
    failed = False
    for candidate in candidates:
        try:
            result = call(candidate.message, candidate.signature, f"{source} ({candidate.where})")
        except Exception as exc:  # one bad file must not stop the batch; retried next run
            result = SubmitOutcome(
                False, (f"could not be processed ({type(exc).__name__}: {exc}); it will be retried",)
            )
            failed = True
        results.append((candidate, result))
    ok = any(r.accepted for _c, r in results)
    if len(results) == 1:
        lines = tuple(results[0][1].lines)
    else:
        lines = tuple(
            f"{c.where}: {'accepted' if r.accepted else 'refused'}" + "".join(f"\n    {line}" for line in r.lines)
            for c, r in results
        )
    lines += tuple(problems)
    if check_only:
        return Verdict.CHECKED, lines, ok, failed
    return (Verdict.ACCEPTED if ok else Verdict.REFUSED), lines, ok, failed


def _original(raw: bytes, max_bytes: int, size: int) -> Message:
    if size > max_bytes:
        return read_headers(raw)
    try:
        return email.message_from_bytes(raw, policy=email.policy.compat32)
    except Exception:
        return read_headers(raw)


_ROBOT_SENDERS = ("mailer-daemon", "postmaster", "noreply", "no-reply")


def _should_answer(original: Message, reply_to: str | None, our_address: str) -> bool:
    """Not to nobody, not to ourselves, not to other robots (RFC 3834)."""
    if not reply_to:
        return False
    local = reply_to.split("@", 1)[0].lower()
    if reply_to.lower() == _bare(our_address).lower() or local in _ROBOT_SENDERS:
        return False
    auto = str(original.get("Auto-Submitted", "no")).strip().lower()
    precedence = str(original.get("Precedence", "")).strip().lower()
    return auto.startswith("no") and precedence not in {"bulk", "junk", "list"}


def _bare(address: str) -> str:
    return email.utils.parseaddr(address)[1] or address
