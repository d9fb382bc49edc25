"""The SQLite schema as SQL text (pbem/store/schema.py): what ``pbem new`` runs to create
a database file without SQLAlchemy is what the ORM's tables make, character for
character."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event
from sqlmodel import SQLModel

from pbem import store
from pbem.store import orm, schema


def _orm_statements() -> list[str]:
    """The CREATE statements SQLAlchemy runs for the ORM's tables on SQLite."""
    engine = create_engine("sqlite://")
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _keep(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().startswith("CREATE"):
            seen.append(statement)

    with engine.begin() as conn:
        SQLModel.metadata.create_all(conn)
    engine.dispose()
    return seen


def test_the_schema_text_is_what_the_orm_creates() -> None:
    ours, theirs = set(schema.SQLITE), set(_orm_statements())
    missing = "\n".join(sorted(theirs - ours))
    assert not theirs - ours, (
        f"pbem/store/schema.py lacks (or words otherwise) these statements of pbem/store/orm.py's tables:\n{missing}"
    )
    assert not ours - theirs, f"pbem/store/schema.py has statements the ORM no longer makes: {sorted(ours - theirs)}"
    assert len(schema.SQLITE) == len(ours)


def test_each_table_is_created_after_the_tables_it_refers_to() -> None:
    created: set[str] = set()
    for statement in schema.SQLITE:
        if statement.startswith("CREATE INDEX"):
            assert statement.split(" ON ", 1)[1].split(" (", 1)[0].strip('"') in created, statement
            continue
        name = statement.split("CREATE TABLE ", 1)[1].split(" (", 1)[0].strip('"')
        table = SQLModel.metadata.tables[name]
        assert {fk.column.table.name for fk in table.foreign_keys} <= created, name
        created.add(name)
    assert created == set(store.TABLES)


def _master(path: Path) -> tuple[set[tuple[str, str, str, str]], list[tuple[str, str]]]:
    con = sqlite3.connect(path)
    try:
        master = set(con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        meta = con.execute('SELECT "key", value FROM meta ORDER BY "key"').fetchall()
        journal = con.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        con.close()
    assert journal == "wal"
    return master, meta


def test_a_file_created_without_sqlalchemy_is_the_one_the_orm_creates(tmp_path: Path) -> None:
    store.create_database(tmp_path / "plain.db").dispose()
    orm.open_engine(tmp_path / "orm.db").dispose()
    assert _master(tmp_path / "plain.db") == _master(tmp_path / "orm.db")
    assert stat.S_IMODE(os.stat(tmp_path / "plain.db").st_mode) == 0o600


def test_create_database_opens_an_existing_database_and_refuses_what_open_database_refuses(tmp_path: Path) -> None:
    db = store.create_database(tmp_path / "r.db")
    db.dispose()
    again = store.create_database(tmp_path / "r.db")  # a second `pbem new` on the same file
    again.dispose()
    (tmp_path / "junk.db").write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(store.StoreError, match="cannot open database"):
        store.create_database(tmp_path / "junk.db")
    con = sqlite3.connect(tmp_path / "other.db")
    con.execute("CREATE TABLE other (x)")
    con.commit()
    con.close()
    with pytest.raises(store.StoreError, match="not a pbem database"):
        store.create_database(tmp_path / "other.db")
    with pytest.raises(store.StoreError, match="cannot create database"):
        store.create_database(tmp_path / "no-such-folder" / "r.db")


def test_a_version_3_database_gets_the_zone_columns_in_place(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    store.create_database(path).dispose()
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE game DROP COLUMN tz")
    con.execute("ALTER TABLE player DROP COLUMN tz")
    con.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    store.open_database(path).dispose()
    con = sqlite3.connect(path)
    try:
        assert "tz" in {r[1] for r in con.execute("PRAGMA table_info(game)")}
        assert "tz" in {r[1] for r in con.execute("PRAGMA table_info(player)")}
        assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "4"
    finally:
        con.close()
