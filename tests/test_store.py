"""The store: schema creation, version checks, read and write transactions."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from pbem import store
from tests.conftest import Table


def test_readers_do_not_wait_for_a_writer(new_farrapos) -> None:
    """`status`, `check`, reports and `export` read in a plain transaction (WAL
    snapshot): while a writer holds the lock they still answer.  Had they taken
    the write lock, they would wait out the 30 s busy timeout and this 20 s limit
    would fail the test."""
    t: Table = new_farrapos("g1")
    engine = store.open_engine(t.db)
    with store.session_scope(engine) as session:  # BEGIN IMMEDIATE: the write lock
        session.exec(select(store.Game)).all()
        result = t.run_subprocess("status", "g1", "--json", timeout=20)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["game"] == "g1"
    engine.dispose()


def test_new_database_gets_the_schema_version(table: Table) -> None:
    engine = store.open_engine(table.db)
    with store.reading(engine) as session:
        meta = session.get(store.Meta, "schema_version")
        assert meta is not None and meta.value == str(store.SCHEMA_VERSION)
    engine.dispose()
    store.open_engine(table.db).dispose()  # opening again changes nothing


@pytest.mark.parametrize(
    ("db", "message"),
    [
        ("nosuch://x", "SQLAlchemy knows no database of that kind"),
        ("mysql+nosuchdriver://x@localhost/y", "SQLAlchemy knows no database of that kind"),
        ("mssql+pymssql://referee:hunter2@localhost/y", "its database driver is not installed"),
        ("postgresql+psycopg://referee:hunter2@/pbem?host=/nonexistent-socket-dir", "cannot open database"),
    ],
)
def test_a_database_url_that_cannot_be_opened_is_named_without_its_password(
    table: Table, db: str, message: str
) -> None:
    result = table.run_subprocess("--db", db, "status", "g1")  # the last --db given wins
    assert result.returncode == 1, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert "hunter2" not in result.stderr
