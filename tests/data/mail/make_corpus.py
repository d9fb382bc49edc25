"""Writes the mail-intake corpus (``*.eml`` beside this file), shaped like what
real mail clients send.  Run it again only to change the corpus:

    .venv/bin/python tests/data/mail/make_corpus.py

Keys are derived from fixed seeds (``player_key``), Ed25519 signatures are
deterministic, so the output is the same every time.  ``EXPECTED`` (in
``corpus.py``) says what ingest must make of each message.
"""

from __future__ import annotations

import base64
import quopri
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE))

from corpus import ACCEPT_ORDERS, STATE, signed  # noqa: E402

REPORT_QUOTE = f"""g1: 1836, turn 3 (Republic)
========================================================================
Farrapos / The Ragamuffin War, 1835-1845

YOUR MOVE: 1837, turn 4. Orders are due from empire, republic.

YOUR NEXT TURN FILE (turn-g1-4-republic.txt, also attached)
------------------------------------------------------------------------
game: g1
rules: farrapos
side: republic
turn: 4
state: {STATE}

# move UNIT from PLACE to PLACE
------------------------------------------------------------------------
"""


def headers(frm: str, subject: str, date: str, mid: str, extra: str = "") -> str:
    return (
        f"Return-Path: <{frm.split('<')[-1].rstrip('>')}>\n"
        "Received: from mail.example.org (mail.example.org [192.0.2.7])\n\tby mx.pbem.example with ESMTPS id "
        f"4Zx; {date}\n"
        f"From: {frm}\nTo: Referee <referee@pbem.example>\nSubject: {subject}\nDate: {date}\nMessage-ID: {mid}\n"
        f"{extra}MIME-Version: 1.0\n"
    )


def b64(data: bytes) -> str:
    text = base64.b64encode(data).decode()
    return "\n".join(text[i : i + 76] for i in range(0, len(text), 76))


REP = "Bento Gonçalves <bento@republic.example>"
EMP = "Caxias <caxias@empire.example>"


def attachment_message(
    mid: str,
    date: str,
    body: str,
    subject: str = "Re: [pbem g1] 1837, turn 4: your move",
    frm: str = REP,
    crlf: bool = False,
) -> str:
    message, signature = signed("republic", body)
    if crlf:  # written on Windows: the signature is over the LF form (CRLF is read as LF)
        message = message.replace(b"\n", b"\r\n")
    return (
        headers(frm, subject, date, mid)
        + f"""Content-Type: multipart/mixed; boundary="------------b0undary1"

This is a multi-part message in MIME format.
--------------b0undary1
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 7bit

My orders are attached.

Bento

--------------b0undary1
Content-Type: text/plain; charset=UTF-8; name="turn-g1-4-republic.txt"
Content-Disposition: attachment; filename="turn-g1-4-republic.txt"
Content-Transfer-Encoding: base64

{b64(message)}
--------------b0undary1
Content-Type: application/octet-stream; name="turn-g1-4-republic.txt.sig"
Content-Disposition: attachment; filename="turn-g1-4-republic.txt.sig"
Content-Transfer-Encoding: base64

{b64(signature.encode())}

--------------b0undary1--
"""
    )


def inline_text(side: str, body: str, key_side: str | None = None, tamper: bool = False) -> str:
    message, signature = signed(side, body, key_side=key_side)
    text = message.decode()
    if tamper:
        text = text.replace("cav-1", "cav-2")
    return text + signature


