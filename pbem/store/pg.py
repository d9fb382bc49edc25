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

from pbem.store.sql import NAMED, Conflict, Params, Row, opened

if TYPE_CHECKING:
    import psycopg

SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
"""The URL schemes this runner takes; any other goes through SQLAlchemy."""

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
        done = _converted[sql] = NAMED.sub(r"%(\1)s", sql.replace("%", "%%"))
    return done


class PgDatabase:
    """A PostgreSQL database for the plain-SQL paths: one connection per process
    (a worker forked from a process that used it opens its own), opened on first
    use, in autocommit mode so that :func:`transaction` says ``BEGIN`` itself."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection[Any] | None = None
        self._pid = 0
        opened(self)

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

    def __del__(self) -> None:
        """A handle let go closes its connection (as ``SqliteFile``'s does)."""
        self.dispose()

    def __str__(self) -> str:
        """The URL with its password hidden, for messages."""
        scheme, rest = self.url.split("://", 1)
        login, at, place = rest.rpartition("@")
        user, colon, _password = login.partition(":")
        return f"{scheme}://{user}{':***' if colon else ''}{at}{place}"

    def __repr__(self) -> str:
        return f"PgDatabase({str(self)!r})"


_WRITTEN = re.compile(r"^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.IGNORECASE)


class _PgTx:
    """One transaction's statements.  In pipeline mode (``pipeline`` given) a
    write sent (:meth:`send`) and the reads asked ahead (:meth:`prefetch`) wait in
    psycopg's pipeline and go to the server with the next statement whose answer
    is needed: one round trip for them all."""

    def __init__(self, conn: psycopg.Connection[Any], write: bool, pipeline: psycopg.Pipeline | None = None) -> None:
        self._conn = conn
        self.locking_reads = write
        self._pipeline = pipeline
        self._ahead: dict[tuple[str, tuple[tuple[str, Any], ...]], psycopg.Cursor[Any]] = {}

    def _asked(self, sql: str, params: Params) -> psycopg.Cursor[Any]:
        if self._ahead:
            cursor = self._ahead.pop((sql, tuple(sorted(params.items()))), None)
            if cursor is not None:
                return cursor
        return self._conn.execute(pyformat(sql), params)

    def _written(self, sql: str) -> None:
        """Forget the reads asked ahead that name the table ``sql`` writes."""
        if self._ahead:
            found = _WRITTEN.match(sql)
            table = re.compile(rf"\b(?:FROM|JOIN)\s+{found.group(1)}\b", re.IGNORECASE) if found else None
            for key in [key for key in self._ahead if table is None or table.search(key[0])]:
                del self._ahead[key]

    def one(self, sql: str, params: Params) -> Row | None:
        import psycopg

        try:
            row: Row | None = self._asked(sql, params).fetchone()
        except psycopg.IntegrityError as exc:  # a write sent earlier, answered now
            raise Conflict(str(exc)) from None
        return row

    def all(self, sql: str, params: Params) -> list[Row]:
        import psycopg

        try:
            return self._asked(sql, params).fetchall()
        except psycopg.IntegrityError as exc:
            raise Conflict(str(exc)) from None

    def run(self, sql: str, params: Params) -> int:
        import psycopg

        self._written(sql)
        try:
            cursor = self._conn.execute(pyformat(sql), params)
            if self._pipeline is not None:
                self._pipeline.sync()  # its count is needed now
            return cursor.rowcount
        except psycopg.IntegrityError as exc:
            raise Conflict(str(exc)) from None

    def run_many(self, sql: str, rows: Sequence[Params]) -> None:
        import psycopg

        if not rows:
            return
        self._written(sql)
        try:
            with self._conn.cursor() as cursor:
                cursor.executemany(pyformat(sql), rows)
        except psycopg.IntegrityError as exc:
            raise Conflict(str(exc)) from None

    def send(self, sql: str, params: Params) -> None:
        import psycopg

        self._written(sql)
        try:
            self._conn.execute(pyformat(sql), params)
        except psycopg.IntegrityError as exc:
            raise Conflict(str(exc)) from None

    def prefetch(self, statements: Sequence[tuple[str, Params]]) -> None:
        if self._pipeline is None:
            return  # each would be a round trip of its own now: asked when needed instead
        for sql, params in statements:
            self._ahead[(sql, tuple(sorted(params.items())))] = self._conn.execute(pyformat(sql), params)


@contextmanager
def transaction(database: PgDatabase, write: bool, pipelined: bool = False) -> Iterator[_PgTx]:
    """One transaction at the server's default isolation (READ COMMITTED), as
    SQLAlchemy's ``engine.begin()`` gives it: committed when the block ends,
    rolled back on any error.  A writer locks the rows it means to change
    (``locking_reads``).  ``pipelined``: in psycopg's pipeline mode (where libpq
    has it), BEGIN and COMMIT are sent in the pipeline itself, so BEGIN travels
    with the reads asked ahead and COMMIT with the writes sent (psycopg's own
    ``transaction()`` waits for the answer to its BEGIN)."""
    import psycopg

    conn = database.connection()
    if not (pipelined and psycopg.Pipeline.is_supported()):
        try:
            with conn.transaction():
                yield _PgTx(conn, write)
        except psycopg.IntegrityError as exc:
            raise Conflict(str(exc)) from None
        return
    try:
        with conn.pipeline() as pipeline:
            conn.execute("BEGIN")
            yield _PgTx(conn, write, pipeline)
            conn.execute("COMMIT")  # sent with the writes still waiting when the pipeline ends, and answered then
    except BaseException as exc:
        if not conn.closed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.execute("ROLLBACK")
        if isinstance(exc, psycopg.IntegrityError):  # a write sent, answered at the commit
            raise Conflict(str(exc)) from None
        raise


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
