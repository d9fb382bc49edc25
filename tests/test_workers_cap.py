"""``pbem process --all --jobs N`` never runs more workers than help: on SQLite
one (one writer), on PostgreSQL at most the cores this process may use; it says
so in one line, every game is resolved once, and the resolutions are those of
``--jobs 1`` byte for byte (docs/performance.md, "SQLite has one writer").

Through the real command line (Typer's runner, in this process, so that the
workers actually started can be counted); nothing here is timed."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.referee import resolve, workers
from tests.support.desk import new_games, open_desk, queue_next_turns

RESOLUTIONS = "SELECT game_id, k, state_hash, previous_state_hash, events, reveal FROM resolution ORDER BY game_id, k"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """What each ``process`` ran: ("workers", N) for N worker processes, or ("one",
    games) for the command's own process."""
    calls: list[tuple[str, int]] = []
    real_workers, real_one = workers.process, resolve.process

    def with_workers(db: Any, game_ids: Any, jobs: int, *args: Any, **kw: Any) -> Any:
        calls.append(("workers", min(jobs, len(game_ids))))
        return real_workers(db, game_ids, jobs, *args, **kw)

    def in_one(db: Any, game_ids: Any = None, *args: Any, **kw: Any) -> Any:
        calls.append(("one", len(game_ids or [])))
        return real_one(db, game_ids, *args, **kw)

    monkeypatch.setattr(workers, "process", with_workers)
    monkeypatch.setattr(resolve, "process", in_one)
    yield calls


def run(db: str, *args: str) -> Any:
    return CliRunner().invoke(app, ["--db", db, "process", "--all", "-q", *args], catch_exceptions=False)


def copy_sqlite(source: Path, target: Path) -> Path:
    con = sqlite3.connect(source)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    target.write_bytes(source.read_bytes())
    return target


def sqlite_resolutions(db: Path) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute(RESOLUTIONS).fetchall()
    finally:
        con.close()


def test_jobs_on_sqlite_runs_as_one_worker_and_says_so(tmp_path: Path, started: list[tuple[str, int]]) -> None:
    desk = open_desk(tmp_path)
    games = new_games(desk, 6)
    queue_next_turns(desk, games)
    desk.engine.dispose()
    one, four = copy_sqlite(desk.db, tmp_path / "one.db"), copy_sqlite(desk.db, tmp_path / "four.db")
    before = sqlite_resolutions(one)

    plain = run(str(one))
    asked = run(str(four), "--jobs", "4")

    assert plain.exit_code == asked.exit_code == 0
    assert plain.stderr == ""
    assert asked.stderr == "pbem: --jobs 4 on SQLite runs as 1 worker: SQLite has one writer, see docs/performance.md\n"
    assert started == [("one", 6), ("one", 6)]  # no worker process started
    assert asked.stdout == plain.stdout
    made = sqlite_resolutions(four)
    assert len(made) == len(before) + 6 and {row[0] for row in made[len(before) :]} <= set(games)
    assert sorted((row[0], row[1]) for row in made) == sorted({(row[0], row[1]) for row in made})  # each once
    assert made == sqlite_resolutions(one)  # state hashes, events and reveals: byte for byte


def test_one_job_on_sqlite_says_nothing(tmp_path: Path, started: list[tuple[str, int]]) -> None:
    desk = open_desk(tmp_path)
    queue_next_turns(desk, new_games(desk, 2))
    desk.engine.dispose()
    result = run(str(desk.db), "--jobs", "1")
    assert result.exit_code == 0 and result.stderr == ""
    assert started == [("one", 2)]


def test_planned_workers_per_store(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "usable_cores", lambda: 2)
    pg = "postgresql+psycopg://u@localhost/db"
    assert workers.planned("x.db", 1) == (1, None)
    assert workers.planned("sqlite:///x.db", 3)[0] == 1
    assert workers.planned(pg, 2) == (2, None)
    assert workers.planned(pg, 4) == (
        2,
        "pbem: --jobs 4 on PostgreSQL runs as 2 workers: this machine gives it 2 cores, see docs/performance.md",
    )


@pytest.mark.postgres
def test_jobs_on_postgresql_runs_as_many_workers_as_cores(
    postgres_server: str, postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: Any
) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    desk = open_desk(tmp_path, postgres_url)
    games = new_games(desk, 6)
    queue_next_turns(desk, games)
    desk.engine.dispose()
    admin = create_engine(postgres_server, isolation_level="AUTOCOMMIT")
    twin = f"{make_url(postgres_url).database}_twin"
    with admin.connect() as conn:  # the same games, dice seeds and queued files, in a second database
        conn.execute(text(f'CREATE DATABASE "{twin}" TEMPLATE "{make_url(postgres_url).database}"'))
    twin_url = make_url(postgres_url).set(database=twin).render_as_string(hide_password=False)
    monkeypatch.setattr(workers, "usable_cores", lambda: 2)
    try:
        plain = run(postgres_url)
        asked = run(twin_url, "--jobs", "4")
        assert plain.exit_code == asked.exit_code == 0
        assert asked.stderr == (
            "pbem: --jobs 4 on PostgreSQL runs as 2 workers: this machine gives it 2 cores, see docs/performance.md\n"
        )
        assert started == [("one", 6), ("workers", 2)]
        rows = []
        for url in (postgres_url, twin_url):
            engine = create_engine(url)
            with engine.connect() as conn:
                rows.append([tuple(r) for r in conn.execute(text(RESOLUTIONS))])
            engine.dispose()
        assert len(rows[0]) == 6 and sorted({(r[0], r[1]) for r in rows[0]}) == [(g, 1) for g in games]
        assert rows[0] == rows[1]  # state hashes, events and reveals: byte for byte
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{twin}" WITH (FORCE)'))
        admin.dispose()
