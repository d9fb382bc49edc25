"""Run-time limits for what strangers send: a size limit and a time limit on
parsing for each input (docs/formats.md, "Limits").

Sizes are checked before anything is read.  The time limit is a wall-clock alarm
around the parse (main thread only: elsewhere the size limits alone bound it)."""

from __future__ import annotations

# signal.signal without its wrapper, which turns each handler into an enum and back (12 us a call);
# typeshed has no stub for the private _signal module
import _signal  # type: ignore[import-not-found]
import _thread
import os
import signal
import threading
import time

TURN_FILE_PARSE_SECONDS = 10.0
MAIL_PARSE_SECONDS = 10.0
ARCHIVE_PARSE_SECONDS = 30.0


class TimeLimit(Exception):
    """Parsing an input took longer than its stated limit."""


def time_limit(seconds: float, what: str) -> _TimeLimit:
    """Raise :class:`TimeLimit` ("reading WHAT took over N s") if the block runs
    longer than ``seconds``.  Nests: an inner limit never extends an outer one."""
    return _TimeLimit(seconds, what)


class _TimeLimit:
    """The ``with`` block of :func:`time_limit`: a plain class, not a
    ``contextlib.contextmanager`` generator (its generator, its wrapper object and
    their calls were half of a limit's cost, and a turn file is read within two)."""

    __slots__ = ("seconds", "what", "outer_left", "started", "previous", "armed")

    def __init__(self, seconds: float, what: str) -> None:
        self.seconds = seconds
        self.what = what
        self.armed = False

    def __enter__(self) -> None:
        seconds = self.seconds
        if seconds <= 0 or _thread.get_ident() != threading.main_thread().ident:
            return
        outer_left = signal.getitimer(signal.ITIMER_REAL)[0]
        if outer_left and outer_left <= seconds:  # an outer limit ends sooner: it rules
            return
        self.outer_left = outer_left
        self.started = time.monotonic() if outer_left else 0.0
        self.previous = _signal.signal(signal.SIGALRM, self._expired)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        self.armed = True

    def _expired(self, _signum: int, _frame: object) -> None:
        raise TimeLimit(f"reading {self.what} took over {self.seconds:g} s, the limit; it was not read")

    def __exit__(self, *_exc: object) -> None:
        if not self.armed:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        _signal.signal(signal.SIGALRM, self.previous)
        if self.outer_left:  # re-arm the outer limit with what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(self.outer_left - (time.monotonic() - self.started), 0.001))


# --- reading a file within its size ------------------------------------------------


class TooLarge(ValueError):
    """A file over its size limit (``size`` is what was found: the size the file
    system gives, or more than the limit read)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size} bytes is over the limit of {limit} bytes")
        self.size = size
        self.limit = limit


def read_at_most(path: str | os.PathLike[str], limit: int) -> bytes:
    """A file's bytes, its size checked before anything is read (``fstat``), and
    never more than ``limit + 1`` bytes read (a file that grows, a device, a FIFO):
    :class:`TooLarge` past ``limit``.  Read from a descriptor: a buffered file
    object cost more than the read of a turn file (``ingest --dir`` reads one a file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise TooLarge(size, limit)
        data = read_descriptor(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise TooLarge(len(data), limit)
    return data


def read_descriptor(fd: int, most: int) -> bytes:
    """The bytes of ``fd`` to its end, at most ``most`` of them."""
    chunks = []
    while most > 0:
        chunk = os.read(fd, most)
        if not chunk:
            break
        chunks.append(chunk)
        most -= len(chunk)
    return b"".join(chunks)


# --- JSON and TOML within nesting and number limits ---------------------------------

MAX_NESTING = 64
"""Objects and arrays inside one another, at most, in a position file or a house
table (a shipped position nests 5 deep)."""
MAX_NUMBER_DIGITS = 20
"""Digits of an integer, at most (a position's numbers are counts and hex-free ids)."""


class Malformed(ValueError):
    """A document past a nesting or number limit, or holding text no UTF-8 file can
    hold; the message names where."""


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise Malformed(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_NUMBER_DIGITS})")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise Malformed(f"the number {text[:40]} is out of range (not a finite number)")
    return value


def _no_constant(name: str) -> object:
    raise Malformed(f"{name} is not a number (only finite numbers are allowed)")


def loads_json(text: str) -> object:
    """JSON within the limits: no ``NaN``/``Infinity``, no number that overflows
    to infinity, integers of at most :data:`MAX_NUMBER_DIGITS` digits, nesting of at
    most :data:`MAX_NESTING`, no lone surrogate (``\\ud800``).  Raises
    :class:`Malformed` (or ``json.JSONDecodeError``, a ``ValueError``)."""
    import json

    try:
        value = json.loads(text, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_no_constant)
    except RecursionError:
        raise Malformed(f"nested too deeply (objects and arrays at most {MAX_NESTING} deep)") from None
    check_tree(value)
    return value


def check_tree(value: object, where: str = "") -> None:
    """Walk a parsed document (without recursion): its nesting, its integers and its
    strings within the limits; :class:`Malformed` names the first place past one."""
    stack: list[tuple[object, str, int]] = [(value, where or "the document", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_NESTING:
                raise Malformed(f"{path}: nested too deeply (objects and arrays at most {MAX_NESTING} deep)")
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if isinstance(key, str):
                    _check_text(key, path)
                stack.append((child, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]", depth + 1))
        elif isinstance(item, str):
            _check_text(item, path)
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 10**MAX_NUMBER_DIGITS:
            raise Malformed(f"{path}: an integer over {MAX_NUMBER_DIGITS} digits")
        elif isinstance(item, float) and (item != item or item in (float("inf"), float("-inf"))):
            raise Malformed(f"{path}: {item} is not a finite number")


def _check_text(text: str, path: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise Malformed(f"{path}: a lone surrogate (\\ud800-\\udfff) is not text") from None
