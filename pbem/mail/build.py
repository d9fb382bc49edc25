"""E-mail messages of the referee's own words: receipts and refusals for mail
intake, and notices (reminders, late notices, rollbacks, player changes).
A report's message is :mod:`pbem.reports.message`."""

from __future__ import annotations

import email.header
import email.message
import email.utils
import hashlib
from collections.abc import Sequence
from email.message import EmailMessage
from typing import TYPE_CHECKING

from pbem.mail.intake import Candidate, header_line

if TYPE_CHECKING:
    pass
from pbem.reports.message import MAIL_POLICY, MESSAGE_ID_DOMAIN, thread_root_id


def reply_address(original: email.message.Message) -> str | None:
    """Where a reply goes: ``Reply-To``, else ``From`` (the bare address)."""
    for header in ("Reply-To", "From"):
        value = original.get(header)
        if value:
            try:
                _name, addr = email.utils.parseaddr(str(value))
            except Exception:  # a header the parser cannot read is no address
                continue
            if addr and "@" in addr:
                return addr
    return None


def receipt_email(
    original: email.message.Message,
    sender: str,
    accepted: bool,
    lines: Sequence[str],
    *,
    check_only: bool = False,
    recipient: str | None = None,
    subject: str | None = None,
    identity: str | None = None,
) -> EmailMessage:
    """The answer to one incoming message: a receipt with the orders as understood
    (``accepted``), the result of a check (``check_only``), or a refusal listing
    each problem by line.  It replies to the original (In-Reply-To, References,
    ``Re:`` subject) and is marked ``Auto-Submitted: auto-replied`` so other robots
    do not answer it.  Its Message-ID is derived from ``identity`` (the message's
    digest: two messages that share a Message-ID get two answers) or else the
    original's Message-ID, so the same message never gets two different receipts.
    ``subject``: the answer's whole Subject, in the referee's words (mail intake
    never echoes the sender's); without it, ``Re:`` the original's."""
    original_id = header_line(original, "Message-ID")
    own_subject = subject
    subject = plain_subject(original) or "your orders"
    verdict = (
        ("checked: valid" if accepted else "checked: problems")
        if check_only
        else ("accepted" if accepted else "refused")
    )
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = sender
    to = recipient or reply_address(original)
    if to:
        msg["To"] = to
    base = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    msg["Subject"] = own_subject or f"{base} ({verdict})"
    msg["Date"] = email.utils.formatdate(localtime=False)
    # Without a Message-ID, the header lines identify the message (never str(original):
    # flattening a deeply nested message recurses without bound).
    seed = identity or original_id or "\n".join(f"{name}: {value}" for name, value in _header_items(original))
    msg["Message-ID"] = (
        f"<pbem.receipt.{hashlib.sha256(seed.encode('utf-8', 'replace')).hexdigest()[:24]}@{MESSAGE_ID_DOMAIN}>"
    )
    if original_id:
        msg["In-Reply-To"] = original_id
        refs = header_line(original, "References")
        msg["References"] = f"{refs} {original_id}".strip() if refs else original_id
    msg["Auto-Submitted"] = "auto-replied"
    msg["X-Pbem-Verdict"] = verdict
    from pbem.reports.render import environment  # Jinja, only when a receipt is written

    body = (
        environment()
        .get_template("receipt.txt.j2")
        .render(
            accepted=accepted,
            check_only=check_only,
            lines=list(lines),
            original_id=original_id,
            original_subject=None if own_subject else subject,
        )
    )
    msg.set_content(body, subtype="plain", charset="utf-8", cte="quoted-printable")
    return msg


def plain_subject(original: email.message.Message) -> str | None:
    """The Subject as clean text: encoded words decoded (bytes that are not text in
    their charset become U+FFFD), control characters dropped, at most 200
    characters.  A subject such as ``=?utf-8?b?/w==?=`` cannot break a reply."""
    value = header_line(original, "Subject")
    if value is None:
        return None
    try:
        parts = email.header.decode_header(value)
    except Exception:
        parts = [(value, None)]
    text = ""
    for chunk, charset in parts:
        if isinstance(chunk, bytes):
            try:
                text += chunk.decode(charset or "utf-8", errors="replace")
            except LookupError:
                text += chunk.decode("utf-8", errors="replace")
        else:
            text += chunk
    text = text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return text[:200] or None


def notice_email(
    sender: str,
    to: list[str],
    subject: str,
    body: str,
    message_id: str,
    game_id: str | None,
    side: str | None = None,
    kind: str = "notice",
    deadline: str | None = None,
) -> EmailMessage:
    """A plain-text notice from the referee (reminder, late notice, rollback,
    player change), threaded under the side's game reports when a side is named."""
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = sender
    msg["To"] = ", ".join(to)
    msg["Subject"] = subject
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = message_id
    if game_id and side:
        root = thread_root_id(game_id, side)
        msg["In-Reply-To"] = root
        msg["References"] = root
    msg["Auto-Submitted"] = "auto-generated"
    msg["X-Pbem-Kind"] = kind
    if game_id:
        msg["X-Pbem-Game"] = game_id
    if side:
        msg["X-Pbem-Side"] = side
    if deadline:  # the deadline the notice speaks of: it is not sent once that has changed
        msg["X-Pbem-Deadline"] = deadline
    msg.set_content(body, subtype="plain", charset="utf-8", cte="quoted-printable")
    return msg


def _header_items(msg: email.message.Message) -> list[tuple[str, str]]:
    try:
        return [(str(name), str(value)) for name, value in msg.items()]
    except Exception:
        return []


def named_in(candidates: Sequence[Candidate]) -> list[tuple[str, str | None]]:
    """The (game, side) each turn file's header names (as written: not yet trusted)."""
    named = []
    for c in candidates:
        fields: dict[str, str] = {}
        for line in c.message[:4096].split(b"\n\n", 1)[0].decode("utf-8", "replace").splitlines():
            key, sep, value = line.partition(":")
            if sep and not line.startswith("#"):
                fields.setdefault(key.strip().lower(), value.strip())
        if fields.get("game"):
            named.append((fields["game"][:64], fields.get("side") or None))
    return named


def reply_subject(game: str | None, verdict: str, ok: bool) -> str:
    """An answer's Subject: the referee's words only, never the sender's."""
    if game is None:
        return "[pbem] message not understood" if not ok else f"[pbem] turn file {verdict}"
    what = {"accepted": "accepted", "refused": "refused", "checked": "checked: valid" if ok else "checked: problems"}
    return f"[pbem {game}] turn file {what.get(verdict, verdict)}"
