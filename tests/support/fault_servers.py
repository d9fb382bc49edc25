"""Scripted mail servers that misbehave on cue: an IMAP server and an SMTP server
on 127.0.0.1, each a small hand-written protocol loop over a socket, that answer
well by default and, at a chosen step, drop the connection, stall, trickle, send
lines without end, refuse (IMAP NO/BAD/BYE, SMTP 4xx/5xx) or send a malformed
answer (a non-numeric UIDVALIDITY or SEARCH result, a literal announced as
100 GB, a line over 1 MB, garbage).

A :class:`Fault` strikes at its step (optionally only for one UID) in the first
``times`` conversations that reach it, then clears, so a test can check that
everything is read and delivered once the fault is gone.  Every wait on the
server's side is bounded (:data:`LIMIT` seconds), so a test never hangs on them;
a stall or an endless answer that lasts until LIMIT (the client never hung up)
is logged as :data:`GAVE_UP`, so a test checks that pbem ended it without
timing anything itself.

The SMTP server counts what it accepted: a message counts once the server has
answered 250 to its final dot, so ``delivered`` is exactly what the client was
told was accepted.
"""

from __future__ import annotations

import re
import socket
import socketserver
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

LIMIT = 30.0
"""The longest any stall or endless answer lasts (the client gives up sooner)."""
TRICKLE = 0.004
"""Seconds between the bytes of a trickled answer's first line (it completes)."""
ENDLESS = 0.05
"""Seconds between the lines of an endless answer (well under any per-read timeout)."""
GAVE_UP = "server gave up: the client never hung up"
"""The log line of a stall or an endless answer that lasted :data:`LIMIT` seconds."""

IMAP_STEPS = ("greeting", "CAPABILITY", "LOGIN", "SELECT", "SEARCH", "FETCH", "STORE")
IMAP_KINDS = ("drop", "stall", "trickle", "endless", "NO", "BAD", "BYE", "malformed", "huge-literal", "long-line")
SMTP_STEPS = ("greeting", "EHLO", "MAIL", "RCPT", "DATA", "END")
SMTP_KINDS = ("drop", "stall", "trickle", "endless", "4xx", "5xx", "malformed", "long-line")


@dataclass
class Fault:
    step: str
    kind: str
    uid: int | None = None
    """IMAP FETCH/STORE: only for this message (None: the first such command)."""
    times: int = 1
    """How many conversations it strikes; then it is gone."""
    struck: int = 0


class _Script:
    """The faults of one server, consumed as they strike (thread-safe)."""

    def __init__(self, faults: list[Fault]) -> None:
        self.faults = list(faults)
        self.lock = threading.Lock()

    def take(self, step: str, struck_here: set[int], uids: list[int] | None = None) -> Fault | None:
        with self.lock:
            for n, fault in enumerate(self.faults):
                if fault.step != step or fault.struck >= fault.times or n in struck_here:
                    continue
                if fault.uid is not None and (uids is None or fault.uid not in uids):
                    continue
                fault.struck += 1
                struck_here.add(n)
                return fault
        return None

    def clear(self) -> None:
        with self.lock:
            self.faults = []


class _Conn:
    """One side of a conversation: line reading and the fault behaviours."""

    def __init__(self, sock: socket.socket, log: list[str]) -> None:
        self.sock = sock
        self.log = log
        self.sock.settimeout(LIMIT)
        self.buffer = b""

    def line(self) -> bytes | None:
        while b"\n" not in self.buffer:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return None
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.rstrip(b"\r")

    def read(self, n: int) -> bytes | None:
        while len(self.buffer) < n:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return None
            if not data:
                return None
            self.buffer += data
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, data: bytes) -> bool:
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def trickle(self, data: bytes) -> bool:
        first, _, rest = data.partition(b"\n")
        for i in range(len(first) + 1):
            if not self.send((first + b"\n")[i : i + 1]):
                return False
            time.sleep(TRICKLE)
        return self.send(rest)

    def stall(self) -> None:
        """Say nothing until the client hangs up (or LIMIT)."""
        ends = time.monotonic() + LIMIT
        while time.monotonic() < ends:
            try:
                self.sock.settimeout(max(ends - time.monotonic(), 0.01))
                if not self.sock.recv(65536):
                    return
            except TimeoutError:
                break
            except OSError:
                return
        self.log.append(GAVE_UP)

    def endless(self, line: bytes) -> None:
        """The same line again and again, never the end of the answer."""
        ends = time.monotonic() + LIMIT
        while time.monotonic() < ends:
            if not self.send(line):
                return
            time.sleep(ENDLESS)
        self.log.append(GAVE_UP)

    def long_line(self) -> None:
        self.send(b"* " + b"x" * (1 << 20) + b"x\r\n")
        self.stall()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class _Base:
    def __init__(self, faults: list[Fault] | None = None) -> None:
        self.script = _Script(faults or [])
        self.log: list[str] = []
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer.converse(_Conn(self.request, outer.log))

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def converse(self, conn: _Conn) -> None:
        raise NotImplementedError

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.script.clear()
        self.server.shutdown()
        self.server.server_close()


