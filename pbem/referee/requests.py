"""A player's own signed requests: a vacation (docs/formats.md, "Vacation request").

A vacation request is a turn file like any other (the same header, signed the
same way, by ``pbem sign`` or ``ssh-keygen -Y sign -n pbem``, sent by mail or
``pbem submit``) whose only order line is ``vacation DAYS``::

    game: rs1837
    rules: farrapos
    side: republic
    turn: 7
    state: 9a41...

    vacation 3

It is judged as a turn file is (envelope, the side's key, the resolution awaited
and the position), never reaches the ruleset, and is granted within the game's
allowance as the referee's ``vacation`` act.  A signed request counts once.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime

from pbem import store
from pbem.referee import absences, ledger, verdict
from pbem.referee.judging import check_signature, roster_of
from pbem.rules.base import OrderLine, Orders
from pbem.store.sql import Tx
from pbem.turnfiles.envelope import TurnFile

_VACATION = re.compile(r"vacation\s+(\d{1,4})(?:\s+days?)?", re.IGNORECASE)


def vacation_days(message: bytes) -> int | None:
    """The days a file asks for when it is a vacation request (its one order line
    is ``vacation DAYS``); None for any other file."""
    try:
        text = message.decode("utf-8")
    except UnicodeDecodeError:
        return None
    head, sep, body = text.partition("\n\n")
    if not sep or "game:" not in head:
        return None
    # the lines are read until a second order line: a turn file of orders is no request (each of
    # its lines was split and stripped to find it so, a Campus Mauriacus file's twenty)
    order = None
    for line in body.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            if order is not None:
                return None
            order = line
    if order is None:
        return None
    m = _VACATION.fullmatch(order)
    return int(m.group(1)) if m else None


def grant_request(
    tx: Tx, message: bytes, signature: str | None, key: ledger.RefereeKey | None, now: datetime
) -> tuple[verdict.Checked, ledger.Entry]:
    """Judge a vacation request and grant it, in the caller's transaction;
    :class:`verdict.Refused` names what is wrong."""
    days = vacation_days(message)
    assert days is not None
    tf = verdict.read_envelope(message)
    game = store.game_state(tx, tf.game)
    if game is None:
        raise verdict.Refused([f"no game {tf.game!r} on this referee's database"])
    roster = roster_of(game.id, store.public_keys(tx, game.id))
    _check_envelope(tf, game, list(roster))
    check_signature(tf, message, signature, roster, True)
    entry = absences.grant_vacation(tx, game.id, tf.side, days, key, now, request=hashlib.sha256(message).hexdigest())
    line = OrderLine(1, f"vacation {days}", f"vacation {days} days, until {entry.details['until']}")
    label = f"vacation request: {days} day(s) granted"
    return verdict.Checked(game.id, tf.side, tf.turn, message, signature, tf, Orders((line,)), label), entry


def _check_envelope(tf: TurnFile, game: store.GameState, sides: list[str]) -> None:
    problems = []
    if tf.rules != game.rules:
        problems.append(f"header rules is {tf.rules!r}, game {game.id} plays {game.rules!r}")
    if tf.side not in sides:
        problems.append(f"no side {tf.side!r} in game {game.id} (sides: {', '.join(sides)})")
    if game.over:
        problems.append(f"game {game.id} is over")
    if tf.turn != game.next_k:
        problems.append(
            f"the vacation request is for resolution {tf.turn}; game {game.id} awaits resolution {game.next_k}"
        )
    elif tf.state != game.state_hash:
        problems.append(
            f"the vacation request is written against position {tf.state}, not the current {game.state_hash}"
        )
    if problems:
        raise verdict.Refused(problems)
