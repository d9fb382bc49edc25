"""Costs of the pipeline around the rules engines, per resolution and per
submitted file: transactions, statements and round trips counted, never timed.

- a resolution on SQLite is one transaction (a deferred writer) of a fixed
  number of statements, however long the game; one that loses the write lock to
  another process between its reads and its first write is made again as a
  writer;
- a game without webhooks reads no deadline and works out no public summary;
- a submit is one read of the game (its keys, its copies of the file), one
  insert and one commit when nothing is queued to supersede;
- on PostgreSQL a resolution takes two round trips;
- ``ingest -q`` starts no progress bar (whose thread redrew it ten times a second
  whatever the command did, so that the longer the batch, the more it cost).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import store
from pbem.referee import disorder, intake
from pbem.referee import resolve as resolving
from tests.support.desk import Desk, new_games, open_desk, signed_next_turns


def _played(tmp_path: Path, resolutions: int) -> tuple[Desk, str]:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    for n in range(resolutions):
        for _, message, signature in signed_next_turns(desk, [game], seed=n):
            intake.submit(desk.engine, message, signature)
        assert resolving.process(desk.engine, [game])[0].resolved == n + 1
    for _, message, signature in signed_next_turns(desk, [game], seed=99):
        intake.submit(desk.engine, message, signature)
    desk.engine.dispose()
    return desk, game


def _statements_of_a_resolution(desk: Desk, game: str) -> list[str]:
    db = store.open_database(desk.db)
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    try:
        made = resolving.resolve_next(db, game)
    finally:
        db.connection().set_trace_callback(None)
        db.dispose()
    assert made.resolved is not None
    return [s for s in statements if not s.startswith("INSERT INTO roll ")]  # one executemany, traced per row


@pytest.mark.parametrize("played", [1, 6])
def test_a_resolution_is_one_transaction_of_seven_statements(tmp_path: Path, played: int) -> None:
    """A resolution was a reader's look (BEGIN, the game, its queued sides,
    COMMIT) and then a writer that read it all again, the game's allowance and
    its deadline whether needed or not: 18 statements and two commits.  Then one
    deferred transaction of eleven: BEGIN, the game, its queued files, its sides in
    civil disorder, the resolution, the files resolved, the game moved on, its
    hooks, players and observers, COMMIT.  Now the four small reads (civil
    disorder, hooks, players, observers) and the queued files are one statement:
    seven, the same early and late in a game (before: eight, the queued files read
    by a statement of their own)."""
    desk, game = _played(tmp_path, played)
    statements = _statements_of_a_resolution(desk, game)
    heads = [" ".join(s.split()[:3]) for s in statements]
    assert heads == [
        "BEGIN",
        "SELECT g.id, g.rules,",
        "SELECT 'q', id,",
        "INSERT INTO resolution",
        "UPDATE submission SET",
        "UPDATE game SET",
        "COMMIT",
    ], statements


def test_a_resolution_that_loses_the_write_lock_is_made_again_as_a_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process writes between the resolution's reads and its first write:
    SQLite refuses the deferred writer the lock (its snapshot is stale), nothing
    of it is written, and the resolution is made again in a writer that holds the
    lock from BEGIN IMMEDIATE: made once, on the game as the other process left it."""
    import sqlite3

    desk, game = _played(tmp_path, 1)
    real = disorder.bot_turns
    calls: list[int] = []

    def meddled(*args: object, **kwargs: object) -> list[disorder.BotTurn]:
        if not calls:
            other = sqlite3.connect(desk.db)
            other.execute("UPDATE player SET email = 'new@example.org' WHERE game_id = ? AND side = 'empire'", (game,))
            other.commit()
            other.close()
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(disorder, "bot_turns", meddled)
    statements = _statements_of_a_resolution(desk, game)
    assert len(calls) == 2
    assert [s for s in statements if s.startswith(("BEGIN", "COMMIT", "ROLLBACK"))] == [
        "BEGIN",
        "ROLLBACK",
        "BEGIN IMMEDIATE",
        "COMMIT",
    ]
    raw = sqlite3.connect(desk.db)
    try:
        assert raw.execute("SELECT COUNT(*) FROM resolution WHERE game_id = ? AND k = 2", (game,)).fetchone() == (1,)
        assert raw.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'report' AND k = 2").fetchone() == (1,)
    finally:
        raw.close()


def _round_trips(trace: str) -> int:
    """The times the client waited for the server in a libpq trace: a request for
    answers (``Sync``, or ``Flush`` in pipeline mode; several in a row are one)
    that the server then answers (``B``).  Answers that arrive while the client is
    still sending are read as they come (psycopg reads what is ready without
    waiting): counting every run of sent lines followed by answers made the count
    depend on how fast the server answered, and the test fail on a busy machine."""
    trips, asked = 0, False
    for line in trace.splitlines():
        if line.startswith("F") and line.split("\t")[2:3] in (["Sync"], ["Flush"]):
            asked = True
        elif line.startswith("B") and asked:
            trips, asked = trips + 1, False
    return trips


