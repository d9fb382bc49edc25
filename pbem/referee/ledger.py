"""The referee's ledger: every act of the referee as an entry of a hash chain,
signed with the referee's SSH key (docs/formats.md, "The referee's ledger").

An entry is ``{act, time, details, previous}``; its hash is the lowercase hex
SHA-256 of that object's canonical JSON (``pbem.turnfiles.canonical``), and
``previous`` is the hash of the entry before it (``null`` for the first, the
``new`` entry).  A game created with ``--referee-key KEY`` records the key's
public half in the ``new`` entry's details (``referee_key``); then every entry's
``signature`` is the armored SSHSIG of its hash (the 64 hex characters, as ASCII)
with namespace :data:`NAMESPACE`, and no act is done without that key.  A game
created without one keeps an unsigned ledger: the entries are chained and
``signature`` is ``null``.

One entry point serves every act, in the act's own transaction::

    ledger.record(tx, game_id, "pause", {"until": None}, key, summary="paused")

It writes the entry and queues it to every player in the outbox.  The act
names are :data:`ACTS`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import store
from pbem.referee import notices
from pbem.referee.verdict import Refused
from pbem.store.sql import Tx
from pbem.turnfiles import keys, sshsig
from pbem.turnfiles.canonical import canonical_json

if TYPE_CHECKING:
    from pbem.turnfiles.keys import PrivateKey

NAMESPACE = "pbem-referee"
KEY_ENV = "PBEM_REFEREE_KEY"
ACTS = frozenset(
    {
        "new",  # pbem new: the game's settings, players, anchor and the referee's public key
        "house-table",  # pbem new --table: one replaced table and its sha256
        "extend",  # pbem extend: a new dice chain's first_k, chain_length and anchor
        "deadline",  # pbem game set: the clock's settings before and after
        "pause",  # pbem pause: until when (or null)
        "resume",  # pbem resume
        "vacation",  # pbem vacation, or a player's signed request
        "player",  # pbem player: a side's new address or key
        "observer",  # pbem observer add/remove: the address as its SHA-256
        "rollback",  # pbem rollback: back to which resolution, which set aside
        "nmr",  # process --force-nmr, or the end of grace: the resolution and the sides missing
        "civil-disorder",  # pbem game set civil-disorder=N: the threshold changed
    }
)


class LedgerError(ValueError):
    """A ledger that does not hold: names the entry at fault."""


@dataclass(frozen=True)
class RefereeKey:
    """The referee's private key (``--referee-key KEY`` / ``$PBEM_REFEREE_KEY``)."""

    path: str
    private: PrivateKey
    public: keys.PublicKey

    @classmethod
    def load(cls, path: str | Path) -> RefereeKey:
        try:
            private = keys.load_private_key(Path(path))
            return cls(str(path), private, keys.PublicKey.from_crypto(private))
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise Refused([f"--referee-key {path}: {reason}"]) from None


@dataclass(frozen=True)
class Entry:
    seq: int
    act: str
    time: str
    details: dict[str, Any]
    previous: str | None
    hash: str
    signature: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "act": self.act,
            "time": self.time,
            "details": self.details,
            "previous": self.previous,
            "hash": self.hash,
            "signature": self.signature,
        }


def entry_hash(act: str, time: str, details: Mapping[str, Any], previous: str | None) -> str:
    """SHA-256 over the canonical JSON of ``{act, time, details, previous}``."""
    body = {"act": act, "time": time, "details": dict(details), "previous": previous}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def iso(moment: datetime) -> str:
    """A ledger time: ISO 8601 in UTC to the second, ``Z`` for the zone."""
    when = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return when.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def game_key(tx: Tx, game_id: str) -> str | None:
    """The referee's public key the game was created with (None: an unsigned ledger)."""
    row = tx.one("SELECT referee_key FROM game WHERE id = :game", {"game": game_id})
    if row is None:
        raise store.unknown_game(game_id, store.known_game_ids(tx))
    return row[0]


def key_problem(recorded: str | None, key: RefereeKey | None, act: str) -> str | None:
    """Why ``key`` cannot sign for a game whose recorded key is ``recorded``."""
    if recorded is None:
        return None
    wanted = keys.PublicKey.from_openssh(recorded)
    if key is None:
        return (
            f"{act} refused: this game's acts are signed with the referee's key ({wanted.fingerprint()});"
            f" give --referee-key KEY or set ${KEY_ENV}"
        )
    if not key.public.same_key(wanted):
        return (
            f"{act} refused: --referee-key {key.path} is {key.public.fingerprint()},"
            f" not the referee's key this game was created with ({wanted.fingerprint()})"
        )
    return None


def check_key(tx: Tx, game_id: str, key: RefereeKey | None, act: str) -> None:
    """:class:`Refused` when the act cannot be signed as the game requires."""
    problem = key_problem(game_key(tx, game_id), key, act)
    if problem is not None:
        raise Refused([problem])


