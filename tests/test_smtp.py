"""Sending reports over SMTP: a real SMTP server (aiosmtpd on
loopback) receives each side's report, parsed back with the standard library."""

from __future__ import annotations

import email
import email.policy
import socket
import ssl
from email.message import EmailMessage
from types import SimpleNamespace

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbem.mail import wire
from pbem.mail.smtp import SendError, SmtpServer, send
from pbem.reports.message import report_email, thread_root_id
from tests.support.fault_servers import SmtpFaultServer
from tests.support.imap_server import self_signed_certificate
from tests.support.report_data import report_data

REFEREE = "Referee <referee@pbem.example>"

pytestmark = [
    pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning"),
    pytest.mark.filterwarnings("ignore:Session.login_data is deprecated:DeprecationWarning"),
]


class Collector:
    def __init__(self) -> None:
        self.envelopes = []

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server():
    collector = Collector()
    controller = Controller(collector, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller, collector
    controller.stop()


def side_reports():
    """Each side its own report: republic is due, empire waits."""
    return [
        report_email(report_data(side="republic", awaiting=("republic",)), REFEREE, "rep@example.org", None),
        report_email(report_data(side="empire", awaiting=("republic",)), REFEREE, "emp@example.org", None),
    ]


def test_send_delivers_each_side_its_report_with_both_parts_the_png_the_turn_file_and_threading(server):
    controller, collector = server
    assert send(side_reports(), controller.hostname, controller.port) == 2
    assert [env.rcpt_tos for env in collector.envelopes] == [["rep@example.org"], ["emp@example.org"]]
    assert all(env.mail_from == "referee@pbem.example" for env in collector.envelopes)
    rep, emp = (
        email.message_from_bytes(env.original_content, policy=email.policy.default) for env in collector.envelopes
    )

    assert rep["Subject"] == "[pbem g1] resolution 4 - 1837, turn 3: your move"
    assert rep["Message-ID"] == "<pbem.g1.k3.republic@pbem.invalid>"
    assert rep["In-Reply-To"] == rep["References"] == thread_root_id("g1", "republic")
    text = rep.get_body(preferencelist=("plain",)).get_content()
    html = rep.get_body(preferencelist=("html",)).get_content()
    assert "YOUR MOVE" in text and "Your move" in html
    (png,) = [p for p in rep.walk() if p.get_content_type() == "image/png"]
    assert png.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"cid:{png['Content-ID'].strip('<>')}" in html
    (attachment,) = list(rep.iter_attachments())
    assert attachment.get_filename() == "turn-g1-4-republic.txt"
    assert attachment.get_content().startswith("game: g1\nrules: farrapos\nside: republic\nturn: 4\n")

    assert emp["Subject"] == "[pbem g1] resolution 3 - 1836, turn 3 (Republic): report"
    assert emp["In-Reply-To"] == thread_root_id("g1", "empire")
    assert "Your move" not in emp.get_body(preferencelist=("html",)).get_content()


def test_send_with_auth(tmp_path):
    collector = Collector()
    seen = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        seen.append((mechanism, auth_data.login, auth_data.password))
        return AuthResult(success=auth_data.login == b"referee" and auth_data.password == b"s3cret", handled=False)

    controller = Controller(
        collector,
        hostname="127.0.0.1",
        port=free_port(),
        authenticator=authenticator,
        auth_required=True,
        auth_require_tls=False,
    )
    controller.start()
    try:
        sent = send(
            side_reports()[:1],
            controller.hostname,
            controller.port,
            username="referee",
            password="s3cret",
            allow_plain_auth=True,
        )
        assert sent == 1 and len(collector.envelopes) == 1
        assert seen and seen[0][1:] == (b"referee", b"s3cret")
        with pytest.raises(SendError, match="535|Authentication"):
            send(
                side_reports()[:1],
                controller.hostname,
                controller.port,
                username="referee",
                password="wrong",
                allow_plain_auth=True,
                timeout=10,
            )
        with pytest.raises(SendError, match="unencrypted"):
            send(side_reports()[:1], controller.hostname, controller.port, username="referee", password="s3cret")
    finally:
        controller.stop()


def test_send_with_starttls_and_auth(tmp_path):
    cert_path, key_path = self_signed_certificate(tmp_path)
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert_path, key_path)
    collector = Collector()
    logins = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        logins.append(auth_data.login)
        return AuthResult(success=True, handled=False)

    controller = Controller(
        collector,
        hostname="127.0.0.1",
        port=free_port(),
        tls_context=server_context,
        require_starttls=True,
        authenticator=authenticator,
        auth_required=True,
    )
    controller.start()
    try:
        client_context = ssl.create_default_context(cafile=str(cert_path))
        sent = send(
            side_reports(),
            controller.hostname,
            controller.port,
            starttls=True,
            username="referee",
            password="pw",
            ssl_context=client_context,
        )
        assert sent == 2 and len(collector.envelopes) == 2 and logins == [b"referee"]
        with pytest.raises(SendError):
            send(side_reports(), controller.hostname, controller.port)  # the server requires STARTTLS
    finally:
        controller.stop()


def test_send_names_the_server_it_cannot_reach():
    with pytest.raises(SendError, match=r"127\.0\.0\.1:\d+"):
        send(side_reports(), "127.0.0.1", free_port(), timeout=5)


def test_sending_nothing_connects_to_nothing():
    assert send([], "127.0.0.1", 1) == 0


def test_each_message_of_a_session_has_the_whole_deadline_for_its_answers(monkeypatch):
    """--mail-deadline bounds opening the session and then each message: the
    answers to a message are read on that message's deadline, however long the
    session has been open (the clock of pbem.mail.wire is a counter here, moved
    past the session's first deadline before each message)."""
    clock = [1000.0]
    monkeypatch.setattr(wire, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    with SmtpFaultServer() as smtp:
        with SmtpServer("127.0.0.1", smtp.port, "plain", timeout=30, deadline=60).connect() as connection:
            for n in range(3):
                clock[0] += 100
                msg = EmailMessage()
                msg["From"], msg["To"], msg["Message-ID"] = REFEREE, "rep@example.org", f"<m{n}@pbem.example>"
                msg.set_content(f"message {n}")
                connection.send(msg)
        assert [d.message_id for d in smtp.delivered] == ["<m0@pbem.example>", "<m1@pbem.example>", "<m2@pbem.example>"]
