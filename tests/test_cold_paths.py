"""The referee's colder writes in plain SQL: ``pbem new``, ``rollback``, ``extend``,
``player``, ``game set`` (pbem/pipeline.py, players.py, deadlines.py).

Each runs on every runner of pbem.transaction: an SQLite file opened without
SQLAlchemy, SQLAlchemy's ``text()`` (forced on an SQLite file), and PostgreSQL.
What they store reads back through the ORM exactly like rows the ORM writes
itself; each is one transaction, and a failure part-way stores nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from pbem import store
from pbem.audit import archive
from pbem.audit import verify as audit
from pbem.referee import deadlines, intake, lifecycle, players, resolve, verdict
from pbem.referee import roster as games
from pbem.store import orm
from pbem.store.database import Database
from pbem.store.sql import FORCE_GENERIC
from pbem.store.transaction import transaction
from pbem.turnfiles import keys, sshsig

RUNNERS = ["sqlite-file", "sqlalchemy", pytest.param("postgresql", marks=pytest.mark.postgres)]
HOUSE_TABLE = """columns = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11-15", "16-20", "21-25", "+25"]

[rows]
1 = [0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6, 7]
2 = [0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8]
3 = [2, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 7, 8, 9]
4 = [3, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7, 8, 9, 10]
5 = [4, 4, 4, 5, 5, 6, 6, 6, 7, 7, 8, 9, 10, 11]
6 = [5, 5, 5, 6, 6, 7, 7, 7, 8, 8, 9, 10, 11, 12]
"""


def _open(runner: str, tmp_path: Path, request: pytest.FixtureRequest) -> Database:
    if runner == "postgresql":
        return store.create_database(request.getfixturevalue("postgres_url"))
    if runner == "sqlalchemy":
        return orm.open_engine(tmp_path / "referee.db").execution_options(**{FORCE_GENERIC: True})
    return store.create_database(tmp_path / "referee.db")


@pytest.fixture
def signers(tmp_path: Path) -> dict[str, keys.PrivateKey]:
    return {
        side: keys.load_private_key(keys.generate_ed25519(side, tmp_path / "keys")[0])
        for side in ("republic", "empire", "newcomer")
    }


def _public(tmp_path: Path, side: str) -> str:
    return (tmp_path / "keys" / f"{side}.pub").read_text(encoding="utf-8").strip()


@pytest.fixture(params=RUNNERS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    handle = _open(request.param, tmp_path, request)
    yield handle
    handle.dispose()


def _session(db: Database, tmp_path: Path, signers: dict[str, keys.PrivateKey]) -> None:
    """A referee's session: a game with addresses, a clock and a house table; three
    resolutions and a file queued; the dice extended; a rollback to 1; a side's
    new address and key; a new deadline."""
    (tmp_path / "bt.toml").write_text(HOUSE_TABLE, encoding="utf-8")
    clock = deadlines.Clock(deadline=48 * 3600, grace=3600, remind=600)
    public = {side: _public(tmp_path, side) for side in ("republic", "empire")}
    created = lifecycle.new_game(
        db,
        "g1",
        "farrapos",
        None,
        [],
        public,
        {"republic": "rep@example.org", "empire": "emp@example.org"},
        64,
        {"battle-table": tmp_path / "bt.toml"},
        clock,
    )
    assert (created.id, created.current_k, created.next_k, created.chain_length) == ("g1", 0, 1, 64)
    lifecycle.new_game(
        db, "g2", "furor-barbarus", "soissons", [], {"gallo-romans": public["republic"], "franks": public["empire"]}
    )
    for turn in range(4):
        (side,) = lifecycle.status(db, "g1").awaiting
        message = lifecycle.next_turn_file(db, "g1", side, bot="random", seed=turn).encode("utf-8")
        intake.submit(db, message, sshsig.sign(message, signers[side]))
        if turn < 3:
            assert resolve.resolve_next(db, "g1").resolved == turn + 1
    chain = lifecycle.extend_dice(db, "g1", 16)
    assert (chain.first_k, chain.chain_length) == (64, 16)
    record = lifecycle.rollback(db, "g1", 1)
    assert (record.to_k, record.discarded) == (1, [2, 3])
    change = players.change_player(db, "g1", "empire", "new@example.org", _public(tmp_path, "newcomer"))
    assert change.from_k == 4 and change.set_aside == 0  # the file queued was the republic's, set aside by the rollback
    assert deadlines.set_clock(db, "g1", {"deadline": "72h"}).deadline == 72 * 3600


def test_a_session_on_every_runner_audits(db: Database, tmp_path: Path, signers: dict[str, keys.PrivateKey]) -> None:
    _session(db, tmp_path, signers)
    st = lifecycle.status(db, "g1")
    assert (st.turn, st.awaiting) == (4, ["empire"])
    summary = audit.audit_archive(archive.build_archive(db, "g1"))
    assert (summary.resolutions, summary.set_aside, summary.rollbacks) == (1, 2, 1)
    assert any("battle-table" in note for note in summary.tables) and summary.player_notes
    with transaction(db, write=False) as tx:
        assert tx.all("SELECT kind, side FROM outbox WHERE kind IN ('rollback', 'player') ORDER BY id", {}) == [
            ("rollback", "empire"),
            ("rollback", "republic"),
            ("player", "empire"),
            ("player", "republic"),
        ]
        assert tx.all("SELECT status FROM submission ORDER BY id", {}) == [
            ("RESOLVED",),
            ("SET_ASIDE",),
            ("SET_ASIDE",),
            ("SET_ASIDE",),
        ]
        assert tx.all("SELECT k, rollback_id FROM resolution ORDER BY k", {}) == [(1, None), (2, 1), (3, 1)]
    assert [line.game for line in games.list_games(db)] == ["g1", "g2"]


def _rows(path: Path) -> dict[str, list[list[tuple[Any, str]]]]:
    """Every stored value of every table, with SQLite's type of it."""
    con = sqlite3.connect(path)
    try:
        out = {}
        for table in sorted(store.TABLES):
            columns = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
            values = ", ".join(f'"{c}", typeof("{c}")' for c in columns)
            out[table] = [
                list(zip(row[::2], row[1::2])) for row in con.execute(f'SELECT {values} FROM "{table}" ORDER BY rowid')
            ]
        return out
    finally:
        con.close()


