"""What ``pbem`` does as a command ends (pbem/cli/application.py, ``ended``): every
database the command opened is closed, then what is alive is frozen (``gc.freeze``),
so that the interpreter's collections at exit do not walk it (docs/performance.md,
"The end of a command").  Before, only what start-up made was frozen; what the
command made was walked again at exit, and the SQLite connection closed only when the
collector freed it.  Frozen without being closed, the connection would never be
closed, and its write-ahead log would stay beside the database: the second test runs
the commands as a referee does and finds no ``-wal`` or ``-shm`` file after each."""

from __future__ import annotations

import gc
import sqlite3
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem.store import sql
from tests.support.desk import new_games, open_desk, write_next_turns


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """``main`` freezes what is alive in this process (the test session's objects):
    they go back to the collector after the test."""
    try:
        yield
    finally:
        gc.unfreeze()


def _beside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name + "-"))


def test_what_a_command_made_is_frozen_as_it_ends_and_its_database_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    from pbem.cli import application

    desk = open_desk(tmp_path)
    new_games(desk, 2)
    desk.engine.dispose()
    frozen_at_start: list[int] = []
    real = application.app_for

    def counted(argv: list[str]) -> Any:
        app = real(argv)

        def run() -> None:
            frozen_at_start.append(gc.get_freeze_count())
            app()

        return run

    monkeypatch.setattr(application, "app_for", counted)
    monkeypatch.setattr(sql, "OPENED", weakref.WeakSet())  # the command's own, not this session's others
    monkeypatch.setattr(sys, "argv", ["pbem", "--db", str(desk.db), "tick"])
    with pytest.raises(SystemExit) as ended:
        application.main()
    assert ended.value.code in (0, None)
    # the command's own objects (its database handle, what it read) are frozen as it ends
    assert gc.get_freeze_count() > frozen_at_start[0]
    assert [handle for handle in list(sql.OPENED) if getattr(handle, "_conn", None) is not None] == []


def test_no_write_ahead_log_is_left_beside_the_database_after_a_command(tmp_path: Path) -> None:
    desk = open_desk(tmp_path)
    games = new_games(desk, 2)
    turns = tmp_path / "turns"
    write_next_turns(desk, games, turns)
    desk.engine.dispose()
    db = Path(desk.db)
    assert _beside(db) == []
    players = [f"--player={side}={tmp_path / 'keys' / side}.pub" for side in ("republic", "empire")]
    for command, said in (
        (["new", "g9", "--rules", "farrapos", *players], ""),  # the database opened through SQLAlchemy
        (["ingest", "--dir", str(turns), "-q"], "2 accepted, 0 refused, 0 checked, 0 skipped"),
        (["process", "--all", "-q"], "2 resolution(s) made, 1 game(s) waiting"),
        (["tick"], "pass done: 0 message(s) judged, 0 notice(s), 0 resolution(s)"),
    ):
        result = desk.pbem(*command)
        assert result.returncode == 0, result.stdout + result.stderr
        assert not said or said in result.stdout.splitlines(), result.stdout
        assert "Exception ignored" not in result.stderr, result.stderr
        assert _beside(db) == [], command


def test_a_handle_opened_in_another_thread_is_let_go_without_an_error(tmp_path: Path) -> None:
    """A thread of a caller opens the database; the handle is let go, or closed as the
    command ends, by the main thread: ``sqlite3`` refuses a close from a thread other
    than the one that opened the connection, so the handle drops it instead (it closes
    as it is freed), where its ``__del__`` raised an "Exception ignored" each time."""
    import threading

    from pbem.store.transaction import SqliteFile

    db = tmp_path / "served.db"
    handle = SqliteFile(str(db))
    worker = threading.Thread(target=lambda: handle.connection().execute("CREATE TABLE t (x)"))
    worker.start()
    worker.join()
    assert handle._conn is not None
    unraisable: list[Any] = []
    hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        sql.close_opened()  # as the command ends, in the main thread
        handle.__del__()
    finally:
        sys.unraisablehook = hook
    assert handle._conn is None and unraisable == []
    own = SqliteFile(str(db))  # the same thread: closed for real
    conn = own.connection()
    own.dispose()
    with pytest.raises(sqlite3.ProgrammingError):
        conn.execute("SELECT 1")
