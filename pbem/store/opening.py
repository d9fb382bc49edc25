"""Opening and creating the referee's database: an SQLite file with the standard
library alone, PostgreSQL through psycopg, any other SQLAlchemy URL through the ORM;
an older schema is upgraded in place."""

from __future__ import annotations

import os
import sqlite3
from typing import TYPE_CHECKING

from pbem.store.pg import PgDatabase, is_postgres_url
from pbem.store.pg import schema as pg_schema
from pbem.store.transaction import SqliteFile, transaction

if TYPE_CHECKING:
    pass
from pbem.store.database import (
    SCHEMA_VERSION,
    Database,
    StoreError,
    check_schema,
    create_private,
    database_url,
    no_database,
    sqlite_path,
)


def open_database(db: str | os.PathLike[str] | None = None, checked: bool = False) -> Database:
    """Open an existing database for the hot paths.  An SQLite file is opened with
    the standard library alone (the same pragmas as :mod:`pbem.store.orm`'s engine);
    any other URL goes through SQLAlchemy (``orm.open_engine``).  ``checked``: the
    caller's process has just checked its schema (a worker of ``process --jobs``)."""
    url = database_url(db)
    path = sqlite_path(url)
    if is_postgres_url(url):
        return _open_postgres(db, url, checked)
    if path is None or not url.startswith("sqlite:///") or "?" in url:
        from pbem.store.orm import open_engine

        return open_engine(db, create=False, check=not checked)
    if not path.exists():
        raise no_database(str(path))
    handle = SqliteFile(str(path))
    if checked:
        return handle
    try:
        conn = handle.connection()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        row = (
            conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() if "meta" in tables else None
        )
        if _upgraded(db, handle, tables, row[0] if row else None):
            return open_database(db)
    except sqlite3.DatabaseError as exc:
        handle.dispose()
        raise StoreError(f"cannot open database {url}: {exc}") from None
    except StoreError:
        handle.dispose()
        raise
    return handle


def _upgraded(
    db: str | os.PathLike[str] | None, handle: SqliteFile | PgDatabase, tables: set[str], version: str | None
) -> bool:
    """Check the schema a database opened without SQLAlchemy holds; one of an older
    version is upgraded in place by SQLAlchemy (``orm.open_engine``), the handle
    closed first, and True says to open it again."""
    if version is not None and version.isdigit() and int(version) < SCHEMA_VERSION:
        handle.dispose()
        from pbem.store.orm import open_engine

        open_engine(db, create=False).dispose()
        return True
    check_schema(tables, version)
    return False


def _open_postgres(db: str | os.PathLike[str] | None, url: str, checked: bool) -> PgDatabase:
    """A PostgreSQL database through psycopg alone (:mod:`pbem.store.pg`), its schema
    checked as an SQLite file's is; an older schema is upgraded by SQLAlchemy as
    before."""
    handle = PgDatabase(url)
    if checked:
        return handle
    try:
        if _upgraded(db, handle, *pg_schema(handle)):
            return _open_postgres(db, url, checked)
    except StoreError:
        handle.dispose()
        raise
    except Exception as exc:  # the driver's own errors: no server, no database, refused login
        handle.dispose()
        reason = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise StoreError(f"cannot open database {handle}: {reason}") from None
    return handle


def create_database(db: str | os.PathLike[str] | None = None) -> Database:
    """:func:`open_database`, creating the database first if it is new.  A new
    SQLite file is made 0600 and given its tables and schema version in one write
    transaction (the first process to take the lock does it); any other URL goes
    through SQLAlchemy (``orm.open_engine``), which creates the tables from the
    ORM's metadata (then PostgreSQL is opened through psycopg, as
    :func:`open_database` does)."""
    url = database_url(db)
    path = sqlite_path(url)
    if path is None or not url.startswith("sqlite:///") or "?" in url:
        from pbem.store.orm import open_engine

        engine = open_engine(db, create=True)
        if not is_postgres_url(url):
            return engine
        engine.dispose()  # the tables made: PostgreSQL's plain SQL goes through psycopg alone
        return open_database(db)
    if not path.exists():
        create_private(path)
    handle = SqliteFile(str(path))
    try:
        with transaction(handle) as tx:
            if tx.one("SELECT name FROM sqlite_master WHERE type = 'table'", {}) is None:
                from pbem.store import schema

                for statement in schema.SQLITE:
                    tx.run(statement, {})
                tx.run(
                    'INSERT INTO meta ("key", value) VALUES (:key, :value)',
                    {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                )
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open database {url}: {exc}") from None
    finally:
        handle.dispose()
    return open_database(db)
