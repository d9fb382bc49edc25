"""The messages the referee owes, queued in the outbox by the transaction that
makes the decision they report (pbem/mail/outbox.py).

Every function here takes the caller's open transaction (:class:`pbem.transaction.Tx`)
and writes rows only; nothing is sent here.  The From address is the referee's,
set when a row is delivered (``--sender``); :data:`PLACEHOLDER_SENDER` stands in
until then.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.mail import outbox
from pbem.store.sql import Tx

if TYPE_CHECKING:
    from email.message import EmailMessage

PLACEHOLDER_SENDER = "referee@pbem.invalid"


def player_addresses(tx: Tx, game_id: str) -> dict[str, str]:
    """Each side's registered address, for the sides that have one."""
    return {
        side: addr
        for side, addr in tx.all(
            "SELECT side, email FROM player WHERE game_id = :game ORDER BY side", {"game": game_id}
        )
        if addr
    }


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def queue_reports(
    tx: Tx, game_id: str, k: int, label: str, next_label: str, due_next: Sequence[str], over: bool
) -> int:
    """Each side's report of resolution ``k`` (``k`` 0: the game as created)."""
    made = 0
    for side, addr in player_addresses(tx, game_id).items():
        # as pbem.mail.build.report_subject words it: the resolution, then the game's own time
        if over:
            subject = f"[pbem {game_id}] resolution {k} - {label}: game over"
        elif side in due_next:
            subject = f"[pbem {game_id}] resolution {k + 1} - {next_label}: your move"
        else:
            subject = f"[pbem {game_id}] resolution {k} - {label}: report"
        made += outbox.queue_report(tx, game_id, k, side, addr, subject, over)
    return made


def _notice(
    tx: Tx,
    kind: str,
    game_id: str,
    side: str | None,
    to: Sequence[str],
    subject: str,
    body: str,
    dedupe: str,
    k: int | None,
) -> bool:
    from pbem.mail.build import notice_email

    recipients = outbox.addresses(list(to))
    if not recipients:
        return False
    message_id = outbox.new_message_id(kind, game_id)
    msg = notice_email(PLACEHOLDER_SENDER, recipients, subject, body, message_id, game_id, side, kind)
    return outbox.queue_message(tx, kind, msg, dedupe, game_id, side, k)


def queue_reminder(tx: Tx, game_id: str, k: int, side: str, label: str, deadline: datetime) -> bool:
    """Before the deadline, to a side whose file has not arrived."""
    addr = player_addresses(tx, game_id).get(side)
    body = (
        f"Game {game_id}, {label} (resolution {k}): your orders as {side} have not arrived yet.\n"
        f"The deadline is {_when(deadline)}.\n\n"
        f"Write them with 'pbem orders {game_id} --side {side}', sign them, and send them back\n"
        "as a reply to your last report.\n"
    )
    return _notice(
        tx,
        "reminder",
        game_id,
        side,
        [addr] if addr else [],
        f"[pbem {game_id}] {label}: reminder, deadline {_when(deadline)}",
        body,
        f"reminder:{game_id}:{k}:{side}",
        k,
    )


def queue_late_notice(
    tx: Tx, game_id: str, k: int, missing: Sequence[str], label: str, deadline: datetime, grace_until: datetime
) -> int:
    """At the deadline with a side missing: to every side."""
    made = 0
    who = ", ".join(missing)
    for side, addr in player_addresses(tx, game_id).items():
        late = side in missing
        body = (
            f"Game {game_id}, {label} (resolution {k}): the deadline {_when(deadline)} has passed "
            f"and the orders of {who} have not arrived.\n"
            + (
                f"Your orders can still be accepted until {_when(grace_until)}; after that the turn is resolved\n"
                f"with no orders from you (NMR), and the archive records it.\n"
                if late
                else f"{who} may still send orders until {_when(grace_until)}; after that the turn is resolved\n"
                f"with no orders from {who} (NMR), and the archive records it.\n"
            )
        )
        made += _notice(
            tx,
            "late",
            game_id,
            side,
            [addr],
            f"[pbem {game_id}] {label}: orders late from {who}",
            body,
            f"late:{game_id}:{k}:{side}",
            k,
        )
    return made


def queue_rollback_notice(
    tx: Tx,
    game_id: str,
    to_k: int,
    discarded: Sequence[int],
    next_k: int,
    label: str,
    state_hash: str,
    rollback_id: int,
) -> int:
    """To every side: what was set aside and which resolution is awaited now."""
    made = 0
    gone = ", ".join(map(str, discarded))
    for side, addr in player_addresses(tx, game_id).items():
        body = (
            f"Game {game_id} was rolled back by the referee to resolution {to_k}.\n"
            f"Resolution(s) {gone} are set aside (kept, and shown by 'pbem export' and 'pbem audit').\n"
            f"Any orders queued for them are set aside too.\n\n"
            f"Now awaited: resolution {next_k} ({label}), written against position {state_hash}.\n"
            f"Write your orders with turn: {next_k} and state: {state_hash}\n"
            f"(for instance with 'pbem orders {game_id} --side {side}' on a copy of the game), sign and send them.\n"
        )
        made += _notice(
            tx,
            "rollback",
            game_id,
            side,
            [addr],
            f"[pbem {game_id}] rolled back to resolution {to_k}: resolution {next_k} awaited",
            body,
            f"rollback:{game_id}:{rollback_id}:{side}",
            next_k,
        )
    return made


def queue_player_notice(
    tx: Tx, game_id: str, change_id: int, side: str, what: Sequence[str], also: Sequence[str] = ()
) -> int:
    """To every side (and ``also``, the side's old address): a side's address or key changed."""
    made = 0
    addresses = player_addresses(tx, game_id)
    text = "; ".join(what)
    body = f"Game {game_id}: the referee changed the {side} side's registration: {text}.\nThe change is recorded in the game's archive.\n"
    for other, addr in addresses.items():
        extra = list(also) if other == side else []
        made += _notice(
            tx,
            "player",
            game_id,
            other,
            [addr, *extra],
            f"[pbem {game_id}] {side}: {text}",
            body,
            f"player:{game_id}:{change_id}:{other}",
            None,
        )
    return made


def queue_reply(
    tx: Tx, kind: str, message: EmailMessage, dedupe: str, game_id: str | None = None, side: str | None = None
) -> bool:
    """A receipt or refusal, already built."""
    return outbox.queue_message(tx, kind, message, dedupe, game_id, side)


def queue_ledger_notice(tx: Tx, game_id: str, entry: dict[str, Any], summary: str = "") -> int:
    """To every side: one entry of the referee's ledger as it is written (pbem/referee/ledger.py)."""
    made = 0
    what = summary or entry["act"]
    body = (
        f"Game {game_id}: the referee's act {entry['seq']} ({entry['act']}): {what}.\n\n"
        "The entry as the game's ledger holds it ('pbem audit' checks the whole chain;\n"
        "keep this hash to check later that the archive's ledger still holds it):\n\n"
        f"{json.dumps(entry, indent=1, ensure_ascii=False)}\n"
    )
    for side, addr in player_addresses(tx, game_id).items():
        made += _notice(
            tx,
            "ledger",
            game_id,
            side,
            [addr],
            f"[pbem {game_id}] referee: {what}",
            body,
            f"ledger:{game_id}:{entry['seq']}:{side}",
            None,
        )
    return made
