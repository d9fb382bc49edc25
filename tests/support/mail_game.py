"""A Farrapos game whose players have e-mail addresses, and a loopback SMTP server
(aiosmtpd) collecting what is sent."""

from __future__ import annotations

import socket

import pytest
from aiosmtpd.controller import Controller

from tests.conftest import Table


class Collector:
    def __init__(self) -> None:
        self.messages: list[bytes] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(envelope.original_content or envelope.content)
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def smtp_server():
    handler = Collector()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


def game_with_mail(table: Table) -> Table:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    r = table.run(
        "new",
        "mail1",
        "--rules",
        "farrapos",
        "--player",
        f"republic={rep}",
        "--player",
        f"empire={emp}",
        "--email",
        "republic=alice@example.org",
        "--email",
        "empire=bob@example.org",
    )
    assert r.exit_code == 0, r.stderr
    return table
