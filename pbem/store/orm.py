"""The store through SQLModel: the tables, opening (and creating) a database
with SQLAlchemy, and the ORM reads of the colder paths that still use them
(``demo``, the mail room; the reports read in plain SQL, :mod:`pbem.reports.reads`).
The tables are defined here once; a new SQLite file is created from their SQL
text (pbem/store/schema.py, checked against them by tests/test_schema.py) without
SQLAlchemy.

``pbem.store`` is the half without SQLAlchemy (the hot paths' plain SQL, and an
SQLite file opened with the standard library); it hands out this module's names
on first use, so ``store.Game`` and ``store.open_engine`` still work and a
command that never touches the ORM never imports it (docs/performance.md,
"Start-up").
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Index, LargeBinary, UniqueConstraint, bindparam, event, inspect, make_url, text
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError
from sqlmodel import Column, Field, Session, SQLModel, col, create_engine, select

from pbem.store.database import (
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    SubmissionStatus,
    check_schema,
    create_private,
    database_url,
    no_database,
    sqlite_path,
    unknown_game,
    utcnow,
)
from pbem.store.sql import READ_ONLY, opened
from pbem.store.transaction import sqlite_pragmas


class Meta(SQLModel, table=True):
    key: str = Field(primary_key=True)
    value: str


class Game(SQLModel, table=True):
    id: str = Field(primary_key=True)
    rules: str
    rules_version: str = "1"  # the ruleset's version the game began with (Ruleset.version)
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
    # the game's allowances and limits (pbem new; pbem/referee/absences.py), None: not set
    vacation_days: int | None = None  # days of vacation each player may take in the game
    max_pause: int | None = None  # seconds of pause in all
    max_extensions: int | None = None  # deadline extensions in all
    referee_key: str | None = None  # OpenSSH public key line that signs the ledger
    tz: str | None = None  # IANA zone the game's deadlines are shown in (None: UTC)
    # hex of the dice chain's values walked up from a checkpoint (dice.reveal_and_walk), left as they were:
    # the next resolutions' reveals, as secret as the seed; never exported (None, empty: walk from a checkpoint)
    dice_walk: str | None = None


class Player(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "side"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    side: str
    public_key: str  # OpenSSH line
    email: str | None = None
    tz: str | None = None  # the player's own IANA zone (None: the game's)


class Resolution(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "k"),)
    id: int | None = Field(default=None, primary_key=True)
    # no index of its own: the unique (game_id, k) index begins with it (schema version 7)
    game_id: str = Field(foreign_key="game.id")
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
    __table_args__ = (Index("ix_submission_game_turn_status", "game_id", "turn", "status"),)
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
    game_id: str = Field(foreign_key="game.id")  # the unique (game_id, k, idx) index begins with it (version 7)
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


class ReportHistory(SQLModel, table=True):
    """The lines of a game's list of earlier resolutions, as its latest report
    without links showed them (pbem/reports/history.py): up to resolution ``k``,
    rendered with the template of digest ``template``.  Kept so that a report
    reads one row, not one per resolution; a list whose ``k`` a rollback set
    aside, or of another template, is not used."""

    __tablename__ = "report_history"

    game_id: str = Field(foreign_key="game.id", primary_key=True)
    k: int
    template: str
    lines: str


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
    claimed_by: str | None = None  # the delivery sending it now (pbem/mail/outbox.py, "claims")
    claimed_at: datetime | None = None


class Intake(SQLModel, table=True):
    """One incoming message (or turn file) judged, committed with its reply: a
    message with the same bytes or Message-ID is never judged again."""

    id: int | None = Field(default=None, primary_key=True)
    source: str = Field(index=True)  # the mailbox (``imap user@host:port/INBOX``, ``maildir PATH``, ...)
    item: str  # where in it (a UID, a file name)
    uidvalidity: int | None = None
    uid: int | None = None
    digest: str = Field(
        unique=True
    )  # hex SHA-256 of the raw bytes: two referees at once never record one message twice
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
    """A game's deadline (pbem/referee/deadlines.py): seconds from the last resolution to
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


