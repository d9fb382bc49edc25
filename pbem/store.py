"""The store: the referee's records on SQLite (WAL) or any SQLAlchemy database.

Everything a player sent is kept byte for byte: submissions (queued, superseded,
resolved, set aside) and refusals with their reason.  Resolutions form the
position hash chain (previous hash -> orders -> new hash); rolls keep every die
with its purpose.  ``SCHEMA_VERSION`` is stored in ``meta``; opening a database of
another version is refused with a clear message.

This module is the half without SQLAlchemy: the hot paths in plain SQL (``check``,
``submit``, ``process``, ``status``, ``orders``, export and the dice history; and
``new``, ``rollback``, ``extend``), :func:`open_database`, which opens an SQLite
file with the standard library alone, and :func:`create_database`, which creates
one.  The SQLModel tables and the ORM reads live in :mod:`pbem.orm`; their names
are handed out from here on first use (``store.Game``, ``store.open_engine``), so
a command that never needs the ORM never pays for importing it
(docs/performance.md, "Start-up").
"""

from __future__ import annotations

import json
import marshal
import os
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Union

from pbem.pg import PgDatabase, is_postgres_url
from pbem.pg import schema as pg_schema
from pbem.transaction import SqliteFile, Tx, transaction

if TYPE_CHECKING:
    from sqlalchemy import Engine

SCHEMA_VERSION = 3  # 2: game.seed_checkpoints; 3: dice_chain (extensions), house_table (issue 17: new table); outbox, intake, intake_part, game_clock, late_turn, player_change (issue 12: new tables); site (issue 15: new table)
MIGRATIONS: dict[int, tuple[str, ...]] = {
    3: (),  # new tables only (created by create_all); ALTER TABLE statements go here
}
"""What upgrades a database from the version before: new tables are created as
they are missing, then these statements run, all in one write transaction."""


class StoreError(RuntimeError):
    """The database cannot be used (wrong version, not a pbem database, unreadable)."""


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


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

TABLES = frozenset({"meta", "game", "player", "resolution", "submission", "refusal", "roll", "rollback", "dice_chain", "house_table", "outbox", "intake", "intake_part", "game_clock", "late_turn", "player_change", "site"})
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


def open_database(db: str | os.PathLike[str] | None = None, checked: bool = False) -> Database:
    """Open an existing database for the hot paths.  An SQLite file is opened with
    the standard library alone (the same pragmas as :mod:`pbem.orm`'s engine);
    any other URL goes through SQLAlchemy (``orm.open_engine``).  ``checked``: the
    caller's process has just checked its schema (a worker of ``process --jobs``)."""
    url = database_url(db)
    path = sqlite_path(url)
    if is_postgres_url(url):
        return _open_postgres(db, url, checked)
    if path is None or not url.startswith("sqlite:///") or "?" in url:
        from pbem.orm import open_engine

        return open_engine(db, create=False, check=not checked)
    if not path.exists():
        raise no_database(str(path))
    handle = SqliteFile(str(path))
    if checked:
        return handle
    try:
        conn = handle.connection()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() if "meta" in tables else None
        if _upgraded(db, handle, tables, row[0] if row else None):
            return open_database(db)
    except sqlite3.DatabaseError as exc:
        handle.dispose()
        raise StoreError(f"cannot open database {url}: {exc}") from None
    except StoreError:
        handle.dispose()
        raise
    return handle


def _upgraded(db: str | os.PathLike[str], handle: SqliteFile | PgDatabase, tables: set[str], version: str | None) -> bool:
    """Check the schema a database opened without SQLAlchemy holds; one of an older
    version is upgraded in place by SQLAlchemy (``orm.open_engine``), the handle
    closed first, and True says to open it again."""
    if version is not None and version.isdigit() and int(version) < SCHEMA_VERSION:
        handle.dispose()
        from pbem.orm import open_engine

        open_engine(db, create=False).dispose()
        return True
    check_schema(tables, version)
    return False


def _open_postgres(db: str | os.PathLike[str], url: str, checked: bool) -> PgDatabase:
    """A PostgreSQL database through psycopg alone (:mod:`pbem.pg`), its schema
    checked as an SQLite file's is; an older schema is upgraded by SQLAlchemy as
    before."""
    handle = PgDatabase(url)
    if checked:
        return handle
    try:
        if _upgraded(db, handle, *pg_schema(handle)):
            return _open_postgres(db, url, checked)
    except StoreError:
        handle.dispose()
        raise
    except Exception as exc:  # the driver's own errors: no server, no database, refused login
        handle.dispose()
        reason = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise StoreError(f"cannot open database {handle}: {reason}") from None
    return handle


