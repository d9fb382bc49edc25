"""What the reports read of the store, in plain SQL (:class:`pbem.transaction.Tx`).

``pbem report``, ``pbem process --reports``, ``pbem site``, the outbox's reports
and ``reporting.write_resolution_reports`` read through these, as ``status`` and
the archive do: on an SQLite file opened by ``store.open_database`` they never
import SQLAlchemy, SQLModel or pydantic (tests/test_startup.py), and each report
is a fixed number of small statements however long the game
(tests/test_costs.py).  Rows come back as named tuples; a timestamp is a
``datetime`` whichever database holds it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any, NamedTuple

from pbem import store
from pbem.store.sql import Tx


class ReportGame(NamedTuple):
    """The game's row as a report needs it, with its published site's URL."""

    id: str
    rules: str
    scenario: str
    options: tuple[str, ...]
    current_k: int
    next_k: int
    initial_position: str  # canonical JSON
    initial_state_hash: str
    chain_length: int
    anchor: str
    site_url: str | None
    tz: str  # the game's zone for deadlines (UTC unless set)
    deadline: int | None = None  # the clock's deadline in seconds (None: no deadline)
    grace: int = 0
    rules_version: str = "1"


def game(tx: Tx, game_id: str) -> ReportGame:
    """The game, or the ``LookupError`` naming the games there are."""
    row = tx.one(
        "SELECT g.id, g.rules, g.scenario, g.options, g.current_k, g.next_k, g.initial_position, g.initial_state_hash,"
        " g.chain_length, g.anchor, s.url, g.tz, c.deadline, c.grace, g.rules_version FROM game g"
        " LEFT JOIN site s ON s.game_id = g.id LEFT JOIN game_clock c ON c.game_id = g.id WHERE g.id = :game",
        {"game": game_id},
    )
    if row is None:
        raise store.unknown_game(game_id, store.known_game_ids(tx))
    gid, rules, scenario, options, current_k, next_k, initial_position, initial_hash, chain_length, anchor, url = row[
        :11
    ]
    tz, deadline, grace, version = row[11:]
    return ReportGame(
        gid,
        rules,
        scenario,
        () if options == "[]" else tuple(json.loads(options)),  # most games have none: no parse
        current_k,
        next_k,
        initial_position,
        initial_hash,
        chain_length,
        anchor,
        url,
        tz or "UTC",
        deadline,
        grace or 0,
        version,
    )


class HistoryLine(NamedTuple):
    k: int
    label: str
    state_hash: str


def active_history(tx: Tx, game_id: str) -> list[HistoryLine]:
    """The active resolutions' numbers, labels and hashes, without their positions
    and events (a report lists them; reading every whole row made each report
    cost more the longer the game, before the speed work)."""
    rows = tx.all(
        "SELECT k, label, state_hash FROM resolution WHERE game_id = :game AND active = :active ORDER BY k",
        {"game": game_id, "active": True},
    )
    return [HistoryLine(*row) for row in rows]


class ResolutionRow(NamedTuple):
    k: int
    label: str
    position: str  # canonical JSON
    state_hash: str
    previous_state_hash: str
    events: str  # JSON list
    reveal: str
    active: bool


def resolution_and_reveal_before(tx: Tx, game_id: str, k: int) -> tuple[ResolutionRow | None, str | None]:
    """Resolution ``k``'s whole row (active or set aside) and the reveal of
    resolution ``k - 1`` (active or set aside: a dice chain runs over both), in
    one statement."""
    rows = tx.all(
        "SELECT k, label, CASE WHEN k = :k THEN position END, state_hash, previous_state_hash, CASE WHEN k = :k "
        "THEN events END, reveal, active"
        " FROM resolution WHERE game_id = :game AND k IN (:k, :before)",
        {"game": game_id, "k": k, "before": k - 1},
    )
    found = {row[0]: row for row in rows}
    row = found.get(k)
    before = found.get(k - 1)
    if row is None:
        return None, (before[6] if before else None)
    number, label, position, state_hash, previous_state_hash, events, reveal, active = row
    resolution = ResolutionRow(number, label, position, state_hash, previous_state_hash, events, reveal, bool(active))
    return resolution, (before[6] if before else None)


class Resolved(NamedTuple):
    """A resolution as the process that made it has just stored it, handed to its
    reports (``pbem process --reports``) so that they do not read back what it
    wrote: the row it inserted (the very values the statement was given), its dice's
    rows as inserted, and the reveal of the resolution before it (``before``: the
    game's reveal, handed over only when that resolution was the game's latest).
    A report takes the row only while it is still the game's latest resolution,
    and reads everything else as ``pbem report`` does.  An outcome sent from a
    worker process leaves it behind (``ProcessOutcome.__getstate__``)."""

    row: store.NewResolution
    rolls: Sequence[Mapping[str, Any]]  # idx, sides, value, purpose: in order
    before: str | None


def handed_row(made: Resolved) -> ResolutionRow:
    """The row the report would read of ``made``'s resolution (active: the latest)."""
    new = made.row
    return ResolutionRow(
        new.k, new.label, new.position, new.state_hash, new.previous_state_hash, new.events, new.reveal, True
    )


