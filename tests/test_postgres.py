"""pbem on PostgreSQL: ``--db`` takes any SQLAlchemy URL (docs/formats.md, Database).

A throwaway server (tests/support/pg_server.py) holds a fresh database per test.  A whole
game goes through the CLI, refusals included; then several processes submit,
ingest and resolve at once, where PostgreSQL's row locks (``SELECT ... FOR
UPDATE`` on the game) stand in for SQLite's whole-database write lock.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import select
from typer.testing import CliRunner

from pbem import store
from pbem.cli.application import app
from pbem.referee import resolve
from pbem.turnfiles import sshsig
from tests.support.desk import assert_sound, new_games, open_desk, queue_next_turns, queued_count, write_next_turns
from tests.support.desk_runs import resolve_rounds, run_together

pytestmark = pytest.mark.postgres


def pbem(url: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pbem", "--db", url, *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def passes(url: str, cwd: Path) -> Callable[..., str]:
    """``pbem ARGS`` on ``url`` that must succeed: its output."""

    def ok(*args: str) -> str:
        r = pbem(url, cwd, *args)
        assert r.returncode == 0, (args, r.stderr)
        return r.stdout

    return ok


def test_a_game_through_the_cli_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    """A whole game through the CLI, refusals included.  On PostgreSQL the plain-SQL
    commands (``check``, ``submit``, ``process``, with workers too, ``status``) go
    through psycopg alone (:mod:`pbem.store.pg`), importing no SQLAlchemy: the first
    resolution is made through them, and the game's status read."""
    from tests.support.imports import imports_of, offending

    ok = passes(postgres_url, tmp_path)

    def hot(*args: str) -> str:
        result, modules = imports_of(list(args), tmp_path, postgres_url)  # type: ignore[arg-type]
        assert result.returncode == 0, (args, result.stderr[-2000:])
        assert offending(modules, ("sqlalchemy", "sqlmodel", "pydantic", "pbem.store.orm")) == [], args
        assert "psycopg" in modules, args
        return result.stdout

    def offline(*args: str) -> None:
        """A command that opens no database (``keygen``, ``sign``), run in this process."""
        r = CliRunner().invoke(app, list(args), catch_exceptions=False)
        assert r.exit_code == 0, (args, r.stderr)

    offline("keygen", "rep", "--dir", str(tmp_path / "k"))
    offline("keygen", "emp", "--dir", str(tmp_path / "k"))
    ok("new", "g1", "--rules", "farrapos", "--player", "republic=k/rep.pub", "--player", "empire=k/emp.pub")
    for turn, (side, key) in enumerate([("republic", "k/rep"), ("empire", "k/emp"), ("republic", "k/rep")], start=1):
        ok("orders", "g1", "--side", side, "--bot", "random", "-o", f"t{turn}.txt")
        offline("sign", str(tmp_path / f"t{turn}.txt"), "--key", str(tmp_path / key))
        if turn == 1:
            hot("check", "t1.txt")
            hot("submit", "t1.txt")
            hot("process", "--all", "--jobs", "2")
            assert json.loads(hot("status", "g1", "--json"))["turn"] == 2
        else:
            ok("submit", f"t{turn}.txt")
            ok("process", "--all")
    replay = pbem(postgres_url, tmp_path, "submit", "t1.txt")
    assert replay.returncode == 1 and "already resolved in resolution 1" in replay.stderr
    wrong_key = pbem(
        postgres_url, tmp_path, "sign", "t1.txt", "--key", "k/emp"
    )  # overwrite t1.txt.sig with the other key
    assert wrong_key.returncode == 0
    refused = pbem(postgres_url, tmp_path, "submit", "t1.txt")
    assert refused.returncode == 1 and "signature is by the empire side's key" in refused.stderr

    status = json.loads(ok("status", "g1", "--json"))
    assert status["turn"] == 4 and status["awaiting"] == ["empire"]
    ok("rollback", "g1", "--to", "2")
    after = json.loads(ok("status", "g1", "--json"))
    assert after["turn"] == 4 and after["awaiting"] == ["republic"]  # resolution 3 set aside; its number is not reused
    assert "all checks hold" in ok("audit", "g1")
    ok("export", "g1", "-o", "g1.json")
    audit = ok("audit", "--archive", "g1.json")
    assert "all checks hold" in audit and "2 active, 1 set aside by 1 rollback(s)" in audit
    ok("report", "g1", "--side", "republic", "-o", "r.html")
    assert "<svg" in (tmp_path / "r.html").read_text(encoding="utf-8")

    engine = store.open_engine(postgres_url, create=False)
    try:
        with store.reading(engine) as session:
            reasons = [r.reason for r in session.exec(select(store.Refusal).order_by(store.Refusal.id))]
            statuses = sorted(s.status.value for s in session.exec(select(store.Submission)))
    finally:
        engine.dispose()
    assert len(reasons) == 2 and "already resolved" in reasons[0] and "empire side's key" in reasons[1]
    assert statuses == ["resolved", "resolved", "set_aside"]