class Observer(SQLModel, table=True):
    """``pbem observer add/remove``: an address sent every resolution's public
    report (pbem/referee/observers.py); a removed observer keeps its row."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    email: str
    added: datetime = Field(default_factory=utcnow)
    added_k: int  # the first resolution whose report it is sent
    removed: datetime | None = None
    removed_k: int | None = None  # the first resolution whose report it is no longer sent


class GameAllowance(SQLModel, table=True):
    """A game's allowances: ``civil_disorder`` N, the missed deadlines in a row
    after which a side is played by the greedy bot (None: never)."""

    __tablename__ = "game_allowance"

    game_id: str = Field(foreign_key="game.id", primary_key=True)
    civil_disorder: int | None = None


class CivilDisorder(SQLModel, table=True):
    """A side played by the bot from resolution ``from_k`` until ``until_k``
    (exclusive; None: still in civil disorder), ended by ``ended_by``."""

    __tablename__ = "civil_disorder"

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    side: str
    from_k: int
    started: datetime = Field(default_factory=utcnow)
    until_k: int | None = None
    ended: datetime | None = None
    ended_by: str | None = None  # "file" (the side's signed file) or "player" (pbem player)


class BotTurn(SQLModel, table=True):
    """The orders the referee's bot wrote for a side in civil disorder in
    resolution ``k``, with the bot and seed that regenerate them."""

    __tablename__ = "bot_turn"

    __table_args__ = (UniqueConstraint("game_id", "k", "side"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    k: int
    side: str
    bot: str
    seed: str
    orders: str


class Ledger(SQLModel, table=True):
    """One act of the referee (pbem/referee/ledger.py): a hash chain per game,
    each entry signed with the referee's key when the game has one."""

    __table_args__ = (UniqueConstraint("game_id", "seq"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    seq: int  # 1, 2, ... within the game
    act: str
    time: str  # ISO 8601 UTC, as hashed
    details: str  # canonical JSON object
    previous: str | None = None  # hash of the entry before (None for the first)
    hash: str
    signature: str | None = None  # armored SSHSIG, namespace pbem-referee


class HouseTable(SQLModel, table=True):
    """A table a game plays instead of the shipped one (pbem/store/house_tables.py): the
    checked table as canonical JSON and its SHA-256.  The same data rides in the
    game's opening position, so the position hashes cover it."""

    __tablename__ = "house_table"
    __table_args__ = (UniqueConstraint("game_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    name: str
    data: str  # canonical JSON
    digest: str  # hex SHA-256 of data


class Hook(SQLModel, table=True):
    """A game's webhook (``pbem hook add``): "your move", reminders, late notices
    and results are posted to ``url`` through the outbox, in ``format`` (discord,
    slack or json; docs/formats.md, "Webhooks")."""

    __table_args__ = (UniqueConstraint("game_id", "url"),)
    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True)
    url: str
    format: str = "json"
    created: datetime = Field(default_factory=utcnow)


def shown_url(url: str) -> str:
    """The URL for messages: a password in it is shown as ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        sqlite_pragmas(dbapi_conn)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A writer takes the lock at BEGIN: two processes never interleave a resolution.
        # A reader (see ``reading``) takes none: WAL gives it a snapshot, and it never
        # waits behind a writer.
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE")


def open_engine(db: str | os.PathLike[str] | None = None, create: bool = True, check: bool = True) -> Engine:
    """Open (and create, if new) the database; check its schema version (unless
    ``check`` is false: a worker whose parent checked it)."""
    url = database_url(db)
    is_sqlite = url.startswith("sqlite")
    path = sqlite_path(url)
    if path is not None and not path.exists():
        if not create:
            raise no_database(str(path))
        create_private(path)
    shown = shown_url(url)
    try:
        engine = create_engine(url, connect_args={"timeout": 30} if is_sqlite else {})
    except NoSuchModuleError:
        raise StoreError(
            f"--db {shown!r}: SQLAlchemy knows no database of that kind (a path, or a URL such as sqlite:///referee.db)"
        ) from None
    except ImportError as exc:
        raise StoreError(
            f"--db {shown!r}: its database driver is not installed ({exc}); for PostgreSQL: pip install "
            "'pbem[postgres]'"
        ) from None
    except ArgumentError as exc:
        raise StoreError(f"--db {shown!r} is not a database URL: {exc}") from None
    opened(engine)  # closed as the command ends (sql.close_opened)
    if is_sqlite:
        _sqlite_pragmas(engine)
    if not check:
        return engine
    try:
        _check_or_create_schema(engine)
    except (DatabaseError, OperationalError) as exc:
        engine.dispose()
        raise StoreError(
            f"cannot open database {shown}: {str(exc.orig).strip() if getattr(exc, 'orig', None) else exc}"
        ) from None
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
    row = None
    if "meta" in tables:
        with reader.connect() as conn:
            row = conn.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).first()
    version = row[0] if row else None
    if version is not None and version.isdigit() and 2 <= int(version) < SCHEMA_VERSION:
        _migrate(engine, int(version))
        version = str(SCHEMA_VERSION)
        tables = set(inspect(reader).get_table_names())
    check_schema(tables, version)


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
_SUBMISSIONS = (
    select(Submission)
    .where(Submission.game_id == bindparam("g"), Submission.turn == bindparam("k"))
    .order_by(Submission.side, col(Submission.id))
)
_SUBMISSIONS_WITH_STATUS = (
    select(Submission)
    .where(
        Submission.game_id == bindparam("g"),
        Submission.turn == bindparam("k"),
        Submission.status == bindparam("status"),
    )
    .order_by(Submission.side, col(Submission.id))
)


def players(session: Session, game_id: str) -> list[Player]:
    return list(session.exec(_PLAYERS, params={"g": game_id}).all())


def active_resolutions(session: Session, game_id: str) -> list[Resolution]:
    stmt = (
        select(Resolution)
        .where(Resolution.game_id == game_id, Resolution.active == True)  # noqa: E712
        .order_by(col(Resolution.k))
    )
    return list(session.exec(stmt).all())


def all_resolutions(session: Session, game_id: str) -> list[Resolution]:
    stmt = select(Resolution).where(Resolution.game_id == game_id).order_by(col(Resolution.k))
    return list(session.exec(stmt).all())


def resolution(session: Session, game_id: str, k: int) -> Resolution | None:
    return session.exec(_RESOLUTION, params={"g": game_id, "k": k}).first()


def current_position(session: Session, game: Game) -> dict[str, Any]:
    if game.current_k == 0:
        return json.loads(game.initial_position)
    row = resolution(session, game.id, game.current_k)
    if row is None:
        raise StoreError(f"game {game.id}: its current resolution {game.current_k} is missing; the database is damaged")
    return json.loads(row.position)


def dice_chains(session: Session, game_id: str) -> list[DiceChain]:
    return list(session.exec(select(DiceChain).where(DiceChain.game_id == game_id).order_by(DiceChain.first_k)).all())  # type: ignore[arg-type]


def game_ids(session: Session) -> list[str]:
    return list(session.exec(select(Game.id).order_by(Game.id)).all())
