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
from tests.support.schema_v3 import V4_TABLES, downgrade_to_3, downgrade_to_6


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


def test_a_version_3_database_gains_the_version_4_tables_and_keeps_its_games(tmp_path: Path) -> None:
    """Version 4 adds tables (observer, game_allowance, civil_disorder, bot_turn, hook,
    ledger) and columns of game (rules_version, the allowances and limits, the
    referee's key): a version 3 file is upgraded in place the first time it is opened."""
    from typer.testing import CliRunner

    from pbem.cli.application import app
    from pbem.turnfiles import keys as keymod

    db = tmp_path / "old.db"
    for side in ("r", "e"):
        keymod.generate_ed25519(side, tmp_path)
    runner = CliRunner()
    made = runner.invoke(
        app,
        ["--db", str(db), "new", "g1", "--rules", "farrapos", "--player", f"republic={tmp_path / 'r.pub'}"]
        + ["--player", f"empire={tmp_path / 'e.pub'}"],
    )
    assert made.exit_code == 0, made.output
    downgrade_to_3(db)
    status = runner.invoke(app, ["--db", str(db), "status", "g1", "--json"])
    assert status.exit_code == 0, status.output
    con = sqlite3.connect(db)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        con.close()
    assert set(V4_TABLES) <= tables
    assert version == str(store.SCHEMA_VERSION) == "7"
    con = sqlite3.connect(db)
    try:
        assert "tz" in {r[1] for r in con.execute("PRAGMA table_info(game)")}
        assert "tz" in {r[1] for r in con.execute("PRAGMA table_info(player)")}
    finally:
        con.close()


def test_a_version_4_database_gains_the_kept_history_table_and_keeps_its_games(tmp_path: Path) -> None:
    """Version 5 adds report_history (the list of earlier resolutions a report
    shows, kept): a version 4 file is upgraded in place the first time it is
    opened."""
    db = tmp_path / "old.db"
    store.create_database(db).dispose()
    con = sqlite3.connect(db)
    try:
        con.execute("DROP TABLE report_history")
        con.execute("ALTER TABLE game DROP COLUMN dice_walk")
        con.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
        con.commit()
    finally:
        con.close()
    orm.open_engine(db).dispose()
    con = sqlite3.connect(db)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        con.close()
    assert "report_history" in tables and version == "7"


def test_a_version_5_database_gains_the_kept_dice_walk_and_resolves_its_games(tmp_path: Path) -> None:
    """Version 6 adds game.dice_walk (the dice chain's values walked for the next
    reveals, secret): a version 5 file, whose games have none, is upgraded in
    place the first time it is opened, and its games resolve with the reveals
    they would have had, walked from their checkpoints."""
    from pbem import dice
    from pbem.referee import resolve
    from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    desk.engine.dispose()
    con = sqlite3.connect(tmp_path / "referee.db")
    try:
        con.execute("ALTER TABLE game DROP COLUMN dice_walk")
        con.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
        con.commit()
    finally:
        con.close()
    db = store.open_database(tmp_path / "referee.db")
    desk.engine = db  # type: ignore[assignment]
    queue_next_turns(desk, [game], seed=2)
    dice._walks.clear()
    assert resolve.process(db, [game])[0].resolved == 3
    db.dispose()
    con = sqlite3.connect(tmp_path / "referee.db")
    try:
        version = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
        reveals = [bytes.fromhex(r[0]) for r in con.execute("SELECT reveal FROM resolution ORDER BY k")]
        (walked,) = con.execute("SELECT dice_walk FROM game").fetchone()
    finally:
        con.close()
    assert version == "7" and len(reveals) == 3 and walked
    assert dice.H(reveals[2]) == reveals[1] and dice.H(reveals[1]) == reveals[0]


def test_a_version_6_database_loses_the_indexes_that_repeat_a_unique_one_and_resolves_its_games(
    tmp_path: Path,
) -> None:
    """Version 7 drops ``ix_resolution_game_id`` and ``ix_roll_game_id``, which
    repeated the start of their table's unique index (a resolution wrote both): a
    version 6 file is upgraded in place the first time it is opened, and its games
    resolve and read as before."""
    from pbem.referee import resolve
    from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    desk.engine.dispose()
    db_file = tmp_path / "referee.db"
    downgrade_to_6(db_file)
    db = store.open_database(db_file)
    desk.engine = db  # type: ignore[assignment]
    queue_next_turns(desk, [game], seed=2)
    assert resolve.process(db, [game])[0].resolved == 3
    db.dispose()
    con = sqlite3.connect(db_file)
    try:
        version = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
        indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        ks = [r[0] for r in con.execute("SELECT k FROM resolution WHERE game_id = ? ORDER BY k", (game,))]
    finally:
        con.close()
    assert version == "7" and ks == [1, 2, 3]
    assert not {"ix_resolution_game_id", "ix_roll_game_id"} & indexes
    assert {"sqlite_autoindex_resolution_1", "sqlite_autoindex_roll_1"} <= indexes
    # the file is now the one a new database is, sqlite_master included
    store.create_database(tmp_path / "new.db").dispose()
    new = sqlite3.connect(tmp_path / "new.db")
    try:
        made = {r[0] for r in new.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        new.close()
    assert indexes == made