def unknown_game(game_id: str, known: Sequence[str]) -> LookupError:
    return LookupError(f"no game {game_id!r} (games: {', '.join(known) or 'none'})")


def __getattr__(name: str) -> Any:
    """The ORM half (:mod:`pbem.orm`: ``Game``, ``open_engine``, ``reading`` ...),
    imported on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    from pbem import orm

    try:
        return getattr(orm, name)
    except AttributeError:
        raise AttributeError(f"module 'pbem.store' has no attribute {name!r}") from None


# ------------------------------------------------------------------------------
# The hot paths in plain SQL (``check``, ``submit``, ``process``; see
# pbem/transaction.py).  They read and write the same tables as the ORM, with the
# same stored forms: a status by its enum name, timestamps from ``utcnow``.


class GameState(NamedTuple):
    """What checking and resolving a turn need of a game, read in one statement."""

    id: str
    rules: str
    next_k: int
    state_hash: str
    over: bool
    result: str | None
    position: dict[str, Any]  # the current position
    seed: str
    chain_length: int
    seed_checkpoints: str
    scenario: str
    anchor: str
    current_k: int


POSITIONS_KEPT = 64
_positions: dict[str, bytes] = {}


def parsed_position(text: str) -> dict[str, Any]:
    """A stored position (its JSON text), parsed into a new object at each call.

    Checking a turn file, the look before a resolution and the resolution itself
    read the same position: its JSON is parsed once per process, and each later
    read is a ``marshal`` copy of that parse, several times faster (issue 14: three
    parses per resolution).  Keyed by the whole text, so a changed row is parsed
    afresh; the last ``POSITIONS_KEPT`` positions are kept."""
    kept = _positions.get(text)
    if kept is not None:
        position: dict[str, Any] = marshal.loads(kept)
        return position
    position = json.loads(text)
    if len(_positions) >= POSITIONS_KEPT:
        del _positions[next(iter(_positions))]  # the oldest
    _positions[text] = marshal.dumps(position)
    return position


_GAME_STATE = """
SELECT g.id, g.rules, g.next_k, g.state_hash, g.over, g.result, g.current_k,
       CASE WHEN g.current_k = 0 THEN g.initial_position ELSE r.position END,
       g.seed, g.chain_length, g.seed_checkpoints, g.scenario, g.anchor
FROM game g LEFT JOIN resolution r ON r.game_id = g.id AND r.k = g.current_k
WHERE g.id = :game"""


def game_state(tx: Tx, game_id: str) -> GameState | None:
    """The game as it stands.  In a writer on a database without SQLite's
    whole-database lock, the game's row is locked first and stays locked until
    the transaction ends, so two submits or resolutions of one game never
    interleave.  The lock is a statement of its own: under READ COMMITTED, a
    read that waited for the lock would otherwise see the game's new row joined
    to the resolutions of its older snapshot (without the one just committed)."""
    if tx.locking_reads:
        tx.one("SELECT id FROM game WHERE id = :game FOR UPDATE", {"game": game_id})
    row = tx.one(_GAME_STATE, {"game": game_id})
    if row is None:
        return None
    gid, rules, next_k, state_hash, over, result, current_k, position, seed, chain_length, checkpoints, scenario, anchor = row
    if position is None:
        raise StoreError(f"game {gid}: its current resolution {current_k} is missing; the database is damaged")
    return GameState(gid, rules, next_k, state_hash, bool(over), result, parsed_position(position), seed, chain_length, checkpoints, scenario, anchor, current_k)


def known_game(tx: Tx, game_id: str) -> GameState:
    """:func:`game_state`, or the ``LookupError`` naming the games there are."""
    game = game_state(tx, game_id)
    if game is None:
        raise unknown_game(game_id, known_game_ids(tx))
    return game


def claim_game(tx: Tx, game_id: str) -> bool:
    """Take a game to resolve it, in a writer.  Where the database locks rows
    (PostgreSQL), the game's row is locked with ``FOR UPDATE SKIP LOCKED``: a game
    another processor holds is passed over at once (False), never waited for.
    SQLite's writer already holds the whole database (``BEGIN IMMEDIATE``): one
    writer at a time, and every claim succeeds."""
    if not tx.locking_reads:
        return True
    return tx.one("SELECT id FROM game WHERE id = :game FOR UPDATE SKIP LOCKED", {"game": game_id}) is not None


def queued_sides(tx: Tx, game_id: str, turn: int) -> list[str]:
    """The sides with a file queued for ``turn``, in order."""
    rows = tx.all(
        "SELECT DISTINCT side FROM submission WHERE game_id = :game AND turn = :turn AND status = :queued ORDER BY side",
        {"game": game_id, "turn": turn, "queued": SubmissionStatus.QUEUED.name},
    )
    return [r[0] for r in rows]


class ChainRow(NamedTuple):
    first_k: int
    chain_length: int
    seed: str
    seed_checkpoints: str


def extension_for(tx: Tx, game_id: str, k: int) -> ChainRow | None:
    """The extension chain that resolution ``k`` falls in (the latest starting at or
    before ``k``), if any."""
    row = tx.one(
        "SELECT first_k, chain_length, seed, seed_checkpoints FROM dice_chain"
        " WHERE game_id = :game AND first_k <= :k ORDER BY first_k DESC LIMIT 1",
        {"game": game_id, "k": k},
    )
    return ChainRow(*row) if row else None


class ChainAnchor(NamedTuple):
    first_k: int
    chain_length: int
    anchor: str


def chain_anchors(tx: Tx, game_id: str) -> list[ChainAnchor]:
    """The public side of a game's extension chains (``pbem extend``), in order."""
    rows = tx.all("SELECT first_k, chain_length, anchor FROM dice_chain WHERE game_id = :game ORDER BY first_k", {"game": game_id})
    return [ChainAnchor(*row) for row in rows]


