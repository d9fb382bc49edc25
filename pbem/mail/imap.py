"""An IMAP mailbox as a source of player mail (``pbem tick --imap URL``).

The URL is ``imaps://USER@HOST[:PORT]/MAILBOX`` (TLS from the start, port 993)
or ``imap://USER@HOST[:PORT]/MAILBOX`` (port 143, upgraded with STARTTLS; a
server on the loopback interface that offers no STARTTLS is spoken to in the
clear, as a local dovecot often is).  The mailbox defaults to ``INBOX``.  The
password comes from ``--imap-password-file`` or ``$PBEM_IMAP_PASSWORD``; a URL
that carries one is refused (without repeating it), so that it never sits in a
shell history, a crontab or a process list.

Messages are read with ``BODY.PEEK[]`` (which leaves them unseen) in UID order,
after the highest UID already recorded for this mailbox and UIDVALIDITY (in the
store's ``intake`` table).  ``\\Seen`` is set on a message only once its
judgement and reply are committed; a pass first sets it on any recorded message
still unseen (a crash between the commit and the flag).  If the server changes
the mailbox's UIDVALIDITY, every message is read again, and those recorded
before are recognised by their bytes or Message-ID and skipped.
"""

from __future__ import annotations

import imaplib
import io
import ipaddress
import re
import ssl
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pbem.mail.readers import Incoming

PASSWORD_ENV = "PBEM_IMAP_PASSWORD"
MAX_PER_PASS = 200


class ImapError(ValueError):
    """The mailbox cannot be read: says which server and why (never the password)."""


@dataclass(frozen=True)
class ImapSource:
    host: str
    port: int
    user: str
    mailbox: str
    security: str  # "ssl" or "starttls"
    password: str = ""
    timeout: float = 30.0
    ssl_context: ssl.SSLContext | None = None

    @property
    def name(self) -> str:
        return f"imap {self.user}@{self.host}:{self.port}/{self.mailbox}"

    def __repr__(self) -> str:  # never the password
        return f"ImapSource({self.name!r}, {self.security})"