def record(
    tx: Tx,
    game_id: str,
    act: str,
    details: Mapping[str, Any],
    key: RefereeKey | None,
    *,
    summary: str = "",
    now: datetime | None = None,
) -> Entry:
    """Write one act as the next entry of the game's ledger, signed when the game
    has a referee key (refused without it), and queue it to every player."""
    if act not in ACTS:
        raise ValueError(f"unknown ledger act {act!r} (acts: {', '.join(sorted(ACTS))})")
    check_key(tx, game_id, key, act)
    signed = game_key(tx, game_id) is not None
    last = tx.one(
        "SELECT seq, hash FROM ledger WHERE game_id = :game ORDER BY seq DESC LIMIT 1",
        {"game": game_id},
    )
    seq, previous = (last[0] + 1, last[1]) if last else (1, None)
    time = iso(now or store.utcnow())
    body = json.loads(canonical_json(dict(details)))
    digest = entry_hash(act, time, body, previous)
    signature = sshsig.sign(digest.encode("ascii"), key.private, NAMESPACE) if signed and key else None
    tx.run(
        "INSERT INTO ledger (game_id, seq, act, time, details, previous, hash, signature)"
        " VALUES (:game, :seq, :act, :time, :details, :previous, :hash, :signature)",
        {
            "game": game_id,
            "seq": seq,
            "act": act,
            "time": time,
            "details": canonical_json(body),
            "previous": previous,
            "hash": digest,
            "signature": signature,
        },
    )
    entry = Entry(seq, act, time, body, previous, digest, signature)
    notices.queue_ledger_notice(tx, game_id, entry.to_json(), summary)
    return entry


def entries(tx: Tx, game_id: str, acts: Sequence[str] | None = None) -> list[Entry]:
    """The game's ledger in order (only ``acts`` when given)."""
    rows = tx.all(
        "SELECT seq, act, time, details, previous, hash, signature FROM ledger WHERE game_id = :game ORDER BY seq",
        {"game": game_id},
    )
    out = [Entry(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6]) for r in rows]
    return [e for e in out if acts is None or e.act in acts]


def check_chain(items: Sequence[Any]) -> list[Entry]:
    """Verify a ledger as the archive carries it: numbering, the hash of every
    entry, the chain of ``previous`` hashes and every signature against the key
    recorded in the ``new`` entry.  :class:`LedgerError` names the first entry
    that does not hold."""
    checked: list[Entry] = []
    recorded: keys.PublicKey | None = None
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("details"), dict):
            raise LedgerError(f"ledger entry {i}: not an entry (act, time, details, previous, hash, signature)")
        where = f"ledger entry {i} ({item.get('act')})"
        if item.get("seq") != i:
            raise LedgerError(f"{where}: numbered {item.get('seq')}, expected {i} (an entry dropped or reordered)")
        previous = checked[-1].hash if checked else None
        if item.get("previous") != previous:
            raise LedgerError(
                f"{where}: its previous hash {item.get('previous')} is not the hash of the entry before it"
                f" ({previous}): an entry was changed, dropped or reordered"
            )
        digest = entry_hash(str(item["act"]), str(item["time"]), item["details"], previous)
        if item.get("hash") != digest:
            raise LedgerError(f"{where}: hash {item.get('hash')} does not match its content ({digest}): it was changed")
        if checked and parse_time(str(item["time"])) < parse_time(checked[-1].time):
            raise LedgerError(f"{where}: time {item['time']} is before the entry before it ({checked[-1].time})")
        if i == 1 and item["act"] == "new" and item["details"].get("referee_key"):
            recorded = _recorded_key(where, item["details"]["referee_key"])
        _check_signature(where, item, digest, recorded)
        checked.append(Entry(i, str(item["act"]), str(item["time"]), item["details"], previous, digest, None))
    return checked


def _recorded_key(where: str, line: str) -> keys.PublicKey:
    try:
        return keys.PublicKey.from_openssh(str(line))
    except ValueError as exc:
        raise LedgerError(f"{where}: the referee key it records cannot be read: {exc}") from None


def _check_signature(where: str, item: dict[str, Any], digest: str, recorded: keys.PublicKey | None) -> None:
    signature = item.get("signature")
    if recorded is None:
        if signature is not None:
            raise LedgerError(f"{where}: signed, but the game recorded no referee key at 'new'")
        return
    if not signature:
        raise LedgerError(f"{where}: not signed, but the game's acts are signed with {recorded.fingerprint()}")
    try:
        signer = sshsig.verify(digest.encode("ascii"), str(signature), NAMESPACE)
    except sshsig.SignatureError as exc:
        raise LedgerError(f"{where}: signature does not verify: {exc}") from None
    if not signer.same_key(recorded):
        raise LedgerError(
            f"{where}: signed by {signer.fingerprint()},"
            f" not the referee key recorded at 'new' ({recorded.fingerprint()})"
        )
