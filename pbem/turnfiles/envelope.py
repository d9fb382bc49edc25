"""The turn file envelope (docs/design.md, "Turn file").

UTF-8 text, LF line ends (CRLF read as LF); a header of ``key: value`` lines, a
blank line, one order per line; ``#`` starts a comment; at most 64 KiB.

>>> tf = parse_turn_file(
...     b"game: g1\\nrules: farrapos\\nside: republic\\nturn: 1\\nstate: " + b"0" * 64 + b"\\n\\n# nothing\\n"
... )
>>> tf.game, tf.side, tf.turn, tf.body_offset
('g1', 'republic', 1, 6)
"""

from __future__ import annotations

import hashlib
import re

from pbem.rules.base import Problem
from pbem.rules.frozen import Frozen, set_fields

MAX_TURN_FILE_BYTES = 64 * 1024
HEADER_KEYS = ("game", "rules", "side", "turn", "state")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_TURN = re.compile(r"[0-9]{1,9}")
_BOM = "\ufeff"


class TurnFileError(ValueError):
    """A turn file that cannot be read as one; ``problems`` name the lines."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


class TurnFile(Frozen):
    """A parsed turn file: its header values and its body of orders."""

    game: str
    rules: str
    side: str
    turn: int
    state: str
    body: str
    """The order lines (comments blanked, line count kept) as the ruleset reads them."""
    body_offset: int
    """Lines before the body: problem line ``n`` of the body is file line ``n + body_offset``."""

    def __init__(self, game: str, rules: str, side: str, turn: int, state: str, body: str, body_offset: int) -> None:
        set_fields(self, game=game, rules=rules, side=side, turn=turn, state=state, body=body, body_offset=body_offset)


_last_digest: tuple[bytes, str] = (b"", hashlib.sha256(b"").hexdigest())


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of a turn file's bytes.  The last one is remembered with the
    very bytes object it is of (held here, so no other object can have its identity
    while it is remembered): a folder's ingest hashes each file, and the submit then
    hashes the same object again as its message (the bytes of a file without CR LF
    and an inline signature), some 27 k instructions a file."""
    global _last_digest
    last, digest = _last_digest
    if data is not last:
        digest = hashlib.sha256(data).hexdigest()
        _last_digest = (data, digest)
    return digest


def normalise(data: bytes) -> bytes:
    """CRLF -> LF: the bytes that are signed and hashed."""
    return data.replace(b"\r\n", b"\n")


def strip_comments(body: str) -> str:
    """Blank out ``#`` comments, keeping every line (so line numbers hold).  A body
    with nothing to blank (ASCII, no ``#``, no line ending in a character
    ``str.rstrip`` strips: a space, a tab or another ASCII control that is
    whitespace) is itself, found by a few searches instead of a split, a strip and
    a join of each line."""
    if body.isascii() and not body.endswith(_TRAILING) and not any(map(body.__contains__, _TO_BLANK)):
        return body
    return "\n".join(line.split("#", 1)[0].rstrip() for line in body.split("\n"))


