"""The referee's records in plain SQL: the hot paths (``check``, ``submit``,
``process``, ``status``, ``orders``, export, the dice history; ``new``,
``rollback``, ``extend``).  They read and write the same tables as the ORM, with
the same stored forms: a status by its enum name, timestamps from ``utcnow``."""

from __future__ import annotations

import json
import marshal
from collections.abc import Mapping, Sequence
from datetime import datetime
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from pbem.store.sql import Tx

if TYPE_CHECKING:
    pass
from pbem.store.database import StoreError, SubmissionStatus, unknown_game, utcnow


class GameState(NamedTuple):
    """What checking and resolving a turn need of a game, read in one statement."""

    id: str
    rules: str
    next_k: int
    state_hash: str
    over: bool
    result: str | None
    position: dict[str, Any]  # the current position
    chain_length: int
    scenario: str
    anchor: str
    current_k: int
    rules_version: str = "1"
    """The version of the ruleset the game began with (``Ruleset.version``)."""
    queued_next: int = 0
    """How many files are queued for the next resolution (any side): with none,
    a submit has nothing to supersede."""
    dice_walk: str = ""
    """The dice chain's values walked up from a checkpoint (hex, secret), kept as
    they were written: the next reveals, each the value below the reveal before
    (``dice.kept_reveal``), read instead of walked (``dice.chains.reveal``)."""
    reveal: str = ""
    """The current resolution's reveal (hex; empty before the first)."""
    position_text: str = ""
    """The current position as stored (canonical JSON), which ``position`` was parsed from."""


POSITIONS_KEPT = 64


_positions: dict[str, Any] = {}
"""Each kept position's ``marshal`` copy (bytes), or the parse itself while only
readers that change nothing (``shared``) have read it."""


def parsed_position(text: str, keep: bool = True, shared: bool = False) -> dict[str, Any]:
    """A stored position (its JSON text), parsed into an object of the caller's own
    (but see ``shared``).

    Checking a turn file, the look before a resolution and the resolution itself
    read the same position: its JSON is parsed once per process, and each later
    read is a ``marshal`` copy of that parse, several times faster (before the speed work, three
    parses per resolution).  Keyed by the whole text, so a changed row is parsed
    afresh; the last ``POSITIONS_KEPT`` positions are kept.  ``keep=False``: the
    caller's read is the last this process makes of that position (a resolution
    replaces it), so a position not kept yet is parsed without a ``marshal`` copy
    made for later reads.  ``shared``: the caller changes nothing in the position
    and keeps it no longer than its call (a turn file's verdict), so it is given
    the kept parse itself, not a new object; the ``marshal`` copy is made only
    when a later caller needs an object of its own (a submit from a folder makes
    none: about a fifth of the position's read)."""
    kept = _positions.get(text)
    if kept is not None:
        if isinstance(kept, bytes):
            position: dict[str, Any] = marshal.loads(kept)
            return position
        if shared:
            return kept
        if not keep:  # the last read: the parse itself is handed over
            del _positions[text]
            return kept
        _positions[text] = copy = marshal.dumps(kept)
        position = marshal.loads(copy)
        return position
    position = json.loads(text)
    if not keep and not shared:
        return position
    if len(_positions) >= POSITIONS_KEPT:
        del _positions[next(iter(_positions))]  # the oldest
    _positions[text] = position if shared else marshal.dumps(position)
    return position


_GAME_STATE = """
SELECT g.id, g.rules, g.next_k, g.state_hash, g.over, g.result, g.current_k,
       CASE WHEN g.current_k = 0 THEN g.initial_position ELSE r.position END,
       g.chain_length, g.scenario, g.anchor, g.rules_version,
       (SELECT COUNT(*) FROM submission s WHERE s.game_id = g.id AND s.turn = g.next_k AND s.status = 'QUEUED'),
       g.dice_walk, r.reveal
FROM game g LEFT JOIN resolution r ON r.game_id = g.id AND r.k = g.current_k
WHERE g.id = :game"""


