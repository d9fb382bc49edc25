"""One side's report as an e-mail message.

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
side's report ``k0`` (the game as created), so a game is one conversation."""

from __future__ import annotations

import email.header
import email.message
import email.policy
import email.utils
import re
from email.message import EmailMessage
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from pbem.reports.render import ReportData


MESSAGE_ID_DOMAIN = "pbem.invalid"


class _SubjectOnOneLine(email.policy.EmailPolicy):
    """The standard policy, but a Subject is written on one line (up to the 998
    characters RFC 5322 allows): folded, a long subject arrives in some readers
    with a line break or a leading space in it."""

    def _one_line(self, name: str) -> email.policy.EmailPolicy:
        return self.clone(max_line_length=998) if name.lower() == "subject" and self.max_line_length != 998 else self

    def fold(self, name: str, value: str) -> str:
        policy = self._one_line(name)
        return super().fold(name, value) if policy is self else policy.fold(name, value)

    def fold_binary(self, name: str, value: str) -> bytes:
        policy = self._one_line(name)
        return super().fold_binary(name, value) if policy is self else policy.fold_binary(name, value)


MAIL_POLICY = _SubjectOnOneLine()
"""The policy every message the referee writes is built and sent with."""


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
        return (
            f"[pbem {data.game_id}] rollback to resolution {data.k}: resolution {data.next_k} - "
            f"{data.next_label} awaited"
        )
    if data.over:
        return f"[pbem {data.game_id}] resolution {data.k} - {data.label}: game over"
    if data.your_move:
        due = f", {data.deadline_short}" if data.deadline_short else ""
        return f"[pbem {data.game_id}] resolution {data.next_k} - {data.next_label}: your move{due}"
    if data.observer:
        return f"[pbem {data.game_id}] resolution {data.k} - {data.label}: report (observer)"
    return f"[pbem {data.game_id}] resolution {data.k} - {data.label}: report"


def report_email(data: ReportData, sender: str, recipient: str, thread_root_id: str | None) -> EmailMessage:
    """One side's report as a message ready for SMTP (see the module docstring for
    its shape).  ``thread_root_id`` ``None`` means the default root, this side's
    report ``k0``."""
    from pbem.reports.images import svg_to_png
    from pbem.reports.map_look import close_up
    from pbem.reports.render import render_html, render_text, turn_file_name  # the report stack, only when mailed
    from pbem.rules import mapdraw

    announced = [r for r in data.rollbacks if r.awaits]
    message_id = report_message_id(
        data.game_id, data.k, data.side, f".rollback-{max(announced[-1].discarded)}" if announced else ""
    )
    root = thread_root_id or _default_root(data)
    map_cid = f"map.{id_word(data.game_id)}.k{data.k}@{MESSAGE_ID_DOMAIN}"
    focus = close_up(data.map_svg)
    detail_cid = f"detail.{id_word(data.game_id)}.k{data.k}@{MESSAGE_ID_DOMAIN}" if focus else None
    msg = EmailMessage(policy=MAIL_POLICY)
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
        subtype="html",
        charset="utf-8",
        cte="quoted-printable",
    )
    if has_map:
        # set_content and add_alternative made msg multipart/alternative: [plain, html]
        html_part = cast(list[EmailMessage], msg.get_payload())[1]
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
