"""The whole mail loop on the real pipeline: `pbem send` to a real SMTP server
on loopback, a player's reply with the signed turn file written into a Maildir,
`pbem ingest` accepting it once (and only once), receipts and refusals."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import sqlite3
import time
from email.message import EmailMessage

import pytest

from pbem.turnfiles import keys, sshsig
from tests.conftest import Table
from tests.support.mail_game import game_with_mail

pytestmark = pytest.mark.usefixtures("maps_drawn_once")


def test_send_then_ingest_reply_then_process(table: Table, smtp_server) -> None:
    t = game_with_mail(table)
    handler, port = smtp_server
    r = t.run("send", "mail1", "--turn", "0", "--smtp", f"127.0.0.1:{port}", "--sender", "referee@example.org")
    assert r.exit_code == 0, r.stderr
    assert len(handler.messages) == 2
    mails = [email.message_from_bytes(m, policy=email.policy.default) for m in handler.messages]
    to_republic = next(m for m in mails if m["To"] == "alice@example.org")
    assert to_republic["Subject"].startswith("[pbem mail1]")
    assert to_republic["Message-ID"] and to_republic.get_content_type() == "multipart/mixed"
    attachment = next(p for p in to_republic.iter_attachments() if p.get_filename().endswith(".txt"))
    template = attachment.get_content()
    assert "side: republic" in template and "turn: 1" in template

    # The player fills the turn with legal orders, signs it inline and replies.
    orders = t.tmp / "orders.txt"
    assert t.run("orders", "mail1", "--side", "republic", "--bot", "greedy", "-o", str(orders)).exit_code == 0
    private, _ = t.key("republic")
    signed = orders.read_bytes() + sshsig.sign(orders.read_bytes(), keys.load_private_key(private)).encode()
    reply = EmailMessage()
    reply["From"] = "alice@example.org"
    reply["To"] = "referee@example.org"
    reply["Subject"] = "Re: " + to_republic["Subject"]
    reply["Message-ID"] = "<reply-1@example.org>"
    reply["In-Reply-To"] = to_republic["Message-ID"]
    reply["Date"] = email.utils.formatdate(time.time())
    quoted = "\n".join("> " + line for line in to_republic.get_body(("plain",)).get_content().splitlines()[:20])
    reply.set_content(signed.decode() + "\n\nOn Sunday the referee wrote:\n" + quoted + "\n")
    garbage = EmailMessage()
    garbage["From"] = "bob@example.org"
    garbage["To"] = "referee@example.org"
    garbage["Subject"] = "lunch?"
    garbage["Message-ID"] = "<lunch@example.org>"
    garbage["Date"] = email.utils.formatdate(time.time() + 1)
    garbage.set_content("Are we still on for lunch?\n")
    inbox = mailbox.Maildir(t.tmp / "inbox", create=True)
    inbox.add(reply.as_bytes())
    inbox.add(garbage.as_bytes())
    outbox = t.tmp / "outbox"

    r = t.run(
        "ingest", "--maildir", str(t.tmp / "inbox"), "--outbox", str(outbox), "--sender", "referee@example.org", "-q"
    )
    assert r.exit_code == 0, r.stderr
    assert "1 accepted, 1 refused" in r.stdout
    answers = [
        email.message_from_bytes(m.as_bytes(), policy=email.policy.default) for m in mailbox.Maildir(outbox).values()
    ]
    assert sorted(a["To"] for a in answers) == ["alice@example.org", "bob@example.org"]
    con = sqlite3.connect(t.db)
    kept = con.execute("SELECT data, reason FROM refusal").fetchall()
    con.close()
    assert len(kept) == 1 and b"lunch" in kept[0][0], "the message with no turn file is kept with its reason"

    # Processing the mailbox again accepts nothing twice.
    r = t.run("ingest", "--maildir", str(t.tmp / "inbox"), "--outbox", str(outbox), "-q")
    assert r.exit_code == 0 and "0 accepted" in r.stdout

    assert t.run("process", "mail1").exit_code == 0
    st = json.loads(t.run("status", "mail1", "--json").stdout)
    assert st["turn"] == 2 and st["awaiting"] == ["empire"]

    handler.messages.clear()
    r = t.run("send", "mail1", "--smtp", f"127.0.0.1:{port}", "--sender", "referee@example.org")
    assert r.exit_code == 0, r.stderr
    to_empire = next(
        email.message_from_bytes(m, policy=email.policy.default) for m in handler.messages if b"bob@example.org" in m
    )
    assert "your move" in to_empire["Subject"]
    assert to_empire["In-Reply-To"] and to_empire["References"]
    html = to_empire.get_body(("html",)).get_content()
    assert "<svg" in html or "cid:" in html
    pngs = [p for p in to_empire.walk() if p.get_content_type() == "image/png"]
    assert pngs and pngs[0].get_content()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ingest_dir_of_signed_files(table: Table) -> None:
    t = game_with_mail(table)
    folder = t.tmp / "drop"
    folder.mkdir()
    path = folder / "turn.txt"
    assert t.run("orders", "mail1", "--side", "republic", "--bot", "random", "-o", str(path)).exit_code == 0
    private, _ = t.key("republic")
    assert t.run("sign", str(path), "--key", str(private)).exit_code == 0
    (folder / "junk.txt").write_text("not a turn file\n")
    r = t.run("ingest", "--dir", str(folder), "-q")
    assert r.exit_code == 0, r.stderr
    assert "1 accepted, 1 refused" in r.stdout
    assert t.count("submission") == 1 and t.count("refusal") == 1
    before = t.dump(skip=())

    r = t.run("ingest", "--dir", str(folder), "-q")  # a rerun: both files seen before
    assert "0 accepted, 0 refused" in r.stdout and "2 skipped" in r.stdout, r.stdout
    assert t.dump(skip=()) == before  # no second "already queued" refusal

    (folder / "junk.txt").write_text("still not a turn file\n")  # new bytes: judged again
    r = t.run("ingest", "--dir", str(folder), "-q")
    assert "0 accepted, 1 refused" in r.stdout and "1 skipped" in r.stdout, r.stdout
    assert t.count("submission") == 1 and t.count("refusal") == 2


def test_ingest_needs_exactly_one_source(table: Table) -> None:
    assert table.run("ingest").exit_code == 2
    r = table.run("ingest", "--maildir", str(table.tmp / "nope"))
    assert r.exit_code == 1 and "no database" in r.stderr
    game_with_mail(table)
    r = table.run("ingest", "--maildir", str(table.tmp / "nope"))
    assert r.exit_code == 1 and "not a Maildir" in r.stderr


def test_send_without_addresses_is_refused(new_farrapos) -> None:
    t = new_farrapos("g1")
    r = t.run("send", "g1", "--smtp", "127.0.0.1:1", "--sender", "referee@example.org")
    assert r.exit_code == 1 and "email address" in r.stderr


def test_report_formats(new_farrapos) -> None:
    t = new_farrapos("g1")
    for fmt, ext in (("html", "html"), ("text", "txt"), ("eml", "eml")):
        out = t.tmp / f"r.{ext}"
        r = t.run("report", "g1", "--side", "republic", "--format", fmt, "-o", str(out))
        assert r.exit_code == 0, r.stderr
        assert out.stat().st_size > 500
    audit_page = t.tmp / "audit.html"
    assert t.run("report", "g1", "--format", "audit", "-o", str(audit_page)).exit_code == 0
    assert "g1" in audit_page.read_text() and "<svg" in audit_page.read_text()
    assert t.run("report", "g1", "--format", "pdf", "-o", str(t.tmp / "x")).exit_code == 2
    r = t.run("report", "g1", "--turn", "9", "-o", str(t.tmp / "x"))
    assert r.exit_code == 1 and "no active resolution 9" in r.stderr