def game_state(
    tx: Tx, game_id: str, claimed: bool = False, keep: bool = True, shared: bool = False
) -> GameState | None:
    """The game as it stands.  In a writer on a database without SQLite's
    whole-database lock, the game's row is locked first and stays locked until
    the transaction ends, so two submits or resolutions of one game never
    interleave.  The lock is a statement of its own: under READ COMMITTED, a
    read that waited for the lock would otherwise see the game's new row joined
    to the resolutions of its older snapshot (without the one just committed).
    ``claimed``: the transaction holds the row already (:func:`claim_game`);
    ``keep``, ``shared``: as :func:`parsed_position` (``False``: the last read of
    this position; ``shared``: a reader that changes nothing in it)."""
    if tx.locking_reads and not claimed:
        tx.one("SELECT id FROM game WHERE id = :game FOR UPDATE", {"game": game_id})
    row = tx.one(_GAME_STATE, {"game": game_id})
    if row is None:
        return None
    (
        gid,
        rules,
        next_k,
        state_hash,
        over,
        result,
        current_k,
        position,
        chain_length,
        scenario,
        anchor,
        rules_version,
        queued_next,
        walked,
        reveal,
    ) = row
    if position is None:
        raise StoreError(f"game {gid}: its current resolution {current_k} is missing; the database is damaged")
    return GameState(
        gid,
        rules,
        next_k,
        state_hash,
        bool(over),
        result,
        parsed_position(position, keep, shared),
        chain_length,
        scenario,
        anchor,
        current_k,
        rules_version,
        int(queued_next),
        walked or "",
        reveal or "",
        position,
    )


def known_game(tx: Tx, game_id: str, claimed: bool = False, keep: bool = True) -> GameState:
    """:func:`game_state`, or the ``LookupError`` naming the games there are."""
    game = game_state(tx, game_id, claimed, keep)
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
    return tx.one(_CLAIM, {"game": game_id}) is not None


_CLAIM = "SELECT id FROM game WHERE id = :game FOR UPDATE SKIP LOCKED"


_NEXT_QUEUED = (
    "SELECT id, side, message, digest FROM submission WHERE game_id = :game"
    " AND turn = (SELECT next_k FROM game WHERE id = :game) AND status = :queued"
)
"""Put in order (by side, then id) in Python (:func:`next_queued_files`): no index
gives that order, and SQLite sorted the rows in a table of its own."""


def resolution_reads(game_id: str) -> list[tuple[str, dict[str, Any]]]:
    """What a resolution reads first, in order, to ask ahead (``Tx.prefetch``): the
    claim of the game (:func:`claim_game`), the game (:func:`game_state`, claimed)
    and its chain's seed and checkpoints (:func:`chain_secret`), which a reveal
    walked from a checkpoint asks for (where a read costs a round trip, asking
    ahead costs none; elsewhere nothing is read ahead).  Its files queued for its
    next resolution are read with the game's other small rows (the referee's
    ``notices.GAME_ROWS``, which it asks ahead too)."""
    game = {"game": game_id}
    return [(_CLAIM, game), (_GAME_STATE, game), (_CHAIN_SECRET, game)]


def queued_sides(tx: Tx, game_id: str, turn: int) -> list[str]:
    """The sides with a file queued for ``turn``, in order."""
    rows = tx.all(
        "SELECT DISTINCT side FROM submission WHERE game_id = :game AND turn = :turn AND status = :queued ORDER "
        "BY side",
        {"game": game_id, "turn": turn, "queued": SubmissionStatus.QUEUED.name},
    )
    return [r[0] for r in rows]


_CHAIN_SECRET = "SELECT seed, seed_checkpoints FROM game WHERE id = :game"