# ------------------------------------------------------------------ IMAP


class ImapFaultServer(_Base):
    """A one-mailbox IMAP server (any user, any password, no STARTTLS: on
    loopback pbem speaks to it in the clear)."""

    def __init__(self, messages: list[bytes], faults: list[Fault] | None = None, uidvalidity: int = 7) -> None:
        super().__init__(faults)
        self.mail: dict[int, bytes] = {n: raw for n, raw in enumerate(messages, start=1)}
        self.seen: set[int] = set()
        self.uidvalidity = uidvalidity
        self.fetches: Counter[int] = Counter()

    def url(self, user: str = "referee") -> str:
        return f"imap://{user}@127.0.0.1:{self.port}/INBOX"

    def converse(self, conn: _Conn) -> None:
        struck: set[int] = set()
        greeting = b"* OK [CAPABILITY IMAP4rev1] fault server ready\r\n"
        fault = self.script.take("greeting", struck)
        if fault is not None:
            self.log.append(f"fault greeting {fault.kind}")
            if not self._fault(conn, fault, None, greeting):
                return
        elif not conn.send(greeting):
            return
        while (line := conn.line()) is not None:
            parts = line.split(b" ", 2)
            if len(parts) < 2:
                conn.send(b"* BAD what\r\n")
                continue
            tag, command = parts[0], parts[1].upper()
            rest = parts[2] if len(parts) > 2 else b""
            uids: list[int] | None = None
            if command == b"UID":
                sub, _, rest = rest.partition(b" ")
                command = sub.upper()
                if command in (b"FETCH", b"STORE"):
                    uids = [int(u) for u in re.findall(rb"\d+", rest.split(b" ", 1)[0])]
            step = command.decode("ascii", "replace")
            self.log.append(f"{step} {uids or ''}".strip())
            answer = self._answer(tag, step, rest, uids)
            if answer is None:
                return
            fault = self.script.take(step, struck, uids)
            if fault is not None:
                self.log.append(f"fault {step} {fault.kind} {uids or ''}".strip())
                if not self._fault(conn, fault, tag, answer):
                    return
            elif not conn.send(answer):
                return
            if step == "LOGOUT":
                return

    def _answer(self, tag: bytes, step: str, rest: bytes, uids: list[int] | None) -> bytes | None:
        ok = tag + b" OK done\r\n"
        if step == "CAPABILITY":
            return b"* CAPABILITY IMAP4rev1\r\n" + ok
        if step in ("LOGIN", "NOOP"):
            return ok
        if step == "SELECT":
            return (
                f"* {len(self.mail)} EXISTS\r\n* OK [UIDVALIDITY {self.uidvalidity}] ok\r\n"
                f"* OK [UIDNEXT {max(self.mail, default=0) + 1}] ok\r\n".encode()
                + tag
                + b" OK [READ-WRITE] done\r\n"
            )
        if step == "SEARCH":
            if rest.upper().startswith(b"UNSEEN"):
                found = [u for u in self.mail if u not in self.seen]
            else:
                low = re.search(rb"(\d+):\*", rest)
                found = [u for u in self.mail if u >= int(low.group(1))] if low else list(self.mail)
                if found == [] and self.mail:
                    found = [max(self.mail)]  # n:* names the highest UID even when n is above it (RFC 3501)
            return b"* SEARCH " + " ".join(map(str, sorted(found))).encode() + b"\r\n" + ok
        if step == "FETCH":
            out = b""
            for uid in uids or []:
                raw = self.mail.get(uid)
                if raw is None:
                    continue
                self.fetches[uid] += 1
                size = re.search(rb"<0\.(\d+)>", rest)
                body = raw[: int(size.group(1))] if size else raw
                out += f"* {uid} FETCH (UID {uid} BODY[]<0> {{{len(body)}}}\r\n".encode() + body + b")\r\n"
            return out + ok
        if step == "STORE":
            self.seen.update(u for u in uids or [] if u in self.mail)
            return ok
        if step == "LOGOUT":
            return b"* BYE bye\r\n" + ok
        return tag + b" BAD unknown command\r\n"

    def _fault(self, conn: _Conn, fault: Fault, tag: bytes | None, answer: bytes) -> bool:
        """Misbehave; True when the conversation goes on afterwards."""
        kind = fault.kind
        if kind == "drop":
            return False
        if kind == "stall":
            conn.stall()
            return False
        if kind == "trickle":
            return conn.trickle(answer)
        if kind == "endless":
            conn.endless(b"* OK still working\r\n")
            return False
        if kind == "long-line":
            conn.long_line()
            return False
        if kind == "BYE":
            conn.send(b"* BYE going away\r\n")
            return False
        if kind == "huge-literal":
            conn.send(b"* 1 FETCH (UID 1 BODY[]<0> {107374182400}\r\n")
            conn.stall()
            return False
        if tag is None:  # a greeting that is no greeting
            conn.send(b"* " + kind.encode() + b" not today\r\n" if kind in ("NO", "BAD") else b"hello?\r\n")
            return False
        if kind in ("NO", "BAD"):
            return conn.send(tag + b" " + kind.encode() + b" refused\r\n")
        # malformed: the answer with its numbers made nonsense
        bad = re.sub(rb"UIDVALIDITY \d+", b"UIDVALIDITY abc", answer)
        bad = re.sub(rb"^\* SEARCH (\d+)", rb"* SEARCH \1 two", bad)
        bad = re.sub(rb"\{\d+\}\r\n", b"{-1}\r\n", bad)
        if bad == answer:
            bad = b"* )))(((\r\n" + answer
        return conn.send(bad)


