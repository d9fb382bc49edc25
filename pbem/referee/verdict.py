"""Judging a turn file against the referee's database: the verdict of
:mod:`pbem.referee.judging` (envelope, signature, resolution, state and orders)
with what only the referee knows (files already received, keys replaced, the
committed dice, rollbacks), and a queued file's orders.

A verdict reads the game through :class:`GameView`: the referee's database or a
position file (offline, ``pbem check --position``, which imports
:mod:`pbem.referee.judging` alone).  Single calls raise :class:`Refused` with one
problem per line."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from pbem import store
from pbem.dice import chains as dice_chains
from pbem.referee.judging import (
    MAX_KEPT_BYTES,
    MAX_PROBLEM_CHARS,
    MAX_PROBLEMS,
    ORDERS_KEPT,
    Checked,
    Duplicate,
    GameView,
    Refused,
    check_offline,
    clip_problems,
    judge,
    orders_of,
    read_envelope,
    registered_key,
    remembered_orders,
    result_text,
    roster_of,
    ruleset_of,
    seen_before,
    split_signature,
    wrong_resolution,
    wrong_state,
)
from pbem.rules.base import Orders, Problem, Ruleset
from pbem.store.sql import Tx
from pbem.store.transaction import transaction
from pbem.turnfiles import keys, sshsig
from pbem.turnfiles.envelope import TurnFile, TurnFileError, queued_body

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine

__all__ = [
    "MAX_KEPT_BYTES",
    "MAX_PROBLEMS",
    "MAX_PROBLEM_CHARS",
    "ORDERS_KEPT",
    "Checked",
    "Duplicate",
    "GameView",
    "Refused",
    "check",
    "check_offline",
    "clip_problems",
    "inspect_turn_file",
    "judge",
    "orders_of",
    "queued_orders",
    "read_envelope",
    "registered_key",
    "result_text",
    "ruleset_of",
    "seen_before",
    "split_signature",
    "wrong_resolution",
    "wrong_state",
]


def inspect_turn_file(
    tx: Tx, message: bytes, signature: str | None, require_signature: bool = True, digest: str | None = None
) -> Checked:
    """Run every check on a turn file against the stored game; raise :class:`Refused`.
    ``digest``: the file's SHA-256 (hex), when the caller has it already."""
    tf = read_envelope(message)
    game = store.game_state(tx, tf.game, shared=True)  # read, never changed: no copy of its position
    if game is None:
        raise Refused([f"no game {tf.game!r} on this referee's database"])
    roster = roster_of(game.id, store.public_keys(tx, game.id))
    try:
        checked = _judge_stored(tx, tf, message, signature, game, roster, require_signature, digest)
    except Refused as exc:
        replaced = _by_replaced_key(tx, game.id, tf.side, message, signature) if _wrong_key(exc) else None
        if replaced is not None:
            raise Refused([replaced]) from None
        raise
    return checked


def _wrong_key(exc: Refused) -> bool:
    return len(exc.problems) == 1 and exc.problems[0].startswith("signature is by ")


def _by_replaced_key(tx: Tx, game_id: str, side: str, message: bytes, signature: str | None) -> str | None:
    """The refusal of a file signed by a key the side had before ``pbem player``
    replaced it, naming when; None when the signer is no earlier key of the side."""
    if signature is None:
        return None
    try:
        signer = sshsig.verify(message, signature)
    except sshsig.SignatureError:
        return None
    for previous, at in tx.all(
        "SELECT previous_public_key, at FROM player_change WHERE game_id = :game AND side = :side"
        " AND previous_public_key IS NOT NULL ORDER BY id DESC",
        {"game": game_id, "side": side},
    ):
        try:
            if keys.PublicKey.from_openssh(previous).same_key(signer):
                when = store.as_datetime(at).strftime("%Y-%m-%d %H:%M UTC")
                return f"signed by the previous {side} key ({signer.fingerprint()}), replaced on {when}"
        except ValueError:
            continue
    return None