def known_game_ids(tx: Tx) -> list[str]:
    return [r[0] for r in tx.all("SELECT id FROM game ORDER BY id", {})]


def unfinished_game_ids(tx: Tx) -> list[str]:
    return [r[0] for r in tx.all("SELECT id FROM game WHERE over = :over ORDER BY id", {"over": False})]


def public_keys(tx: Tx, game_id: str) -> dict[str, str]:
    """Each side's OpenSSH public key line, by side."""
    return dict(tx.all("SELECT side, public_key FROM player WHERE game_id = :game ORDER BY side", {"game": game_id}))  # type: ignore[arg-type]


class EarlierCopy(NamedTuple):
    status: SubmissionStatus
    turn: int
    received: datetime
    replaced: datetime | None  # when the next file of the same side and turn arrived


def earlier_copies(tx: Tx, game_id: str, digest: str) -> list[EarlierCopy]:
    """Every submission of the game with these exact bytes (hex SHA-256)."""
    rows = tx.all(
        "SELECT s.status, s.turn, s.received, (SELECT MIN(n.received) FROM submission n"
        " WHERE n.game_id = s.game_id AND n.side = s.side AND n.turn = s.turn AND n.id > s.id)"
        " FROM submission s WHERE s.game_id = :game AND s.digest = :digest ORDER BY s.id",
        {"game": game_id, "digest": digest},
    )
    return [
        EarlierCopy(SubmissionStatus[status], turn, _as_datetime(received), _as_datetime(replaced) if replaced else None)
        for status, turn, received, replaced in rows
    ]


class RollbackSeen(NamedTuple):
    to_k: int
    at: datetime
    discarded: list[int]


def rollback_that_set_aside(tx: Tx, game_id: str, k: int) -> RollbackSeen | None:
    """The latest rollback after which a turn file for resolution ``k`` became
    void: ``k`` was set aside by it, or was the resolution awaited when it came."""
    rows = tx.all("SELECT to_k, at, discarded FROM rollback WHERE game_id = :game ORDER BY id DESC", {"game": game_id})
    for to_k, at, discarded in rows:
        ks = [int(x) for x in json.loads(discarded)]
        if ks and to_k < k <= max(ks) + 1:
            return RollbackSeen(int(to_k), _as_datetime(at), ks)
    return None


def _as_datetime(value: datetime | str) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def as_datetime(value: datetime | str) -> datetime:
    """A stored timestamp as a ``datetime`` (SQLite gives back its text form)."""
    return _as_datetime(value)


def queue_submission(tx: Tx, game_id: str, side: str, turn: int, message: bytes, signature: str, digest: str, source: str) -> int:
    """Queue a checked turn file; an earlier one of the same side for the same turn
    is superseded.  Returns how many were superseded."""
    superseded = tx.run(
        "UPDATE submission SET status = :superseded WHERE game_id = :game AND turn = :turn AND side = :side AND status = :queued",
        {"superseded": SubmissionStatus.SUPERSEDED.name, "queued": SubmissionStatus.QUEUED.name, "game": game_id, "turn": turn, "side": side},
    )
    tx.run(
        "INSERT INTO submission (game_id, side, turn, message, signature, digest, received, status, source)"
        " VALUES (:game, :side, :turn, :message, :signature, :digest, :received, :status, :source)",
        {
            "game": game_id,
            "side": side,
            "turn": turn,
            "message": message,
            "signature": signature,
            "digest": digest,
            "received": utcnow(),
            "status": SubmissionStatus.QUEUED.name,
            "source": source,
        },
    )
    return superseded


