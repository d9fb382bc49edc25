"""PostgreSQL for the plain-SQL paths, through psycopg alone.

``store.open_database`` hands a :class:`PgDatabase` to the commands that speak
plain SQL (:mod:`pbem.transaction`) when ``--db`` is a PostgreSQL URL, so that
``process``, ``submit``, ``check``, ``status`` and the workers of ``process
--jobs N`` neither import SQLAlchemy nor pay its cost for every statement (about
0.1 ms of client CPU a statement, more than the server takes to run most of
them: docs/performance.md, "Claimed work").  The commands still on the ORM open
the same URL through SQLAlchemy; both read and write the same rows.

The statements are the ones written for SQLite and SQLAlchemy's ``text()``,
with named parameters (``:game``); they are rewritten once each into psycopg's
``%(game)s`` form.  Values go to the driver as they are, as SQLAlchemy's
``text()`` gives them, so both runners store the same thing
(tests/test_postgres.py plays a game through each).

A URL is one libpq understands (``postgresql://USER@HOST:PORT/DB?host=/socket``);
SQLAlchemy's driver suffix (``postgresql+psycopg://``) is accepted and dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pbem.store.sql import Conflict, Params, Row

if TYPE_CHECKING:
    import psycopg

SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
"""The URL schemes this runner takes; any other goes through SQLAlchemy."""

_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_converted: dict[str, str] = {}


def is_postgres_url(url: str) -> bool:
    return url.split("://", 1)[0] in SCHEMES and "://" in url


def libpq_url(url: str) -> str:
    """The URL as libpq reads it: SQLAlchemy's driver suffix dropped."""
    scheme, rest = url.split("://", 1)
    return f"postgresql://{rest}" if scheme.startswith("postgres") else url


def pyformat(sql: str) -> str:
    """``:name`` parameters as psycopg's ``%(name)s`` (and a literal ``%`` doubled),
    worked out once per statement.  ``::type`` casts are left alone, as
    SQLAlchemy's ``text()`` leaves them."""
    done = _converted.get(sql)
    if done is None:
        done = _converted[sql] = _NAMED.sub(r"%(\1)s", sql.replace("%", "%%"))
    return done


class PgDatabase:
    """A PostgreSQL database for the plain-SQL paths: one connection per process
    (a worker forked from a process that used it opens its own), opened on first
    use, in autocommit mode so that :func:`transaction` says ``BEGIN`` itself."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection[Any] | None = None
        self._pid = 0

    def connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._pid != os.getpid() or self._conn.closed:
            import psycopg

            self._conn = psycopg.connect(libpq_url(self.url), autocommit=True)
            self._pid = os.getpid()
        return self._conn

    def dispose(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None

    def __str__(self) -> str:
        """The URL with its password hidden, for messages."""
        scheme, rest = self.url.split("://", 1)
        login, at, place = rest.rpartition("@")
        user, colon, _password = login.partition(":")
        return f"{scheme}://{user}{':***' if colon else ''}{at}{place}"

    def __repr__(self) -> str:
        return f"PgDatabase({str(self)!r})"


class _PgTx:
    def __init__(self, conn: psycopg.Connection[Any], write: bool) -> None:
        self._conn = conn
        self.locking_reads = write

    def one(self, sql: str, params: Params) -> Row | None:
        row: Row | None = self._conn.execute(pyformat(sql), params).fetchone()
        return row

    def all(self, sql: str, params: Params) -> list[Row]:
        return self._conn.execute(pyformat(sql), params).fetchall()

    def run(self, sql: str, params: Params) -> int:
        import psycopg

        try:
            return self._conn.execute(pyformat(sql), params).rowcount
        except psycopg.IntegrityError as exc:
            raise Conflict(str(exc)) from None

    def run_many(self, sql: str, rows: Sequence[Params]) -> None:
        import psycopg

        if not rows:
            return
        try:
            with self._conn.cursor() as cursor:
                cursor.executemany(pyformat(sql), rows)
        except psycopg.IntegrityError as exc:
            raise Conflict(str(exc)) from None


@contextmanager
def transaction(database: PgDatabase, write: bool) -> Iterator[_PgTx]:
    """One transaction at the server's default isolation (READ COMMITTED), as
    SQLAlchemy's ``engine.begin()`` gives it: committed when the block ends,
    rolled back on any error.  A writer locks the rows it means to change
    (``locking_reads``)."""
    conn = database.connection()
    with conn.transaction():
        yield _PgTx(conn, write)


def schema(database: PgDatabase) -> tuple[set[str], str | None]:
    """The tables of the database's current schema and its pbem schema version."""
    with transaction(database, write=False) as tx:
        tables = {
            r[0]
            for r in tx.all(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()", {}
            )
        }
        row = tx.one("SELECT value FROM meta WHERE key = 'schema_version'", {}) if "meta" in tables else None
    return tables, row[0] if row else None
