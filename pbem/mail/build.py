"""E-mail messages: the report of one side, and receipts/refusals for mail intake.

A report e-mail is built to survive mail clients:

    multipart/mixed
      multipart/alternative
        text/plain                 the text report (readable anywhere)
        multipart/related
          text/html                the HTML report; its map is <img src="cid:...">
          image/png                the map rendered from the ruleset's SVG (inline)
      text/plain; name=turn-GAME-K-SIDE.txt   the next turn file (attachment, base64,
                                              so its bytes arrive exactly as written)
      application/json; name=GAME-rK.position.json   the position the report was
                                              written from: ``pbem check FILE
                                              --position`` checks orders offline

The HTML part shows the map as the PNG rather than inline SVG: many clients
(Gmail, Outlook) drop ``<svg>`` in mail.  ``pbem report --format html`` writes the
same page with the SVG inline.

Threading: the Message-ID is deterministic, ``<pbem.GAME.kK.SIDE@pbem.invalid>``,
so resending a report is idempotent (clients and servers drop the repeat); every
report of one side's game is In-Reply-To / References the thread root, the
side's report ``k0`` (the game as created), so a game is one conversation.
"""

from __future__ import annotations

import email.header
import email.message
import email.utils
import hashlib
import re
from collections.abc import Sequence
from email.message import EmailMessage

from typing import TYPE_CHECKING

from pbem.mail.intake import header_line

if TYPE_CHECKING:
    from pbem.report import ReportData

MESSAGE_ID_DOMAIN = "pbem.invalid"
MAP_WIDTH_PX = 1300  # the whole map: at most this wide, else at its own size (counters readable at 100%)
DETAIL_WIDTH_PX = 1000  # the enlarged area of this resolution's action


def id_word(text: str) -> str:
    """``text`` as dot-atom text for a Message-ID (other characters become ``_``)."""
    return re.sub(r"[^A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+", "_", text) or "_"


def report_message_id(game_id: str, k: int, side: str | None, rollback: str = "") -> str:
    """The Message-ID of a report: ``<pbem.GAME.kK.SIDE@pbem.invalid>``; the report
    that announces a rollback to ``k`` is a new message: ``...kK.rollback-J.SIDE...``
    (J the last resolution it set aside)."""
    return f"<pbem.{id_word(game_id)}.k{k}{rollback}.{id_word(side or 'referee')}@{MESSAGE_ID_DOMAIN}>"


def thread_root_id(game_id: str, side: str | None) -> str:
    """The Message-ID every report of one side's game replies to (its report k0)."""
    return report_message_id(game_id, 0, side)


def report_subject(data: ReportData) -> str:
    """``[pbem G] resolution 7 - 1837, turn 3: your move`` (or ``...: report`` /
    ``...: game over``; ``[pbem G] rollback to resolution 2: resolution 6 awaited``)."""
    if any(r.awaits for r in data.rollbacks):
        return f"[pbem {data.game_id}] rollback to resolution {data.k}: resolution {data.next_k} - {data.next_label} awaited"
    if data.over:
        return f"[pbem {data.game_id}] resolution {data.k} - {data.label}: game over"
    if data.your_move:
        return f"[pbem {data.game_id}] resolution {data.next_k} - {data.next_label}: your move"
    return f"[pbem {data.game_id}] resolution {data.k} - {data.label}: report"