# ------------------------------------------------------------------ SMTP


@dataclass
class Delivered:
    message_id: str
    raw: bytes = field(repr=False)


class SmtpFaultServer(_Base):
    """An SMTP server that accepts anything (no AUTH, no STARTTLS) and keeps
    what it accepted in ``delivered``."""

    def __init__(self, faults: list[Fault] | None = None) -> None:
        super().__init__(faults)
        self.delivered: list[Delivered] = []

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def counts(self) -> Counter[str]:
        return Counter(d.message_id for d in self.delivered)

    def converse(self, conn: _Conn) -> None:
        struck: set[int] = set()
        if not self._say(conn, "greeting", struck, b"220 fault server ready\r\n"):
            return
        while (line := conn.line()) is not None:
            verb = line.split(b" ", 1)[0].upper().split(b":", 1)[0]
            if verb in (b"EHLO", b"HELO"):
                ok = self._say(conn, "EHLO", struck, b"250-fault server\r\n250 8BITMIME\r\n")
            elif verb == b"MAIL":
                ok = self._say(conn, "MAIL", struck, b"250 sender ok\r\n")
            elif verb == b"RCPT":
                ok = self._say(conn, "RCPT", struck, b"250 recipient ok\r\n")
            elif verb == b"DATA":
                ok = self._say(conn, "DATA", struck, b"354 go on\r\n")
                if ok == "go on":
                    lines = []
                    while (data := conn.line()) is not None and data != b".":
                        lines.append(data[1:] if data.startswith(b"..") else data)
                    if data is None:
                        return
                    raw = b"\r\n".join(lines) + b"\r\n"
                    found = re.search(rb"(?im)^message-id:\s*(\S+)", raw)
                    ok = self._say(
                        conn,
                        "END",
                        struck,
                        b"250 accepted\r\n",
                        Delivered(found.group(1).decode() if found else "", raw),
                    )
            elif verb == b"QUIT":
                conn.send(b"221 bye\r\n")
                return
            elif verb in (b"RSET", b"NOOP"):
                ok = conn.send(b"250 ok\r\n")
            else:
                ok = conn.send(b"502 unknown\r\n")
            if not ok:
                return

    def _say(
        self, conn: _Conn, step: str, struck: set[int], answer: bytes, message: Delivered | None = None
    ) -> bool | str:
        """Answer (or misbehave): False to hang up, "go on" when the answer was
        the normal one (and sent), True when the conversation goes on anyway."""
        fault = self.script.take(step, struck)
        if fault is None:
            if message is not None:
                self.delivered.append(message)
            return "go on" if conn.send(answer) else False
        self.log.append(f"fault {step} {fault.kind}")
        kind = fault.kind
        if kind == "drop":
            return False
        if kind == "stall":
            conn.stall()
            return False
        if kind == "trickle":
            if message is not None:
                self.delivered.append(message)
            return "go on" if conn.trickle(answer) else False
        if kind == "endless":
            conn.endless(answer[:3] + b"-still working\r\n")
            return False
        if kind == "long-line":
            conn.send(answer[:3] + b"-" + b"x" * (1 << 20) + b"\r\n")
            conn.stall()
            return False
        if kind == "4xx":
            return conn.send(b"451 try again later\r\n")
        if kind == "5xx":
            return conn.send(b"554 refused\r\n")
        conn.send(b"2x0 what?\r\n")  # malformed
        return False
