"""Sending mail over SMTP (the outbox's deliveries; ``pbem send``).

Plain SMTP, STARTTLS or implicit TLS (SMTPS, usually port 465), and AUTH when a
user name is given.  AUTH is refused over an unencrypted link unless the caller
says ``allow_plain_auth`` (a local relay on loopback, say), so a password is not
sent in the clear by accident.  A password never appears in a message of this
module: errors name the server and the user only.

Every read is bounded (pbem/mail/wire.py): opening a session (greeting, EHLO,
STARTTLS, AUTH) and sending each message each have ``deadline`` seconds in all,
however the server trickles or repeats its lines, and a server's answers total
at most :data:`MAX_ANSWER_BYTES` a session.
"""

from __future__ import annotations

import os
import smtplib
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from types import TracebackType

from pbem.mail.wire import DEFAULT_DEADLINE, BoundedReader, Deadline, send_all

PASSWORD_ENV = "PBEM_SMTP_PASSWORD"
MAX_ANSWER_BYTES = 1 << 20


class SendError(ValueError):
    """A message could not be sent; says which and why.  ``permanent`` when the
    server refused this message for good (a 5xx answer): retrying will not help."""

    def __init__(self, text: str, permanent: bool = False) -> None:
        super().__init__(text)
        self.permanent = permanent


class LoginError(SendError):
    """The server refused the login (the referee's configuration, not a message)."""


def read_password(
    file: Path | None, env: str, error: type[Exception] = SendError, what: str = "password file"
) -> str | None:
    """A password from a file (its first line) or, failing that, an environment
    variable; never from the command line.  An unreadable file raises ``error``."""
    if file is not None:
        try:
            lines = Path(file).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise error(f"cannot read the {what} {file}: {exc.strerror or exc}") from None
        return lines[0] if lines else ""
    return os.environ.get(env)


@dataclass(frozen=True)
class SmtpServer:
    """Where and how to send: ``security`` is ``plain``, ``starttls`` or ``ssl``."""

    host: str
    port: int
    security: str = "plain"
    username: str | None = None
    password: str | None = None
    allow_plain_auth: bool = False
    timeout: float = 30.0
    ssl_context: ssl.SSLContext | None = None
    deadline: float = DEFAULT_DEADLINE
    """Seconds to open a session, and to send each message (``--mail-deadline``)."""

    @property
    def name(self) -> str:
        return f"{self.host}:{self.port}"

    def connect(self) -> Connection:
        return Connection(self)


class _Client(smtplib.SMTP):
    """smtplib's client with bounded reads and writes: the deadline on every
    ``recv`` and ``send`` (the socket timeout shrinks to what is left of it)."""

    def __init__(self, host: str, port: int, deadline: Deadline, tls: ssl.SSLContext | None) -> None:
        self.deadline = deadline
        self._tls = tls
        super().__init__(host, port, timeout=deadline.per_read)

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = socket.create_connection((host, port), self.deadline.timeout(), self.source_address)
        if self._tls is not None:  # SMTPS: TLS from the start
            sock = self._tls.wrap_socket(sock, server_hostname=host)
        return sock

    def restart(self, deadline: Deadline) -> None:
        """``deadline`` for what follows (a message, QUIT): its writes and the reads
        of its answers, not the reads alone left on the session's first deadline."""
        self.deadline = deadline
        if isinstance(self.file, BoundedReader):
            self.file.deadline = deadline

    def getreply(self) -> tuple[int, bytes]:
        if self.file is None and self.sock is not None:  # a new socket (after STARTTLS: nothing buffered before it)
            self.file = BoundedReader(self.sock, self.deadline, MAX_ANSWER_BYTES)
        return super().getreply()

    def send(self, s: bytes | str) -> None:  # type: ignore[override]  # str or bytes is what smtplib passes
        if isinstance(s, str):
            s = s.encode(self.command_encoding)
        if not self.sock:
            raise smtplib.SMTPServerDisconnected("please run connect() first")
        try:
            send_all(self.sock, s, self.deadline)
        except OSError as exc:
            self.close()
            raise smtplib.SMTPServerDisconnected(f"Server not connected: {exc}") from None