class KeptHistory(NamedTuple):
    """The list of earlier resolutions a report of ``k`` shows: the lines the
    store keeps (of the latest ``kept_k`` they serve, rendered with the template of
    ``key``), and the active resolutions after ``kept_k`` up to ``k`` they lack."""

    kept_k: int
    lines: str
    missing: list[HistoryLine]


def history_for(tx: Tx, game_id: str, k: int, key: str) -> KeptHistory:
    """What :class:`KeptHistory` says, in one statement.  The kept list serves
    when it was rendered with ``key``, ends at or before ``k`` and its last
    resolution is still active: a rollback sets aside only resolutions after
    the one it returns to and numbers are never reused, so the active
    resolutions up to an active one never change (a list ending at a set-aside
    one is not used, and the active rows are read again)."""
    rows = tx.all(
        "WITH kept AS (SELECT h.k, h.lines FROM report_history h JOIN resolution r ON r.game_id = h.game_id"
        " AND r.k = h.k WHERE h.game_id = :game AND h.template = :key AND h.k <= :k AND r.active = :active)"
        " SELECT k, NULL, NULL, lines FROM kept UNION ALL SELECT k, label, state_hash, NULL FROM resolution"
        " WHERE game_id = :game AND active = :active AND k <= :k AND k > COALESCE((SELECT k FROM kept), 0)"
        " ORDER BY 1",
        {"game": game_id, "key": key, "k": k, "active": True},
    )
    if rows and rows[0][3] is not None:
        return KeptHistory(rows[0][0], rows[0][3], [HistoryLine(*row[:3]) for row in rows[1:]])
    return KeptHistory(0, "", [HistoryLine(*row[:3]) for row in rows])


class KeptLines(NamedTuple):
    """The list of earlier resolutions the store keeps for a game, as it is (read with
    the report's small rows, :func:`view_rows`, without the check that it still serves,
    which :func:`history_for` makes)."""

    k: int
    template: str
    lines: str


def keep_history(tx: Tx, game_id: str, k: int, key: str, lines: str) -> None:
    """Keep the list of earlier resolutions up to (active) resolution ``k``,
    rendered with the template of ``key``, in place of the one kept before."""
    tx.run(
        "INSERT INTO report_history (game_id, k, template, lines) VALUES (:game, :k, :key, :lines)"
        " ON CONFLICT (game_id) DO UPDATE SET k = excluded.k, template = excluded.template, lines = excluded.lines",
        {"game": game_id, "k": k, "key": key, "lines": lines},
    )


class RefusalLine(NamedTuple):
    side: str | None
    source: str
    received: datetime
    reason: str


class PlayerLine(NamedTuple):
    side: str
    public_key: str
    email: str | None
    tz: str | None  # the player's own zone (None: the game's)


def players(tx: Tx, game_id: str) -> list[PlayerLine]:
    rows = tx.all(
        "SELECT side, public_key, email, tz FROM player WHERE game_id = :game ORDER BY side", {"game": game_id}
    )
    return [PlayerLine(*row) for row in rows]


class RollbackLine(NamedTuple):
    at: datetime
    to_k: int
    discarded: list[int]


def rollbacks(tx: Tx, game_id: str) -> list[RollbackLine]:
    """The game's rollbacks, oldest first."""
    rows = tx.all("SELECT at, to_k, discarded FROM rollback WHERE game_id = :game ORDER BY id", {"game": game_id})
    return [RollbackLine(store.as_datetime(at), to_k, list(json.loads(discarded))) for at, to_k, discarded in rows]


class ViewRows(NamedTuple):
    """What a resolution's reports read of a game's small tables (:func:`view_rows`)."""

    chains: list[store.ChainAnchor]  # the extension chains, by first resolution served
    refusals: list[RefusalLine]  # for the resolution and the next, in the order they came
    players: list[PlayerLine]  # by side
    rollbacks: list[RollbackLine]  # oldest first
    disorder: list[tuple[str, int, int | None]]  # side, from_k, until_k: begun by the resolution
    observers: int  # how many observe the game
    absences: list[tuple[str, str, str]]  # the ledger's pauses, resumes and vacations: act, time, details (JSON)
    kept: KeptLines | None = None  # the list of earlier resolutions kept (``None``: none)


