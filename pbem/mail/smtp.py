"""Sending mail over SMTP (``pbem send``; receipts from ``pbem ingest --smtp``).

Plain SMTP, STARTTLS or implicit TLS (SMTPS, usually port 465), and AUTH when a
user name is given.  AUTH is refused over an unencrypted link unless the caller
says ``allow_plain_auth`` (a local relay on loopback, say), so a password is not
sent in the clear by accident.
"""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Sequence
from email.message import EmailMessage


class SendError(ValueError):
    """A message could not be sent; says which and why."""


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

    Each message goes to the addresses in its own To/Cc/Bcc headers.  Raises
    :class:`SendError` (naming the message) on the first refusal; messages before
    it have been sent."""
    if not messages:
        return 0
    context = ssl_context or ssl.create_default_context()
    try:
        if implicit_tls:
            client: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(host, port, timeout=timeout)
    except (OSError, smtplib.SMTPException) as exc:
        raise SendError(f"cannot connect to SMTP server {host}:{port}: {exc}") from None
    sent = 0
    with client:
        try:
            client.ehlo()
            if starttls:
                client.starttls(context=context)
                client.ehlo()
            if username is not None:
                if not (starttls or implicit_tls or allow_plain_auth):
                    raise SendError(f"refusing to send the password for {username!r} to {host}:{port} unencrypted (use STARTTLS or TLS)")
                client.login(username, password or "")
        except (OSError, smtplib.SMTPException) as exc:
            raise SendError(f"SMTP server {host}:{port}: {exc}") from None
        for msg in messages:
            try:
                refused = client.send_message(msg)
            except (OSError, smtplib.SMTPException) as exc:
                raise SendError(f"message {msg.get('Message-ID', '?')} to {msg.get('To', '?')} not sent: {exc}") from None
            if refused:
                raise SendError(f"message {msg.get('Message-ID', '?')}: recipients refused: {', '.join(refused)}")
            sent += 1
    return sent