def _judge_stored(
    tx: Tx,
    tf: TurnFile,
    message: bytes,
    signature: str | None,
    game: store.GameState,
    roster: Mapping[str, keys.PublicKey],
    require_signature: bool,
    digest: str | None = None,
) -> Checked:
    file_hash = digest or hashlib.sha256(message).hexdigest()
    return judge(
        tf,
        message,
        signature,
        game,
        roster,
        require_signature,
        earlier_copies=lambda: store.earlier_copies(tx, game.id, file_hash),
        dice_used_up=lambda k: (
            dice_chains.used_up(game.id, _last_served(tx, game), k) if _chain_link(tx, game, k) is None else None
        ),
        rollback_of=lambda k: store.rollback_that_set_aside(tx, game.id, k),
        set_aside=lambda state: _set_aside_resolution(tx, game.id, state),
        others_queued=game.queued_next > 0,
    )


def _set_aside_resolution(tx: Tx, game_id: str, state: str) -> int | None:
    """The set-aside resolution whose position hashes to ``state``, if any."""
    row = tx.one(
        "SELECT k FROM resolution WHERE game_id = :game AND state_hash = :state AND active = :no ORDER BY k DESC",
        {"game": game_id, "state": state, "no": False},
    )
    return int(row[0]) if row else None


def _chain_link(tx: Tx, game: store.GameState, k: int) -> tuple[Callable[[], tuple[str, str]], int, int] | None:
    """Where resolution ``k``'s reveal comes from: (what reads the chain's seed and
    checkpoints, chain length, link), or None when no committed chain serves
    ``k``.  The game's own chain needs no query (its secret is read only if a reveal
    walks from a checkpoint); only a game past it looks for an extension."""
    if 1 <= k <= game.chain_length - 1:
        return functools.partial(store.chain_secret, tx, game.id), game.chain_length, k
    ext = store.extension_for(tx, game.id, k)
    if ext is None or not 1 <= k - ext.first_k + 1 <= ext.chain_length - 1:
        return None
    return (lambda: (ext.seed, ext.seed_checkpoints)), ext.chain_length, k - ext.first_k + 1


def _last_served(tx: Tx, game: store.GameState) -> int:
    ext = store.extension_for(tx, game.id, 1 << 62)
    return ext.first_k + ext.chain_length - 2 if ext else game.chain_length - 1


def check(engine: Engine, data: bytes, signature: str | bytes | None = None) -> Checked:
    """``pbem check``: every check, storing nothing.  An unsigned file is checked
    for everything but its signature."""
    message, armored = split_signature(data, signature)
    with transaction(engine, write=False) as tx:
        return inspect_turn_file(tx, message, armored, require_signature=False)


def queued_orders(ruleset: Ruleset, queued: store.QueuedFile) -> Orders:
    """A queued file's orders, parsed (or as this process's verdict on the same
    bytes parsed them).  They are not validated again: ``submit``
    validated them against this very position (the file's ``state`` and ``turn``
    are the game's; a resolution moves the game to a new turn, and a rollback or
    a new key sets the queued files aside), so they are resolved with
    ``Ruleset.resolve_validated``, which skips a ruleset's own second check."""
    if (orders := remembered_orders(queued.message)) is not None:
        return orders
    try:
        body, offset = queued_body(queued.message)  # its header was checked at submit
    except TurnFileError as exc:  # cannot happen, unless the row was damaged
        raise Refused([f"queued {queued.side} file no longer readable: {p}" for p in exc.problems]) from None
    orders, problems = ruleset.parse_orders(body)
    if problems:  # cannot happen either: parsed at submit
        raise Refused(
            [
                f"queued {queued.side} file no longer readable: {Problem(p.line + offset if p.line else 0, p.message)}"
                for p in problems
            ]
        )
    return orders
