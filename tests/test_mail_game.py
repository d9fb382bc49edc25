"""A whole game played by mail between two strangers who hold only their key and
the mails they receive.

Each player has a folder of their own and no access to the referee's database.
They do only what the mails tell them: read the text part of each "your move"
mail, save its attachments, run the commands it names (``pbem orders
--position``; one player signs with ``pbem sign``, the other with OpenSSH's
``ssh-keygen -Y sign``) and reply with the signed file attached.  The referee
runs its real ``pbem tick`` over a Maildir, delivering to a real SMTP server
(aiosmtpd) on loopback; bots fill the orders.  At the end a player downloads the
archive from the game's site (a real HTTP server) as the last report says, and
audits it."""

from __future__ import annotations

import email
import email.policy
import functools
import http.server
import json
import mailbox
import os
import re
import shlex
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli.application import app
from pbem.turnfiles import keys
from tests.conftest import Table
from tests.support.imap_server import free_port
from tests.support.mailkit import Collector, SmtpServer

pytestmark = pytest.mark.usefixtures("maps_drawn_once")

REFEREE = "referee@example.org"


@dataclass
class Player:
    """A stranger: a folder, a key, an address, and the mails received."""

    side: str
    address: str
    folder: Path
    signer: str  # "pbem" or "ssh-keygen"
    seed: int
    inbox: list[bytes] = field(default_factory=list)
    read: int = 0
    replies: int = 0

    @property
    def key(self) -> Path:
        return self.folder / "id_ed25519"

    def pbem(self, *args: str) -> str:
        """A pbem command in the player's folder, with no database of the referee's."""
        runner = CliRunner()
        here = os.getcwd()
        os.chdir(self.folder)
        try:
            result = runner.invoke(app, ["--db", str(self.folder / "none.db"), *args], catch_exceptions=False)
        finally:
            os.chdir(here)
        assert result.exit_code == 0, f"{self.side}: pbem {' '.join(args)}: {result.stderr}"
        assert not (self.folder / "none.db").exists()
        return result.stdout

    def new_mail(self) -> Iterator[EmailMessage]:
        while self.read < len(self.inbox):
            raw = self.inbox[self.read]
            self.read += 1
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            yield msg