def report_email(data: ReportData, sender: str, recipient: str, thread_root_id: str | None) -> EmailMessage:
    """One side's report as a message ready for SMTP (see the module docstring for
    its shape).  ``thread_root_id`` ``None`` means the default root, this side's
    report ``k0``."""
    from pbem.report import close_up, render_html, render_text, svg_to_png, turn_file_name  # the report stack, only when a report is mailed
    from pbem.rules import mapdraw

    announced = [r for r in data.rollbacks if r.awaits]
    message_id = report_message_id(data.game_id, data.k, data.side, f".rollback-{max(announced[-1].discarded)}" if announced else "")
    root = thread_root_id or _default_root(data)
    map_cid = f"map.{id_word(data.game_id)}.k{data.k}@{MESSAGE_ID_DOMAIN}"
    focus = close_up(data.map_svg)
    detail_cid = f"detail.{id_word(data.game_id)}.k{data.k}@{MESSAGE_ID_DOMAIN}" if focus else None
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = recipient
    msg["Subject"] = report_subject(data)
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = message_id
    if root != message_id:
        msg["In-Reply-To"] = root
        msg["References"] = root
    msg["Auto-Submitted"] = "auto-generated"
    msg["X-Pbem-Game"] = data.game_id
    msg["X-Pbem-Resolution"] = str(data.k)
    if data.side:
        msg["X-Pbem-Side"] = data.side
    msg.set_content(render_text(data), subtype="plain", charset="utf-8", cte="quoted-printable")
    has_map = bool(data.map_svg.strip())
    msg.add_alternative(
        render_html(data, map_cid=map_cid if has_map else None, detail_cid=detail_cid if has_map else None),
        subtype="html", charset="utf-8", cte="quoted-printable",
    )
    if has_map:
        html_part = msg.get_payload()[1]
        if focus and detail_cid:
            html_part.add_related(
                svg_to_png(mapdraw.crop(data.map_svg, focus), DETAIL_WIDTH_PX),
                maintype="image",
                subtype="png",
                cid=f"<{detail_cid}>",
                disposition="inline",
                filename=f"map-{id_word(data.game_id)}-k{data.k}-action.png",
            )
        html_part.add_related(
            svg_to_png(data.map_svg, min(MAP_WIDTH_PX, round(mapdraw.width_of(data.map_svg) or MAP_WIDTH_PX))),
            maintype="image",
            subtype="png",
            cid=f"<{map_cid}>",
            disposition="inline",
            filename=f"map-{id_word(data.game_id)}-k{data.k}.png",
        )
    if data.next_turn_file and data.side:
        msg.add_attachment(
            data.next_turn_file.encode("utf-8"),
            maintype="text",
            subtype="plain",
            filename=turn_file_name(data.game_id, data.k, data.side),
        )
    if data.position_file:
        msg.add_attachment(
            data.position_file.encode("utf-8"),
            maintype="application",
            subtype="json",
            filename=data.position_file_name,
        )
    return msg


def _default_root(data: ReportData) -> str:
    return thread_root_id(data.game_id, data.side)


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
) -> EmailMessage:
    """The answer to one incoming message: a receipt with the orders as understood
    (``accepted``), the result of a check (``check_only``), or a refusal listing
    each problem by line.  It replies to the original (In-Reply-To, References,
    ``Re:`` subject) and is marked ``Auto-Submitted: auto-replied`` so other robots
    do not answer it.  Its Message-ID is derived from the original's, so the same
    message never gets two different receipts."""
    original_id = header_line(original, "Message-ID")
    subject = plain_subject(original) or "your orders"
    verdict = ("checked: valid" if accepted else "checked: problems") if check_only else ("accepted" if accepted else "refused")
    msg = EmailMessage()
    msg["From"] = sender
    to = recipient or reply_address(original)
    if to:
        msg["To"] = to
    base = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    msg["Subject"] = f"{base} ({verdict})"
    msg["Date"] = email.utils.formatdate(localtime=False)
    # Without a Message-ID, the header lines identify the message (never str(original):
    # flattening a deeply nested message recurses without bound).
    seed = original_id or "\n".join(f"{name}: {value}" for name, value in _header_items(original))
    msg["Message-ID"] = f"<pbem.receipt.{hashlib.sha256(seed.encode('utf-8', 'replace')).hexdigest()[:24]}@{MESSAGE_ID_DOMAIN}>"
    if original_id:
        msg["In-Reply-To"] = original_id
        refs = header_line(original, "References")
        msg["References"] = f"{refs} {original_id}".strip() if refs else original_id
    msg["Auto-Submitted"] = "auto-replied"
    msg["X-Pbem-Verdict"] = verdict
    from pbem.report import environment  # Jinja, only when a receipt is written

    body = environment().get_template("receipt.txt.j2").render(
        accepted=accepted,
        check_only=check_only,
        lines=list(lines),
        original_id=original_id,
        original_subject=subject,
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


def notice_email(sender: str, to: list[str], subject: str, body: str, message_id: str, game_id: str | None, side: str | None = None, kind: str = "notice") -> EmailMessage:
    """A plain-text notice from the referee (reminder, late notice, rollback,
    player change), threaded under the side's game reports when a side is named."""
    msg = EmailMessage()
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
    msg.set_content(body, subtype="plain", charset="utf-8", cte="quoted-printable")
    return msg


def _header_items(msg: email.message.Message) -> list[tuple[str, str]]:
    try:
        return [(str(name), str(value)) for name, value in msg.items()]
    except Exception:
        return []
