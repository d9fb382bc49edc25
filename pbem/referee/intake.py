"""Intake of turn files: ``pbem submit`` queues a file the verdict accepts, and a
refused file is recorded with its reason, so nothing a player sent is lost."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pbem import store
from pbem.rules.frozen import Frozen, set_fields
from pbem.store.sql import Tx
from pbem.store.transaction import transaction
from pbem.turnfiles import sshsig
from pbem.turnfiles.envelope import MAX_TURN_FILE_BYTES, TurnFileError, normalise, parse_turn_file, sha256_hex

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine
from pbem.referee.verdict import MAX_KEPT_BYTES, Checked, Duplicate, Refused, inspect_turn_file, split_signature


class Submitted(Frozen):
    """A file ``submit`` accepted (a frozen value with one ``set_fields`` call: a
    frozen dataclass set each field through ``object.__setattr__``)."""

    checked: Checked
    superseded: int  # how many queued submissions of the same side this one replaced
    granted: Any  # the ledger entry of a vacation request granted (pbem/referee/requests.py)

    def __init__(self, checked: Checked, superseded: int, granted: Any = None) -> None:
        set_fields(self, checked=checked, superseded=superseded, granted=granted)


Within = Callable[[Tx, "Checked | None", Sequence[str]], None]
"""Called inside the transaction that queues a turn file (with it, no problems) or
records its refusal (``None``, the problems): the mail intake writes its
judgement and reply there, so they commit with the decision or not at all."""


def submit(
    engine: Engine,
    data: bytes,
    signature: str | bytes | None = None,
    source: str = "",
    within: Within | None = None,
    referee_key: Any = None,
) -> Submitted:
    """``pbem submit``: verify, check and queue.  A refusal is recorded (bytes and
    reason) and raised as :class:`Refused`; nothing else changes.  A vacation
    request (pbem/referee/requests.py) is granted instead of queued, as an act
    signed with ``referee_key`` (a :class:`pbem.referee.ledger.RefereeKey`)."""
    if isinstance(signature, str):  # kept as text: no lone surrogate may reach the database
        signature = signature.encode("utf-8", errors="replace").decode("utf-8")
    if len(data) > MAX_KEPT_BYTES:  # before any copy of it is made
        refusal = Refused([f"turn file is {len(data)} bytes, the limit is {MAX_TURN_FILE_BYTES} (64 KiB)"])
        record_refusal(engine, data, None, refusal.problems, source, within)
        raise refusal
    message, armored = split_signature(data, signature)
    import pbem.referee.requests as requests  # (not ``from``: no Python call, ``_handle_fromlist``, a file)

    try:
        with transaction(engine) as tx:
            if requests.vacation_days(message) is not None:
                checked, entry = requests.grant_request(tx, message, armored, referee_key, store.utcnow())
                if within is not None:
                    within(tx, checked, ())
                return Submitted(checked, 0, entry)
            digest = sha256_hex(message)  # once: the earlier copies' query and the queued row
            checked = inspect_turn_file(tx, message, armored, digest=digest)
            superseded = store.queue_submission(
                tx,
                checked.game_id,
                checked.side,
                checked.turn,
                message,
                armored or "",
                digest,
                source,
                queued=checked.others_queued,
            )
            if within is not None:
                within(tx, checked, ())
            return Submitted(checked, superseded)
    except Duplicate:  # its bytes are queued already: nothing to keep, nothing to show in reports
        raise
    except Refused as refusal:
        record_refusal(engine, data, armored, refusal.problems, source, within)
        raise


def record_refusal(
    engine: Engine,
    data: bytes,
    signature: str | None,
    problems: Sequence[str],
    source: str = "",
    within: Within | None = None,
) -> None:
    """Keep what a player sent, with why it was refused."""
    game_id = side = None
    turn = None
    try:
        if len(data) <= MAX_KEPT_BYTES:
            tf = parse_turn_file(sshsig.split_inline(data)[0] if signature is None else normalise(data))
            game_id, side, turn = tf.game, tf.side, tf.turn
    except (TurnFileError, ValueError):
        pass
    if isinstance(signature, str):  # kept as text: no lone surrogate may reach the database
        signature = signature.encode("utf-8", errors="replace").decode("utf-8")
    if len(data) > MAX_KEPT_BYTES:
        problems = [*problems, f"(only the first {MAX_KEPT_BYTES} of its {len(data)} bytes are kept)"]
        data = data[:MAX_KEPT_BYTES]
    with transaction(engine) as tx:
        store.add_refusal(tx, game_id, side, turn, data, signature, "\n".join(problems), source)
        if within is not None:
            within(tx, None, problems)
