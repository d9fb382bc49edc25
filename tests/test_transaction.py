"""pbem.transaction: the hot paths' plain SQL, on both of its runners.

On SQLite, ``check``, ``submit`` and ``process`` speak to the driver's own
connection; on any other database they go through SQLAlchemy's ``text()``.  The
second runner is driven here on a real SQLite file (``FORCE_GENERIC``), so both
runners play the same game, and what they write must read back through the ORM
(reports, export, audit) exactly like rows the ORM wrote itself.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import select

from pbem import store
from pbem.audit import archive
from pbem.audit import verify as audit
from pbem.referee import intake, lifecycle, resolve, verdict
from pbem.store.database import Database
from pbem.store.pg import PgDatabase
from pbem.store.sql import FORCE_GENERIC, Conflict
from pbem.store.transaction import transaction
from pbem.turnfiles import keys, sshsig

RUNNERS = ["sqlite-driver", "sqlalchemy"]


@dataclass
class Desk:
    """What a test plays on: ``db`` is what the pipeline is handed (the runner
    under test), ``orm`` the SQLAlchemy engine that reads the rows back."""

    db: Database
    orm: Engine
    signers: dict[str, keys.PrivateKey]


def _engine(db: Path | str, runner: str) -> Engine:
    engine = store.open_engine(db)
    return engine.execution_options(**{FORCE_GENERIC: True}) if runner == "sqlalchemy" else engine


def _play_desk(tmp_path: Path, database: Path | str, runner: str) -> Iterator[Desk]:
    """Keys for both sides and game g1 (Farrapos) on ``database``, through ``runner``
    (on PostgreSQL: ``psycopg``, what ``store.open_database`` gives the plain-SQL
    commands, or ``sqlalchemy``, an engine's ``text()``)."""
    signers, public = {}, {}
    for side in ("republic", "empire"):
        private, pub = keys.generate_ed25519(side, tmp_path / "keys")
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    orm = _engine(database, runner)
    lifecycle.new_game(orm, "g1", "farrapos", None, [], public)
    db: Database = store.open_database(database) if runner == "psycopg" else orm
    if runner == "psycopg":
        assert isinstance(db, PgDatabase)
    yield Desk(db, orm, signers)
    db.dispose()
    orm.dispose()


@pytest.fixture(
    params=[
        *RUNNERS,
        pytest.param("psycopg", marks=pytest.mark.postgres),
        pytest.param("postgresql-sqlalchemy", marks=pytest.mark.postgres),
    ]
)
def desk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Desk]:
    """Every runner: both SQLite ones, and both PostgreSQL ones (see tests/support/pg_server.py)."""
    database = (
        request.getfixturevalue("postgres_url")
        if request.param in ("psycopg", "postgresql-sqlalchemy")
        else tmp_path / "referee.db"
    )
    yield from _play_desk(tmp_path, database, request.param)


@pytest.fixture(params=RUNNERS)
def sqlite_desk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Desk]:
    yield from _play_desk(tmp_path, tmp_path / "referee.db", request.param)


def _signed_turn(engine: Database, signers: dict[str, keys.PrivateKey], seed: int = 0) -> tuple[bytes, str]:
    (side,) = lifecycle.status(engine, "g1").awaiting
    message = lifecycle.next_turn_file(engine, "g1", side, bot="random", seed=seed).encode("utf-8")
    return message, sshsig.sign(message, signers[side])


def test_a_game_played_on_either_runner_audits_and_reads_back_through_the_orm(desk: Desk) -> None:
    engine, signers = desk.db, desk.signers
    for turn in range(1, 7):
        message, signature = _signed_turn(engine, signers, seed=turn)
        side = verdict.check(engine, message, signature).side
        draft = message + b"# a first draft\n"
        intake.submit(engine, draft, sshsig.sign(draft, signers[side]))
        assert intake.submit(engine, message, signature).superseded == 1
        outcome = resolve.resolve_next(engine, "g1")
        assert outcome.resolved == turn
        with pytest.raises(verdict.Refused, match="already resolved in resolution"):
            intake.submit(engine, message, signature)  # a replay, recorded as a refusal

    with store.reading(desk.orm) as session:
        game = store.get_game(session, "g1")
        assert (game.current_k, game.next_k) == (6, 7)
        subs = session.exec(select(store.Submission).order_by(store.Submission.id)).all()
        assert {s.status for s in subs} <= {store.SubmissionStatus.RESOLVED, store.SubmissionStatus.SUPERSEDED}
        assert sum(s.status == store.SubmissionStatus.RESOLVED for s in subs) == 6
        assert all(s.received.year >= 2026 for s in subs)
        refusals = session.exec(select(store.Refusal)).all()
        assert len(refusals) == 6 and all("already resolved" in r.reason and r.game_id == "g1" for r in refusals)
        resolutions = store.active_resolutions(session, "g1")
        assert [r.k for r in resolutions] == [1, 2, 3, 4, 5, 6] and all(r.active for r in resolutions)
    summary = audit.audit_archive(archive.build_archive(engine, "g1"))
    assert summary.resolutions == 6 and summary.files == 6


