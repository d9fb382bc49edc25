"""Helpers for the tests of the referee's mail: a real SMTP server (aiosmtpd)
on loopback that keeps what it receives, and players' replies."""

from __future__ import annotations

import email
import email.policy
import email.utils
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from pbem.turnfiles import keys, sshsig
from tests.support.imap_server import free_port


class Collector:
    """An SMTP server's delivery: keeps each message (and may pass it on)."""

    def __init__(self, forward: Callable[[list[str], bytes], None] | None = None) -> None:
        self.messages: list[bytes] = []
        self.forward = forward

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        self.messages.append(raw)
        if self.forward is not None:
            self.forward(list(envelope.rcpt_tos), raw)
        return "250 OK"

    def parsed(self) -> list[EmailMessage]:
        return [email.message_from_bytes(m, policy=email.policy.default) for m in self.messages]  # type: ignore[misc]


class SmtpServer:
    def __init__(self, handler: Collector, port: int) -> None:
        self.handler = handler
        self.port = port
        self.controller: Controller | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer(Collector(), free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def signed_reply(
    turn_file: bytes, private_key: Path, sender: str, to: str, subject: str, message_id: str, when: float | None = None
) -> bytes:
    """A player's mail: the turn file with its inline signature in the body."""
    signature = sshsig.sign(turn_file, keys.load_private_key(private_key))
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg["Date"] = email.utils.formatdate(when if when is not None else time.time())
    msg.set_content(turn_file.decode() + signature)
    return msg.as_bytes()


def plain_mail(
    sender: str, to: str, subject: str, body: str, message_id: str, extra: dict[str, str] | None = None
) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg["Date"] = email.utils.formatdate(time.time())
    for k, v in (extra or {}).items():
        msg[k] = v
    msg.set_content(body)
    return msg.as_bytes()