def chain_secret(tx: Tx, game_id: str) -> tuple[str, str]:
    """The seed and the checkpoints (hex) of the chain a game was created with: read
    only where a reveal is walked from a checkpoint (:func:`game_state` leaves them
    out: 8 KB of hex a read, which checking a turn file never needs and a
    resolution rarely does)."""
    row = tx.one(_CHAIN_SECRET, {"game": game_id})
    if row is None:
        raise unknown_game(game_id, known_game_ids(tx))
    return row[0], row[1]


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
    rows = tx.all(
        "SELECT first_k, chain_length, anchor FROM dice_chain WHERE game_id = :game ORDER BY first_k", {"game": game_id}
    )
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
        # ``game_id || ''``: found through the digest index, not by reading all the game's submissions
        " FROM submission s WHERE s.digest = :digest AND s.game_id || '' = :game ORDER BY s.id",
        {"game": game_id, "digest": digest},
    )
    return [
        EarlierCopy(
            SubmissionStatus[status], turn, _as_datetime(received), _as_datetime(replaced) if replaced else None
        )
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


def queue_submission(
    tx: Tx,
    game_id: str,
    side: str,
    turn: int,
    message: bytes,
    signature: str,
    digest: str,
    source: str,
    queued: bool = True,
) -> int:
    """Queue a checked turn file; an earlier one of the same side for the same turn
    is superseded.  Returns how many were superseded.  ``queued`` false: the
    caller's transaction read that no file is queued for the turn
    (``GameState.queued_next``), so there is nothing to supersede."""
    superseded = 0
    if queued:
        superseded = _supersede(tx, game_id, side, turn)
    tx.send(
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


def _supersede(tx: Tx, game_id: str, side: str, turn: int) -> int:
    return tx.run(
        "UPDATE submission SET status = :superseded WHERE game_id = :game AND turn = :turn AND side = :side AND "
        "status = :queued",
        {
            "superseded": SubmissionStatus.SUPERSEDED.name,
            "queued": SubmissionStatus.QUEUED.name,
            "game": game_id,
            "turn": turn,
            "side": side,
        },
    )


def add_refusal(
    tx: Tx,
    game_id: str | None,
    side: str | None,
    turn: int | None,
    data: bytes,
    signature: str | None,
    reason: str,
    source: str,
) -> None:
    tx.run(
        "INSERT INTO refusal (game_id, side, turn, data, signature, reason, received, source)"
        " VALUES (:game, :side, :turn, :data, :signature, :reason, :received, :source)",
        {
            "game": game_id,
            "side": side,
            "turn": turn,
            "data": data,
            "signature": signature,
            "reason": reason,
            "received": utcnow(),
            "source": source,
        },
    )


class QueuedFile(NamedTuple):
    id: int
    side: str
    message: bytes
    digest: str  # hex SHA-256 of message, written with it (``queue_submission``)


def queued_files(tx: Tx, game_id: str, turn: int) -> list[QueuedFile]:
    rows = tx.all(
        "SELECT id, side, message, digest FROM submission WHERE game_id = :game AND turn = :turn AND status = :queued "
        "ORDER BY side, id",
        {"game": game_id, "turn": turn, "queued": SubmissionStatus.QUEUED.name},
    )
    return [QueuedFile(i, side, bytes(message), digest) for i, side, message, digest in rows]


def next_queued_files(tx: Tx, game_id: str) -> list[QueuedFile]:
    """The files queued for the game's next resolution (``next_k``), by side."""
    rows = sorted(tx.all(_NEXT_QUEUED, {"game": game_id, "queued": _QUEUED}), key=_BY_SIDE)
    return [QueuedFile(i, side, bytes(message), digest) for i, side, message, digest in rows]


_QUEUED, _RESOLVED = SubmissionStatus.QUEUED.name, SubmissionStatus.RESOLVED.name
"""The statuses' names as stored, read once: an enum member's ``name`` is a Python
property (a call and a dozen opcodes at each read, three a resolution)."""

_BY_SIDE = itemgetter(1, 0)
"""A queued file's row (id, side, ...) by side, then id."""


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
    dice_walk: str = ""  # hex: the chain's values walked from a checkpoint, kept in the game's row (secret)


def add_resolution(tx: Tx, new: NewResolution, rolls: Sequence[Mapping[str, Any]], resolved_ids: Sequence[int]) -> None:
    """Write a resolution, its rolls (``idx``, ``sides``, ``value``, ``purpose``),
    mark the files it resolved, and move the game on to it: writes sent
    (``Tx.send``), which on PostgreSQL travel with the transaction's next round trip."""
    tx.send(
        "INSERT INTO resolution (game_id, k, label, position, state_hash, previous_state_hash, events, reveal, "
        "nmr, created, active)"
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
            "INSERT INTO roll (game_id, k, idx, sides, value, purpose) VALUES (:game, :k, :idx, :sides, :value, "
            ":purpose)",
            [{"game": new.game_id, "k": new.k, **roll} for roll in rolls],
        )
    for submission_id in resolved_ids:
        tx.send(
            "UPDATE submission SET status = :resolved WHERE id = :id",
            {"resolved": _RESOLVED, "id": submission_id},
        )
    tx.send(
        "UPDATE game SET current_k = :k, next_k = :next_k, state_hash = :state_hash, over = :over, result = "
        ":result, dice_walk = :walk WHERE id = :game",
        {
            "walk": new.dice_walk,
            "k": new.k,
            "next_k": new.k + 1,
            "state_hash": new.state_hash,
            "over": new.result is not None,
            "result": new.result,
            "game": new.game_id,
        },
    )


class RolledBack(NamedTuple):
    """A rollback as recorded (``pbem rollback``): its row's id, the resolution
    kept, the resolutions set aside."""

    id: int
    to_k: int
    discarded: list[int]