def add_refusal(tx: Tx, game_id: str | None, side: str | None, turn: int | None, data: bytes, signature: str | None, reason: str, source: str) -> None:
    tx.run(
        "INSERT INTO refusal (game_id, side, turn, data, signature, reason, received, source)"
        " VALUES (:game, :side, :turn, :data, :signature, :reason, :received, :source)",
        {"game": game_id, "side": side, "turn": turn, "data": data, "signature": signature, "reason": reason, "received": utcnow(), "source": source},
    )


class QueuedFile(NamedTuple):
    id: int
    side: str
    message: bytes


def queued_files(tx: Tx, game_id: str, turn: int) -> list[QueuedFile]:
    rows = tx.all(
        "SELECT id, side, message FROM submission WHERE game_id = :game AND turn = :turn AND status = :queued ORDER BY side, id",
        {"game": game_id, "turn": turn, "queued": SubmissionStatus.QUEUED.name},
    )
    return [QueuedFile(i, side, bytes(message)) for i, side, message in rows]


class NewResolution(NamedTuple):
    game_id: str
    k: int
    label: str
    position: str  # canonical JSON
    state_hash: str
    previous_state_hash: str
    events: str  # canonical JSON
    reveal: str  # hex
    nmr: str  # JSON list
    result: str | None  # JSON of the outcome when the game ends here


def add_resolution(tx: Tx, new: NewResolution, rolls: Sequence[Mapping[str, Any]], resolved_ids: Sequence[int]) -> None:
    """Write a resolution, its rolls (``idx``, ``sides``, ``value``, ``purpose``),
    mark the files it resolved, and move the game on to it."""
    tx.run(
        "INSERT INTO resolution (game_id, k, label, position, state_hash, previous_state_hash, events, reveal, nmr, created, active)"
        " VALUES (:game, :k, :label, :position, :state_hash, :previous, :events, :reveal, :nmr, :created, :active)",
        {
            "game": new.game_id,
            "k": new.k,
            "label": new.label,
            "position": new.position,
            "state_hash": new.state_hash,
            "previous": new.previous_state_hash,
            "events": new.events,
            "reveal": new.reveal,
            "nmr": new.nmr,
            "created": utcnow(),
            "active": True,
        },
    )
    if rolls:
        tx.run_many(
            "INSERT INTO roll (game_id, k, idx, sides, value, purpose) VALUES (:game, :k, :idx, :sides, :value, :purpose)",
            [{"game": new.game_id, "k": new.k, **roll} for roll in rolls],
        )
    for submission_id in resolved_ids:
        tx.run("UPDATE submission SET status = :resolved WHERE id = :id", {"resolved": SubmissionStatus.RESOLVED.name, "id": submission_id})
    tx.run(
        "UPDATE game SET current_k = :k, next_k = :next_k, state_hash = :state_hash, over = :over, result = :result WHERE id = :game",
        {"k": new.k, "next_k": new.k + 1, "state_hash": new.state_hash, "over": new.result is not None, "result": new.result, "game": new.game_id},
    )


# ------------------------------------------------------------------------------
# Creating a database: a new SQLite file is made with the standard library alone
# (``pbem new``), from the schema's SQL text (pbem/schema.py).


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


def create_database(db: str | os.PathLike[str] | None = None) -> Database:
    """:func:`open_database`, creating the database first if it is new.  A new
    SQLite file is made 0600 and given its tables and schema version in one write
    transaction (the first process to take the lock does it); any other URL goes
    through SQLAlchemy (``orm.open_engine``), which creates the tables from the
    ORM's metadata (then PostgreSQL is opened through psycopg, as
    :func:`open_database` does)."""
    url = database_url(db)
    path = sqlite_path(url)
    if path is None or not url.startswith("sqlite:///") or "?" in url:
        from pbem.orm import open_engine

        engine = open_engine(db, create=True)
        if not is_postgres_url(url):
            return engine
        engine.dispose()  # the tables made: PostgreSQL's plain SQL goes through psycopg alone
        return open_database(db)
    if not path.exists():
        create_private(path)
    handle = SqliteFile(str(path))
    try:
        with transaction(handle) as tx:
            if tx.one("SELECT name FROM sqlite_master WHERE type = 'table'", {}) is None:
                from pbem import schema

                for statement in schema.SQLITE:
                    tx.run(statement, {})
                tx.run('INSERT INTO meta ("key", value) VALUES (:key, :value)', {"key": "schema_version", "value": str(SCHEMA_VERSION)})
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open database {url}: {exc}") from None
    finally:
        handle.dispose()
    return open_database(db)


class RolledBack(NamedTuple):
    """A rollback as recorded (``pbem rollback``): its row's id, the resolution
    kept, the resolutions set aside."""

    id: int
    to_k: int
    discarded: list[int]