_TRAILING = (" ", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f")
"""The ASCII characters ``str.rstrip()`` strips, but the line feed."""
_TO_BLANK = ("#", *(c + "\n" for c in _TRAILING))
"""What a body holds where :func:`strip_comments` changes a line: a comment, or
an ASCII whitespace character before a line's end (its last line: ``_TRAILING``)."""


def decode(data: bytes) -> str:
    """Size, NUL and UTF-8 checks; returns the text with LF line ends."""
    if len(data) > MAX_TURN_FILE_BYTES:
        raise TurnFileError(
            [Problem(0, f"turn file is {len(data)} bytes, the limit is {MAX_TURN_FILE_BYTES} (64 KiB)")]
        )
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise TurnFileError([Problem(line, "turn file contains a NUL byte")])
    try:
        text = normalise(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TurnFileError([Problem(line, f"turn file is not valid UTF-8 (byte {exc.start})")]) from None
    if "\r" in text:
        line = text[: text.index("\r")].count("\n") + 1
        raise TurnFileError([Problem(line, "stray carriage return (CR) in turn file")])
    return text


def parse_turn_file(data: bytes) -> TurnFile:
    """Parse the envelope of a turn file (the signed message, without any inline
    signature).  Raises :class:`TurnFileError` listing every header problem."""
    text = decode(data)
    if text.startswith(_BOM):
        text = text[1:]
    head, blank, body = text.partition("\n\n")
    written = _WRITTEN_HEADER.fullmatch(head) if blank else None
    if written is not None:  # a header as pbem writes one: the loop below, without a step a line
        game, rules, side, turn, state = written.groups()
        return TurnFile(game.strip(), rules.strip(), side.strip(), int(turn), state, strip_comments(body), 6)
    lines = text.split("\n")
    header: dict[str, str] = {}
    problems: list[Problem] = []
    body_start: int | None = None
    for number, line in enumerate(lines, start=1):
        if line.strip() == "":
            body_start = number
            break
        if line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or not key:
            problems.append(
                Problem(
                    number,
                    f"header line {line[:60]!r} is not 'key: value' (a blank line must separate the header from "
                    "the orders)",
                )
            )
            continue
        if key not in HEADER_KEYS:
            problems.append(Problem(number, f"unknown header key {key!r} (expected {', '.join(HEADER_KEYS)})"))
            continue
        if key in header:
            problems.append(Problem(number, f"header key {key!r} given twice"))
            continue
        header[key] = value.strip()
    if body_start is None:
        problems.append(
            Problem(
                len(lines), "no blank line after the header: a turn file is a header, a blank line, then the orders"
            )
        )
        body_start = len(lines)
    for key in HEADER_KEYS:
        if key not in header:
            problems.append(Problem(0, f"header key {key!r} is missing"))
    turn = 0
    if "turn" in header:
        if _TURN.fullmatch(header["turn"]):
            turn = int(header["turn"])
        else:
            problems.append(Problem(_header_line(lines, "turn"), f"turn {header['turn']!r} is not a whole number"))
    if "state" in header and not _HEX64.match(header["state"]):
        problems.append(
            Problem(_header_line(lines, "state"), "state must be the 64 lowercase hex digits of the position hash")
        )
    if problems:
        raise TurnFileError(sorted(problems, key=lambda p: p.line))
    body = "\n".join(lines[body_start:])
    return TurnFile(
        game=header["game"],
        rules=header["rules"],
        side=header["side"],
        turn=turn,
        state=header["state"],
        body=strip_comments(body),
        body_offset=body_start,
    )


_WRITTEN_HEADER = re.compile(
    r"game:([^\n]*)\nrules:([^\n]*)\nside:([^\n]*)\nturn: ?([0-9]{1,9})\nstate: ?([0-9a-f]{64})"
)
"""A header as pbem writes one (``pbem orders``, the reports' turn files): the five
keys in order, each once, a whole-number turn and a hash for state; its groups are
the five values as :func:`parse_turn_file` reads them (the first three stripped)."""


def queued_body(data: bytes) -> tuple[str, int]:
    """The orders of a file ``submit`` accepted and queued, for its resolution: the
    body as :func:`parse_turn_file` gives it (comments blanked) and the number of
    lines before it.  Its header was checked at submit, and the resolution reads
    none of its values (the game, side and turn are the row's): a header as pbem
    writes one (one regular expression), or else of the five keys, each once,
    with a whole-number turn and a hash for state, is taken as it is, without the
    parse's problems and its value object.  Anything else (a damaged row) goes
    through :func:`parse_turn_file`, which refuses it with every problem, as before."""
    text = decode(data)
    if text.startswith(_BOM):
        text = text[1:]
    # the first empty line; a header line of spaces before it is refused below, as a blank line ends a header
    head, blank, body = text.partition("\n\n")
    if blank and (_WRITTEN_HEADER.fullmatch(head) or _plain_header(head.split("\n"))):
        return strip_comments(body), head.count("\n") + 2
    tf = parse_turn_file(data)
    return tf.body, tf.body_offset


def _plain_header(lines: list[str]) -> bool:
    """Whether these header lines would pass :func:`parse_turn_file` without a problem."""
    values: dict[str, str] = {}
    for line in lines:
        if line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or key not in HEADER_KEYS or key in values:
            return False
        values[key] = value.strip()
    return (
        len(values) == len(HEADER_KEYS)
        and _TURN.fullmatch(values["turn"]) is not None
        and _HEX64.match(values["state"]) is not None
    )


def rewrapped_lines(message: bytes) -> list[int]:
    r"""Lines that look broken in two by a mail client: a line after a long comment
    line that is neither blank, nor a comment, nor an order by its look (a
    wrapped comment's tail), and lines ending in a space (a flowed soft break).
    Their numbers (1-based), for the refusal of a signature that does not match.

    >>> rewrapped_lines(b"# a comment long enough to have been wrapped by a mail client at\ncolumn 72\nmove a b\n")
    [2]
    """
    lines = message.decode("utf-8", "replace").split("\n")
    found = []
    for number, line in enumerate(lines, start=1):
        before = lines[number - 2] if number > 1 else ""
        if line.endswith(" ") and line.strip():
            found.append(number)
        elif (
            before.lstrip().startswith("#")
            and len(before) >= WRAP_SUSPECT
            and line.strip()
            and not line.lstrip().startswith("#")
        ):
            found.append(number)
    return found


WRAP_SUSPECT = 60
"""A comment line at least this long may have been wrapped (mail clients wrap at
72-78 columns)."""


def _header_line(lines: list[str], key: str) -> int:
    for number, line in enumerate(lines, start=1):
        if line.split(":", 1)[0].strip().lower() == key:
            return number
    return 0


def render_turn_file(game: str, rules: str, side: str, turn: int, state: str, body: str) -> str:
    """A turn file's text: header, blank line, body (ending with a newline)."""
    head = f"game: {game}\nrules: {rules}\nside: {side}\nturn: {turn}\nstate: {state}\n\n"
    return head + (body if body.endswith("\n") or not body else body + "\n")
