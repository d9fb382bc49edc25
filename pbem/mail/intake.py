"""Finding turn files in e-mail messages (``pbem ingest``).

A player's message may carry the turn file

- as an attachment, with its detached signature as a second attachment
  (``turn.txt`` + ``turn.txt.sig``; any one ``.sig`` pairs with a lone turn file),
  or with the signature block inline at the end of the attached file;
- inline in the text body, followed by the inline signature block.

Mail mangles things, so this module undoes what it can: quoted-printable and
base64 transfer encodings and charsets (the ``email`` package), CRLF line ends,
``format=flowed`` soft line breaks (RFC 3676), HTML-only messages (the text is
recovered from the HTML, with ``<blockquote>`` quotes dropped), and replies that
quote the report above or below the orders (lines quoted with ``>`` are never
read; an unquoted copy of the report's turn-file template is ignored when a
signed turn file is present).

A turn file is recognised by its header block (``game:``, ``rules:``, ``side:``,
``turn:``, ``state:`` lines, possibly with ``#`` comment lines); the signed
message is every line from the start of that block to the line before
``-----BEGIN SSH SIGNATURE-----`` (docs/design.md, "Signatures", inline).  Without a
signature block the file runs to the first quoted line, signature separator
(``-- ``) or the end of the text; such a candidate is offered with ``signature
None`` (the pipeline refuses it, saying it is unsigned, unless it is a check).

:func:`read_message` never raises on bad input: whatever it cannot use becomes a
line in ``Intake.problems``.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from email.parser import BytesHeaderParser
from html import unescape
from html.parser import HTMLParser
from typing import cast

from pbem import limits

BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
_BEGIN_BYTES = BEGIN.encode()
_END_BYTES = END.encode()
HEADER_KEYS = ("game", "rules", "side", "turn", "state")
MAX_MESSAGE_BYTES = 1 << 20
MAX_TURN_FILE_BYTES = 64 * 1024
TURN_FILE_SUFFIXES = (".txt", ".turn", ".pbem", ".orders", "")

_HEADER_LINE = re.compile(r"^(game|rules|side|turn|state)[ \t]*:", re.IGNORECASE)
_HEADERISH = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*[ \t]*:")
_CHECK_WORD = re.compile(r"(?<![A-Za-z0-9])check(?![A-Za-z0-9])", re.IGNORECASE)
_RULE = re.compile(r"^\s*[-=_*]{5,}\s*$")
_ATTRIBUTION = re.compile(
    r"^(On .{0,200} wrote:|-{2,}\s*Original Message\s*-{2,}|-{5,} ?Forwarded message ?-{5,})\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Candidate:
    """One turn file found in a message: the signed bytes (LF line ends), the
    armored signature if one came with it, and where it was found."""

    message: bytes
    signature: str | None
    where: str

    def __init__(self, message: bytes, signature: str | None, where: str) -> None:
        # the fields at once, not each through ``object.__setattr__`` (readers.MessageOutcome.__init__)
        self.__dict__.update(message=message, signature=signature, where=where)


@dataclass(frozen=True)
class Intake:
    """What one message holds.  ``sender`` is the address to answer (Reply-To,
    else From); ``sent`` its Date (UTC); ``check_only`` when the subject has the
    word ``check``; ``problems`` say why nothing (or not everything) could be used."""

    candidates: tuple[Candidate, ...]
    check_only: bool
    sender: str | None
    sent: datetime | None
    message_id: str | None
    problems: tuple[str, ...]
    parsed: Message | None = None
    """The message as parsed (read once: the reply is written from it too); None
    when it was not parsed (over its size, or unparseable)."""
    return_path: str | None = None
    """The envelope sender (``Return-Path``, written by the receiving server)."""


HEAD_BYTES = 256 * 1024
MAX_PARTS = 1000
"""MIME parts walked in one message, at most (a turn file and its signature are
two; a message of 25,000 parts is refused, not walked)."""


def sent_of(raw: bytes) -> datetime | None:
    """When a message was sent (its Date), read from its header alone."""
    return _date(read_headers(raw))


def read_headers(raw: bytes) -> Message:
    """Only the header of a raw message (cheap, for oversized or broken mail)."""
    head = re.split(rb"\r?\n\r?\n", raw[:HEAD_BYTES], maxsplit=1)[0]
    return BytesHeaderParser(policy=email.policy.compat32).parsebytes(head + b"\n\n")


def read_message(raw: bytes, max_bytes: int = MAX_MESSAGE_BYTES, *, size: int | None = None) -> Intake:
    """Find every turn file in one raw message.  Never raises on bad input.

    A message over ``max_bytes`` is refused from its header alone.  ``size`` is
    the whole message's size when ``raw`` is only its beginning (a batch reader
    that stopped reading an oversized message, see ``pbem.mail.readers``)."""
    problems: list[str] = []
    size = len(raw) if size is None else size
    if size > max_bytes or len(raw) > max_bytes:
        size = max(size, len(raw))
        headers = read_headers(raw)
        return Intake(
            candidates=(),
            check_only=_is_check(header_line(headers, "Subject")),
            sender=_sender(headers),
            return_path=_return_path(headers),
            sent=_date(headers),
            message_id=header_line(headers, "Message-ID"),
            problems=(
                f"message is {size} bytes, over the limit of {max_bytes} bytes: not read (send the turn file "
                "alone, it is at most 64 KiB)",
            ),
        )
    if raw.count(b"\n--") > 4 * MAX_PARTS:  # boundary lines, counted before parsing: the parse is what costs
        headers = read_headers(raw)
        return Intake(
            (),
            _is_check(header_line(headers, "Subject")),
            _sender(headers),
            _date(headers),
            header_line(headers, "Message-ID"),
            (f"message has over {MAX_PARTS} MIME parts: not read (send the turn file and its .sig alone)",),
            return_path=_return_path(headers),
        )
    try:
        with limits.time_limit(limits.MAIL_PARSE_SECONDS, "the message"):
            msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception as exc:  # the parser is lenient; this is a last resort
        headers = read_headers(raw)
        return Intake(
            (),
            False,
            _sender(headers),
            _date(headers),
            header_line(headers, "Message-ID"),
            (f"message cannot be parsed: {exc}",),
        )
    try:
        with limits.time_limit(limits.MAIL_PARSE_SECONDS, "the message's parts"):
            candidates, found_problems = _find_candidates(msg)
    except RecursionError:
        candidates, found_problems = [], ["message is nested too deeply to read (multipart inside multipart ...)"]
    except Exception as exc:  # never raise on bad input: say what could not be read
        candidates, found_problems = [], [f"message cannot be read ({type(exc).__name__}: {exc})"]
    problems.extend(found_problems)
    if not candidates and not problems:
        problems.append(
            "no turn file found in this message: attach the turn file with its .sig, "
            "or paste it into the message body followed by its inline signature"
        )
    return Intake(
        candidates=tuple(candidates),
        check_only=_is_check(header_line(msg, "Subject")),
        sender=_sender(msg),
        sent=_date(msg),
        message_id=header_line(msg, "Message-ID"),
        problems=tuple(problems),
        parsed=msg,
        return_path=_return_path(msg),
    )


# --- headers -----------------------------------------------------------------


def header_line(msg: Message, name: str) -> str | None:
    """A header as one clean line, or ``None`` (missing or unreadable)."""
    try:
        value = msg.get(name)
    except Exception:
        return None
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def _is_check(subject: str | None) -> bool:
    return bool(subject and _CHECK_WORD.search(subject))


def _sender(msg: Message) -> str | None:
    for header in ("Reply-To", "From"):
        value = header_line(msg, header)
        if value:
            addr = email.utils.parseaddr(value)[1]
            if addr and "@" in addr:
                return addr
    return None


def _return_path(msg: Message) -> str | None:
    value = header_line(msg, "Return-Path")
    addr = email.utils.parseaddr(value)[1] if value else ""
    return addr if "@" in addr else None


def _date(msg: Message) -> datetime | None:
    value = header_line(msg, "Date")
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


# --- parts ---------------------------------------------------------------------


def _find_candidates(msg: Message) -> tuple[list[Candidate], list[str]]:
    problems: list[str] = []
    files: list[tuple[str, bytes]] = []  # (filename, bytes) of attachments
    sigs: dict[str, str] = {}
    plain: list[str] = []
    html: list[str] = []
    for n, part in enumerate(msg.walk()):
        if n >= MAX_PARTS:
            problems.append(f"message has over {MAX_PARTS} MIME parts: only the first {MAX_PARTS} were read")
            break
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        try:
            filename = part.get_filename()
        except Exception:
            filename = None
        disposition = (part.get_content_disposition() or "").lower()
        try:
            # a part that is not multipart decodes to bytes (None only for a multipart one)
            payload = cast(bytes, part.get_payload(decode=True) or b"")
        except Exception as exc:
            problems.append(f"a part ({ctype}) cannot be decoded: {exc}")
            continue
        if filename or disposition == "attachment":
            name = filename or f"unnamed {ctype} attachment"
            lower = name.lower()
            if lower.endswith(".sig") or lower.endswith(".asc"):
                sigs[name] = payload.decode("ascii", errors="replace")
            elif (
                ctype.startswith("text/")
                or ctype == "application/octet-stream"
                or lower.endswith(TURN_FILE_SUFFIXES[:-1])
            ):
                files.append((name, payload))
            continue
        if ctype == "text/plain":
            plain.append(_unflow(_part_text(part, payload), part))
        elif ctype == "text/html":
            html.append(_part_text(part, payload))
        elif ctype == "message/rfc822":
            continue  # a forwarded message is not the sender's orders

    candidates: list[Candidate] = []
    attached: list[Candidate] = []
    for name, data in files:
        data = data.replace(b"\r\n", b"\n")
        if len(data) > MAX_TURN_FILE_BYTES + 4096:
            problems.append(f"attachment {name} is {len(data)} bytes: a turn file is at most 64 KiB")
            continue
        text = data.decode("utf-8", errors="replace")
        if not _looks_like_turn_file(text):
            continue
        message, inline_sig = _split_signature(data)
        sig = sigs.get(name + ".sig") or sigs.get(name + ".asc") or sigs.get(_stem(name) + ".sig") or inline_sig
        attached.append(Candidate(message, sig.replace("\r\n", "\n") if sig else None, f"attachment {name}"))
    if len(attached) == 1 and attached[0].signature is None and len(sigs) == 1:
        only = next(iter(sigs.values())).replace("\r\n", "\n")
        attached[0] = Candidate(attached[0].message, only, attached[0].where)
    candidates.extend(attached)

    bodies = [(text, "inline text body") for text in plain]
    if not plain:
        bodies = [(_html_to_text(text), "inline HTML body") for text in html]
    for text, where in bodies:
        candidates.extend(_inline_candidates(text, where))

    if any(c.signature for c in candidates):
        candidates = [c for c in candidates if c.signature]
    unique: list[Candidate] = []
    seen: set[bytes] = set()
    for c in candidates:
        if c.message not in seen:
            seen.add(c.message)
            unique.append(c)
    if not unique and sigs and not files:
        problems.append("a signature is attached but no turn file: attach the turn file too")
    return unique, problems


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else name


def _part_text(part: Message, payload: bytes) -> str:
    """A text part as text.  Some decoders (UTF-7's, reading ``+`` as the start of
    a shifted run) leave lone surrogates, which no later step can store or
    encode: each becomes U+FFFD, as any other undecodable byte."""
    charset = part.get_content_charset() or "utf-8"
    try:
        text = payload.decode(charset, errors="replace")
    except LookupError:
        return payload.decode("utf-8", errors="replace")
    if charset.lower().replace("_", "-") not in ("utf-8", "utf8", "us-ascii", "ascii"):
        text = text.encode("utf-8", errors="replace").decode("utf-8")
    return text


def _unflow(text: str, part: Message) -> str:
    """Undo RFC 3676 ``format=flowed``: a line ending in a space continues on the
    next; a leading space was added by space-stuffing."""
    text = text.replace("\r\n", "\n")
    params = {k.lower(): (v or "").lower() for k, v in part.get_params() or [] if isinstance(k, str)}
    if params.get("format") != "flowed":
        return text
    delsp = params.get("delsp") == "yes"
    out: list[str] = []
    buffer = ""
    for line in text.split("\n"):
        if line.startswith(" "):
            line = line[1:]
        if line.endswith(" ") and line != "-- " and not line.startswith(">"):
            buffer += line[:-1] if delsp else line
            continue
        out.append(buffer + line)
        buffer = ""
    if buffer:
        out.append(buffer)
    return "\n".join(out)


def _looks_like_turn_file(text: str) -> bool:
    keys = {m.group(1).lower() for line in text.split("\n")[:40] if (m := _HEADER_LINE.match(line.strip()))}
    return "game" in keys and len(keys) >= 2


def _split_signature(data: bytes) -> tuple[bytes, str | None]:
    """The signed message and the armored block of a file with an inline signature
    (the last BEGIN line starts the block)."""
    if _BEGIN_BYTES not in data:  # no line can be the BEGIN line: nothing to split (a file with a .sig)
        return data, None
    lines = data.split(b"\n")
    start = None
    for i, line in enumerate(lines):
        if line.strip() == _BEGIN_BYTES:
            start = i
    if start is None:
        return data, None
    end = start
    while end < len(lines) and lines[end].strip() != _END_BYTES:
        end += 1
    message = b"\n".join(lines[:start]) + (b"\n" if start else b"")
    block = [line.strip().decode("ascii", errors="replace") for line in lines[start : end + 1]]
    return message, "\n".join(block) + "\n"


def _inline_candidates(text: str, where: str) -> list[Candidate]:
    """Turn files in a message body: each unquoted header block, up to its
    signature block (or the end of the unquoted text)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found: list[Candidate] = []
    i = 0
    while i < len(lines):
        if not _HEADER_LINE.match(lines[i]):
            i += 1
            continue
        start = i
        while start > 0 and lines[start - 1].startswith("#"):
            start -= 1  # comment lines directly above the header belong to the file
        j = i
        keys: set[str] = set()
        while j < len(lines) and (lines[j].startswith("#") or _HEADERISH.match(lines[j])):
            m = _HEADER_LINE.match(lines[j])
            if m:
                keys.add(m.group(1).lower())
            j += 1
        if "game" not in keys or len(keys) < 2:
            i = j if j > i else i + 1
            continue
        end = j
        signature = None
        while end < len(lines):
            stripped = lines[end].strip()
            if stripped == BEGIN:
                block_end = end
                while block_end < len(lines) and lines[block_end].strip() != END:
                    block_end += 1
                if block_end < len(lines):
                    signature = "\n".join(line.strip() for line in lines[end : block_end + 1] if line.strip()) + "\n"
                break
            if (
                lines[end].startswith(">")
                or lines[end] == "-- "
                or _RULE.match(lines[end])
                or _ATTRIBUTION.match(stripped)
                or (
                    _HEADER_LINE.match(lines[end])
                    and end > j
                    and lines[end - 1].strip() == ""
                    and _looks_like_turn_file("\n".join(lines[end : end + 8]))
                )
            ):
                break
            end += 1
        body = lines[start:end]
        if signature is None:
            while body and body[-1].strip() == "":
                body.pop()
        message = ("\n".join(body) + "\n").encode("utf-8")
        found.append(Candidate(message, signature, where))
        i = end + 1
    return found


