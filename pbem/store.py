"""The store: SQLModel tables on SQLite (WAL) or any SQLAlchemy database.

Everything a player sent is kept byte for byte: submissions (queued, superseded,
resolved, set aside) and refusals with their reason.  Resolutions form the
position hash chain (previous hash -> orders -> new hash); rolls keep every die
with its purpose.  ``SCHEMA_VERSION`` is stored in ``meta``; opening a database of
another version is refused with a clear message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import Engine, LargeBinary, UniqueConstraint, bindparam, event, inspect, make_url, text
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError
from sqlmodel import Column, Field, Session, SQLModel, create_engine, select

from pbem.transaction import READ_ONLY, Tx

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


class Meta(SQLModel, table=True):
    key: str = Field(primary_key=True)
    value: str


class Game(SQLModel, table=True):
    id: str = Field(primary_key=True)
    rules: str
    scenario: str
    options: str = "[]"  # JSON list
    created: datetime = Field(default_factory=utcnow)
    seed: str  # hex; the only secret. Never leaves the database.
    seed_checkpoints: str = ""  # hex of dice.checkpoints(seed, N): as secret as the seed; never exported
    chain_length: int
    anchor: str
    initial_position: str  # canonical JSON
    initial_state_hash: str
    current_k: int = 0  # latest active resolution (0: none yet)
    next_k: int = 1  # number of the next resolution (never reused, even after rollback)
    state_hash: str  # hash of the current position
    over: bool = False
    result: str | None = None  # JSON of Outcome.to_json()

    def option_list(self) -> list[str]:
        return list(json.loads(self.options))


class Player(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "side"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    side: str
    public_key: str  # OpenSSH line
    email: str | None = None


class Resolution(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "k"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    k: int
    label: str
    position: str  # canonical JSON
    state_hash: str
    previous_state_hash: str
    events: str = "[]"  # JSON list
    reveal: str  # hex, published
    nmr: str = "[]"  # JSON list of sides resolved with no orders
    created: datetime = Field(default_factory=utcnow)
    active: bool = True
    rollback_id: int | None = None


class Submission(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    side: str
    turn: int
    message: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # the signed bytes
    signature: str  # armored SSHSIG
    digest: str = Field(index=True)  # hex SHA-256 of message
    received: datetime = Field(default_factory=utcnow)
    status: SubmissionStatus = SubmissionStatus.QUEUED
    source: str = ""


class Refusal(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: str | None = Field(default=None, index=True)
    side: str | None = None
    turn: int | None = None
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    signature: str | None = None
    reason: str
    received: datetime = Field(default_factory=utcnow)
    source: str = ""


class Roll(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "k", "idx"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    k: int
    idx: int
    sides: int
    value: int
    purpose: str


class DiceChain(SQLModel, table=True):
    """A dice chain committed after ``pbem new`` to extend a game (docs/dice.md,
    "Extending a game's dice"): it serves resolutions ``first_k .. first_k + N - 2``."""

    __tablename__ = "dice_chain"
    __table_args__ = (UniqueConstraint("game_id", "first_k"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    first_k: int
    chain_length: int
    anchor: str
    seed: str  # hex; secret like the game's own seed
    seed_checkpoints: str = ""
    created: datetime = Field(default_factory=utcnow)


class Rollback(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    to_k: int
    at: datetime = Field(default_factory=utcnow)
    discarded: str = "[]"  # JSON list of k


class Site(SQLModel, table=True):
    """Where a game's site is published (``pbem site G -o DIR --site-url URL``):
    reports mailed afterwards link to it."""

    game_id: str = Field(foreign_key="game.id", primary_key=True)
    url: str
    updated: datetime = Field(default_factory=utcnow)


class Outbox(SQLModel, table=True):
    """One message the referee owes, written in the transaction of the decision it
    reports (pbem/mail/outbox.py).  ``body`` is the whole message; a report's is
    left empty and rendered from the store when it is delivered.  The Message-ID
    is fixed here and reused by every attempt; ``dedupe`` keeps a notice from
    being queued twice."""

    id: int | None = Field(default=None, primary_key=True)
    kind: str  # receipt, refusal, report, game-over, reminder, late, rollback, player
    game_id: str | None = Field(default=None, index=True)
    side: str | None = None
    k: int | None = None
    to: str  # addresses, comma-separated
    subject: str
    message_id: str
    dedupe: str = Field(unique=True)
    body: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    state: str = Field(default="pending", index=True)  # pending, sent, failed
    attempts: int = 0
    last_error: str | None = None
    next_attempt: datetime = Field(default_factory=utcnow)
    created: datetime = Field(default_factory=utcnow)
    sent: datetime | None = None


class Intake(SQLModel, table=True):
    """One incoming message (or turn file) judged, committed with its reply: a
    message with the same bytes or Message-ID is never judged again."""

    id: int | None = Field(default=None, primary_key=True)
    source: str = Field(index=True)  # the mailbox (``imap user@host:port/INBOX``, ``maildir PATH``, ...)
    item: str  # where in it (a UID, a file name)
    uidvalidity: int | None = None
    uid: int | None = None
    digest: str = Field(unique=True)  # hex SHA-256 of the raw bytes: two referees at once never record one message twice
    message_id: str | None = Field(default=None, index=True)
    verdict: str
    lines: str = "[]"  # JSON list
    at: datetime = Field(default_factory=utcnow)


class IntakePart(SQLModel, table=True):
    """One turn file of a message, judged (its own transaction, with the
    submission or refusal): a crash before the message's reply is committed
    never judges the same file twice."""

    __tablename__ = "intake_part"

    __table_args__ = (UniqueConstraint("digest", "part"),)
    id: int | None = Field(default=None, primary_key=True)
    digest: str  # of the whole message
    part: str  # where in the message
    accepted: bool
    lines: str = "[]"  # JSON list
    game_id: str | None = None
    side: str | None = None


class GameClock(SQLModel, table=True):
    """A game's deadline (pbem/deadlines.py): seconds from the last resolution to
    the deadline, grace after it, reminder before it; ``wait`` holds a ready game
    until the deadline."""

    __tablename__ = "game_clock"

    game_id: str = Field(foreign_key="game.id", primary_key=True)
    deadline: int | None = None
    grace: int = 0
    remind: int = 0
    wait: bool = False


class LateTurn(SQLModel, table=True):
    """A resolution made at the end of grace with no orders from a side (NMR)."""

    __tablename__ = "late_turn"

    __table_args__ = (UniqueConstraint("game_id", "k"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    k: int
    deadline: datetime
    grace_until: datetime
    resolved_at: datetime
    sides: str = "[]"  # JSON list of the sides whose file had not arrived


class PlayerChange(SQLModel, table=True):
    """``pbem player``: a side's new address or key, from resolution ``from_k`` on."""

    __tablename__ = "player_change"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    side: str
    from_k: int
    at: datetime = Field(default_factory=utcnow)
    email: str | None = None
    previous_email: str | None = None
    public_key: str | None = None
    previous_public_key: str | None = None