def parse_url(url: str, password: str | None) -> ImapSource:
    """An :class:`ImapSource` from ``imap[s]://USER@HOST[:PORT]/MAILBOX``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ImapError("--imap is not a URL of the form imaps://USER@HOST[:PORT]/MAILBOX") from None
    if parts.scheme not in ("imap", "imaps"):
        raise ImapError(
            f"--imap must start with imaps:// or imap://, not {parts.scheme + '://' if parts.scheme else 'nothing'}"
        )
    if parts.password is not None:
        raise ImapError(
            f"--imap URL for {parts.hostname} carries a password: give it in --imap-password-file or ${PASSWORD_ENV}, never on the command line"
        )
    if not parts.username or not parts.hostname:
        raise ImapError("--imap needs a user and a host: imaps://USER@HOST[:PORT]/MAILBOX")
    if password is None:
        raise ImapError(
            f"no IMAP password for {unquote(parts.username)}@{parts.hostname}: give --imap-password-file FILE or set ${PASSWORD_ENV}"
        )
    mailbox = unquote(parts.path.lstrip("/")) or "INBOX"
    secure = parts.scheme == "imaps"
    return ImapSource(
        parts.hostname,
        port or (993 if secure else 143),
        unquote(parts.username),
        mailbox,
        "ssl" if secure else "starttls",
        password,
    )


def read_password(file: Path | None) -> str | None:
    """The IMAP password: ``--imap-password-file`` or ``$PBEM_IMAP_PASSWORD``."""
    from pbem.mail.smtp import read_password as read_secret

    return read_secret(file, PASSWORD_ENV, ImapError, "IMAP password file")


_UIDVALIDITY = re.compile(rb"UIDVALIDITY (\d+)")


class Mailbox:
    """One logged-in IMAP session on one mailbox (use :func:`open_mailbox`)."""

    def __init__(self, source: ImapSource, client: imaplib.IMAP4, uidvalidity: int) -> None:
        self.source = source
        self.client = client
        self.uidvalidity = uidvalidity

    @property
    def name(self) -> str:
        return self.source.name

    def _uids(self, *criteria: str) -> list[int]:
        status, data = self.client.uid("SEARCH", *criteria)
        if status != "OK":
            raise ImapError(f"{self.name}: SEARCH failed: {data!r}")
        return sorted(int(x) for x in (data[0] or b"").split())

    def unseen(self) -> list[int]:
        return self._uids("UNSEEN")

    def mark_seen(self, uids: Iterable[int]) -> None:
        uids = list(uids)
        if uids:
            self.client.uid("STORE", ",".join(map(str, uids)), "+FLAGS.SILENT", r"(\Seen)")

    def fetch(self, uid: int) -> bytes | None:
        status, data = self.client.uid("FETCH", str(uid), "(BODY.PEEK[])")
        if status != "OK":
            raise ImapError(f"{self.name}: FETCH of UID {uid} failed: {data!r}")
        for item in data:
            if isinstance(item, tuple) and len(item) == 2:
                return bytes(item[1])
        return None  # expunged meanwhile

    def messages(self, after: int = 0) -> list[Incoming]:
        """The messages with a UID above ``after`` (at most ``MAX_PER_PASS``)."""
        out = []
        for uid in [u for u in self._uids("UID", f"{after + 1}:*") if u > after][:MAX_PER_PASS]:
            raw = self.fetch(uid)
            if raw is None:
                continue
            out.append(
                Incoming(
                    f"{self.name}: UID {uid}",
                    lambda raw=raw: io.BytesIO(raw),
                    self.name,
                    str(uid),
                    uid,
                    self.uidvalidity,
                    after=lambda uid=uid: self.mark_seen([uid]),
                )
            )
        return out


@contextmanager
def open_mailbox(source: ImapSource) -> Iterator[Mailbox]:
    """Connect, secure, log in and select; :class:`ImapError` names what failed."""
    where = f"{source.host}:{source.port}"
    context = source.ssl_context or ssl.create_default_context()
    try:
        if source.security == "ssl":
            client: imaplib.IMAP4 = imaplib.IMAP4_SSL(
                source.host, source.port, ssl_context=context, timeout=source.timeout
            )
        else:
            client = imaplib.IMAP4(source.host, source.port, timeout=source.timeout)
    except (TimeoutError, OSError, imaplib.IMAP4.error) as exc:
        raise ImapError(f"cannot reach IMAP server {where}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        try:
            if source.security == "starttls":
                if "STARTTLS" in client.capabilities:
                    client.starttls(ssl_context=context)
                elif not _loopback(source.host):
                    raise ImapError(
                        f"IMAP server {where} offers no STARTTLS: use imaps:// (the password is not sent in the clear)"
                    )
            try:
                client.login(source.user, source.password)
            except imaplib.IMAP4.error:
                raise ImapError(
                    f"IMAP server {where} refused the login of {source.user!r}: check the user and the password"
                ) from None
            status, data = client.select(_quoted(source.mailbox))
            if status != "OK":
                raise ImapError(f"IMAP server {where} has no mailbox {source.mailbox!r} for {source.user!r}")
            validity = client.untagged_responses.get("UIDVALIDITY", [b"0"])[0]
            uidvalidity = int(validity) if validity else 0
        except (OSError, imaplib.IMAP4.error, ssl.SSLError) as exc:
            raise ImapError(f"IMAP server {where}: {exc}") from None
        yield Mailbox(source, client, uidvalidity)
    finally:
        try:
            client.logout()
        except (OSError, imaplib.IMAP4.error):
            pass


def _loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost: a server on this very machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check(source: ImapSource) -> str:
    """Log in, select the mailbox and log out; what worked in words.
    :class:`ImapError` says what did not."""
    with open_mailbox(source) as box:
        status, data = box.client.status(_quoted(source.mailbox), "(MESSAGES UNSEEN)")
        counts = data[0].decode("utf-8", "replace") if status == "OK" and data and data[0] else ""
    found = re.search(r"MESSAGES (\d+) UNSEEN (\d+)", counts)
    where = f"mailbox {source.mailbox} selected"
    return f"logged in as {source.user}, {where}" + (f" ({found[1]} messages, {found[2]} unseen)" if found else "")
