"""Concurrency: several processes running ``pbem process
--all`` (and, in the slow suite, ``pbem ingest``) at once on one SQLite database:
every turn is resolved exactly once, no turn file is lost or stored twice, and
every game audits afterwards.

What makes it hold: each resolution is one transaction opened with ``BEGIN
IMMEDIATE`` (the writer lock is taken before the game is read), and a unique
``(game_id, k)`` on resolutions as the last line of defence.
"""

from __future__ import annotations

import hashlib
import queue
from pathlib import Path

import pytest

from pbem import store
from pbem.referee import resolve, verdict, workers
from pbem.turnfiles import sshsig
from tests.support.desk import (
    Desk,
    assert_sound,
    needs_ingest,
    new_games,
    open_desk,
    queue_next_turns,
    queued_count,
    write_next_turns,
)
from tests.support.desk_runs import resolve_rounds, run_together


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    d = open_desk(tmp_path)
    yield d
    d.engine.dispose()


def test_two_processors_resolve_every_turn_exactly_once(desk: Desk) -> None:
    """Two ``pbem process --all`` at once over 20 games, two rounds."""
    games = new_games(desk, 20)
    resolve_rounds(desk, games, processes=2, rounds=2)


def test_two_processors_of_two_workers_each_resolve_every_turn_exactly_once(desk: Desk) -> None:
    """``process --all --jobs 2`` twice at once: four workers claiming
    from two queues over 20 games, two rounds."""
    games = new_games(desk, 20)
    resolve_rounds(desk, games, processes=2, rounds=2, jobs=2)


def test_a_game_that_is_not_ready_costs_no_write_transaction(desk: Desk) -> None:
    """``process --all`` over three games of which one is ready takes
    SQLite's write lock once (counted in the SQL the driver runs: one
    transaction writes, and a deferred one takes the lock at its first write
    only), and every game's outcome is what it was."""
    games = new_games(desk, 3)
    queue_next_turns(desk, games[1:2])
    db = store.open_database(desk.db)
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    try:
        outcomes = resolve.process(db, games)
    finally:
        db.dispose()
    assert [o.resolved for o in outcomes] == [None, 1, None]
    assert [o.awaiting for o in outcomes] == [("republic",), (), ("republic",)]
    transactions: list[list[str]] = []
    for statement in statements:
        if statement.startswith("BEGIN"):
            transactions.append([])
        transactions[-1].append(statement)
    writing = [t for t in transactions if any(s.lstrip().split()[0] in ("INSERT", "UPDATE", "DELETE") for s in t)]
    assert len(writing) == 1 and writing[0][0] == "BEGIN"  # deferred: the lock is taken at the first write
    assert statements.count("BEGIN IMMEDIATE") == 0
    assert statements.count("BEGIN") == 4  # the named games checked to exist, then one transaction per game


def test_workers_report_each_game_once_in_the_order_asked(desk: Desk) -> None:
    games = new_games(desk, 6)
    queue_next_turns(desk, games[::2])
    seen: list[str] = []
    outcomes = workers.process(str(desk.db), games, jobs=3, on_resolved=lambda o: seen.append(o.game_id))
    assert [o.game_id for o in outcomes] == games
    assert [o.resolved for o in outcomes] == [1, None, 1, None, 1, None]
    assert sorted(seen) == games
    assert_sound(desk, "after the workers")


def test_a_worker_reads_the_game_names_once_not_once_per_game(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker resolved a game by ``pipeline.process(db, [game])``,
    which checked the name by reading every game's id: O(games) per game, O(games^2)
    per batch.  The parent checks the names once; a worker resolves each game as
    it comes."""
    games = new_games(desk, 6)
    queue_next_turns(desk, games)
    reads: list[int] = []
    real = store.known_game_ids
    monkeypatch.setattr(store, "known_game_ids", lambda tx: reads.append(1) or real(tx))
    tasks: queue.Queue[tuple[int, str] | None] = queue.Queue()
    results: queue.Queue[tuple[int, resolve.ProcessOutcome]] = queue.Queue()
    for task in [*enumerate(games), None]:
        tasks.put(task)
    workers._work(str(desk.db), False, tasks, results)  # one worker, in this process
    assert sorted(results.get_nowait()[1].resolved for _ in games) == [1] * len(games)
    assert reads == []
    with pytest.raises(verdict.Refused, match="no game 'nope'"):
        workers.process(str(desk.db), [*games, "nope"], jobs=2)
    assert len(reads) == 1


@pytest.mark.slow
def test_four_processors_resolve_every_turn_exactly_once(desk: Desk) -> None:
    games = new_games(desk, 60)
    resolve_rounds(desk, games, processes=4, rounds=6)


@needs_ingest
@pytest.mark.slow
def test_processors_and_ingesters_together(desk: Desk) -> None:
    """Four processes at once on one database, two running ``process
    --all`` and two running ``ingest`` over the same folder of signed files
    (half the games' files queued beforehand, half arriving by ingest).  Every
    file is queued once, every turn resolved exactly once."""
    games = new_games(desk, 40)
    for n in range(3):
        before = assert_sound(desk, f"round {n + 1} queueing")
        queue_next_turns(desk, games[::2], seed=n)
        folder = desk.tmp / f"inbox-{n}"
        paths = write_next_turns(desk, games[1::2], folder, seed=n)
        commands = [("process", "--all", "-q"), ("ingest", "--dir", str(folder))] * 2
        results = run_together(desk, commands)
        for r in results:
            assert r.returncode in (0, 1), (r.args, r.returncode, r.stderr)
            assert "Traceback" not in r.stderr
        # A file ingested after both processors passed its game is resolved now.
        r = desk.pbem("process", "--all", "-q")
        assert r.returncode == 0, r.stderr
        desk.queued |= {hashlib.sha256(sshsig.split_inline(p.read_bytes())[0]).hexdigest() for p in paths}
        after = assert_sound(desk, f"round {n + 1}")
        assert {g: after[g] - before[g] for g in games} == {g: 1 for g in games}
        assert queued_count(desk) == 0
