"""Run-time limits for what strangers send: a size limit and a time limit on
parsing for each input (docs/formats.md, "Limits").

Sizes are checked before anything is read.  The time limit is a wall-clock alarm
around the parse (main thread only: elsewhere the size limits alone bound it)."""

from __future__ import annotations

# signal.signal without its wrapper, which turns each handler into an enum and back (12 us a call);
# typeshed has no stub for the private _signal module
import _signal  # type: ignore[import-not-found]
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

TURN_FILE_PARSE_SECONDS = 10.0
MAIL_PARSE_SECONDS = 10.0
ARCHIVE_PARSE_SECONDS = 30.0


class TimeLimit(Exception):
    """Parsing an input took longer than its stated limit."""


@contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Raise :class:`TimeLimit` ("reading WHAT took over N s") if the block runs
    longer than ``seconds``.  Nests: an inner limit never extends an outer one."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    if outer_left and outer_left <= seconds:  # an outer limit ends sooner: it rules
        yield
        return

    def expired(_signum: int, _frame: object) -> None:
        raise TimeLimit(f"reading {what} took over {seconds:g} s, the limit; it was not read")

    started = time.monotonic()
    previous = _signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _signal.signal(signal.SIGALRM, previous)
        if outer_left:  # re-arm the outer limit with what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - started), 0.001))
