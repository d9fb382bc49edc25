"""Resolution: ``pbem process``, one database transaction per resolution (reveal the
dice, resolve the orders, store the position, the events and every roll)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pbem import dice as dicev1
from pbem import store
from pbem.dice import chains as dice_chains
from pbem.referee import disorder, notices
from pbem.reports.reads import Resolved
from pbem.rules import find_ruleset
from pbem.rules.base import NO_ORDERS, OrderError, Orders, Ruleset
from pbem.rules.frozen import Frozen
from pbem.store.sql import Busy, Conflict, Tx
from pbem.store.transaction import transaction
from pbem.turnfiles.canonical import canonical_json, canonical_json_after, text_hash

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine
from pbem.referee.verdict import Refused, _chain_link, _last_served, queued_orders, ruleset_of

FAULT_ENV = "PBEM_TEST_FAULT"
"""Test-only fault injection: ``kill-mid-resolution`` makes ``process`` SIGKILL itself
after writing a resolution but before committing it (see tests/test_crash.py)."""

_KILL_MID_RESOLUTION = os.environ.get(FAULT_ENV) == "kill-mid-resolution"
"""The fault hook, read once per process (the crash tests set it for the process
they start): ``os.environ.get`` goes through four Python calls, 8 k instructions
a resolution."""


class ProcessOutcome(Frozen):
    """What ``process`` did with one game (a frozen value: a frozen dataclass set its
    nine fields one ``object.__setattr__`` at a time, 17 k instructions an outcome)."""

    game_id: str
    resolved: int | None  # k of the resolution made, or None
    label: str
    awaiting: tuple[str, ...]
    nmr: tuple[str, ...]
    over: bool
    note: str
    problems: tuple[str, ...]  # why this game could not be resolved (the batch went on)
    bot: tuple[str, ...]  # missing sides in civil disorder, whose orders the greedy bot wrote
    made: Resolved | None
    """The resolution as stored, handed to its reports in this process (``None``: none
    made, or the resolution before it was not the game's latest).  Not part of the
    outcome's value: left out of its comparison, hash and repr, and of its pickle."""

    __match_args__ = ("game_id", "resolved", "label", "awaiting", "nmr", "over", "note", "problems", "bot")

    def __init__(
        self,
        game_id: str,
        resolved: int | None,
        label: str,
        awaiting: tuple[str, ...] = (),
        nmr: tuple[str, ...] = (),
        over: bool = False,
        note: str = "",
        problems: tuple[str, ...] = (),
        bot: tuple[str, ...] = (),
        made: Resolved | None = None,
    ) -> None:
        fields = self.__dict__  # set in place: a call with nine keywords cost half of it
        fields["game_id"], fields["resolved"], fields["label"] = game_id, resolved, label
        fields["awaiting"], fields["nmr"], fields["over"] = awaiting, nmr, over
        fields["note"], fields["problems"], fields["bot"] = note, problems, bot
        fields["made"] = made

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a worker's outcome sent to the process that started it) without the
        hand-off: it never leaves the process that stored it, whose transaction it
        describes; that process's reports read the store instead."""
        state = dict(self.__dict__)
        state["made"] = None
        return state


def pending_games(engine: Engine) -> list[str]:
    with transaction(engine, write=False) as tx:
        return store.unfinished_game_ids(tx)


def process(
    engine: Engine,
    game_ids: Iterable[str] | None = None,
    force_nmr: bool = False,
    on_resolved: Callable[[ProcessOutcome], None] | None = None,
    within: Callable[[Tx, ProcessOutcome], None] | None = None,
) -> list[ProcessOutcome]:
    """Resolve every listed game (or every game not over) whose due sides have all
    submitted: one resolution per game and call, each in its own transaction
    (turn files are only ever queued for the next resolution)."""
    outcomes: list[ProcessOutcome] = []
    if game_ids is not None:
        game_ids = list(game_ids)
        check_game_names(engine, game_ids)
    for game_id in game_ids if game_ids is not None else pending_games(engine):
        outcome = process_game(engine, game_id, force_nmr, within)
        outcomes.append(outcome)
        if on_resolved is not None:
            on_resolved(outcome)
    return outcomes


def check_game_names(engine: Engine, game_ids: Sequence[str]) -> None:
    """Refuse names given by hand that are no game (then nothing is resolved)."""
    with transaction(engine, write=False) as tx:
        known = store.known_game_ids(tx)
    unknown = [g for g in game_ids if g not in known]
    if unknown:
        raise Refused([str(store.unknown_game(g, known)).strip("'\"") for g in unknown])


def process_game(
    engine: Engine, game_id: str, force_nmr: bool = False, within: Callable[[Tx, ProcessOutcome], None] | None = None
) -> ProcessOutcome:
    """:func:`resolve_next` for one game of a batch: a game that cannot be
    resolved gives an outcome naming why, so the batch goes on."""
    try:
        return resolve_next(engine, game_id, force_nmr, within)
    except (Refused, store.StoreError, LookupError) as exc:
        problems = exc.problems if isinstance(exc, Refused) else [str(exc).strip("'\"")]
        return ProcessOutcome(
            game_id, None, "", note="not resolved", problems=tuple(f"{game_id}: {p}" for p in problems)
        )


def resolve_next(
    engine: Engine, game_id: str, force_nmr: bool = False, within: Callable[[Tx, ProcessOutcome], None] | None = None
) -> ProcessOutcome:
    """Make the next resolution of one game if it is ready, with each side's report
    queued in the outbox; ``within`` is called in the resolution's transaction too
    (the deadline step records a late turn there).

    One transaction: the game is claimed (:func:`store.claim_game`: on PostgreSQL
    a game another processor holds is passed over, never waited for), read once,
    and resolved if it is ready.  On SQLite it is a deferred writer: a game that
    is only waiting for orders takes no write lock, and a ready one takes it at
    its first write; if another process wrote in between (:class:`Busy`), the
    resolution is made again in a writer that holds the lock from its start."""
    try:
        try:
            return _resolve_in_one_transaction(engine, game_id, force_nmr, within, deferred=True)
        except Busy:
            return _resolve_in_one_transaction(engine, game_id, force_nmr, within, deferred=False)
    except Conflict:
        # Another process made this resolution first (unique game_id, k): nothing to do.
        return ProcessOutcome(game_id, None, "", note="resolved by another process")


def _resolve_in_one_transaction(
    engine: Engine, game_id: str, force_nmr: bool, within: Callable[[Tx, ProcessOutcome], None] | None, deferred: bool
) -> ProcessOutcome:
    with transaction(engine, deferred=deferred) as tx:
        game = {"game": game_id}
        tx.prefetch(
            [
                *store.resolution_reads(game_id),
                (notices.GAME_ROWS, game),
            ]
        )  # on PostgreSQL, with BEGIN: one round trip for them all
        if not store.claim_game(tx, game_id):
            # held by another processor: say what the game waits for, if anything (unknown: LookupError)
            return _waiting(tx, game_id, force_nmr) or ProcessOutcome(
                game_id, None, "", note="being resolved by another process"
            )
        return _resolve_claimed(tx, game_id, force_nmr, within)


def _waiting(tx: Tx, game_id: str, force_nmr: bool) -> ProcessOutcome | None:
    """Why the game cannot be resolved now (over, or sides awaited), or ``None``
    when it is ready; read without taking the game's row."""
    return _look(tx, store.known_game(tx, game_id, claimed=True), force_nmr)[0]


def _look(
    tx: Tx, game: store.GameState, force_nmr: bool, files: list[store.QueuedFile] | None = None
) -> tuple[ProcessOutcome | None, dict[str, store.QueuedFile], tuple[str, ...]]:
    """Whether ``game`` is ready: the outcome that says why not (over, or sides
    awaited; ``None`` when ready), its queued files by side, the sides missing
    (``files``: its files queued, as the caller read them; else read here)."""
    ruleset = find_ruleset(game.rules)
    if game.over:
        return ProcessOutcome(game.id, None, ruleset.turn_label(game.position), over=True, note="game over"), {}, ()
    due = ruleset.due(game.position)
    queued = {f.side: f for f in (store.next_queued_files(tx, game.id) if files is None else files)}
    missing = tuple(side for side in due if side not in queued)
    if missing and not force_nmr:
        return ProcessOutcome(game.id, None, ruleset.turn_label(game.position), awaiting=missing), queued, missing
    return None, queued, missing


def _resolve_claimed(
    tx: Tx, game_id: str, force_nmr: bool, within: Callable[[Tx, ProcessOutcome], None] | None = None
) -> ProcessOutcome:
    game = store.known_game(tx, game_id, claimed=True, keep=False)  # the game moves on: its position is not read again
    # its files queued, civil disorder, webhooks, players and observers: one statement (none for a game over)
    rows = None if game.over else notices.game_rows(tx, game_id)
    waiting, queued, missing = _look(tx, game, force_nmr, None if rows is None else rows.queued)
    if waiting is not None:
        return waiting
    assert rows is not None  # a game over is never ready
    ruleset = ruleset_of(game)
    position = game.position
    label = ruleset.turn_label(position)
    k = game.next_k
    due = ruleset.due(position)
    files = [queued[side] for side in sorted(queued) if side in due]
    link = _chain_link(tx, game, k)
    if link is None:
        raise Refused([dice_chains.used_up(game_id, _last_served(tx, game), k)])
    # the values the resolution before walked, where it was the one before this on the same chain
    reveal, walked = dice_chains.reveal(*link, *((game.dice_walk, game.reveal) if game.current_k == k - 1 else ()))
    # each file's hash as submit stored it with the file (the audit hashes the archive's files again)
    stream = dicev1.DiceStream(dicev1.dice_key_of_hashes(reveal, game.id, k, [bytes.fromhex(f.digest) for f in files]))
    orders: dict[str, Orders] = {side: NO_ORDERS for side in due}
    for f in files:
        orders[f.side] = queued_orders(ruleset, f)
    bots = disorder.bot_turns(tx, game_id, k, ruleset, position, missing, [f.side for f in files], rows.disorder)
    for turn in bots:
        orders[turn.side] = turn.orders
    try:
        # submit validated the files against this position, read for this resolution alone: handed over (owned)
        result = ruleset.resolve_validated(position, orders, stream, owned=True)
    except OrderError as exc:  # cannot happen: validated at submit against this position
        raise Refused([f"queued orders no longer valid: {exc}"]) from None
    outcome = ruleset.outcome(result.position)
    written = (  # once: stored, and hashed
        canonical_json_after(result.position, position, game.position_text)
        if ruleset.reuses_position_text and game.position_text
        else canonical_json(result.position)
    )
    row = store.NewResolution(
        game_id=game_id,
        k=k,
        label=label,
        position=written,
        state_hash=text_hash(written),
        previous_state_hash=game.state_hash,
        events=canonical_json(result.events),
        reveal=reveal.hex(),
        nmr=json.dumps(list(missing)) if missing else "[]",  # no side missing: the text json.dumps writes, unmade
        result=json.dumps(outcome.to_json()) if outcome else None,
        dice_walk=walked,
    )
    rolls = [{"idx": r.index, "sides": r.sides, "value": r.value, "purpose": r.purpose} for r in stream.rolls]
    store.add_resolution(tx, row, rolls, [f.id for f in files])
    # the reveal before is the game's when its latest resolution was the one before (else the reports read it)
    handed = Resolved(row, rolls, game.reveal or None) if game.current_k == k - 1 else None
    made = ProcessOutcome(
        game_id, k, label, nmr=missing, over=outcome is not None, bot=tuple(t.side for t in bots), made=handed
    )
    notices.queue_reports(
        tx,
        game_id,
        k,
        label,
        ruleset.turn_label(result.position),
        () if outcome else ruleset.due(result.position),
        outcome is not None,
        lambda: public_summary(ruleset, result.position, outcome),  # worked out only for a game with webhooks
        rows,
    )
    if within is not None:
        within(tx, made)
    if _KILL_MID_RESOLUTION:
        os.kill(os.getpid(), signal.SIGKILL)
    return made


def public_summary(ruleset: Ruleset, position: Any, outcome: Any) -> str:
    """What anyone may read of a resolution: the score, and the result once over."""
    score = "; ".join(f"{line.side} {line.detail}" for line in ruleset.score(position))
    parts = [f"Score: {score}."] if score else []
    if outcome is not None:
        parts.append(ruleset.outcome_text(outcome) + ".")
    return " ".join(parts)
