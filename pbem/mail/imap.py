"""An IMAP mailbox as a source of player mail (``pbem tick --imap URL``).

The URL is ``imaps://USER@HOST[:PORT]/MAILBOX`` (TLS from the start, port 993)
or ``imap://USER@HOST[:PORT]/MAILBOX`` (port 143, upgraded with STARTTLS; a
server on the loopback interface that offers no STARTTLS is spoken to in the
clear, as a local dovecot often is).  The mailbox defaults to ``INBOX``.  The
password comes from ``--imap-password-file`` or ``$PBEM_IMAP_PASSWORD``; a URL
that carries one is refused (without repeating it), so that it never sits in a
shell history, a crontab or a process list.

Messages are read with ``BODY.PEEK[]<0.N>`` (which leaves them unseen; N is
one byte over the mail limit, so no honest literal is larger) in UID order,
after the highest UID already recorded for this mailbox and UIDVALIDITY (in the
store's ``intake`` table).  ``\\Seen`` is set on a message only once its
judgement and reply are committed; a pass first sets it on any recorded message
still unseen (a crash between the commit and the flag).  If the server changes
the mailbox's UIDVALIDITY, every message is read again, and those recorded
before are recognised by their bytes or Message-ID and skipped.

The server is a stranger: every read is bounded (pbem/mail/wire.py: a deadline
for the whole conversation, a line and a literal size limit), every answer used
is parsed strictly, and whatever goes wrong is an :class:`ImapError` naming the
server, never a traceback.  A FETCH the server refuses leaves that one message
out of the pass (:meth:`Mailbox.messages`).
"""

from __future__ import annotations

import imaplib
import io
import ipaddress
import re
import socket
import ssl
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast
from urllib.parse import unquote, urlsplit

from pbem.mail.intake import MAX_MESSAGE_BYTES
from pbem.mail.readers import Incoming
from pbem.mail.wire import DEFAULT_DEADLINE, BoundedReader, Deadline, send_all

PASSWORD_ENV = "PBEM_IMAP_PASSWORD"
MAX_PER_PASS = 200
MAX_LITERAL = MAX_MESSAGE_BYTES + 1
"""The largest literal read: a message is fetched as its first ``MAX_MESSAGE_BYTES
+ 1`` bytes (``BODY.PEEK[]<0.N>``), which is enough to refuse it as oversized."""
MAX_LINE = 1 << 20
"""The longest line of an answer (a SEARCH of a large mailbox stays under it)."""
MAX_CONVERSATION_BYTES = (MAX_PER_PASS + 2) * (MAX_LITERAL + MAX_LINE)


