"""What a database is to pbem: its URL, the schema version, the errors of opening one,
and a private file made for it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Union

from pbem.store.pg import PgDatabase
from pbem.store.transaction import SqliteFile

if TYPE_CHECKING:
    from sqlalchemy import Engine


# 2: game.seed_checkpoints; 3: dice_chain (extensions), house_table; outbox, intake, intake_part, game_clock,
# late_turn, player_change; site (new tables); 4: game.rules_version (rulesets as plug-ins), the game's
# allowances and limits (new columns); observer, game_allowance, civil_disorder, bot_turn, hook, ledger (new tables);
# outbox.claimed_by and claimed_at (a delivery claims a row before sending it); game.tz, player.tz (the zones
# deadlines are shown in); 5: report_history (new table: the list of earlier resolutions a report shows, kept);
# 6: game.dice_walk (the dice chain's values walked for the next reveals, secret); 7: no ix_resolution_game_id
# nor ix_roll_game_id (each repeated the start of its table's unique index, and a resolution wrote both)
SCHEMA_VERSION = 7


MIGRATIONS: dict[int, tuple[str, ...]] = {
    3: (),  # new tables only (created by create_all); ALTER TABLE statements go here
    4: (
        "ALTER TABLE game ADD COLUMN rules_version VARCHAR NOT NULL DEFAULT '1'",
        *(
            f"ALTER TABLE game ADD COLUMN {column}"
            for column in (
                "vacation_days INTEGER",
                "max_pause INTEGER",
                "max_extensions INTEGER",
                "referee_key VARCHAR",
            )
        ),
        "ALTER TABLE game ADD COLUMN tz VARCHAR",
        "ALTER TABLE player ADD COLUMN tz VARCHAR",
        "ALTER TABLE outbox ADD COLUMN claimed_by VARCHAR",
        "ALTER TABLE outbox ADD COLUMN claimed_at TIMESTAMP",
        # a game's queued files of a turn, found without scanning all its submissions
        "CREATE INDEX IF NOT EXISTS ix_submission_game_turn_status ON submission (game_id, turn, status)",
    ),  # and new tables
    5: (),  # report_history, a new table
    6: ("ALTER TABLE game ADD COLUMN dice_walk VARCHAR",),
    7: ("DROP INDEX IF EXISTS ix_resolution_game_id", "DROP INDEX IF EXISTS ix_roll_game_id"),
}
"""What upgrades a database from the version before: new tables are created as
they are missing, then these statements run, all in one write transaction."""


class StoreError(RuntimeError):
    """The database cannot be used (wrong version, not a pbem database, unreadable)."""


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


class SubmissionStatus(str, Enum):
    QUEUED = "queued"
    SUPERSEDED = "superseded"
    RESOLVED = "resolved"
    SET_ASIDE = "set_aside"


def database_url(db: str | os.PathLike[str] | None) -> str:
    """``--db`` may be a path or an SQLAlchemy URL; default ``$PBEM_DB`` or ``pbem.db``."""
    value = str(db) if db is not None else os.environ.get("PBEM_DB", "pbem.db")
    if "://" in value:
        return value
    return f"sqlite:///{Path(value)}"


Database = Union["Engine", SqliteFile, PgDatabase]
"""What the hot paths take: an SQLAlchemy engine (``orm.open_engine``), an
SQLite file opened without SQLAlchemy, or a PostgreSQL database through psycopg
alone (both from :func:`open_database`)."""


TABLES = frozenset(
    {
        "meta",
        "game",
        "player",
        "resolution",
        "submission",
        "refusal",
        "roll",
        "rollback",
        "dice_chain",
        "house_table",
        "outbox",
        "intake",
        "intake_part",
        "game_clock",
        "late_turn",
        "player_change",
        "site",
        "report_history",
        "observer",
        "game_allowance",
        "civil_disorder",
        "bot_turn",
        "hook",
        "ledger",
    }
)
"""Every table of this schema version (tests/test_startup.py checks it against the
SQLModel tables)."""


def sqlite_path(url: str) -> Path | None:
    """The file of an SQLite URL (None for another database or an in-memory one)."""
    if not url.startswith("sqlite"):
        return None
    path = url.split(":///", 1)[-1].split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


def readable_by_others(url: str) -> list[str]:
    """The database's files (and its -wal and -shm) that users other than the owner
    can read: each lets them read the dice seed."""
    path = sqlite_path(url)
    if path is None:
        return []
    found = []
    for name in (str(path), f"{path}-wal", f"{path}-shm"):
        try:
            mode = os.stat(name).st_mode
        except OSError:
            continue
        if mode & 0o077:
            found.append(f"{name} (mode {mode & 0o777:04o})")
    return found


class NoDatabase(StoreError):
    """There is no database file where one is needed."""


def no_database(path: str) -> NoDatabase:
    return NoDatabase(f"no database at {path} (create a game with 'pbem new' first, or give --db)")


def check_schema(tables: set[str], version: str | None) -> None:
    """Refuse a database that is not a pbem database of this schema version."""
    if "meta" not in tables:
        raise StoreError("this database is not a pbem database (it has no 'meta' table); give another --db")
    if version != str(SCHEMA_VERSION):
        raise StoreError(
            f"database schema version is {version}, this pbem reads version {SCHEMA_VERSION}; "
            "use the pbem release that wrote it (nothing was changed)"
        )
    missing = TABLES - tables
    if missing:
        raise StoreError(f"database is missing tables {sorted(missing)}: it is damaged or not a pbem database")


def unknown_game(game_id: str, known: Sequence[str]) -> LookupError:
    return LookupError(f"no game {game_id!r} (games: {', '.join(known) or 'none'})")


def create_private(path: Path) -> None:
    """Create the database file 0600 whatever the umask: it holds the dice seed.
    SQLite gives its -wal and -shm files the database file's mode."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first
        return
    except OSError as exc:
        raise StoreError(f"cannot create database {path}: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
