"""The messages the referee owes, queued in the outbox by the transaction that
makes the decision they report (pbem/mail/outbox.py).

Every function here takes the caller's open transaction (:class:`pbem.transaction.Tx`)
and writes rows only; nothing is sent here.  The From address is the referee's,
set when a row is delivered (``--sender``); :data:`PLACEHOLDER_SENDER` stands in
until then.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from pbem.mail import outbox
from pbem.referee import hooks
from pbem.store.clock import zones
from pbem.store.records import QueuedFile
from pbem.store.sql import Tx
from pbem.turnfiles.deadline import iso, moment_text
from pbem.turnfiles.position_file import file_name as position_file_name

if TYPE_CHECKING:
    from email.message import EmailMessage

PLACEHOLDER_SENDER = "referee@pbem.invalid"


PLAYERS = "SELECT side, email FROM player WHERE game_id = :game ORDER BY side"
OBSERVERS = "SELECT id, email FROM observer WHERE game_id = :game AND removed IS NULL ORDER BY id"
"""The statements of :func:`player_addresses` and of the observers' reports
(``:game``), which a resolution asks ahead (``Tx.prefetch``)."""


def player_addresses(tx: Tx, game_id: str) -> dict[str, str]:
    """Each side's registered address, for the sides that have one."""
    return {side: addr for side, addr in tx.all(PLAYERS, {"game": game_id}) if addr}


GAME_ROWS = """SELECT 'q', id, side, digest, NULL, NULL, message FROM submission WHERE game_id = :game
AND turn = (SELECT next_k FROM game WHERE id = :game) AND status = 'QUEUED'
UNION ALL SELECT 'd', NULL, side, NULL, NULL, from_k, NULL FROM civil_disorder WHERE game_id = :game AND until_k IS NULL
UNION ALL SELECT 'h', id, game_id, url, format, NULL, NULL FROM hook WHERE game_id = :game
UNION ALL SELECT 'p', NULL, side, email, NULL, NULL, NULL FROM player WHERE game_id = :game
UNION ALL SELECT 'o', id, email, NULL, NULL, NULL, NULL FROM observer WHERE game_id = :game AND removed IS NULL"""
"""A resolution's five small reads in one statement (``:game``): the files queued
for the game's next resolution (as :func:`pbem.store.next_queued_files` reads them),
the sides in civil disorder now (:data:`pbem.referee.disorder.CURRENT`), the game's
webhooks (:data:`pbem.referee.hooks.OF_GAME`), its players' and its observers'
addresses (:data:`PLAYERS`, :data:`OBSERVERS`): each statement more costs a
resolution some 10 k instructions of Python and SQLite work, however small.  The
queued files come first: a file's text (a blob) has a column of its own, which on
PostgreSQL takes its type from the first part of the union (``NULL`` in the parts
after it).  :func:`game_rows` puts the rows in each statement's order (by kind, then
id or side: the order ``ORDER BY 1, 2, 3`` gave; the files by side, then id), in
Python: SQLite sorted each part in a table of its own, about a quarter of the
statement for a handful of rows."""


class GameRows(NamedTuple):
    """What :data:`GAME_ROWS` read, as :func:`pbem.store.next_queued_files`,
    :func:`pbem.referee.disorder.current`, :func:`pbem.referee.hooks.of_game`,
    :func:`player_addresses` and the observers' rows give it."""

    disorder: dict[str, int]
    hooks: list[hooks.Hook]
    players: dict[str, str]
    observers: list[tuple[int, str]]
    queued: list[QueuedFile]


def game_rows(tx: Tx, game_id: str) -> GameRows:
    rows = GameRows({}, [], {}, [], [])
    # within a kind the number (None, or a row's id) is None in every row or unique, so no None meets a number
    for kind, number, key, first, second, from_k, message in sorted(tx.all(GAME_ROWS, {"game": game_id}), key=tuple):
        if kind == "p":
            if first:
                rows.players[key] = first
        elif kind == "q":
            rows.queued.append(QueuedFile(number, key, bytes(message), first))
        elif kind == "d":
            rows.disorder[key] = from_k
        elif kind == "h":
            rows.hooks.append(hooks.Hook(number, key, first, second))
        else:
            rows.observers.append((number, key))
    if len(rows.queued) > 1:
        rows.queued.sort(key=_BY_SIDE)
    return rows


