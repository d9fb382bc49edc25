"""The store: the referee's records on SQLite (WAL), PostgreSQL or any SQLAlchemy database.

Everything a player sent is kept byte for byte: submissions (queued, superseded,
resolved, set aside) and refusals with their reason.  Resolutions form the
position hash chain (previous hash -> orders -> new hash); rolls keep every die
with its purpose.  ``SCHEMA_VERSION`` is stored in ``meta``; opening a database of
another version is refused with a clear message.

This package's names are reachable from here (``store.open_database``,
``store.GameState``); each lives in the module of its job:

- :mod:`pbem.store.database`: what a database is (URL, schema version, errors);
- :mod:`pbem.store.opening`: opening and creating one, upgrading an older schema;
- :mod:`pbem.store.records`: the hot paths' plain SQL;
- :mod:`pbem.store.sql` and :mod:`pbem.store.transaction`: one transaction in plain SQL;
- :mod:`pbem.store.pg`: PostgreSQL through psycopg;
- :mod:`pbem.store.orm`: the SQLModel tables and the ORM's colder paths, imported
  on first use of one of its names (``store.Game``), so that a command that never
  needs the ORM never pays for importing it (docs/performance.md, "Start-up");
- :mod:`pbem.store.schema`: the SQLite schema as SQL text;
- :mod:`pbem.store.house_tables`: a game's replaced tables.
"""

from __future__ import annotations

from typing import Any

from pbem.store.database import (
    MIGRATIONS,
    SCHEMA_VERSION,
    TABLES,
    Database,
    NoDatabase,
    StoreError,
    SubmissionStatus,
    check_schema,
    create_private,
    database_url,
    no_database,
    readable_by_others,
    sqlite_path,
    unknown_game,
    utcnow,
)
from pbem.store.opening import (
    create_database,
    open_database,
)
from pbem.store.records import (
    POSITIONS_KEPT,
    ChainAnchor,
    ChainRow,
    EarlierCopy,
    GameState,
    NewResolution,
    QueuedFile,
    RollbackSeen,
    RolledBack,
    add_refusal,
    add_resolution,
    as_datetime,
    chain_anchors,
    chain_secret,
    claim_game,
    earlier_copies,
    extension_for,
    game_state,
    known_game,
    known_game_ids,
    next_queued_files,
    parsed_position,
    public_keys,
    queue_submission,
    queued_files,
    queued_sides,
    resolution_reads,
    rollback_that_set_aside,
    unfinished_game_ids,
)

__all__ = [
    "ChainAnchor",
    "ChainRow",
    "Database",
    "EarlierCopy",
    "GameState",
    "MIGRATIONS",
    "NewResolution",
    "NoDatabase",
    "POSITIONS_KEPT",
    "QueuedFile",
    "RollbackSeen",
    "RolledBack",
    "SCHEMA_VERSION",
    "StoreError",
    "SubmissionStatus",
    "TABLES",
    "add_refusal",
    "add_resolution",
    "as_datetime",
    "chain_anchors",
    "chain_secret",
    "check_schema",
    "claim_game",
    "create_database",
    "create_private",
    "database_url",
    "earlier_copies",
    "extension_for",
    "game_state",
    "known_game",
    "known_game_ids",
    "next_queued_files",
    "no_database",
    "open_database",
    "parsed_position",
    "public_keys",
    "queue_submission",
    "queued_files",
    "queued_sides",
    "readable_by_others",
    "resolution_reads",
    "rollback_that_set_aside",
    "sqlite_path",
    "unfinished_game_ids",
    "unknown_game",
    "utcnow",
]

_MODULES = frozenset(
    {"database", "opening", "records", "sql", "transaction", "pg", "orm", "schema", "house_tables", "absences"}
)


def __getattr__(name: str) -> Any:
    """The ORM half (:mod:`pbem.store.orm`: ``Game``, ``open_engine``, ``reading`` ...),
    imported on first use."""
    if name.startswith("__") or name in _MODULES:
        raise AttributeError(name)  # a module of this package: the import system loads it
    from pbem.store import orm

    try:
        return getattr(orm, name)
    except AttributeError:
        raise AttributeError(f"module 'pbem.store' has no attribute {name!r}") from None