def _text(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    return body.get_content()


def _command(text: str, starts: str) -> list[str]:
    """The first command line of the mail that starts with ``starts``."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("or: "):
            line = line[4:]
        if line.startswith(starts):
            return shlex.split(line)
    raise AssertionError(f"the mail names no '{starts}' command:\n{text}")


def _answer(player: Player, msg: EmailMessage, maildir: mailbox.Maildir) -> None:
    """What a player does with a "your move" mail, as its text says."""
    for part in msg.iter_attachments():
        name = part.get_filename()
        assert name and "/" not in name
        (player.folder / name).write_bytes(part.get_payload(decode=True))  # type: ignore[arg-type]
    text = _text(msg)
    orders = _command(text, "pbem orders --position")
    turn_file = orders[orders.index("-o") + 1]
    player.pbem(*orders[1:], "--bot", "random", "--seed", str(player.seed))
    player.pbem(*_command(text, "pbem check ")[1:])
    if player.signer == "pbem":
        sign = _command(text, "pbem sign ")
        sign[sign.index("--key") + 1] = str(player.key)
        player.pbem(*sign[1:])
    else:
        sign = _command(text, "ssh-keygen -Y sign")
        sign[sign.index("-f") + 1] = str(player.key)
        subprocess.run(sign, cwd=player.folder, check=True, capture_output=True, timeout=30)
    reply = EmailMessage()
    reply["From"] = player.address
    reply["To"] = REFEREE
    reply["Subject"] = f"Re: {msg['Subject']}"
    player.replies += 1
    reply["Message-ID"] = f"<{player.side}.{player.replies}@players.example>"
    reply["In-Reply-To"] = str(msg["Message-ID"])
    reply.set_content("My orders are attached.\n")
    for name in (turn_file, turn_file + ".sig"):
        reply.add_attachment((player.folder / name).read_bytes(), maintype="text", subtype="plain", filename=name)
    maildir.add(reply.as_bytes())


def _site_server(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.mark.slow
def test_two_strangers_play_a_whole_game_by_mail(table: Table, tmp_path: Path) -> None:
    _play(table, tmp_path, resolutions=None)


def test_two_strangers_play_the_first_resolutions_by_mail_and_audit_them(table: Table, tmp_path: Path) -> None:
    """The default suite's short version: the set-up by mail, then the audit."""
    _play(table, tmp_path, resolutions=1)


def _play(table: Table, tmp_path: Path, resolutions: int | None) -> None:
    """Play until the game ends (``resolutions`` None) or that many are made."""
    players = {
        p.side: p
        for p in (
            Player("franks", "clovis@players.example", tmp_path / "clovis", "pbem", 1),
            Player("visigoths", "alaric@players.example", tmp_path / "alaric", "ssh-keygen", 2),
        )
    }
    for p in players.values():
        p.folder.mkdir()
        keys.generate_ed25519("id_ed25519", p.folder)
    by_address = {p.address: p for p in players.values()}
    smtp = SmtpServer(
        Collector(lambda to, raw: [by_address[a].inbox.append(raw) for a in to if a in by_address]), free_port()
    )
    smtp.start()
    site = tmp_path / "site"
    site.mkdir()
    http_server, url = _site_server(site)
    try:
        args = [
            "new",
            "vg",
            "--rules",
            "furor-barbarus",
            "--scenario",
            "vouille",
            "--deadline",
            "3d",
            "--tz",
            "Europe/Paris",
        ]
        for p in players.values():
            args += ["--player", f"{p.side}={p.key}.pub", "--email", f"{p.side}={p.address}"]
        assert table.run(*args).exit_code == 0
        assert table.run("site", "vg", "-o", str(site), "--site-url", url).exit_code == 0
        inbox = mailbox.Maildir(tmp_path / "referee-mail", create=True)
        tick = ("tick", "--maildir", str(tmp_path / "referee-mail"), "--smtp", smtp.address, "--sender", REFEREE)
        last: EmailMessage | None = None  # the latest report that carries the dice proof
        for _ in range(40):
            r = table.run(*tick)
            assert r.exit_code == 0, r.stderr
            for p in players.values():
                for msg in p.new_mail():
                    subject = str(msg["Subject"])
                    assert "\n" not in subject and not subject.startswith(" ")
                    if msg["X-Pbem-Verdict"] is not None:  # the receipt of a reply
                        assert str(msg["X-Pbem-Verdict"]) == "accepted", _text(msg)
                        continue
                    if "pbem audit --archive" in _text(msg):
                        last = msg
                    if "your move" in subject:
                        assert "Deadline: " in _text(msg) and "Europe/Paris" in _text(msg)
                        _answer(p, msg, inbox)
            status = json.loads(table.run("status", "vg", "--json").stdout)
            if status["over"] or (resolutions is not None and status["resolution"] > resolutions):
                break
        assert last is not None
        if resolutions is None:
            assert status["over"] and str(last["Subject"]).endswith("game over"), "the game did not end"
        assert all(p.replies >= 1 for p in players.values())
        assert table.run("site", "vg", "-o", str(site)).exit_code == 0
        # the last report says where the archive is and how to audit it
        words = " ".join(_text(last).split())
        found = re.search(r"'pbem audit --archive (\S+)' re-derives every die; download it from (\S+)", words)
        assert found, words
        alaric = players["visigoths"]
        with urllib.request.urlopen(found.group(2)) as response:
            (alaric.folder / found.group(1)).write_bytes(response.read())
        out = alaric.pbem("audit", "--archive", found.group(1))
        assert "all checks hold" in out
    finally:
        http_server.shutdown()
        smtp.stop()


@pytest.fixture(autouse=True)
def _no_referee_database_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PBEM_DB", raising=False)
