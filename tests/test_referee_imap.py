"""IMAP intake against a real IMAP server that the tests start (dovecot, see
tests/support/imap_server.py), with receipts delivered through a real SMTP server."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from tests.conftest import Table
from tests.support.imap_server import Dovecot, password
from tests.support.mailkit import SmtpServer, plain_mail, signed_reply
from tests.support.referee_game import EMP, REFEREE, REP, game, turn_file

pytestmark = pytest.mark.usefixtures("maps_drawn_once")


@pytest.fixture
def trusted(dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch) -> Dovecot:
    """The server's self-signed certificate trusted (its STARTTLS is taken)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(dovecot.ca_file))
    return dovecot


def test_imap_intake_marks_seen_after_commit_and_never_judges_twice(
    table: Table, trusted: Dovecot, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    dovecot = trusted
    game(table)
    private, _ = table.key("republic")
    dovecot.deliver("referee", plain_mail("buy@spam.example", REFEREE, "Buy now", "cheap", "<spam-imap@spam.example>"))
    dovecot.deliver(
        "referee",
        signed_reply(
            turn_file(table, "g1", "republic"),
            private,
            REP,
            REFEREE,
            "orders",
            "<imap-orders@example.org>",
            time.time() + 1,
        ),
    )
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", password("referee"))
    args = ("tick", "--imap", dovecot.url("referee"), "--smtp", smtp.address, "--sender", REFEREE)
    r = table.run(*args)
    assert r.exit_code == 0, r.stderr
    assert "accepted: imap referee@127.0.0.1" in r.stdout and "refused: imap referee@127.0.0.1" in r.stdout
    assert all(seen for _uid, _raw, seen in dovecot.fetch_all("referee")), (
        "\\Seen is set once the judgement is committed"
    )
    con = sqlite3.connect(table.db)
    intake = con.execute("SELECT uid, uidvalidity, verdict, message_id FROM intake ORDER BY uid").fetchall()
    con.close()
    assert [(u, v) for u, _val, v, _m in intake] == [(1, "refused"), (2, "accepted")]
    assert all(val for _u, val, _v, _m in intake), "UIDVALIDITY is recorded"
    receipts = [m for m in smtp.handler.parsed() if m["X-Pbem-Verdict"]]
    assert [m["In-Reply-To"] for m in receipts] == ["<imap-orders@example.org>"], "spam is not answered"
    # A new message is read; the old ones are not judged again.
    _, _emp_pub = table.key("empire")
    dovecot.deliver("referee", plain_mail(EMP, REFEREE, "hello", "no orders yet", "<chat-imap@example.org>"))
    r = table.run(*args)
    assert r.exit_code == 0, r.stderr
    con = sqlite3.connect(table.db)
    assert con.execute("SELECT COUNT(*) FROM intake").fetchone()[0] == 3
    assert con.execute("SELECT COUNT(*) FROM submission").fetchone()[0] == 1
    con.close()
    status = json.loads(table.run("status", "g1", "--json").stdout)
    assert status["turn"] == 2 and status["awaiting"] == ["empire"], (
        "the republic alone was due: its file resolved turn 1"
    )


def test_a_wrong_imap_password_is_named_without_the_password(
    table: Table, trusted: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    dovecot = trusted
    game(table)
    before = table.dump()
    pw = table.tmp / "imap-password"
    pw.write_text("not-the-password\n")
    monkeypatch.delenv("PBEM_IMAP_PASSWORD", raising=False)
    r = table.run("tick", "--imap", dovecot.url("referee"), "--imap-password-file", str(pw))
    assert r.exit_code == 1
    assert f"IMAP server 127.0.0.1:{dovecot.port} refused the login of 'referee'" in r.stderr
    assert "not-the-password" not in r.stderr + r.stdout
    r = table.run("tick", "--imap", dovecot.url("referee", "Nowhere"), "--imap-password-file", str(pw))
    assert r.exit_code == 1
    assert table.dump() == before


@pytest.mark.parametrize("scheme", ["imap", "imaps"])
def test_imap_over_starttls_and_tls_checks_the_certificate(
    table: Table, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch, scheme: str
) -> None:
    """The IMAP port offers STARTTLS (taken) and IMAPS is TLS from the start; both
    verify the server's certificate, so an untrusted one is refused."""
    game(table)
    private, _ = table.key("republic")
    dovecot.deliver(
        "empire",
        signed_reply(
            turn_file(table, "g1", "republic"), private, REP, REFEREE, "orders", f"<tls-{scheme}@example.org>"
        ),
    )
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", password("empire"))
    monkeypatch.setenv("SSL_CERT_FILE", str(table.tmp / "no-such-ca.pem"))
    r = table.run("tick", "--imap", dovecot.url("empire", scheme=scheme))
    assert r.exit_code == 1 and "certificate verify failed" in r.stderr, r.stderr
    assert dovecot.ca_file is not None
    monkeypatch.setenv("SSL_CERT_FILE", str(dovecot.ca_file))
    r = table.run("tick", "--imap", dovecot.url("empire", scheme=scheme))
    assert r.exit_code == 0, r.stderr
    assert (
        f"accepted: imap empire@127.0.0.1:{dovecot.tls_port if scheme == 'imaps' else dovecot.port}/INBOX" in r.stdout
    )


def test_a_loopback_imap_server_without_starttls_is_read_in_the_clear(
    table: Table, dovecot_plain: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """imap:// to 127.0.0.1 when the server offers no STARTTLS (a local dovecot):
    read in the clear; to any other host this is refused (docs/formats.md)."""
    game(table)
    private, _ = table.key("republic")
    dovecot_plain.deliver(
        "referee",
        signed_reply(turn_file(table, "g1", "republic"), private, REP, REFEREE, "orders", "<plain@example.org>"),
    )
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", password("referee"))
    r = table.run("tick", "--imap", dovecot_plain.url("referee"))
    assert r.exit_code == 0, r.stderr
    assert "accepted: imap referee@127.0.0.1" in r.stdout
    assert all(seen for _uid, _raw, seen in dovecot_plain.fetch_all("referee"))
