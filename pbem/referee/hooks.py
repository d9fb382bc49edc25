"""A game's webhooks (``pbem hook add/remove/list``) and the posts they are owed,
queued in the outbox by the transaction of the decision they report, like mail
(pbem/referee/notices.py); pbem/mail/webhook.py posts them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem import store
from pbem.mail import outbox, webhook
from pbem.store.sql import Tx
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from pbem.store.database import Database


@dataclass(frozen=True)
class Hook:
    id: int
    game_id: str
    url: str
    format: str


def add(db: Database, game_id: str, url: str, fmt: str = "json") -> bool:
    """Register a hook; False when the game has it already (its format is then updated)."""
    url, fmt = webhook.check_url(url), webhook.check_format(fmt)
    with transaction(db) as tx:
        store.known_game(tx, game_id)
        params = {"game": game_id, "url": url, "format": fmt, "created": store.utcnow()}
        if tx.run("UPDATE hook SET format = :format WHERE game_id = :game AND url = :url", params):
            return False
        tx.run("INSERT INTO hook (game_id, url, format, created) VALUES (:game, :url, :format, :created)", params)
    return True


def remove(db: Database, game_id: str, url: str) -> None:
    with transaction(db) as tx:
        store.known_game(tx, game_id)
        if not tx.run("DELETE FROM hook WHERE game_id = :game AND url = :url", {"game": game_id, "url": url.strip()}):
            raise LookupError(f"game {game_id} has no hook {url}")


def listed(db: Database, game_id: str) -> list[Hook]:
    with transaction(db, write=False) as tx:
        store.known_game(tx, game_id)
        return of_game(tx, game_id)


OF_GAME = "SELECT id, game_id, url, format FROM hook WHERE game_id = :game ORDER BY id"
"""The statement of :func:`of_game` (``:game``), which a resolution asks ahead (``Tx.prefetch``)."""


def of_game(tx: Tx, game_id: str) -> list[Hook]:
    rows = tx.all(OF_GAME, {"game": game_id})
    return [Hook(*row) for row in rows]


def _site_url(tx: Tx, game_id: str) -> str | None:
    """The game's published site (``pbem site --site-url``), if recorded."""
    found = tx.one("SELECT url FROM site WHERE game_id = :game", {"game": game_id})
    return str(found[0]) if found else None


def next_deadline(tx: Tx, game_id: str, now: datetime) -> datetime | None:
    """The deadline of the turn that starts ``now`` (None: the game waits forever)."""
    found = tx.one("SELECT deadline FROM game_clock WHERE game_id = :game", {"game": game_id})
    return now + timedelta(seconds=found[0]) if found and found[0] is not None else None


def queue(
    tx: Tx,
    game_id: str,
    k: int,
    kind: str,
    text: str,
    deadline: datetime | None,
    awaiting: Sequence[str],
    dedupe: str,
    found: Sequence[Hook] | None = None,
) -> int:
    """One post per hook of the game: kind ``your-move``, ``result``, ``reminder`` or ``late``
    (``found``: the game's hooks, when the caller has read them)."""
    hooks = of_game(tx, game_id) if found is None else found
    if not hooks:
        return 0
    event = {
        "game": game_id,
        "k": k,
        "kind": kind,
        "text": text,
        "deadline": deadline.isoformat().replace("+00:00", "Z") if deadline else None,
        "awaiting": list(awaiting),
        "url": _site_url(tx, game_id),
    }
    made = 0
    for hook in hooks:
        made += outbox.queue(
            tx,
            webhook.KIND,
            [hook.url],
            f"{kind}: {text.splitlines()[0]}"[:200],
            outbox.new_message_id(webhook.KIND, game_id),
            f"hook:{hook.id}:{dedupe}",
            webhook.payload(hook.format, event),
            game_id,
            None,
            k,
        )
    return made