class ImapError(ValueError):
    """The mailbox cannot be read: says which server and why (never the password).
    ``transient``: a fault of the server or the network (dropped, stalled, a
    malformed answer), not of the referee's configuration; the next pass may
    well succeed."""

    def __init__(self, text: str, transient: bool = False) -> None:
        super().__init__(text)
        self.transient = transient


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
    deadline: float = DEFAULT_DEADLINE
    """Seconds for the whole conversation of one pass (``--mail-deadline``)."""

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
            f"--imap URL for {parts.hostname} carries a password: give it in --imap-password-file or "
            f"${PASSWORD_ENV}, never on the command line"
        )
    if not parts.username or not parts.hostname:
        raise ImapError("--imap needs a user and a host: imaps://USER@HOST[:PORT]/MAILBOX")
    if password is None:
        raise ImapError(
            f"no IMAP password for {unquote(parts.username)}@{parts.hostname}: give --imap-password-file FILE or "
            f"set ${PASSWORD_ENV}"
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


_UID = re.compile(rb"\bUID (\d{1,10})\b")
_SIZE = re.compile(rb"\bRFC822\.SIZE (\d{1,12})\b")
_NUMBER = re.compile(rb"\d{1,10}")
_MAX_UID = (1 << 32) - 1


def _number(token: bytes, what: str) -> int:
    """A UID or UIDVALIDITY: 1 to 2**32-1 digits, else :class:`ValueError` naming it."""
    if not _NUMBER.fullmatch(token) or not 0 < int(token) <= _MAX_UID:
        raise ValueError(f"malformed {what} in the server's answer: {token[:40]!r}")
    return int(token)


class _Client(imaplib.IMAP4):
    """imaplib's client with bounded reads (pbem/mail/wire.py): a deadline on
    every read and write, lines of at most :data:`MAX_LINE` bytes, literals of
    at most :data:`MAX_LITERAL` bytes (checked before anything is read), and at
    most :data:`MAX_CONVERSATION_BYTES` read in all."""

    def __init__(self, host: str, port: int, deadline: Deadline, tls: ssl.SSLContext | None) -> None:
        self._deadline = deadline
        self._tls = tls
        self._reader: BoundedReader | None = None
        super().__init__(host, port, timeout=deadline.timeout())

    def _create_socket(self, timeout: float | None) -> socket.socket:
        sock = super()._create_socket(self._deadline.timeout())  # type: ignore[misc]  # imaplib has it; typeshed not
        if self._tls is not None:  # imaps://: TLS from the start
            sock = self._tls.wrap_socket(sock, server_hostname=self.host)
        return sock

    def _bounded(self) -> BoundedReader:
        # After STARTTLS the socket is a new one: what was buffered before it
        # (clear text a man in the middle may have added) is dropped.
        if self._reader is None or self._reader.sock is not self.sock:
            total = self._reader.total if self._reader is not None else 0
            self._reader = BoundedReader(self.sock, self._deadline, MAX_CONVERSATION_BYTES)
            self._reader.total = total
        return self._reader

    def read(self, size: int) -> bytes:
        if size > MAX_LITERAL:
            raise self.abort(f"the server announced a literal of {size} bytes, over the limit of {MAX_LITERAL}")
        data = self._bounded().read(size)
        if len(data) < size:
            raise self.abort("socket error: EOF in a literal")
        return data

    def readline(self) -> bytes:
        line = self._bounded().readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise self.abort(f"a line of the server's answer is over {MAX_LINE} bytes, the limit")
        return line

    def send(self, data: bytes) -> None:  # type: ignore[override]  # imaplib only ever sends bytes
        send_all(self.sock, data, self._deadline)


class Mailbox:
    """One logged-in IMAP session on one mailbox (use :func:`open_mailbox`).

    Every answer is parsed strictly; a failure of the connection (dropped, a
    BYE, a malformed or oversized answer, the deadline) is an :class:`ImapError`
    with ``transient`` set; a FETCH the server refuses (NO or BAD) is one
    message left out of this pass (:meth:`messages`)."""

    def __init__(self, source: ImapSource, client: imaplib.IMAP4, uidvalidity: int) -> None:
        self.source = source
        self.client = client
        self.uidvalidity = uidvalidity
        self.broken: str | None = None
        """Why the connection is no longer usable (nothing more is asked of it)."""

    @property
    def name(self) -> str:
        return self.source.name

    def _call(self, what: str, *args: str) -> tuple[str, list[Any]]:
        """``client.uid(*args)``; any failure of the connection becomes an
        :class:`ImapError` (and the mailbox is broken); a BAD answer is
        returned as ``("BAD", ...)`` like a NO."""
        if self.broken is not None:
            raise ImapError(f"{self.name}: {what}: the connection failed earlier: {self.broken}", transient=True)
        try:
            return self.client.uid(*args)
        except imaplib.IMAP4.abort as exc:
            self.broken = str(exc) or type(exc).__name__
        except imaplib.IMAP4.error as exc:  # BAD (or a command the client refused): the connection is still sound
            return "BAD", [str(exc).encode("utf-8", "replace")]
        except (OSError, EOFError) as exc:
            self.broken = f"connection lost ({getattr(exc, 'strerror', None) or exc or type(exc).__name__})"
        except Exception as exc:  # an answer imaplib itself could not parse
            self.broken = f"malformed answer ({type(exc).__name__}: {exc})"
        raise ImapError(f"{self.name}: {what}: {self.broken}", transient=True)

    def _uids(self, *criteria: str) -> list[int]:
        status, data = self._call("SEARCH", "SEARCH", *criteria)
        if status != "OK":
            raise ImapError(f"{self.name}: SEARCH refused: {_said(data)}", transient=True)
        uids: set[int] = set()
        for line in data:
            if line is None:
                continue
            if not isinstance(line, bytes):
                raise ImapError(f"{self.name}: malformed SEARCH answer (a literal)", transient=True)
            try:
                uids.update(_number(token, "UID") for token in line.split())
            except ValueError as exc:
                raise ImapError(f"{self.name}: SEARCH: {exc}", transient=True) from None
        return sorted(uids)

    def unseen(self) -> list[int]:
        return self._uids("UNSEEN")

    def mark_seen(self, uids: Iterable[int]) -> None:
        uids = list(uids)
        if uids:
            status, data = self._call("STORE", "STORE", ",".join(map(str, uids)), "+FLAGS.SILENT", r"(\Seen)")
            if status != "OK":
                raise ImapError(f"{self.name}: STORE \\Seen refused: {_said(data)}", transient=True)

    def _mark_seen_after(self, uid: int) -> None:
        """Once a message's judgement is committed: a failure here is harmless
        (the next pass sets ``\\Seen`` on every recorded message still unseen)."""
        try:
            self.mark_seen([uid])
        except ImapError:
            pass

    def fetch(self, uid: int) -> bytes | None:
        """The message (its first ``MAX_MESSAGE_BYTES + 1`` bytes: enough to
        know it is over the limit), or None when it is gone (expunged meanwhile).
        :class:`FetchRefused` when the server answers NO or BAD."""
        status, data = self._call(f"FETCH of UID {uid}", "FETCH", str(uid), f"(UID BODY.PEEK[]<0.{MAX_LITERAL}>)")
        if status != "OK":
            raise FetchRefused(f"{self.name}: the server refused to FETCH UID {uid}: {status} {_said(data)}")
        for item in data:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], bytes):
                found = _UID.search(item[0])
                if found is not None and int(found.group(1)) == uid and b"BODY[]" in item[0].upper():
                    return bytes(item[1])
        return None

    def messages(self, start: int = 1, skip: Collection[int] = ()) -> Fetched:
        """The messages with a UID from ``start`` on, but not those in ``skip``
        (at most ``MAX_PER_PASS``), as far as the server gives them: a FETCH it
        refuses leaves that message out (``refused``); a connection that fails
        ends the reading (``failure``, and the message being fetched counts as
        refused too), with what was read before it kept."""
        out = Fetched()
        for uid in [u for u in self._uids("UID", f"{max(start, 1)}:*") if u >= start and u not in skip][:MAX_PER_PASS]:
            try:
                raw = self.fetch(uid)
            except FetchRefused as exc:
                out.refused.append((uid, str(exc)))
                continue
            except ImapError as exc:
                out.refused.append((uid, str(exc)))
                out.failure = str(exc)
                break
            if raw is None:
                continue
            out.messages.append(
                Incoming(
                    f"{self.name}: UID {uid}",
                    partial(io.BytesIO, raw),
                    self.name,
                    str(uid),
                    uid,
                    self.uidvalidity,
                    after=partial(self._mark_seen_after, uid),
                )
            )
        return out