_VIEW_ROWS = """SELECT 'c', first_k, chain_length, anchor, CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR),
CAST(NULL AS VARCHAR), CAST(NULL AS TIMESTAMP) FROM dice_chain WHERE game_id = :game
UNION ALL SELECT 'f', id, NULL, side, source, reason, NULL, received FROM refusal
WHERE game_id = :game AND turn IN (:k, :next)
UNION ALL SELECT 'p', NULL, NULL, side, public_key, email, tz, NULL FROM player WHERE game_id = :game
UNION ALL SELECT 'r', id, to_k, discarded, NULL, NULL, NULL, at FROM rollback WHERE game_id = :game
UNION ALL SELECT 'd', from_k, until_k, side, NULL, NULL, NULL, NULL FROM civil_disorder
WHERE game_id = :game AND from_k <= :k
UNION ALL SELECT 'o', COUNT(*), NULL, NULL, NULL, NULL, NULL, NULL FROM observer
WHERE game_id = :game AND removed IS NULL
UNION ALL SELECT 'l', seq, NULL, act, time, details, NULL, NULL FROM ledger
WHERE game_id = :game AND act IN ('pause', 'resume', 'vacation')
UNION ALL SELECT 'h', k, NULL, template, lines, NULL, NULL, NULL FROM report_history WHERE game_id = :game"""
"""Seven small reads of a report in one statement: each statement more cost a report
some 15 k instructions of Python and SQLite work, however small.  The first part
gives each column its type (PostgreSQL types a union's columns part by part, and a
column of ``NULL`` alone would be text); the rows are put in each read's order in
Python (by kind, then id, first resolution or side)."""

_VIEW_ORDER = itemgetter(0, 1, 3)


def view_rows(tx: Tx, game_id: str, k: int, next_turn: int) -> ViewRows:
    """The game's dice chains (``store.chain_anchors``), the refused files for
    resolutions ``k`` and ``next_turn`` (in the order they came), its players
    (:func:`players`), rollbacks (:func:`rollbacks`), the sides in civil disorder
    from ``k`` or before, how many observe it, its pauses and vacations as the
    ledger records them (``absences.ledger_rows``) and its kept list of earlier
    resolutions, in one statement."""
    found = ViewRows([], [], [], [], [], 0, [])
    rows = tx.all(_VIEW_ROWS, {"game": game_id, "k": k, "next": next_turn})
    for kind, number, other, key, first, second, third, when in sorted(rows, key=_VIEW_ORDER):
        if kind == "p":
            found.players.append(PlayerLine(key, first, second, third))
        elif kind == "c":
            found.chains.append(store.ChainAnchor(number, other, key))
        elif kind == "f":
            found.refusals.append(RefusalLine(key, first, store.as_datetime(when), second))
        elif kind == "r":
            found.rollbacks.append(RollbackLine(store.as_datetime(when), other, list(json.loads(key))))
        elif kind == "d":
            found.disorder.append((key, number, other))
        elif kind == "l":
            found.absences.append((key, first, second))
        elif kind == "h":
            found = found._replace(kept=KeptLines(number, key, first))
        else:
            found = found._replace(observers=int(number))
    return found


class RollRow(NamedTuple):
    k: int
    idx: int
    sides: int
    value: int
    purpose: str


def rolls(tx: Tx, game_id: str, k: int | None = None) -> list[RollRow]:
    """The dice of resolution ``k`` (default: of every resolution), in order."""
    if k is None:
        rows = tx.all(
            "SELECT k, idx, sides, value, purpose FROM roll WHERE game_id = :game ORDER BY k, idx", {"game": game_id}
        )
    else:
        rows = tx.all(
            "SELECT k, idx, sides, value, purpose FROM roll WHERE game_id = :game AND k = :k ORDER BY idx",
            {"game": game_id, "k": k},
        )
    return [RollRow(*row) for row in rows]


class ResolutionLine(NamedTuple):
    k: int
    label: str
    state_hash: str
    position: str  # canonical JSON
    active: bool


def resolutions(tx: Tx, game_id: str) -> list[ResolutionLine]:
    """Every resolution of the game, active or set aside, with its position (the
    score over time, the site's dice page)."""
    rows = tx.all(
        "SELECT k, label, state_hash, position, active FROM resolution WHERE game_id = :game ORDER BY k",
        {"game": game_id},
    )
    return [
        ResolutionLine(k, label, state_hash, position, bool(active)) for k, label, state_hash, position, active in rows
    ]