def main() -> None:
    files: dict[str, str | bytes] = {}
    files["01-attachment.eml"] = attachment_message(
        "<att-1@republic.example>", "Mon, 02 Nov 2026 10:00:00 -0300", ACCEPT_ORDERS["republic"]
    )

    files["02-inline.eml"] = headers(EMP, "orders", "Mon, 02 Nov 2026 11:00:00 -0300", "<inline-1@empire.example>") + (
        "Content-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: 7bit\n\nHere are my orders.\n\n"
        + inline_text("empire", ACCEPT_ORDERS["empire"])
        + "\n-- \nLuís Alves de Lima e Silva\n"
    )

    qp_body = (
        "Ordens em anexo, São Gabriel será nosso.\n\n"
        + inline_text("republic", "# ataque a São Gabriel, já\nmove cav-1 from bage to sao-gabriel\n", key_side=None)
        + "\n"
    )
    files["03-quoted-printable.eml"] = headers(
        REP, "Re: [pbem g1] turn 5", "Tue, 03 Nov 2026 09:00:00 -0300", "<qp-1@republic.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
        + quopri.encodestring(qp_body.encode("utf-8")).decode("ascii")
    )

    b64_body = "orders below\n\n" + inline_text("empire", "move inf-3 from rio-grande to pelotas\n") + "\n"
    files["04-base64.eml"] = headers(EMP, "turn 4", "Tue, 03 Nov 2026 09:30:00 -0300", "<b64-1@empire.example>") + (
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n" + b64(b64_body.encode()) + "\n"
    )

    crlf = attachment_message(
        "<crlf-1@republic.example>",
        "Tue, 03 Nov 2026 10:00:00 -0300",
        "move inf-2 from triunfo to taquari\n",
        subject="orders (Outlook)",
        crlf=True,
    )
    files["05-crlf.eml"] = crlf.replace("\n", "\r\n").encode()

    message, signature = signed("empire", "move inf-4 from porto-alegre to viamao\n")
    divs = "".join(
        f"<div>{line}</div>" if line else "<div><br></div>"
        for line in (message.decode() + signature).rstrip("\n").split("\n")
    )
    html = (
        '<html><head><style>div{font-family:Arial}</style></head><body><div dir="ltr"><div>Orders for turn '
        "4&nbsp;below.</div><div><br></div>"
        + divs
        + '<div><br></div></div><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 2 Nov 2026 '
        "referee wrote:<br></div>"
        '<blockquote class="gmail_quote">game: g1<br>rules: farrapos<br>side: empire<br>turn: 4<br>state: '
        + STATE
        + "<br><br># move UNIT</blockquote></div></body></html>"
    )
    files["06-html-only.eml"] = headers(
        EMP, "Re: [pbem g1] 1837, turn 4: your move", "Tue, 03 Nov 2026 11:00:00 -0300", "<html-1@empire.example>"
    ) + (
        "Content-Type: text/html; charset=UTF-8\nContent-Transfer-Encoding: quoted-printable\n\n"
        + quopri.encodestring(html.encode()).decode("ascii")
        + "\n"
    )

    quoted = "".join("> " + line + "\n" if line else ">\n" for line in REPORT_QUOTE.split("\n"))
    files["07-reply-quote-above.eml"] = headers(
        REP,
        "Re: [pbem g1] 1837, turn 4: your move",
        "Tue, 03 Nov 2026 12:00:00 -0300",
        "<above-1@republic.example>",
        "In-Reply-To: <pbem.g1.k3.republic@pbem.invalid>\n",
    ) + (
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\nOn Mon, 2 Nov 2026 at "
        "10:00, Referee <referee@pbem.example> wrote:\n"
        + quoted
        + "\n"
        + inline_text("republic", "move inf-5 from camaqua to pelotas\n")
    )
    files["08-reply-quote-below.eml"] = headers(
        REP, "Re: [pbem g1] 1837, turn 4: your move", "Tue, 03 Nov 2026 12:30:00 -0300", "<below-1@republic.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
        + inline_text("republic", "move inf-6 from piratini to cangucu\n")
        + "\nOn Mon, 2 Nov 2026 at 10:00, Referee <referee@pbem.example> wrote:\n"
        + quoted
    )
    files["09-reply-outlook-unquoted.eml"] = headers(
        EMP, "RE: [pbem g1] 1837, turn 4: your move", "Tue, 03 Nov 2026 13:00:00 -0300", "<outlook-1@empire.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
        + inline_text("empire", "move inf-7 from rio-pardo to cachoeira\n")
        + "\n-----Original Message-----\nFrom: Referee <referee@pbem.example>\nSent: Monday, 2 November 2026 "
        "10:00\nSubject: [pbem g1] 1837, turn 4: your move\n\n" + REPORT_QUOTE
    )
    # The same turn file as 01, sent again in a new message: the pipeline refuses it as a duplicate.
    files["10-resent-duplicate.eml"] = attachment_message(
        "<att-2@republic.example>",
        "Wed, 04 Nov 2026 08:00:00 -0300",
        ACCEPT_ORDERS["republic"],
        subject="Fwd: my orders again",
    )
    # The very same message delivered twice (another Received line, same Message-ID): skipped.
    first = files["01-attachment.eml"]
    assert isinstance(first, str)
    files["11-redelivered.eml"] = (
        "Received: from relay2.example.org by mx.pbem.example; Mon, 02 Nov 2026 10:05:00 -0300\n" + first
    )
    # Two messages for one turn; the later Date supersedes (written in reverse file order).
    files["12-supersede-a-late.eml"] = headers(
        EMP, "turn 4 orders, changed my mind", "Thu, 05 Nov 2026 18:00:00 -0300", "<sup-late@empire.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\n\n"
        + inline_text("empire", "move inf-9 from pelotas to camaqua\n")
        + "\n"
    )
    files["12-supersede-b-early.eml"] = headers(
        EMP, "turn 4 orders", "Thu, 05 Nov 2026 09:00:00 -0300", "<sup-early@empire.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\n\n"
        + inline_text("empire", "move inf-9 from pelotas to rio-grande\n")
        + "\n"
    )
    files["13-wrong-key.eml"] = headers(
        REP, "orders", "Fri, 06 Nov 2026 09:00:00 -0300", "<wrongkey-1@republic.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\n\n"
        + inline_text("republic", "move inf-1 from triunfo to taquari\n", key_side="stranger")
        + "\n"
    )
    files["14-tampered.eml"] = headers(
        REP, "orders", "Fri, 06 Nov 2026 09:10:00 -0300", "<tampered-1@republic.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\n\n"
        + inline_text("republic", "move cav-1 from bage to dom-pedrito\n", tamper=True)
        + "\n"
    )
    files["15-not-orders.eml"] = headers(
        REP, "are we still on for Thursday?", "Fri, 06 Nov 2026 10:00:00 -0300", "<chat-1@republic.example>"
    ) + (
        "Content-Type: text/plain; charset=utf-8\n\nHi! Are we still playing on Thursday? I'll send my orders "
        "tonight.\nBento\n"
    )
    files["16-garbage.eml"] = bytes(range(256)) * 8 + b"\n\x00\xff not a mail at all \x00\n"
    files["18-check.eml"] = headers(EMP, "check", "Fri, 06 Nov 2026 12:00:00 -0300", "<check-1@empire.example>") + (
        "Content-Type: text/plain; charset=utf-8\n\n"
        + inline_text("empire", "move inf-2 from viamao to porto-alegre\n")
        + "\n"
    )
    files["19-vacation-auto-reply.eml"] = headers(
        EMP,
        "Out of office: [pbem g1] 1837, turn 4: your move",
        "Fri, 06 Nov 2026 12:30:00 -0300",
        "<ooo-1@empire.example>",
        "Auto-Submitted: auto-replied\n",
    ) + ("Content-Type: text/plain; charset=utf-8\n\nI am away until the 20th.\n")
    files["20-no-date.eml"] = (
        f"From: {EMP}\nTo: referee@pbem.example\nSubject: orders\nMessage-ID: "
        "<nodate-1@empire.example>\nContent-Type: text/plain\n\n"
        + inline_text("empire", "move inf-10 from mostardas to viamao\n")
    )
    for name, content in files.items():
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        (HERE / name).write_bytes(data)
    print(f"wrote {len(files)} messages to {HERE}")


if __name__ == "__main__":
    main()
