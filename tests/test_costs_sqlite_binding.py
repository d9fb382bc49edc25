"""How an SQLite statement of the hot paths gets its values (the ``process --all``
budget of ``bench/budgets.py``): each test counts what the driver is handed,
never time, and fails on the store before this work.

- a statement written with named parameters (``:game``, as every runner reads
  them) is handed to the driver with ``?`` and its values in order, worked out
  once per statement: the driver looked each name up in the mapping, about
  1.2 k instructions a value and some forty values a resolution;
- the rows read and written are the same, timestamps written as before, and a
  value missing is refused by the driver as before.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

import pytest

from pbem.store import transaction


class _Recording:
    """A connection that keeps what each statement was handed, then runs it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.seen: list[tuple[str, Any]] = []

    def execute(self, sql: str, params: Any) -> sqlite3.Cursor:
        self.seen.append((sql, params))
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        self.seen.append((sql, rows))
        return self.conn.executemany(sql, rows)


def _tx() -> tuple[Any, _Recording]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (game VARCHAR, k INTEGER, at DATETIME)")
    recording = _Recording(conn)
    return transaction._SqliteTx(recording), recording  # type: ignore[arg-type]


def test_named_parameters_go_to_the_driver_by_position() -> None:
    tx, recording = _tx()
    when = datetime(2026, 12, 2, 23, 0, 5, tzinfo=UTC)
    tx.run("INSERT INTO t (game, k, at) VALUES (:game, :k, :at)", {"k": 3, "at": when, "game": "g1"})
    tx.run_many(
        "INSERT INTO t (game, k, at) VALUES (:game, :k, :at)", [{"game": "g2", "k": n, "at": None} for n in (1, 2)]
    )
    row = tx.one("SELECT game, k, at FROM t WHERE game = :game AND k >= :k AND game = :game", {"game": "g1", "k": 1})
    assert row == ("g1", 3, transaction.sqlite_datetime(when))
    assert tx.all("SELECT k FROM t WHERE game = :game ORDER BY k", {"game": "g2"}) == [(1,), (2,)]
    assert recording.seen == [
        ("INSERT INTO t (game, k, at) VALUES (?, ?, ?)", ("g1", 3, transaction.sqlite_datetime(when))),
        ("INSERT INTO t (game, k, at) VALUES (?, ?, ?)", [("g2", 1, None), ("g2", 2, None)]),
        ("SELECT game, k, at FROM t WHERE game = ? AND k >= ? AND game = ?", ("g1", 1, "g1")),
        ("SELECT k FROM t WHERE game = ? ORDER BY k", ("g2",)),
    ]


def test_a_value_missing_is_refused_by_the_driver() -> None:
    tx, _ = _tx()
    with pytest.raises(sqlite3.ProgrammingError, match="binding parameter :k"):
        tx.run("INSERT INTO t (game, k) VALUES (:game, :k)", {"game": "g1"})
    with pytest.raises(sqlite3.ProgrammingError, match="binding parameter :k"):
        tx.run_many("INSERT INTO t (game, k) VALUES (:game, :k)", [{"game": "g1", "k": 1}, {"game": "g2"}])
