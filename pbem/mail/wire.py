"""Bounded socket I/O for the mail conversations (IMAP intake, SMTP delivery).

A mail server is a stranger: it may stall, trickle one byte every few seconds,
send endless lines or announce a literal of 100 GB.  Two bounds hold on every
conversation:

- **time**: a :class:`Deadline` for the whole conversation (``--mail-deadline``,
  default :data:`DEFAULT_DEADLINE` seconds).  Every read and every write sets
  the socket's timeout to what is left of it (at most the per-read timeout), so
  a server that sends a line every 5 s can hold a pass no longer than the
  deadline;
- **size**: :class:`BoundedReader` reads lines of at most a given length and
  at most a given number of bytes in all; a caller checks a literal's announced
  size before asking for it, so nothing is allocated for what is refused.

Both raise :class:`TimeoutError` or :class:`ConnectionError` (``OSError``), which
the IMAP and SMTP modules turn into their own errors naming the server.
"""

from __future__ import annotations

import socket
import time

DEFAULT_DEADLINE = 300.0
"""Seconds for one IMAP intake conversation, and for opening an SMTP session and
for sending each message over it."""

CHUNK = 1 << 16


class Deadline:
    """The end of a conversation: ``seconds`` from now; reads wait at most
    ``per_read`` seconds each, and never past the end."""

    def __init__(self, seconds: float = DEFAULT_DEADLINE, per_read: float = 30.0) -> None:
        self.seconds = seconds
        self.per_read = per_read
        self.ends = time.monotonic() + seconds

    def left(self) -> float:
        return self.ends - time.monotonic()

    def timeout(self) -> float:
        """The socket timeout for the next read or write; :class:`TimeoutError`
        once the deadline has passed."""
        left = self.left()
        if left <= 0:
            raise self.expired()
        return max(min(self.per_read, left), 0.001)

    def expired(self) -> TimeoutError:
        return TimeoutError(f"the conversation took over {self.seconds:g} s, the limit (--mail-deadline)")

    def timed_out(self) -> TimeoutError:
        """What a socket timeout means: the deadline, or a silent server."""
        if self.left() <= 0.01:
            return self.expired()
        return TimeoutError(f"no answer for {self.per_read:g} s")


def send_all(sock: socket.socket, data: bytes, deadline: Deadline) -> None:
    """``sock.sendall`` with the deadline on every chunk."""
    view = memoryview(data)
    while view:
        sock.settimeout(deadline.timeout())
        try:
            sent = sock.send(view[:CHUNK])
        except TimeoutError:
            raise deadline.timed_out() from None
        view = view[sent:]


class BoundedReader:
    """Lines and counted bytes from a socket, with the deadline on every
    ``recv`` and at most ``max_total`` bytes read in all (a file-like object for
    ``smtplib`` and the IMAP client: ``readline(limit)``, ``read(n)``, ``close()``)."""

    def __init__(self, sock: socket.socket, deadline: Deadline, max_total: int) -> None:
        self.sock = sock
        self.deadline = deadline
        self.max_total = max_total
        self.total = 0
        self.buffer = bytearray()
        self.eof = False

    def _fill(self) -> None:
        if self.eof:
            return
        if self.total >= self.max_total:
            raise ConnectionError(f"the server sent over {self.max_total} bytes in one conversation, the limit")
        self.sock.settimeout(self.deadline.timeout())
        try:
            data = self.sock.recv(min(CHUNK, self.max_total - self.total))
        except TimeoutError:
            raise self.deadline.timed_out() from None
        if not data:
            self.eof = True
        self.total += len(data)
        self.buffer += data

    def readline(self, limit: int = -1) -> bytes:
        """Up to and including the next ``\\n``, or ``limit`` bytes, or what is
        left before the end of the stream (as ``io.BufferedReader.readline``)."""
        start = 0
        while True:
            end = self.buffer.find(b"\n", start)
            if end >= 0 and (limit < 0 or end < limit):
                return self._take(end + 1)
            if limit >= 0 and len(self.buffer) >= limit:
                return self._take(limit)
            if self.eof:
                return self._take(len(self.buffer))
            start = len(self.buffer)
            self._fill()

    def read(self, size: int) -> bytes:
        """Exactly ``size`` bytes, or fewer at the end of the stream; the caller
        has checked ``size`` against its own limit."""
        while len(self.buffer) < size and not self.eof:
            self._fill()
        return self._take(min(size, len(self.buffer)))

    def _take(self, n: int) -> bytes:
        out = bytes(self.buffer[:n])
        del self.buffer[:n]
        return out

    def close(self) -> None:
        self.buffer.clear()