_BY_SIDE = itemgetter(1, 0)
"""A queued file (id, side, ...) by side, then id."""


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def queue_reports(
    tx: Tx,
    game_id: str,
    k: int,
    label: str,
    next_label: str,
    due_next: Sequence[str],
    over: bool,
    summary: str | Callable[[], str] = "",
    rows: GameRows | None = None,
) -> int:
    """Each side's report of resolution ``k`` (``k`` 0: the game as created), and
    the game's webhooks told (``summary``: the resolution's public summary, or
    what works it out: only a game with webhooks needs it); ``rows``: the game's
    webhooks, players and observers as the caller's transaction read them (:func:`game_rows`)."""
    _post_resolution(tx, game_id, k, label, next_label, due_next, over, summary, rows.hooks if rows else None)
    made = 0
    for side, addr in (rows.players if rows else player_addresses(tx, game_id)).items():
        # as pbem.mail.build.report_subject words it: the resolution, then the game's own time
        if over:
            subject = f"[pbem {game_id}] resolution {k} - {label}: game over"
        elif side in due_next:
            subject = f"[pbem {game_id}] resolution {k + 1} - {next_label}: your move"
        else:
            subject = f"[pbem {game_id}] resolution {k} - {label}: report"
        made += outbox.queue_report(tx, game_id, k, side, addr, subject, over)
    return made + queue_observer_reports(tx, game_id, k, label, over, rows.observers if rows else None)


def queue_observer_reports(
    tx: Tx, game_id: str, k: int, label: str, over: bool, observers: Sequence[tuple[int, str]] | None = None
) -> int:
    """Each observer's public report of resolution ``k``, one message each (an
    observer never sees another's address): rendered when delivered."""
    if observers is None:
        observers = tx.all(OBSERVERS, {"game": game_id})  # type: ignore[assignment]
    if not observers:
        return 0
    from pbem.reports.message import report_message_id

    made = 0
    for row_id, addr in observers:
        subject = f"[pbem {game_id}] resolution {k} - {label}: {'game over' if over else 'report'} (observer)"
        message_id = report_message_id(game_id, k, f"observer-{row_id}")
        dedupe = f"observer:{game_id}:{k}:{row_id}"
        made += outbox.queue(tx, "observer", [addr], subject, message_id, dedupe, None, game_id, None, k)
    return made


def _post_resolution(
    tx: Tx,
    game_id: str,
    k: int,
    label: str,
    next_label: str,
    due: Sequence[str],
    over: bool,
    summary: str | Callable[[], str],
    found: list[hooks.Hook] | None = None,
) -> None:
    """The game's webhooks told (``found``: as the caller read them); a game with
    none reads no deadline and words nothing."""
    if found is None:
        found = hooks.of_game(tx, game_id)
    if not found:
        return
    from pbem import store  # here, past the return: an import statement in a function runs at each call

    if callable(summary):
        summary = summary()
    deadline = None if over else hooks.next_deadline(tx, game_id, store.utcnow())
    head = f"{game_id}: resolution {k} - {label} resolved." if k else f"{game_id}: the game begins."
    parts = [head, summary] if summary else [head]
    if over:
        parts.append("Game over.")
    elif due:
        parts.append(f"Your move: {', '.join(due)} for resolution {k + 1} - {next_label}")
        if deadline is not None:
            parts[-1] += f", by {_when(deadline)}"
    text = " ".join(parts)
    hooks.queue(
        tx, game_id, k, "result" if over else "your-move", text, deadline, due, f"resolution:{game_id}:{k}", found
    )


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
    text = f"{game_id}: reminder: the orders of {side} for resolution {k} - {label} are due by {_when(deadline)}"
    hooks.queue(tx, game_id, k, "reminder", text, deadline, [side], f"reminder:{game_id}:{k}:{side}")
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
    text = (
        f"{game_id}: the deadline {_when(deadline)} of resolution {k} - {label} has passed; orders late from {who}"
        f" (they may still come until {_when(grace_until)})"
    )
    hooks.queue(tx, game_id, k, "late", text, deadline, missing, f"late:{game_id}:{k}")
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
    body = (
        f"Game {game_id}: the referee changed the {side} side's registration: {text}.\nThe change is recorded in "
        "the game's archive.\n"
    )
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