class Connection:
    """One SMTP session: ``with server.connect() as c: c.send(msg)``."""

    def __init__(self, server: SmtpServer) -> None:
        self.server = server
        self.client: _Client | None = None

    def __enter__(self) -> Connection:
        s = self.server
        context = s.ssl_context or ssl.create_default_context()
        try:
            client = _Client(s.host, s.port, Deadline(s.deadline, s.timeout), context if s.security == "ssl" else None)
        except (OSError, smtplib.SMTPException) as exc:
            raise SendError(f"cannot connect to SMTP server {s.name}: {exc}") from None
        except Exception as exc:  # a greeting smtplib could not parse
            raise SendError(f"SMTP server {s.name}: malformed answer ({type(exc).__name__}: {exc})") from None
        self.client = client
        try:
            client.ehlo()
            if s.security == "starttls":
                client.starttls(context=context)
                client.ehlo()
            if s.username is not None:
                if s.security == "plain" and not s.allow_plain_auth:
                    raise LoginError(
                        f"refusing to send the password for {s.username!r} to {s.name} unencrypted (use STARTTLS "
                        "or TLS)"
                    )
                try:
                    client.login(s.username, s.password or "")
                except smtplib.SMTPAuthenticationError as exc:
                    raise LoginError(
                        f"SMTP server {s.name} refused the login of {s.username!r} ({exc.smtp_code}): check the "
                        "user and the password"
                    ) from None
        except SendError:
            self._close()
            raise
        except (OSError, smtplib.SMTPException) as exc:
            self._close()
            raise SendError(f"SMTP server {s.name}: {exc}") from None
        except Exception as exc:  # an answer smtplib could not parse (a broken AUTH challenge, say)
            self._close()
            raise SendError(f"SMTP server {s.name}: malformed answer ({type(exc).__name__}: {exc})") from None
        return self

    def send(self, msg: EmailMessage) -> None:
        """Send one message to the addresses in its To/Cc/Bcc headers; returns only
        once the server accepted it for every recipient."""
        assert self.client is not None, "use the connection in a with block"
        what = f"message {msg.get('Message-ID', '?')} to {msg.get('To', '?')}"
        self.client.restart(Deadline(self.server.deadline, self.server.timeout))
        try:
            refused = self.client.send_message(msg)
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _text in exc.recipients.values()]
            raise SendError(
                f"{what}: recipients refused: {_refusals(exc.recipients)}", permanent=all(c >= 500 for c in codes)
            ) from None
        except (smtplib.SMTPDataError, smtplib.SMTPSenderRefused) as exc:
            raise SendError(
                f"{what} not sent: {exc.smtp_code} {_text(exc.smtp_error)}",
                permanent=exc.smtp_code >= 500 and isinstance(exc, smtplib.SMTPDataError),
            ) from None
        except (OSError, smtplib.SMTPException) as exc:
            raise SendError(f"{what} not sent: {exc}") from None
        except Exception as exc:  # an answer smtplib could not parse
            raise SendError(f"{what} not sent: malformed answer ({type(exc).__name__}: {exc})") from None
        if refused:
            raise SendError(
                f"{what}: recipients refused: {_refusals(refused)}",
                permanent=all(code >= 500 for code, _t in refused.values()),
            )

    def _close(self) -> None:
        if self.client is not None:
            # QUIT gets a short deadline of its own: a session that timed out is not waited for again
            self.client.restart(Deadline(min(self.server.timeout, 5.0), min(self.server.timeout, 5.0)))
            try:
                self.client.quit()
            except (OSError, smtplib.SMTPException):
                self.client.close()
            self.client = None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._close()


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _refusals(recipients: dict) -> str:
    return ", ".join(f"{addr} ({code} {_text(text)})" for addr, (code, text) in recipients.items())


def send(
    messages: Sequence[EmailMessage],
    host: str,
    port: int,
    starttls: bool = False,
    username: str | None = None,
    password: str | None = None,
    *,
    implicit_tls: bool = False,
    ssl_context: ssl.SSLContext | None = None,
    allow_plain_auth: bool = False,
    timeout: float = 30.0,
) -> int:
    """Send every message over one SMTP connection; return how many were sent.

    Raises :class:`SendError` (naming the message) on the first refusal; messages
    before it have been sent."""
    if not messages:
        return 0
    security = "ssl" if implicit_tls else "starttls" if starttls else "plain"
    server = SmtpServer(host, port, security, username, password, allow_plain_auth, timeout, ssl_context)
    sent = 0
    with server.connect() as connection:
        for msg in messages:
            connection.send(msg)
            sent += 1
    return sent


def check(server: SmtpServer) -> str:
    """Connect, EHLO, STARTTLS and log in as configured, then QUIT without
    sending anything; what worked in words.  :class:`SendError` says what did not."""
    with server.connect():
        pass
    how = {"ssl": "TLS", "starttls": "STARTTLS", "plain": "no TLS"}[server.security]
    login = f", logged in as {server.username}" if server.username is not None else ", no login"
    return f"connected ({how}{login})"
