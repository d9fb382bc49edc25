"""``pbem observer add/remove/list``: people who follow a game without playing it.

An observer is an address sent every resolution's public report
(:func:`pbem.reports.assemble.public_view`: what every side sees alike, nothing
that only one side knows), through the outbox, from the resolution after it is
added until it is removed.  An observer has no key and never submits: a turn file
from its address is judged like any stranger's (only a side's registered key
signs for it).  The archive records each observer by the SHA-256 of its address,
lowercased (``observers``): the players agreed to their addresses being in the
archive, an observer did not, and the hash still lets an observer find their own
entry.

:func:`record` is the one place an observer is added or removed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbem import store
from pbem.mail.address import checked_address
from pbem.referee import ledger
from pbem.referee.verdict import Refused
from pbem.store.sql import Tx
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine


@dataclass(frozen=True)
class Watching:
    email: str
    added: str
    from_k: int


def address_hash(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode("utf-8")).hexdigest()


def active(tx: Tx, game_id: str) -> list[tuple[int, str]]:
    """Each observer now: its row id and address."""
    return [
        (row[0], row[1])
        for row in tx.all(
            "SELECT id, email FROM observer WHERE game_id = :game AND removed IS NULL ORDER BY id", {"game": game_id}
        )
    ]


def record(tx: Tx, game_id: str, act: str, email: str, k: int, key: ledger.RefereeKey | None = None) -> None:
    """The act ``observer``: ``add`` (sent the reports of resolution ``k`` on) or
    ``remove`` (not from resolution ``k`` on).  The one place the act is made, an
    entry of the referee's ledger (the address as its SHA-256, as the archive has it)."""
    params = {"game": game_id, "email": email, "k": k, "at": store.utcnow()}
    if act == "add":
        tx.run(
            "INSERT INTO observer (game_id, email, added, added_k) VALUES (:game, :email, :at, :k)",
            params,
        )
    elif act == "remove":
        tx.run(
            "UPDATE observer SET removed = :at, removed_k = :k"
            " WHERE game_id = :game AND removed IS NULL AND LOWER(email) = LOWER(:email)",
            params,
        )
    else:
        raise ValueError(f"unknown observer act {act!r}")
    details = {"change": act, "address_sha256": address_hash(email), "from_k": k}
    summary = f"an observer {'added' if act == 'add' else 'removed'} from resolution {k}"
    ledger.record(tx, game_id, "observer", details, key, summary=summary)


def add(engine: Engine, game_id: str, email: str, key: ledger.RefereeKey | None = None) -> int:
    """Add an observer; returns the first resolution whose report it is sent."""
    try:
        checked_address(email)
    except ValueError as exc:
        raise Refused([f"observer address: {exc}"]) from None
    with transaction(engine) as tx:
        game = store.known_game(tx, game_id)
        ledger.check_key(tx, game_id, key, "observer change")
        if any(addr.lower() == email.lower() for _id, addr in active(tx, game_id)):
            raise Refused([f"{email} already observes game {game_id}"])
        for side, addr in tx.all("SELECT side, email FROM player WHERE game_id = :game", {"game": game_id}):
            if addr and addr.lower() == email.lower():
                raise Refused(
                    [f"{email} is the {side} player's address in game {game_id}: a player is not an observer"]
                )
        record(tx, game_id, "add", email, game.next_k, key)
        return game.next_k


def remove(engine: Engine, game_id: str, email: str, key: ledger.RefereeKey | None = None) -> int:
    """Remove an observer; returns the first resolution whose report it is no longer sent."""
    with transaction(engine) as tx:
        game = store.known_game(tx, game_id)
        ledger.check_key(tx, game_id, key, "observer change")
        if not any(addr.lower() == email.lower() for _id, addr in active(tx, game_id)):
            now = ", ".join(addr for _id, addr in active(tx, game_id)) or "none"
            raise Refused([f"{email} does not observe game {game_id} (observers: {now})"])
        record(tx, game_id, "remove", email, game.next_k, key)
        return game.next_k


def listing(engine: Engine, game_id: str) -> list[Watching]:
    with transaction(engine, write=False) as tx:
        store.known_game(tx, game_id)
        rows = tx.all(
            "SELECT email, added, added_k FROM observer WHERE game_id = :game AND removed IS NULL ORDER BY id",
            {"game": game_id},
        )
    return [Watching(email, _iso(added), k) for email, added, k in rows]


def archived(tx: Tx, game_id: str) -> list[dict]:
    """The archive's ``observers``: every observer there has been, its address hashed."""
    return [
        {
            "address_sha256": address_hash(email),
            "added": _iso(added),
            "from_k": added_k,
            "removed": _iso(removed) if removed else None,
            "until_k": removed_k,
        }
        for email, added, added_k, removed, removed_k in tx.all(
            "SELECT email, added, added_k, removed, removed_k FROM observer WHERE game_id = :game ORDER BY id",
            {"game": game_id},
        )
    ]


def _iso(value: object) -> str:
    from pbem.referee.disorder import store_iso

    return store_iso(value)
