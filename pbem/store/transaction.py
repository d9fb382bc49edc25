"""One database transaction in plain SQL, for the referee's hot paths.

``submit`` and ``process`` run a handful of small statements per turn file.
Through the ORM each statement and transaction costs far more Python than SQLite
takes to run it (docs/performance.md measures 2.5 ms against a 0.013 ms commit),
so these two paths, and ``check``, speak SQL through :class:`Tx` instead.  The
SQL uses named parameters (``:game``), which both runners understand:

- on SQLite, the driver's own connection: either an :class:`SqliteFile` opened
  with the standard library alone (``store.open_database``: the commands that
  need nothing else never import SQLAlchemy), or the one from SQLAlchemy's pool
  (its pragmas set by ``orm``'s connect hook), with ``BEGIN IMMEDIATE`` for a
  writer and a plain ``BEGIN`` for a reader, exactly like ``store.session_scope``
  and ``store.reading``;
- on any other database, SQLAlchemy's ``text()`` in ``engine.begin()``.

SQLAlchemy itself is imported only when an engine is used.

Values are written the way the ORM writes them (``store`` owns that: enum names,
its timestamp format), so ORM readers (reports, export, audit) see no difference."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine, TextClause

    from pbem.store.pg import PgDatabase
from pbem.store.sql import FORCE_GENERIC, NAMED, READ_ONLY, Busy, Conflict, Params, Row, Tx, opened


def sqlite_datetime(value: datetime) -> str:
    """SQLAlchemy's own text form of a timestamp on SQLite (its ``DATETIME``
    storage format), so rows written here read back through the ORM exactly like
    rows it wrote (tests/test_transaction.py compares the two).

    The text of the last timestamp written is kept: the timestamps of a batch are
    ``utcnow``'s, to the second, mostly the same one, and writing the seven fields
    cost 20 k instructions against under 1 k for the comparison.  Equal timestamps
    with the same ``tzinfo`` have the same fields (Python compares those by their
    fields), so the same text."""
    last, text = _last_written
    if value == last and value.tzinfo is last.tzinfo:
        return text
    text = (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond:06d}"
    )
    _last_written[:] = value, text
    return text


_last_written: list[Any] = [datetime.min, "0001-01-01 00:00:00.000000"]
"""The last timestamp :func:`sqlite_datetime` wrote, and its text."""


def sqlite_pragmas(conn: sqlite3.Connection) -> None:
    """How every SQLite connection of pbem's is set up: WAL, ``synchronous=NORMAL``,
    foreign keys on, a 30 s busy timeout, and no transaction begun by the driver,
    so that pbem issues ``BEGIN IMMEDIATE`` (a writer) or ``BEGIN`` (a reader)."""
    conn.isolation_level = None
    cursor = conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


class SqliteFile:
    """An SQLite database file opened with the standard library alone: what
    ``store.open_database`` returns for a plain ``sqlite:///PATH``.  One
    connection per process (a worker forked from a process that used it opens its
    own)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.url = f"sqlite:///{path}"
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._thread = 0
        opened(self)

    def connection(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            self._conn = sqlite3.connect(self.path, timeout=30)
            self._pid = os.getpid()
            self._thread = threading.get_ident()
            sqlite_pragmas(self._conn)
        return self._conn

    def dispose(self) -> None:
        """Close the connection, where this process and thread opened it: a handle let
        go in another thread (a caller running pbem in a thread of its own) drops it, and
        the connection closes itself as it is freed (``sqlite3`` refuses a close from
        another thread)."""
        if self._conn is not None and self._pid == os.getpid() and self._thread == threading.get_ident():
            self._conn.close()
        self._conn = None

    def __del__(self) -> None:
        """A handle let go closes its connection: the connection is in a cycle of its
        own (its statement cache), which only the collector would free, and a
        command ends with what is alive frozen (``sql.close_opened``)."""
        self.dispose()

    def __repr__(self) -> str:
        return f"SqliteFile({self.path!r})"


Database = Union["Engine", SqliteFile, "PgDatabase"]


_POSITIONAL: dict[str, tuple[str, tuple[str, ...]]] = {}


def _positional(sql: str, params: Params) -> tuple[str, Params | tuple[object, ...]]:
    """The statement with ``?`` for each ``:name`` and the values in their order,
    worked out once per statement: the driver binds a name by looking it up in
    the mapping, about 1.2 k instructions a value, some forty values a
    resolution.  Values missing go by name, for the driver to refuse them."""
    found = _POSITIONAL.get(sql)
    if found is None:
        found = _POSITIONAL[sql] = (NAMED.sub("?", sql), tuple(m.group(1) for m in NAMED.finditer(sql)))
    text, names = found
    try:
        values = tuple(map(params.__getitem__, names))
    except KeyError:
        return sql, _sqlite_params(params)
    for value in values:  # a plain loop: a generator per statement cost more than the statement's other Python
        if isinstance(value, datetime):  # each timestamp as its text, in a plain loop (no generator step a value)
            converted = list(values)
            for at, each in enumerate(converted):
                if isinstance(each, datetime):
                    converted[at] = sqlite_datetime(each)
            return text, tuple(converted)
    return text, values


def _sqlite_params(params: Params) -> Params:
    for value in params.values():  # a plain loop, as above
        if isinstance(value, datetime):
            return {k: sqlite_datetime(v) if isinstance(v, datetime) else v for k, v in params.items()}
    return params


class _SqliteTx:
    """A transaction's statements, run through one cursor: ``Connection.execute``
    made a cursor per statement (and a weak reference to it in the connection),
    about 1 k instructions a statement."""

    locking_reads = False

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    def one(self, sql: str, params: Params) -> Row | None:
        row: Row | None = self._cursor.execute(*_positional(sql, params)).fetchone()
        return row

    def all(self, sql: str, params: Params) -> list[Row]:
        return self._cursor.execute(*_positional(sql, params)).fetchall()

    def run(self, sql: str, params: Params) -> int:
        try:
            return self._cursor.execute(*_positional(sql, params)).rowcount
        except sqlite3.IntegrityError as exc:
            raise Conflict(str(exc)) from None
        except sqlite3.OperationalError as exc:
            raise _busy(exc) from None

    def run_many(self, sql: str, rows: Sequence[Params]) -> None:
        try:
            converted = [_positional(sql, r) for r in rows]
            if len({text for text, _ in converted}) == 1:
                self._cursor.executemany(converted[0][0], [values for _, values in converted])
            else:  # none, or a row missing a value: by name, for the driver to refuse it
                self._cursor.executemany(sql, [_sqlite_params(r) for r in rows])
        except sqlite3.IntegrityError as exc:
            raise Conflict(str(exc)) from None
        except sqlite3.OperationalError as exc:
            raise _busy(exc) from None

    def send(self, sql: str, params: Params) -> None:
        self.run(sql, params)  # in-process: nothing to gather

    def prefetch(self, statements: Sequence[tuple[str, Params]]) -> None:
        pass  # in-process: a read costs no round trip


_SQLITE_BUSY = 5  # SQLITE_BUSY; SQLITE_BUSY_SNAPSHOT is 5 | (2 << 8)


def _busy(exc: sqlite3.OperationalError) -> Exception:
    """A deferred writer's first write refused the lock (:class:`Busy`), or the error itself."""
    return Busy(str(exc)) if getattr(exc, "sqlite_errorcode", 0) & 0xFF == _SQLITE_BUSY else exc


_texts: dict[tuple[str, tuple[str, ...]], TextClause] = {}


def _text(sql: str, params: Params) -> TextClause:
    """The statement, built once; a timestamp parameter is bound as SQLAlchemy's
    ``DateTime`` so each database stores it the way the ORM does."""
    stamps = tuple(k for k, v in params.items() if isinstance(v, datetime))
    clause = _texts.get((sql, stamps))
    if clause is None:
        from sqlalchemy import DateTime, bindparam, text

        clause = _texts[(sql, stamps)] = text(sql).bindparams(*(bindparam(k, type_=DateTime()) for k in stamps))
    return clause


class _AlchemyTx:
    def __init__(self, conn: Connection, write: bool) -> None:
        self._conn = conn
        self.locking_reads = write and conn.dialect.name != "sqlite"

    def one(self, sql: str, params: Params) -> Row | None:
        row = self._conn.execute(_text(sql, params), dict(params)).first()
        return tuple(row) if row is not None else None

    def all(self, sql: str, params: Params) -> list[Row]:
        return [tuple(r) for r in self._conn.execute(_text(sql, params), dict(params))]

    def run(self, sql: str, params: Params) -> int:
        from sqlalchemy.exc import IntegrityError

        try:
            return self._conn.execute(_text(sql, params), dict(params)).rowcount
        except IntegrityError as exc:
            raise Conflict(str(exc.orig)) from None

    def run_many(self, sql: str, rows: Sequence[Params]) -> None:
        from sqlalchemy.exc import IntegrityError

        try:
            self._conn.execute(_text(sql, rows[0] if rows else {}), [dict(r) for r in rows])
        except IntegrityError as exc:
            raise Conflict(str(exc.orig)) from None

    def send(self, sql: str, params: Params) -> None:
        self.run(sql, params)

    def prefetch(self, statements: Sequence[tuple[str, Params]]) -> None:
        pass


@contextmanager
def transaction(engine: Database, write: bool = True, deferred: bool = False) -> Iterator[Tx]:
    """One transaction: committed when the block ends, rolled back on any error.
    A writer takes SQLite's write lock at BEGIN; a reader takes none.  A
    ``deferred`` writer on SQLite begins as a reader and takes the write lock at
    its first write, if it writes at all: when another process holds the lock or
    has written since the transaction began, that write raises :class:`Busy`
    (nothing is written; run it again as an ordinary writer).  On PostgreSQL a
    deferred writer is an ordinary writer in psycopg's pipeline mode, so that
    its prefetched reads and its sent writes (``Tx.prefetch``, ``Tx.send``) go to
    the server together; on any other database it is an ordinary writer.

    On SQLite the transaction's steps are :func:`_sqlite_steps`, delegated to with
    ``yield from`` (in C): a context manager within this one cost a transaction a
    generator and its two resumptions more."""
    if isinstance(engine, SqliteFile):
        yield from _sqlite_steps(engine.connection(), write and not deferred)
        return
    from pbem.store import pg  # imported here: it builds on this module

    if isinstance(engine, pg.PgDatabase):  # PostgreSQL through psycopg alone
        with pg.transaction(engine, write, pipelined=deferred) as pgtx:
            yield pgtx
        return
    if engine.dialect.name != "sqlite" or engine.get_execution_options().get(FORCE_GENERIC):
        with engine.execution_options(**({} if write else {READ_ONLY: True})).begin() as conn:
            yield _AlchemyTx(conn, write)
        return
    pooled = engine.raw_connection()
    try:
        yield from _sqlite_steps(pooled.driver_connection, write and not deferred)  # type: ignore[arg-type]
    finally:
        pooled.close()  # back to the pool


def _sqlite_steps(conn: sqlite3.Connection, write: bool) -> Iterator[Tx]:
    """A transaction on an SQLite connection, as :func:`transaction` yields it: begun,
    the one ``Tx`` yielded, then committed, or rolled back on any error thrown in."""
    cursor = conn.cursor()  # the transaction's one cursor, its statements' too
    cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield _SqliteTx(cursor)
    except BaseException:
        cursor.close()
        conn.rollback()
        raise
    cursor.close()  # its last statement reset, as a cursor let go after its statement did
    conn.commit()
