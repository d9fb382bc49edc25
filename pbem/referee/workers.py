"""``pbem process --jobs N``: N worker processes that claim ready games.

The parent lists the games and puts them on one queue; each worker opens the
database itself and takes games from the queue until it is empty, resolving each
with :func:`pbem.pipeline.resolve_next`:

- whether a game is ready is read first, in a reader's transaction: a game that
  only waits for orders costs no write transaction;
- a ready game is then claimed: on PostgreSQL its row is locked with ``FOR
  UPDATE SKIP LOCKED``, so a game that another process (another ``pbem
  process``, ``pbem serve``) is resolving is passed over at once, never waited
  for; the unique ``(game_id, k)`` of resolutions stays the last line of defence,
  so every turn is resolved exactly once (tests/test_concurrency.py,
  tests/test_postgres.py).

How many workers run is :func:`planned`: ``--jobs N`` never gives fewer
resolutions per wall second than one worker (docs/performance.md measures it).

- On SQLite one process writes at a time: a writer holds the whole database
  from ``BEGIN IMMEDIATE`` to ``COMMIT``, and a resolution is computed inside its
  transaction, so more workers only add their start-up and their contention for
  the lock (2 and 4 workers resolved 735 and 641 games per wall second against
  1,019 for one).  ``--jobs N`` on SQLite runs as one worker, and says so.
- On PostgreSQL each worker holds only its game's row, and workers scale with
  the cores, not beyond them (a worker and its server backend share the
  machine's cores: 4 workers on 2 cores resolved fewer than 2).  ``--jobs N``
  runs at most as many workers as this process may use cores, and says so.
- Any other database runs the workers asked for.

Workers are forked where the platform allows it (Linux): a fork shares the
parent's imported modules, where a fresh interpreter would pay pbem's start-up
again for each worker.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Callable, Sequence
from typing import Any

from pbem import store
from pbem.referee import resolve
from pbem.store.database import database_url
from pbem.store.pg import is_postgres_url

ProgressCallback = Callable[[resolve.ProcessOutcome], None]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform
    tells it, else the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def planned(db: str | None, jobs: int) -> tuple[int, str | None]:
    """How many workers ``--jobs jobs`` runs on the database ``db`` (the ``--db``
    value), and the line saying why when that is fewer than asked (else None)."""
    url = database_url(db)
    if is_postgres_url(url):
        cores = usable_cores()
        if jobs <= cores:
            return jobs, None
        why = f"this machine gives it {cores} core{'s' if cores > 1 else ''}"
        return cores, f"pbem: --jobs {jobs} on PostgreSQL runs as {_workers(cores)}: {why}, see docs/performance.md"
    if url.startswith("sqlite") and jobs > 1:
        return 1, f"pbem: --jobs {jobs} on SQLite runs as 1 worker: SQLite has one writer, see docs/performance.md"
    return jobs, None


def _workers(count: int) -> str:
    return f"{count} worker{'s' if count > 1 else ''}"


def process(
    db: str | None,
    game_ids: Sequence[str],
    jobs: int,
    force_nmr: bool = False,
    on_resolved: ProgressCallback | None = None,
) -> list[resolve.ProcessOutcome]:
    """Resolve ``game_ids`` with ``jobs`` worker processes on the database ``db``
    (the ``--db`` value); the outcomes in the order of ``game_ids``."""
    if jobs <= 1 or len(game_ids) <= 1:
        database = store.open_database(db)
        try:
            return resolve.process(database, game_ids, force_nmr, on_resolved)
        finally:
            database.dispose()
    database = store.open_database(db)  # the schema checked once, here: the workers skip it
    try:
        resolve.check_game_names(database, game_ids)
    finally:
        database.dispose()
    context = _context()
    tasks: Any = context.Queue()
    results: Any = context.Queue()
    for index, game_id in enumerate(game_ids):
        tasks.put((index, game_id))
    count = min(jobs, len(game_ids))
    for _ in range(count):
        tasks.put(None)
    workers = [context.Process(target=_work, args=(db, force_nmr, tasks, results), daemon=True) for _ in range(count)]
    for worker in workers:
        worker.start()
    outcomes: dict[int, resolve.ProcessOutcome] = {}
    while len(outcomes) < len(game_ids):
        try:
            index, outcome = results.get(timeout=0.5)
        except queue.Empty:
            if not any(w.is_alive() for w in workers) and results.empty():
                break
            continue
        outcomes[index] = outcome
        if on_resolved is not None:
            on_resolved(outcome)
    for worker in workers:
        worker.join()
    stopped = ", ".join(str(w.exitcode) for w in workers if w.exitcode)
    return [
        outcomes.get(i)
        or resolve.ProcessOutcome(
            game_id,
            None,
            "",
            note="not resolved",
            problems=(f"{game_id}: its worker stopped before resolving it (exit status {stopped or '?'})",),
        )
        for i, game_id in enumerate(game_ids)
    ]


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _work(db: str | None, force_nmr: bool, tasks: Any, results: Any) -> None:
    """One worker: open the database (its schema was checked by the parent), take
    games until the queue says stop."""
    database = store.open_database(db, checked=True)
    try:
        while (task := tasks.get()) is not None:
            index, game_id = task
            results.put((index, resolve.process_game(database, game_id, force_nmr)))
    finally:
        database.dispose()