def test_the_rows_are_those_the_orm_writes(tmp_path: Path, signers: dict[str, keys.PrivateKey]) -> None:
    """Each row of a session, read through the ORM and written again through it
    into a new database, comes out value for value, type for type."""
    db = store.create_database(tmp_path / "referee.db")
    _session(db, tmp_path, signers)
    db.dispose()
    source, copy = orm.open_engine(tmp_path / "referee.db", create=False), orm.open_engine(tmp_path / "copy.db")
    models = [
        m for m in orm.SQLModel.__subclasses__() if getattr(m, "__table__", None) is not None and m is not orm.Meta
    ]
    models.sort(key=lambda m: m is not orm.Game)  # the games first: the others refer to them
    with orm.reading(source) as session, orm.session_scope(copy) as target:
        for model in models:
            for row in session.exec(select(model)).all():
                target.add(model(**row.model_dump()))
            target.flush()
    source.dispose()
    copy.dispose()
    ours, theirs = _rows(tmp_path / "referee.db"), _rows(tmp_path / "copy.db")
    assert ours == theirs
    assert all(
        ours[t]
        for t in ("game", "player", "house_table", "game_clock", "dice_chain", "rollback", "player_change", "outbox")
    )


def test_refusals_say_what_is_wrong(db: Database, tmp_path: Path, signers: dict[str, keys.PrivateKey]) -> None:
    public = {side: _public(tmp_path, side) for side in ("republic", "empire")}
    lifecycle.new_game(db, "g1", "farrapos", None, [], public)
    with pytest.raises(verdict.Refused, match="game 'g1' already exists"):
        lifecycle.new_game(db, "g1", "farrapos", None, [], public)
    with pytest.raises(verdict.Refused, match=r"game g1 is already at resolution 0; nothing to roll back"):
        lifecycle.rollback(db, "g1", 0)
    with pytest.raises(verdict.Refused, match=r"game g1 has no active resolution 3 \(active: 0\)"):
        lifecycle.rollback(db, "g1", 3)
    with pytest.raises(LookupError, match="no game 'g9'"):
        lifecycle.extend_dice(db, "g9")
    with pytest.raises(LookupError, match="no game 'g9'"):
        lifecycle.rollback(db, "g9", 0)
    with pytest.raises(verdict.Refused, match="no side 'rome' in game g1 \\(sides: empire, republic\\)"):
        players.change_player(db, "g1", "rome", "a@example.org")
    with pytest.raises(verdict.Refused, match="nothing to change"):
        players.change_player(db, "g1", "empire", None, public["empire"])
    result = json.dumps({"kind": "win", "reason": "Republic totals 24 VP before 1845", "winner": "republic"})
    with transaction(db) as tx:
        tx.run("UPDATE game SET over = :over, result = :result WHERE id = 'g1'", {"over": True, "result": result})
    with pytest.raises(verdict.Refused, match=r"game g1 is over \(.*Republic.*\); its dice need no extension"):
        lifecycle.extend_dice(db, "g1")
    (line,) = games.list_games(db)
    assert "Republic" in games.outcome_text(line)


def _everything(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    with transaction(db, write=False) as tx:
        return {t: tx.all(f'SELECT * FROM "{t}" ORDER BY 1', {}) for t in sorted(store.TABLES - {"meta"})}


def test_a_failure_part_way_stores_nothing(
    db: Database, tmp_path: Path, signers: dict[str, keys.PrivateKey], monkeypatch: pytest.MonkeyPatch
) -> None:
    public = {side: _public(tmp_path, side) for side in ("republic", "empire")}
    emails = {"republic": "rep@example.org"}

    def broken(*_args: object) -> None:
        raise RuntimeError("the outbox is full")

    monkeypatch.setattr(resolve.notices, "queue_reports", broken)
    with pytest.raises(RuntimeError):
        lifecycle.new_game(db, "g1", "farrapos", None, [], public, emails, clock=deadlines.Clock(deadline=3600))
    assert not any(_everything(db).values())
    monkeypatch.undo()

    lifecycle.new_game(db, "g1", "farrapos", None, [], public, emails)
    for turn in range(2):
        (side,) = lifecycle.status(db, "g1").awaiting
        message = lifecycle.next_turn_file(db, "g1", side, bot="random", seed=turn).encode("utf-8")
        intake.submit(db, message, sshsig.sign(message, signers[side]))
        resolve.resolve_next(db, "g1")
    before = _everything(db)
    monkeypatch.setattr(lifecycle.notices, "queue_rollback_notice", broken)
    with pytest.raises(RuntimeError):
        lifecycle.rollback(db, "g1", 0)
    monkeypatch.setattr(players.notices, "queue_player_notice", broken)
    with pytest.raises(RuntimeError):
        players.change_player(db, "g1", "republic", "new@example.org", _public(tmp_path, "newcomer"))
    assert _everything(db) == before