def test_a_resolution_on_postgresql_takes_two_round_trips(postgres_url: str, tmp_path: Path) -> None:
    """On PostgreSQL each statement of a resolution waited for its answer: BEGIN,
    the claim, the game, its files, its sides in civil disorder, each write, the
    hooks, players and observers, COMMIT: 14 round trips.  Now the resolution's
    reads go with BEGIN in one round trip (psycopg's pipeline mode) and its
    writes with COMMIT in a second, counted in libpq's own trace of the real
    connection to a real server."""
    import psycopg

    desk = open_desk(tmp_path, postgres_url)
    try:
        games = new_games(desk, 2)
        for _, message, signature in signed_next_turns(desk, games):
            intake.submit(desk.engine, message, signature)
    finally:
        desk.engine.dispose()
    db = store.open_database(postgres_url)
    try:
        assert resolving.resolve_next(db, games[0]).resolved == 1  # the statements prepared, as in a batch
        conn = db.connection()  # type: ignore[union-attr]
        trace = tmp_path / "libpq.trace"
        with trace.open("w") as out:
            conn.pgconn.trace(out.fileno())
            conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
            try:
                made = resolving.resolve_next(db, games[1])
            finally:
                conn.pgconn.untrace()
        assert made.resolved == 1
        text = trace.read_text()
        assert _round_trips(text) == 2, text
        assert text.count('"COMMIT"') == 2 and "ROLLBACK" not in text  # sent once, and answered
    finally:
        db.dispose()


def test_a_write_refused_at_the_commit_of_a_pipelined_resolution_rolls_it_back(
    postgres_url: str, tmp_path: Path
) -> None:
    """A resolution's writes are answered at its COMMIT on PostgreSQL: a write the
    server refuses there (another process wrote resolution k first) is the
    ``Conflict`` it always was, nothing of the resolution stays, and the
    connection goes on to the next game."""
    import psycopg

    desk = open_desk(tmp_path, postgres_url)
    try:
        games = new_games(desk, 2)
        for _, message, signature in signed_next_turns(desk, games):
            intake.submit(desk.engine, message, signature)
    finally:
        desk.engine.dispose()
    with psycopg.connect(postgres_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as other:
        other.execute(
            "INSERT INTO resolution (game_id, k, label, position, state_hash, previous_state_hash, events, reveal,"
            " nmr, created, active) VALUES (%s, 1, 'x', '{}', 'x', 'x', '[]', 'x', '[]', now(), true)",
            (games[0],),
        )
        db = store.open_database(postgres_url)
        try:
            first = resolving.resolve_next(db, games[0])
            assert (first.resolved, first.note) == (None, "resolved by another process")
            assert resolving.resolve_next(db, games[1]).resolved == 1
        finally:
            db.dispose()
        counts = other.execute(
            "SELECT (SELECT COUNT(*) FROM resolution WHERE game_id = %s),"
            " (SELECT COUNT(*) FROM submission WHERE game_id = %s AND status = 'QUEUED'),"
            " (SELECT next_k FROM game WHERE id = %s)",
            (games[0], games[0], games[0]),
        ).fetchone()
        assert counts == (1, 1, 1)


def _statements_of_a_submit(desk: Desk, files: list[tuple[str, bytes, str]]) -> list[str]:
    db = store.open_database(desk.db)
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    try:
        for _, message, signature in files:
            intake.submit(db, message, signature)
    finally:
        db.connection().set_trace_callback(None)
        db.dispose()
    return [" ".join(s.split()[:2]) for s in statements]


def test_a_submit_supersedes_only_when_a_file_is_queued(tmp_path: Path) -> None:
    """A submit ran an UPDATE to supersede the side's queued file whether or not
    one was queued.  The game's read says how many files are queued for its next
    resolution; with none, a submit is BEGIN, the game, its keys, the file's
    earlier copies, the INSERT, COMMIT.  A second file of the side supersedes the
    first as before."""
    desk, game = _played(tmp_path, 1)
    desk.engine = store.open_engine(desk.db)
    resolving.process(desk.engine, [game])  # the file _played queued, resolved: nothing queued now
    one, other = signed_next_turns(desk, [game], seed=5), signed_next_turns(desk, [game], seed=6)
    desk.engine.dispose()
    first = _statements_of_a_submit(desk, one)
    assert first == [
        "BEGIN IMMEDIATE",
        "SELECT g.id,",
        "SELECT side,",
        "SELECT s.status,",
        "INSERT INTO",
        "COMMIT",
    ], first
    second = _statements_of_a_submit(desk, other)
    assert second == [
        "BEGIN IMMEDIATE",
        "SELECT g.id,",
        "SELECT side,",
        "SELECT s.status,",
        "UPDATE submission",
        "INSERT INTO",
        "COMMIT",
    ], second
    db = store.open_database(desk.db)
    try:
        from pbem.store.transaction import transaction

        with transaction(db, write=False) as tx:
            statuses = tx.all("SELECT status FROM submission WHERE game_id = :g AND turn = 3 ORDER BY id", {"g": game})
    finally:
        db.dispose()
    assert [s[0] for s in statuses] == ["SUPERSEDED", "QUEUED"]


def test_a_quiet_ingest_starts_no_progress_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pbem ingest --dir D -q`` entered rich's progress bar all the same (and
    its redrawing thread) though it was never fed; now a quiet ingest starts no
    thread at all."""
    import threading

    from typer.testing import CliRunner

    from pbem.cli import app
    from tests.support.desk import write_next_turns

    desk, game = _played(tmp_path, 1)
    desk.engine = store.open_engine(desk.db)
    resolving.process(desk.engine, [game])
    write_next_turns(desk, [game], tmp_path / "inbox", seed=5)
    desk.engine.dispose()
    started: list[str] = []
    real = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start", lambda self: started.append(self.name) or real(self))
    result = CliRunner().invoke(
        app, ["--db", str(desk.db), "ingest", "--dir", str(tmp_path / "inbox"), "-q"], catch_exceptions=False
    )
    assert result.exit_code == 0 and "1 accepted" in result.output, result.output
    assert started == []