class FetchRefused(ImapError):
    """The server answered NO or BAD to the FETCH of one message."""


@dataclass
class Fetched:
    messages: list[Incoming] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)
    """(UID, why): messages left out of this pass."""
    failure: str | None = None
    """Why the reading stopped early (the connection failed)."""


def _said(data: object) -> str:
    """The text of a server's refusal, short and printable."""
    parts = data if isinstance(data, list) else [data]
    text = b" ".join(p for p in parts if isinstance(p, bytes)).decode("utf-8", "replace")
    return repr(text[:200])


@contextmanager
def open_mailbox(source: ImapSource) -> Iterator[Mailbox]:
    """Connect, secure, log in and select; :class:`ImapError` names what failed
    (``transient`` unless the server refused the referee's configuration: the
    login, the mailbox, a missing STARTTLS, an untrusted certificate)."""
    where = f"{source.host}:{source.port}"
    context = source.ssl_context or ssl.create_default_context()
    deadline = Deadline(source.deadline, source.timeout)
    try:
        client = _Client(source.host, source.port, deadline, context if source.security == "ssl" else None)
    except ssl.SSLCertVerificationError as exc:
        raise ImapError(f"cannot reach IMAP server {where}: {exc}") from None
    except (OSError, imaplib.IMAP4.error) as exc:
        raise ImapError(
            f"cannot reach IMAP server {where}: {getattr(exc, 'strerror', None) or exc}", transient=True
        ) from None
    except Exception as exc:  # a greeting imaplib could not parse
        raise ImapError(
            f"IMAP server {where}: malformed greeting ({type(exc).__name__}: {exc})", transient=True
        ) from None
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
            except imaplib.IMAP4.abort:
                raise
            except imaplib.IMAP4.error:
                raise ImapError(
                    f"IMAP server {where} refused the login of {source.user!r}: check the user and the password"
                ) from None
            status, data = client.select(_quoted(source.mailbox))
            if status != "OK":
                raise ImapError(f"IMAP server {where} has no mailbox {source.mailbox!r} for {source.user!r}")
            validities = client.untagged_responses.get("UIDVALIDITY") or [b"0"]
            validity = validities[-1]
            uidvalidity = 0 if validity in (b"0", None) else _number(cast(bytes, validity), "UIDVALIDITY")
        except ssl.SSLCertVerificationError as exc:
            raise ImapError(f"IMAP server {where}: {exc}") from None
        except ImapError:
            raise
        except (OSError, EOFError, imaplib.IMAP4.error, ssl.SSLError) as exc:
            raise ImapError(f"IMAP server {where}: {exc or type(exc).__name__}", transient=True) from None
        except Exception as exc:  # an answer imaplib could not parse, a malformed UIDVALIDITY
            raise ImapError(
                f"IMAP server {where}: malformed answer ({type(exc).__name__}: {exc})", transient=True
            ) from None
        yield Mailbox(source, client, uidvalidity)
    finally:
        try:
            if deadline.left() > 0:
                client.logout()
            else:
                client.shutdown()
        except Exception:  # the session is over either way
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
