"""The messages the referee owes, queued in the outbox by the transaction that
makes the decision they report (pbem/mail/outbox.py).

Every function here takes the caller's open transaction (:class:`pbem.transaction.Tx`)
and writes rows only; nothing is sent here.  The From address is the referee's,
set when a row is delivered (``--sender``); :data:`PLACEHOLDER_SENDER` stands in
until then.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.mail import outbox
from pbem.store.clock import zones
from pbem.store.sql import Tx
from pbem.turnfiles.deadline import iso, moment_text
from pbem.turnfiles.position_file import file_name as position_file_name

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
    deadline: datetime | None = None,
) -> bool:
    from pbem.mail.build import notice_email

    recipients = outbox.addresses(list(to))
    if not recipients:
        return False
    message_id = outbox.new_message_id(kind, game_id)
    msg = notice_email(PLACEHOLDER_SENDER, recipients, subject, body, message_id, game_id, side, kind, iso(deadline))
    return outbox.queue_message(tx, kind, msg, dedupe, game_id, side, k)


def how_to_send(game_id: str, current_k: int, side: str) -> str:
    """What a player does, on their own machine, with the last report's attachments."""
    posfile = position_file_name(game_id, current_k)
    return (
        f"Write them from the position file attached to your last report ({posfile}):\n"
        f"  pbem orders --position {posfile} --side {side} -o turn.txt\n"
        "sign them (pbem sign turn.txt --key KEY, or: ssh-keygen -Y sign -f KEY -n pbem turn.txt)\n"
        "and reply with turn.txt and turn.txt.sig attached.\n"
    )


def queue_reminder(
    tx: Tx, game_id: str, k: int, side: str, label: str, deadline: datetime, current_k: int | None = None
) -> bool:
    """Before the deadline, to a side whose file has not arrived."""
    addr = player_addresses(tx, game_id).get(side)
    zone = zones(tx, game_id)[1].get(side)
    body = (
        f"Game {game_id}, resolution {k} - {label}: your orders as {side} have not arrived yet.\n"
        f"The deadline is {moment_text(deadline, zone)}.\n\n"
        + how_to_send(game_id, k - 1 if current_k is None else current_k, side)
    )
    return _notice(
        tx,
        "reminder",
        game_id,
        side,
        [addr] if addr else [],
        f"[pbem {game_id}] resolution {k} - {label}: reminder, deadline {_when(deadline)}",
        body,
        f"reminder:{game_id}:{k}:{side}",
        k,
        deadline,
    )


def queue_late_notice(
    tx: Tx,
    game_id: str,
    k: int,
    missing: Sequence[str],
    label: str,
    deadline: datetime,
    grace_until: datetime,
    current_k: int | None = None,
) -> int:
    """At the deadline with a side missing: to every side."""
    made = 0
    who = ", ".join(missing)
    side_zones = zones(tx, game_id)[1]
    for side, addr in player_addresses(tx, game_id).items():
        late = side in missing
        zone = side_zones.get(side)
        body = (
            f"Game {game_id}, resolution {k} - {label}: the deadline {moment_text(deadline, zone)} has passed "
            f"and the orders of {who} have not arrived.\n"
            + (
                f"Your orders can still be accepted until {moment_text(grace_until, zone)}; after that the turn is\n"
                f"resolved with no orders from you (NMR), and the archive records it.\n\n"
                + how_to_send(game_id, k - 1 if current_k is None else current_k, side)
                if late
                else f"{who} may still send orders until {moment_text(grace_until, zone)}; after that the turn is\n"
                f"resolved with no orders from {who} (NMR), and the archive records it.\n"
            )
        )
        made += _notice(
            tx,
            "late",
            game_id,
            side,
            [addr],
            f"[pbem {game_id}] resolution {k} - {label}: orders late from {who}",
            body,
            f"late:{game_id}:{k}:{side}",
            k,
            deadline,
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
            f"(the report of resolution {to_k} is mailed again with its position file:\n"
            f"  pbem orders --position {position_file_name(game_id, to_k)} --side {side} -o turn.txt),\n"
            "sign them and reply with the signed file attached.\n"
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