class HouseTable(SQLModel, table=True):
    """A table a game plays instead of the shipped one (pbem/house_tables.py): the
    checked table as canonical JSON and its SHA-256.  The same data rides in the
    game's opening position, so the position hashes cover it."""

    __tablename__ = "house_table"  # type: ignore[assignment]
    __table_args__ = (UniqueConstraint("game_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    name: str
    data: str  # canonical JSON
    digest: str  # hex SHA-256 of data


def database_url(db: str | os.PathLike[str] | None) -> str:
    """``--db`` may be a path or an SQLAlchemy URL; default ``$PBEM_DB`` or ``pbem.db``."""
    value = str(db) if db is not None else os.environ.get("PBEM_DB", "pbem.db")
    if "://" in value:
        return value
    return f"sqlite:///{Path(value)}"


def shown_url(url: str) -> str:
    """The URL for messages: a password in it is shown as ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def sqlite_path(url: str) -> Path | None:
    """The file of an SQLite URL (None for another database or an in-memory one)."""
    if not url.startswith("sqlite"):
        return None
    path = url.split(":///", 1)[-1].split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


def _create_private(path: Path) -> None:
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


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, issue BEGIN, so that we can make it IMMEDIATE.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A writer takes the lock at BEGIN: two processes never interleave a resolution.
        # A reader (see ``reading``) takes none: WAL gives it a snapshot, and it never
        # waits behind a writer.
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE")


def open_engine(db: str | os.PathLike[str] | None = None, create: bool = True) -> Engine:
    """Open (and create, if new) the database; check its schema version."""
    url = database_url(db)
    is_sqlite = url.startswith("sqlite")
    path = sqlite_path(url)
    if path is not None and not path.exists():
        if not create:
            raise StoreError(f"no database at {path} (create a game with 'pbem new' first, or give --db)")
        _create_private(path)
    shown = shown_url(url)
    try:
        engine = create_engine(url, connect_args={"timeout": 30} if is_sqlite else {})
    except NoSuchModuleError:
        raise StoreError(f"--db {shown!r}: SQLAlchemy knows no database of that kind (a path, or a URL such as sqlite:///referee.db)") from None
    except ImportError as exc:
        raise StoreError(f"--db {shown!r}: its database driver is not installed ({exc}); for PostgreSQL: pip install 'pbem[postgres]'") from None
    except ArgumentError as exc:
        raise StoreError(f"--db {shown!r} is not a database URL: {exc}") from None
    if is_sqlite:
        _sqlite_pragmas(engine)
    try:
        _check_or_create_schema(engine)
    except (DatabaseError, OperationalError) as exc:
        engine.dispose()
        raise StoreError(f"cannot open database {shown}: {str(exc.orig).strip() if getattr(exc, 'orig', None) else exc}") from None
    except StoreError:
        engine.dispose()
        raise
    return engine


def _check_or_create_schema(engine: Engine) -> None:
    reader = engine.execution_options(**{READ_ONLY: True})
    tables = set(inspect(reader).get_table_names())
    if not tables:
        with engine.begin() as conn:  # the write lock: one creator at a time
            if not inspect(conn).get_table_names():
                SQLModel.metadata.create_all(conn)
                conn.execute(Meta.__table__.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))  # type: ignore[attr-defined]
        tables = set(inspect(reader).get_table_names())
    if "meta" not in tables:
        raise StoreError("this database is not a pbem database (it has no 'meta' table); give another --db")
    with reader.connect() as conn:
        row = conn.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).first()
    version = row[0] if row else None
    if version is not None and version.isdigit() and 2 <= int(version) < SCHEMA_VERSION:
        _migrate(engine, int(version))
        version = str(SCHEMA_VERSION)
        tables = set(inspect(reader).get_table_names())
    if version != str(SCHEMA_VERSION):
        raise StoreError(
            f"database schema version is {version}, this pbem reads version {SCHEMA_VERSION}; "
            "use the pbem release that wrote it (nothing was changed)"
        )
    missing = set(SQLModel.metadata.tables) - tables
    if missing:
        raise StoreError(f"database is missing tables {sorted(missing)}: it is damaged or not a pbem database")


def _migrate(engine: Engine, version: int) -> None:
    """Upgrade a database of an older schema in one write transaction (the first
    process to get the lock does it; the others find it done)."""
    with engine.begin() as conn:
        row = conn.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).first()
        if row is None or row[0] != str(version):
            return
        SQLModel.metadata.create_all(conn)  # only the tables that are missing
        for step in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS.get(step, ()):
                conn.execute(text(statement))
        conn.execute(text("UPDATE meta SET value = :v WHERE key = 'schema_version'"), {"v": str(SCHEMA_VERSION)})


def reading(engine: Engine) -> Session:
    """A session for reading only (``status``, ``check``, reports, export, audit):
    on SQLite it begins a plain (deferred) transaction, so it takes no write lock."""
    return Session(engine.execution_options(**{READ_ONLY: True}), expire_on_commit=False)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One transaction: committed on success, rolled back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def unknown_game(game_id: str, known: Sequence[str]) -> LookupError:
    hint = f" (games here: {', '.join(known)})" if known else " (this database has no games)"
    return LookupError(f"no game {game_id!r}{hint}")


def get_game(session: Session, game_id: str, lock: bool = False) -> Game:
    """The game; ``lock`` keeps its row locked until the transaction ends where the
    database locks rows (SQLite's writer already holds the whole database)."""
    game = session.get(Game, game_id, with_for_update=True if lock else None)
    if game is None:
        raise unknown_game(game_id, session.exec(select(Game.id).order_by(Game.id)).all())
    return game


# The hot statements are built once, with bound parameters: building a statement
# costs more than SQLite takes to run it (see docs/performance.md).
_PLAYERS = select(Player).where(Player.game_id == bindparam("g")).order_by(Player.side)
_RESOLUTION = select(Resolution).where(Resolution.game_id == bindparam("g"), Resolution.k == bindparam("k"))
_SUBMISSIONS = select(Submission).where(Submission.game_id == bindparam("g"), Submission.turn == bindparam("k")).order_by(Submission.side, Submission.id)
_SUBMISSIONS_WITH_STATUS = (
    select(Submission)
    .where(Submission.game_id == bindparam("g"), Submission.turn == bindparam("k"), Submission.status == bindparam("status"))
    .order_by(Submission.side, Submission.id)
)


def players(session: Session, game_id: str) -> list[Player]:
    return list(session.exec(_PLAYERS, params={"g": game_id}).all())


def active_resolutions(session: Session, game_id: str) -> list[Resolution]:
    stmt = select(Resolution).where(Resolution.game_id == game_id, Resolution.active == True).order_by(Resolution.k)  # noqa: E712
    return list(session.exec(stmt).all())


def all_resolutions(session: Session, game_id: str) -> list[Resolution]:
    stmt = select(Resolution).where(Resolution.game_id == game_id).order_by(Resolution.k)
    return list(session.exec(stmt).all())


def rollbacks(session: Session, game_id: str) -> list[Rollback]:
    stmt = select(Rollback).where(Rollback.game_id == game_id).order_by(Rollback.id)  # type: ignore[arg-type]
    return list(session.exec(stmt).all())


def site_url(session: Session, game_id: str) -> str | None:
    row = session.get(Site, game_id)
    return row.url if row else None


def resolution(session: Session, game_id: str, k: int) -> Resolution | None:
    return session.exec(_RESOLUTION, params={"g": game_id, "k": k}).first()


def current_position(session: Session, game: Game) -> dict[str, Any]:
    if game.current_k == 0:
        return json.loads(game.initial_position)
    row = resolution(session, game.id, game.current_k)
    if row is None:
        raise StoreError(f"game {game.id}: its current resolution {game.current_k} is missing; the database is damaged")
    return json.loads(row.position)


def submissions_for(session: Session, game_id: str, k: int, status: SubmissionStatus | None = None) -> list[Submission]:
    if status is None:
        return list(session.exec(_SUBMISSIONS, params={"g": game_id, "k": k}).all())
    return list(session.exec(_SUBMISSIONS_WITH_STATUS, params={"g": game_id, "k": k, "status": status}).all())


def rolls_for(session: Session, game_id: str, k: int | None = None) -> list[Roll]:
    stmt = select(Roll).where(Roll.game_id == game_id)
    if k is not None:
        stmt = stmt.where(Roll.k == k)
    return list(session.exec(stmt.order_by(Roll.k, Roll.idx)).all())


def game_ids(session: Session) -> list[str]:
    return list(session.exec(select(Game.id).order_by(Game.id)).all())


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


_GAME_STATE = """
SELECT g.id, g.rules, g.next_k, g.state_hash, g.over, g.result, g.current_k,
       CASE WHEN g.current_k = 0 THEN g.initial_position ELSE r.position END,
       g.seed, g.chain_length, g.seed_checkpoints
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
    gid, rules, next_k, state_hash, over, result, current_k, position, seed, chain_length, checkpoints = row
    if position is None:
        raise StoreError(f"game {gid}: its current resolution {current_k} is missing; the database is damaged")
    return GameState(gid, rules, next_k, state_hash, bool(over), result, json.loads(position), seed, chain_length, checkpoints)


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


def dice_chains(session: Session, game_id: str) -> list[DiceChain]:
    return list(session.exec(select(DiceChain).where(DiceChain.game_id == game_id).order_by(DiceChain.first_k)).all())  # type: ignore[arg-type]


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