def test_rows_are_stored_in_the_forms_the_orm_writes(sqlite_desk: Desk, tmp_path: Path) -> None:
    """The raw column values on SQLite: a status by its enum name, SQLAlchemy's
    timestamp text, booleans as 0/1; the same as the rows `pbem new` wrote through
    the ORM."""
    engine, signers = sqlite_desk.db, sqlite_desk.signers
    intake.submit(engine, *_signed_turn(engine, signers))
    resolve.resolve_next(engine, "g1")
    with pytest.raises(verdict.Refused):
        intake.submit(engine, b"not a turn file")
    con = sqlite3.connect(tmp_path / "referee.db")
    try:
        stamp = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.000000$")
        (orm_created,) = con.execute("SELECT created FROM game").fetchone()
        assert stamp.match(orm_created)
        for table, column in (("submission", "received"), ("refusal", "received"), ("resolution", "created")):
            (value, kind) = con.execute(f"SELECT {column}, typeof({column}) FROM {table}").fetchone()
            assert kind == "text" and stamp.match(value), (table, value)
        assert con.execute("SELECT status FROM submission").fetchall() == [("RESOLVED",)]
        assert con.execute("SELECT active, typeof(active), rollback_id FROM resolution").fetchall() == [
            (1, "integer", None)
        ]
        assert con.execute("SELECT over, typeof(over), current_k, next_k FROM game").fetchall() == [
            (0, "integer", 1, 2)
        ]
    finally:
        con.close()


def test_a_second_resolution_with_the_same_number_is_a_conflict_and_writes_nothing(desk: Desk) -> None:
    engine, signers = desk.db, desk.signers
    intake.submit(engine, *_signed_turn(engine, signers))
    resolve.resolve_next(engine, "g1")
    with store.reading(desk.orm) as session:
        before = store.active_resolutions(session, "g1")[0]
    duplicate = store.NewResolution("g1", 1, "again", "{}", "x", "y", "[]", "00", "[]", None)
    with pytest.raises(Conflict):
        with transaction(engine) as tx:
            store.add_refusal(tx, None, None, None, b"written inside the failed transaction", None, "test", "test")
            store.add_resolution(tx, duplicate, [], [])
    with store.reading(desk.orm) as session:
        assert [r.label for r in store.all_resolutions(session, "g1")] == [before.label]
        assert session.exec(select(store.Refusal)).all() == []  # rolled back with it
        assert store.get_game(session, "g1").state_hash == before.state_hash


def test_an_unknown_game_is_named_with_the_games_here(desk: Desk) -> None:
    engine = desk.db
    with pytest.raises(LookupError, match=r"no game 'nope' \(games: g1\)"):
        resolve.resolve_next(engine, "nope")
    with pytest.raises(verdict.Refused) as refused:
        resolve.process(engine, ["g1", "nope"])
    assert refused.value.problems == ["no game 'nope' (games: g1)"]


@pytest.mark.parametrize("runner", RUNNERS)
def test_check_reads_without_waiting_for_a_writer(runner: str, new_farrapos) -> None:
    """`check` is a reader: while another connection holds SQLite's write lock it
    still answers at once (a writer would wait out the 30 s busy timeout)."""
    t = new_farrapos("g1")
    engine = _engine(t.db, runner)
    message = lifecycle.next_turn_file(engine, "g1", "republic", bot="random").encode("utf-8")
    holder = sqlite3.connect(t.db, isolation_level=None, timeout=0)
    try:
        holder.execute("BEGIN IMMEDIATE")
        checked = verdict.check(engine, message)
        assert checked.side == "republic" and checked.turn == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        engine.dispose()


def test_statements_are_rewritten_once_for_psycopg() -> None:
    """pbem.store.pg: the named parameters of the plain SQL in psycopg's form; casts and
    a literal ``%`` survive; SQLAlchemy's driver suffix is dropped for libpq."""
    from pbem.store import pg

    sql = "SELECT position::text FROM game WHERE id = :game AND label LIKE '50%' AND k >= :k_1"
    assert (
        pg.pyformat(sql) == "SELECT position::text FROM game WHERE id = %(game)s AND label LIKE '50%%' AND k >= %(k_1)s"
    )
    assert pg.pyformat(sql) is pg.pyformat(sql)
    assert pg.libpq_url("postgresql+psycopg://u@/db?host=/tmp/x") == "postgresql://u@/db?host=/tmp/x"
    assert [
        pg.is_postgres_url(u)
        for u in ("postgresql://h/db", "postgres://h/db", "postgresql+psycopg://h/db", "sqlite:///x.db", "mysql://h/db")
    ] == [True, True, True, False, False]
