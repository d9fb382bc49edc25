"""The list of earlier resolutions a report shows without links (``process
--reports`` and the mailed reports), kept by the store as it is written.

Each line is rendered once, by the ``history_lines`` macro of
``report_parts.html.j2`` (the one the list renders its lines with when it links
each report, or has no kept lines), and the store keeps a game's lines up to its latest reported
resolution (the ``report_history`` table): a report of the next resolution reads
that one row and renders its own line, never a line per earlier resolution.  The
kept lines are keyed by what they depend on: the template's digest with the Jinja release
(:func:`key`), and the resolution they end at, which must still be active (see
:func:`pbem.reports.reads.history_for`).  Any other report (of an older
resolution, after a rollback, or with nothing kept) renders the lines it lacks
from the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple, cast

from pbem.reports import reads as report_reads
from pbem.reports import render as report
from pbem.reports.parts import HtmlReportParts
from pbem.store import NewResolution
from pbem.store.sql import Tx

TEMPLATE = "report_parts.html.j2"


@lru_cache(maxsize=1)
def key() -> str:
    """What the kept lines were rendered with: the digest of the template that
    holds their macro and of the Jinja release that escapes their values (lines
    kept under another key are rendered again).  Read once per process, as Jinja
    reads the template."""
    import hashlib

    import jinja2

    made_by = f"jinja2 {jinja2.__version__}\n".encode() + (report.TEMPLATE_DIR / TEMPLATE).read_bytes()
    return hashlib.sha256(made_by).hexdigest()[:32]


def lines(rows: Sequence[tuple[int, str, str]]) -> str:
    """The lines (``<li>``, without links) of these earlier resolutions, from the
    template's ``history_lines`` macro (one call for all of them)."""
    if not rows:
        return ""
    parts = cast(HtmlReportParts, report.environment().get_template(TEMPLATE).module)
    return str(parts.history_lines(rows, None, None))


class Listed(NamedTuple):
    """A report's list of earlier resolutions: its lines, and whether they are
    new to the store (to keep, when the report is of the latest resolution)."""

    lines: str
    fresh: bool


def listed(
    tx: Tx, game_id: str, k: int, latest: NewResolution | None = None, kept: report_reads.KeptLines | None = None
) -> Listed:
    """The lines of the list up to resolution ``k``: the kept ones that serve,
    and the lines of the active resolutions they lack.

    ``latest``: resolution ``k`` as the process that made it stored it, handed
    over while ``k`` is the game's latest and the resolution before it was the
    game's latest when it was made (``Resolved``, checked by the caller against
    the game's row read in the same transaction), and ``kept`` the game's kept
    list read in that transaction.  No resolution up to ``k`` has been set aside
    since (a rollback sets aside the resolutions after the one it returns to,
    ``k`` with them, and numbers are never reused): a list kept for ``k - 1`` or
    ``k`` serves as it is, and the line it lacks is ``latest``'s, so no resolution
    is read (the list's own read checks the flag of each row it joins, stored
    after its position and events)."""
    if latest is not None and kept is not None and kept.template == key() and kept.k in (k - 1, k):
        if kept.k == k:
            return Listed(kept.lines, False)
        return Listed(kept.lines + lines([report_reads.HistoryLine(k, latest.label, latest.state_hash)]), True)
    found = report_reads.history_for(tx, game_id, k, key())
    if not found.missing:
        return Listed(found.lines, False)
    return Listed(found.lines + lines(found.missing), True)


def keep(tx: Tx, game_id: str, k: int, made: Listed) -> None:
    """Keep a report's list (one the store lacks: ``made.fresh``, which the caller
    asks before it opens a writer)."""
    report_reads.keep_history(tx, game_id, k, key(), made.lines)