# --- HTML ------------------------------------------------------------------------

_BLOCK_TAGS = {
    "p",
    "div",
    "pre",
    "tr",
    "li",
    "ul",
    "ol",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "hr",
    "dl",
    "dt",
    "dd",
    "address",
}
_SKIP_TAGS = {"style", "script", "head", "title", "blockquote"}


class _HTMLText(HTMLParser):
    """The text of an HTML mail, line by line as a reader sees it; quoted
    (``<blockquote>``), style and script content left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0

    def _newline(self) -> None:
        if self.out and not self.out[-1].endswith("\n"):
            self.out.append("\n")

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _SKIP_TAGS:
            self.skip += 1
        elif tag == "br":
            if not self.skip:
                self.out.append("\n")
        elif tag in _BLOCK_TAGS:
            self._newline()
            if tag == "pre":
                self.pre += 1

    def handle_startendtag(self, tag: str, attrs) -> None:
        if tag == "br" and not self.skip:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCK_TAGS:
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            if not self.skip:
                self._newline()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            self.out.append(data)
        else:
            self.out.append(re.sub(r"\s+", " ", data))


def _html_to_text(html: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:
        return unescape(re.sub(r"<[^>]+>", "\n", html))
    text = "".join(parser.out).replace("\xa0", " ")
    return "\n".join(line.strip() for line in text.split("\n"))
