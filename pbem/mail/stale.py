"""Notices that cannot go stale: a reminder or late notice is checked when it is
delivered; one whose moment has passed is marked ``superseded`` by the outbox,
not sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem import store
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from email.message import EmailMessage

    from pbem.mail.outbox import Row
    from pbem.store.database import Database


def stale_reason(engine: Database, row: Row, message: EmailMessage) -> str | None:
    """Why a reminder or late notice can no longer be sent (its resolution was
    made, its deadline changed, or, for a reminder, the side's orders arrived);
    None when it still holds.  The notice's deadline is its ``X-Pbem-Deadline``."""
    if row.kind not in ("reminder", "late") or row.game_id is None or row.k is None:
        return None
    from pbem.store.clock import current_deadline
    from pbem.turnfiles.deadline import iso

    with transaction(engine, write=False) as tx:
        game = tx.one("SELECT next_k, over FROM game WHERE id = :game", {"game": row.game_id})
        if game is None:
            return None
        if game[1] or game[0] != row.k:
            return f"superseded: resolution {row.k} was made before this notice could be sent"
        due = current_deadline(tx, row.game_id)
        stamped = message.get("X-Pbem-Deadline")
        if stamped and (due is None or iso(due[0]) != str(stamped)):
            return f"superseded: the deadline of resolution {row.k} changed after this notice was written"
        if row.kind == "reminder" and row.side is not None:
            arrived = tx.one(
                "SELECT 1 FROM submission WHERE game_id = :game AND turn = :k AND side = :side AND status = :queued",
                {"game": row.game_id, "k": row.k, "side": row.side, "queued": store.SubmissionStatus.QUEUED.name},
            )
            if arrived:
                return f"superseded: the {row.side} orders for resolution {row.k} arrived before this reminder went"
    return None