@pytest.mark.parametrize(
    "count,rounds", [pytest.param(6, 1, id="6-games"), pytest.param(12, 2, id="12-games", marks=pytest.mark.slow)]
)
def test_processors_and_ingesters_together_on_postgresql(
    postgres_url: str, tmp_path: Path, count: int, rounds: int
) -> None:
    """Four ``process --all`` at once resolve every turn exactly once; then two
    processors and two ingesters over one folder queue every file once.  Six games
    and one round of four processors in the default run, twelve and two in the slow
    one."""
    desk = open_desk(tmp_path, postgres_url)
    try:
        games = new_games(desk, count)
        resolve_rounds(desk, games, processes=4, rounds=rounds)
        resolve_rounds(desk, games, processes=2, rounds=1, jobs=2)  # four workers claiming from two queues

        before = assert_sound(desk, "ingest round queueing")
        queue_next_turns(desk, games[::2], seed=7)
        paths = write_next_turns(desk, games[1::2], tmp_path / "inbox", seed=7)
        results = run_together(desk, [("process", "--all", "-q"), ("ingest", "--dir", str(tmp_path / "inbox"))] * 2)
        for r in results:
            assert r.returncode in (0, 1) and "Traceback" not in r.stderr, (r.args, r.stderr)
        assert desk.pbem("process", "--all", "-q").returncode == 0
        desk.queued |= {hashlib.sha256(sshsig.split_inline(p.read_bytes())[0]).hexdigest() for p in paths}
        after = assert_sound(desk, "ingest round")
        assert {g: after[g] - before[g] for g in games} == {g: 1 for g in games}
        assert queued_count(desk) == 0
    finally:
        desk.engine.dispose()


def test_a_game_another_processor_holds_is_passed_over_not_waited_for(postgres_url: str, tmp_path: Path) -> None:
    """A processor claims a ready game with ``FOR UPDATE SKIP LOCKED``:
    while another transaction holds the game's row, ``process`` passes it over at
    once and resolves the others; once the row is free, the game is resolved."""
    desk = open_desk(tmp_path, postgres_url)
    try:
        games = new_games(desk, 2)
        queue_next_turns(desk, games)
        done: list[list[resolve.ProcessOutcome]] = []
        with desk.engine.connect() as holder:
            holder.begin()
            holder.execute(text("SELECT id FROM game WHERE id = :g FOR UPDATE"), {"g": games[0]})
            worker = threading.Thread(target=lambda: done.append(resolve.process(desk.engine, games)))
            worker.start()
            worker.join(timeout=60)
            assert not worker.is_alive(), "process waited for the held game instead of passing it over"
            holder.rollback()
        [held, free] = done[0]
        assert (held.resolved, held.note) == (None, "being resolved by another process")
        assert free.resolved == 1
        assert resolve.process(desk.engine, games[:1])[0].resolved == 1
        assert_sound(desk, "after the held game was released")
    finally:
        desk.engine.dispose()


def test_cli_names_an_unreachable_postgresql(tmp_path: Path) -> None:
    r = pbem("postgresql+psycopg://nobody:hunter2@/nowhere?host=/nonexistent-socket-dir", tmp_path, "status", "g1")
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "cannot open database postgresql+psycopg://nobody:***@/nowhere" in r.stderr
    assert "hunter2" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_version_6_database_on_postgresql_loses_the_repeated_indexes(postgres_url: str) -> None:
    """Version 7 drops ``ix_resolution_game_id`` and ``ix_roll_game_id`` (each
    repeated the start of its table's unique index): a version 6 database on
    PostgreSQL is upgraded in place the first time it is opened, as an SQLite file
    is (tests/test_schema.py)."""
    from sqlalchemy import create_engine

    from tests.support.schema_v3 import V6_INDEXES

    store.create_database(postgres_url).dispose()
    engine = create_engine(postgres_url)
    indexes = "SELECT indexname FROM pg_indexes WHERE tablename IN ('resolution', 'roll')"
    try:
        with engine.begin() as conn:
            assert not {"ix_resolution_game_id", "ix_roll_game_id"} & set(conn.execute(text(indexes)).scalars())
            for statement in V6_INDEXES:
                conn.execute(text(statement))
            conn.execute(text("UPDATE meta SET value = '6' WHERE key = 'schema_version'"))
        store.open_database(postgres_url).dispose()
        with engine.connect() as conn:
            version = conn.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar_one()
            left = set(conn.execute(text(indexes)).scalars())
    finally:
        engine.dispose()
    assert version == "7"
    assert not {"ix_resolution_game_id", "ix_roll_game_id"} & left and len(left) == 4  # the keys and unique indexes
