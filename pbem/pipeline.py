"""The referee's pipeline: create a game, check and queue turn files, resolve.

Every public function here is what a CLI command calls (the CLI only parses
arguments and prints).  Single calls raise :class:`Refused` with one problem per
line; nothing is stored by a refused call except the refusal itself (its bytes
and reason, so nothing a player sent is lost).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import signal
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pbem import dice as dicev1
from pbem import dice_chains, keys, limits, paths, sshsig, store
from pbem.canonical import canonical_json, position_hash, text_hash
from pbem.mail import notices
from pbem.mail.address import checked_address
from pbem.position_file import PositionFile
from pbem.transaction import Conflict, Tx, transaction
from pbem.turnfile import MAX_TURN_FILE_BYTES, TurnFile, TurnFileError, normalise, parse_turn_file, render_turn_file, rewrapped_lines
from pbem.rules import find_ruleset
from pbem.rules.base import NO_ORDERS, OrderError, Orders, Problem, Ruleset
from pbem.rules.suggest import did_you_mean
from pbem.rules.template_text import fit_comments

if TYPE_CHECKING:
    from pbem.store import Database as Engine

FAULT_ENV = "PBEM_TEST_FAULT"
"""Test-only fault injection: ``kill-mid-resolution`` makes ``process`` SIGKILL itself
after writing a resolution but before committing it (see tests/test_crash.py)."""


MAX_PROBLEMS = 50
MAX_PROBLEM_CHARS = 500
MAX_KEPT_BYTES = 80 * 1024
"""The most of a refused input that is kept (a turn file is at most 64 KiB; the
margin holds an inline signature)."""


def clip_problems(problems: Sequence[str]) -> list[str]:
    """At most ``MAX_PROBLEMS`` lines of at most ``MAX_PROBLEM_CHARS`` characters: a
    refusal that quotes a 60 KB order line, or lists 2,000 bad lines, helps nobody."""
    lines = [p if len(p) <= MAX_PROBLEM_CHARS else p[: MAX_PROBLEM_CHARS - 1] + "\u2026" for p in problems]
    if len(lines) > MAX_PROBLEMS:
        lines = lines[: MAX_PROBLEMS - 1] + [f"... and {len(lines) - MAX_PROBLEMS + 1} more problems"]
    return lines


class ClockSettings(Protocol):
    """A game's deadline settings (``pbem.deadlines.Clock``), in seconds."""

    deadline: int | None
    grace: int
    remind: int
    wait: bool


class Refused(ValueError):
    """An input was refused; ``problems`` are the lines to print (one per problem,
    clipped by :func:`clip_problems`)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = clip_problems(problems)
        super().__init__("\n".join(self.problems))


# --------------------------------------------------------------------------- new


def new_game(
    engine: Engine,
    game_id: str,
    rules_id: str,
    scenario: str | None,
    options: Sequence[str],
    player_keys: Mapping[str, str],
    emails: Mapping[str, str] | None = None,
    chain_length: int = dicev1.DEFAULT_CHAIN_LENGTH,
    table_files: Mapping[str, os.PathLike[str] | str] | None = None,
    clock: "ClockSettings | None" = None,
) -> store.GameState:
    """Create a game: set up the position, register each side's public key, and
    commit the dice (only the anchor is shown).  ``table_files`` are house tables
    (``--table NAME=FILE``): checked, carried in the opening position and stored.
    ``clock`` sets its deadlines (pbem/deadlines.py); each side with an address is
    sent the game as created."""
    problems: list[str] = []
    if (problem := paths.game_id_problem(game_id)) is not None:
        problems.append(problem)
    try:
        ruleset = find_ruleset(rules_id)
        if scenario is None and len(ruleset.scenarios()) > 1:
            known = ", ".join(s.id for s in ruleset.scenarios())
            raise ValueError(f"{rules_id} has {len(ruleset.scenarios())} scenarios: choose one with --scenario ({known})")
        info = ruleset.scenario(scenario)
    except ValueError as exc:
        raise Refused([str(exc)]) from None
    known_options = {o.id for o in (*ruleset.options(), *ruleset.scenario_options(info.id))}
    for option in options:
        if option not in known_options:
            problems.append(f"unknown option {option!r} for {rules_id} (options: {', '.join(sorted(known_options)) or 'none'}){did_you_mean(option, sorted(known_options))}")
    for side in player_keys:
        if side not in info.sides:
            problems.append(f"unknown side {side!r} in {rules_id}/{info.id} (sides: {', '.join(info.sides)}){did_you_mean(side, info.sides)}")
    for side in info.sides:
        if side not in player_keys:
            problems.append(f"no --player {side}=PUBKEY_FILE given")
    parsed_keys: dict[str, keys.PublicKey] = {}
    for side, line in player_keys.items():
        try:
            parsed_keys[side] = keys.PublicKey.from_openssh(line)
        except ValueError as exc:
            problems.append(f"public key for {side}: {exc}")
    for side, addr in (emails or {}).items():
        if side not in info.sides:
            problems.append(f"--email for unknown side {side!r}")
        try:
            checked_address(addr)
        except ValueError as exc:
            problems.append(f"--email {side}: {exc}")
    if not 2 <= chain_length <= 1_000_000:
        problems.append(f"dice chain length {chain_length} refused: it must be between 2 and 1,000,000 (a chain of N serves N-1 resolutions)")
    from pathlib import Path

    from pbem import house_tables

    tables, table_problems = house_tables.read_files(ruleset, {n: Path(f) for n, f in (table_files or {}).items()}, info.id)
    problems.extend(table_problems)
    if problems:
        raise Refused(problems)
    position = ruleset.setup(info.id, list(options))
    if tables:
        position = ruleset.with_house_tables(position, tables)
    commitment = dicev1.Commitment.new(chain_length)
    initial = canonical_json(position)
    game = store.GameState(
        id=game_id,
        rules=rules_id,
        next_k=1,
        state_hash=position_hash(position),
        over=False,
        result=None,
        position=json.loads(initial),
        seed=commitment.seed.hex(),
        chain_length=chain_length,
        seed_checkpoints=commitment.kept.hex(),
        scenario=info.id,
        anchor=commitment.anchor.hex(),
        current_k=0,
    )
    with transaction(engine) as tx:
        if tx.one("SELECT id FROM game WHERE id = :game", {"game": game_id}) is not None:
            raise Refused([f"game {game_id!r} already exists"])
        try:
            _insert_game(tx, game, list(options), initial)
        except Conflict:  # another process created it since
            raise Refused([f"game {game_id!r} already exists"]) from None
        for side in info.sides:
            tx.run(
                "INSERT INTO player (game_id, side, public_key, email) VALUES (:game, :side, :key, :email)",
                {"game": game_id, "side": side, "key": parsed_keys[side].openssh(), "email": (emails or {}).get(side)},
            )
        house_tables.store_tables(tx, game_id, house_tables.of_position(position))
        if clock is not None:
            tx.run(
                "INSERT INTO game_clock (game_id, deadline, grace, remind, wait) VALUES (:game, :deadline, :grace, :remind, :wait)",
                {"game": game_id, "deadline": clock.deadline, "grace": clock.grace, "remind": clock.remind, "wait": clock.wait},
            )
        notices.queue_reports(tx, game_id, 0, ruleset.turn_label(position), ruleset.turn_label(position), ruleset.due(position), False)
    return game


def _insert_game(tx: Tx, game: store.GameState, options: list[str], initial: str) -> None:
    """The game's row, every column as the ORM's ``Game`` writes it."""
    tx.run(
        "INSERT INTO game (id, rules, scenario, options, created, seed, seed_checkpoints, chain_length, anchor, initial_position,"
        " initial_state_hash, current_k, next_k, state_hash, over, result)"
        " VALUES (:id, :rules, :scenario, :options, :created, :seed, :checkpoints, :chain_length, :anchor, :initial,"
        " :initial_hash, :current_k, :next_k, :state_hash, :over, :result)",
        {
            "id": game.id,
            "rules": game.rules,
            "scenario": game.scenario,
            "options": json.dumps(options),
            "created": store.utcnow(),
            "seed": game.seed,
            "checkpoints": game.seed_checkpoints,
            "chain_length": game.chain_length,
            "anchor": game.anchor,
            "initial": initial,
            "initial_hash": game.state_hash,
            "current_k": game.current_k,
            "next_k": game.next_k,
            "state_hash": game.state_hash,
            "over": game.over,
            "result": game.result,
        },
    )


def shared_keys(player_keys: Mapping[str, str]) -> list[str]:
    """A warning for each key registered by more than one side: whoever holds it can
    sign for both, which a referee should know (it is allowed, e.g. a solo test)."""
    by_blob: dict[bytes, list[str]] = {}
    for side, line in player_keys.items():
        try:
            by_blob.setdefault(keys.PublicKey.from_openssh(line).blob, []).append(side)
        except keys.KeyFileError:
            continue
    return [f"warning: sides {' and '.join(sides)} registered the same key: its holder can sign for both" for sides in by_blob.values() if len(sides) > 1]


# ---------------------------------------------------------------------- checking


@dataclass(frozen=True)
class Checked:
    """A turn file that passed every check (envelope, signature, orders)."""

    game_id: str
    side: str
    turn: int
    message: bytes  # the signed bytes (LF line ends)
    signature: str | None
    turn_file: TurnFile
    orders: Orders
    label: str


def split_signature(data: bytes, signature: str | bytes | None) -> tuple[bytes, str | None]:
    """The signed message and its armored signature: detached if given, else inline."""
    if signature is not None:
        return normalise(data), signature.decode("utf-8", "replace") if isinstance(signature, bytes) else signature
    return sshsig.split_inline(data)


@functools.lru_cache(maxsize=4096)
def registered_key(line: str) -> keys.PublicKey:
    """A side's stored public key line, parsed once per process."""
    return keys.PublicKey.from_openssh(line)


class GameView(Protocol):
    """What the verdict on a turn file reads of a game: :class:`pbem.store.GameState`
    (the referee's database) or :class:`pbem.position_file.PositionFile` (offline)."""

    @property
    def id(self) -> str: ...
    @property
    def rules(self) -> str: ...
    @property
    def next_k(self) -> int: ...
    @property
    def state_hash(self) -> str: ...
    @property
    def over(self) -> bool: ...
    @property
    def result(self) -> str | None: ...
    @property
    def position(self) -> dict: ...


def _roster(game_id: str, lines: Mapping[str, str]) -> dict[str, keys.PublicKey]:
    """Each side's registered key; one stored before a rule refused it (a weak RSA
    key) refuses the file instead of being trusted."""
    roster = {}
    for side, line in lines.items():
        try:
            roster[side] = registered_key(line)
        except keys.KeyFileError as exc:
            raise Refused([f"the {side} side's registered key is refused: {exc}; the referee registers a new one with 'pbem player {game_id} {side} --key FILE'"]) from None
    return roster


def inspect_turn_file(tx: Tx, message: bytes, signature: str | None, require_signature: bool = True) -> Checked:
    """Run every check on a turn file against the stored game; raise :class:`Refused`."""
    tf = read_envelope(message)
    game = store.game_state(tx, tf.game)
    if game is None:
        raise Refused([f"no game {tf.game!r} on this referee's database"])
    roster = _roster(game.id, store.public_keys(tx, game.id))
    return judge(
        tf, message, signature, game, roster, require_signature,
        earlier_copies=lambda: store.earlier_copies(tx, game.id, hashlib.sha256(message).hexdigest()),
        dice_used_up=lambda k: dice_chains.used_up(game.id, _last_served(tx, game), k) if _chain_link(tx, game, k) is None else None,
        rollback_of=lambda k: store.rollback_that_set_aside(tx, game.id, k),
    )


def read_envelope(message: bytes) -> TurnFile:
    """The turn file's envelope, parsed within the time limit for a turn file."""
    try:
        with limits.time_limit(limits.TURN_FILE_PARSE_SECONDS, "the turn file"):
            return parse_turn_file(message)
    except TurnFileError as exc:
        raise Refused([str(p) for p in exc.problems]) from None
    except limits.TimeLimit as exc:
        raise Refused([str(exc)]) from None


def judge(
    tf: TurnFile,
    message: bytes,
    signature: str | None,
    game: GameView,
    roster: Mapping[str, keys.PublicKey],
    require_signature: bool = True,
    earlier_copies: Callable[[], Iterable[store.EarlierCopy]] = lambda: (),
    dice_used_up: Callable[[int], str | None] = lambda k: None,
    rollback_of: Callable[[int], store.RollbackSeen | None] = lambda k: None,
) -> Checked:
    """The verdict on a turn file against a game as it stands, the same whether
    the game comes from the database or from a position file (``pbem check
    --position``); only the referee knows ``earlier_copies`` (replays) and
    whether the committed dice still serve the turn (``dice_used_up``)."""
    if tf.rules != game.rules:
        raise Refused([f"turn file says rules {tf.rules!r} but game {game.id} plays {game.rules!r}"])
    if tf.side not in roster:
        raise Refused([f"no side {tf.side!r} in game {game.id} (sides: {', '.join(roster)})"])
    if signature is None:
        if require_signature:
            raise Refused([f"turn file is not signed: sign it with 'pbem sign FILE --key KEY' (or ssh-keygen -Y sign -n {sshsig.NAMESPACE})"])
    else:
        try:
            signer = sshsig.verify(message, signature)
        except sshsig.SignatureError as exc:
            wrapped = rewrapped_lines(message) if "does not match" in str(exc) else []
            if wrapped:
                where = ", ".join(map(str, wrapped[:5])) + (" ..." if len(wrapped) > 5 else "")
                raise Refused([
                    f"signature refused: {exc}, and the file looks re-wrapped by a mail client (line {where} "
                    f"continues the line before it); send the turn file as an attachment with its .sig, "
                    f"or sign it again and paste it with no line over 72 columns"
                ]) from None
            raise Refused([f"signature refused: {exc}"]) from None
        expected = roster[tf.side]
        if not signer.same_key(expected):
            owner = next((side for side, key in roster.items() if key.same_key(signer)), None)
            who = f"the {owner} side's key" if owner else f"an unknown key ({signer.fingerprint()})"
            raise Refused([f"signature is by {who}, not by the {tf.side} side's key ({expected.fingerprint()})"])
    earlier = list(earlier_copies())
    if earlier:
        last = earlier[-1]
        rb = rollback_of(last.turn) if last.status == store.SubmissionStatus.SET_ASIDE else None
        awaits = f"game {game.id} now awaits resolution {game.next_k} ({find_ruleset(game.rules).turn_label(game.position)})"
        raise Refused([seen_before(last, f"{rb.at:%Y-%m-%d %H:%M} UTC (back to resolution {rb.to_k}): {awaits}" if rb else "")])
    if game.over:
        raise Refused([f"game {game.id} is over ({result_text(game.result, game.rules)}); no more turns are taken"])
    if tf.turn != game.next_k:
        raise Refused([wrong_resolution(game.id, tf.turn, game.next_k, find_ruleset(game.rules).turn_label(game.position), rollback_of)])
    if (used_up := dice_used_up(tf.turn)) is not None:
        raise Refused([used_up])
    if tf.state != game.state_hash:
        raise Refused([f"state {tf.state} is not the current position of game {game.id} ({game.state_hash}); write your orders against the latest report"])
    ruleset = find_ruleset(game.rules)
    due = ruleset.due(game.position)
    if tf.side not in due:
        raise Refused([f"it is not the {tf.side} side's turn in game {game.id}: awaiting {', '.join(due) or 'nobody'} for resolution {game.next_k}"])
    try:
        with limits.time_limit(limits.TURN_FILE_PARSE_SECONDS, "the orders"):
            orders, problems = orders_of(ruleset, game.position, tf)
    except limits.TimeLimit as exc:
        raise Refused([str(exc)]) from None
    if problems:
        raise Refused([str(p) for p in problems])
    _remember_orders(message, orders)
    return Checked(game.id, tf.side, tf.turn, message, signature, tf, orders, ruleset.turn_label(game.position))


def wrong_resolution(game_id: str, k: int, awaited: int, label: str, rollback_of: Callable[[int], store.RollbackSeen | None] = lambda k: None) -> str:
    """Why a turn file for resolution ``k`` is refused when ``awaited`` is due: it
    was written before a rollback (``rollback_of``, the referee's memory), is
    already resolved, or is not yet due."""
    now = f"game {game_id} now awaits resolution {awaited} ({label})"
    if k > awaited:
        return f"the turn file is for resolution {k}, which is not due yet: {now}"
    rb = rollback_of(k)
    if rb is not None:
        return f"the turn file is for resolution {k}, which was set aside by a rollback on {rb.at:%Y-%m-%d %H:%M} UTC (back to resolution {rb.to_k}): {now}"
    return f"the turn file is for resolution {k}, which is already resolved: {now}"


def seen_before(earlier: store.EarlierCopy, rollback: str = "") -> str:
    """Why a file whose exact bytes this game has already received is refused: a
    signed file counts once.  A superseded or set-aside file in particular must never
    come back (anyone holding a copy could otherwise undo a player's correction)."""
    when = f"{earlier.received:%Y-%m-%d %H:%M} UTC"
    match earlier.status:
        case store.SubmissionStatus.RESOLVED:
            return f"this turn file was already resolved in resolution {earlier.turn}; it cannot be replayed"
        case store.SubmissionStatus.QUEUED:
            return f"this turn file is already queued for resolution {earlier.turn} (received {when}); nothing to do"
        case store.SubmissionStatus.SUPERSEDED:
            replaced = f"{earlier.replaced:%Y-%m-%d %H:%M} UTC" if earlier.replaced else "a later date"
            return f"this turn file was superseded on {replaced} by a newer file from the same side; sign a new file to change your orders"
        case _:
            if rollback:
                return f"this turn file (received {when}, for resolution {earlier.turn}) was set aside by a rollback on {rollback}; write and sign new orders against the latest report"
            return f"this turn file (received {when}) was set aside, by a rollback or a new key for its side; write and sign new orders against the latest report"


def _chain_link(tx: Tx, game: store.GameState, k: int) -> tuple[str, int, str, int] | None:
    """Where resolution ``k``'s reveal comes from: (seed, chain length, checkpoints,
    link), or None when no committed chain serves ``k``.  The game's own chain
    needs no query; only a game past it looks for an extension."""
    if 1 <= k <= game.chain_length - 1:
        return game.seed, game.chain_length, game.seed_checkpoints, k
    ext = store.extension_for(tx, game.id, k)
    if ext is None or not 1 <= k - ext.first_k + 1 <= ext.chain_length - 1:
        return None
    return ext.seed, ext.chain_length, ext.seed_checkpoints, k - ext.first_k + 1


def _last_served(tx: Tx, game: store.GameState) -> int:
    ext = store.extension_for(tx, game.id, 1 << 62)
    return ext.first_k + ext.chain_length - 2 if ext else game.chain_length - 1


def orders_of(ruleset: Ruleset, position: dict, tf: TurnFile) -> tuple[Orders, list[Problem]]:
    """Parse and validate a turn file's orders; problems carry whole-file line numbers."""
    orders, problems = ruleset.parse_orders(tf.body)
    if not problems:
        problems = ruleset.validate(position, tf.side, orders)
    body = tf.body.split("\n")
    return orders, [_on_file_line(p, body, tf.body_offset) for p in problems]


def _on_file_line(problem: Problem, body: list[str], offset: int) -> Problem:
    """A ruleset's problem (line numbered in the body) as the player reads it: the
    line numbered in the whole file, and quoted (once) before what is wrong."""
    if not problem.line:
        return problem
    text = body[problem.line - 1].strip() if problem.line <= len(body) else ""
    quoted = repr(text)
    message = problem.message
    if text and not message.startswith(quoted):
        for inner in (f" in {quoted}", f", got {quoted}", f": {quoted}"):  # a parser's own quote, moved to the front
            message = message.replace(inner, "")
        message = f"{quoted}: {message}"
    return Problem(problem.line + offset, message)


def result_text(result: str | None, rules_id: str) -> str:
    """A stored outcome (``Game.result``) in plain words: "Romans win a major
    victory: Huns' losses 37 against a threshold of 29"."""
    if not result:
        return "no result"
    return find_ruleset(rules_id).outcome_text(json.loads(result))


def check(engine: Engine, data: bytes, signature: str | bytes | None = None) -> Checked:
    """``pbem check``: every check, storing nothing.  An unsigned file is checked
    for everything but its signature."""
    message, armored = split_signature(data, signature)
    with transaction(engine, write=False) as tx:
        return inspect_turn_file(tx, message, armored, require_signature=False)


def check_offline(data: bytes, signature: str | bytes | None, position: PositionFile) -> Checked:
    """``pbem check FILE --position POSFILE``: the referee's verdict with no
    database, against the position file attached to the report the orders answer.
    The one check it cannot make is the referee's memory of files already
    received (a replayed file is named as stale instead)."""
    message, armored = split_signature(data, signature)
    tf = read_envelope(message)
    if tf.game != position.id:
        raise Refused([f"turn file is for game {tf.game!r} but the position file is of game {position.id!r}"])
    roster = _roster(position.id, position.public_keys)
    return judge(tf, message, armored, position, roster, require_signature=False)


@dataclass(frozen=True)
class Submitted:
    checked: Checked
    superseded: int  # how many queued submissions of the same side this one replaced


Within = Callable[[Tx, "Checked | None", Sequence[str]], None]
"""Called inside the transaction that queues a turn file (with it, no problems) or
records its refusal (``None``, the problems): the mail intake writes its
judgement and reply there, so they commit with the decision or not at all."""


def submit(engine: Engine, data: bytes, signature: str | bytes | None = None, source: str = "", within: Within | None = None) -> Submitted:
    """``pbem submit``: verify, check and queue.  A refusal is recorded (bytes and
    reason) and raised as :class:`Refused`; nothing else changes."""
    if len(data) > MAX_KEPT_BYTES:  # before any copy of it is made
        refusal = Refused([f"turn file is {len(data)} bytes, the limit is {MAX_TURN_FILE_BYTES} (64 KiB)"])
        record_refusal(engine, data, None, refusal.problems, source, within)
        raise refusal
    message, armored = split_signature(data, signature)
    try:
        with transaction(engine) as tx:
            checked = inspect_turn_file(tx, message, armored)
            digest = hashlib.sha256(message).hexdigest()
            superseded = store.queue_submission(tx, checked.game_id, checked.side, checked.turn, message, armored or "", digest, source)
            if within is not None:
                within(tx, checked, ())
            return Submitted(checked, superseded)
    except Refused as refusal:
        record_refusal(engine, data, armored, refusal.problems, source, within)
        raise


def record_refusal(engine: Engine, data: bytes, signature: str | None, problems: Sequence[str], source: str = "", within: Within | None = None) -> None:
    """Keep what a player sent, with why it was refused."""
    game_id = side = None
    turn = None
    try:
        if len(data) <= MAX_KEPT_BYTES:
            tf = parse_turn_file(sshsig.split_inline(data)[0] if signature is None else normalise(data))
            game_id, side, turn = tf.game, tf.side, tf.turn
    except (TurnFileError, ValueError):
        pass
    if len(data) > MAX_KEPT_BYTES:
        problems = [*problems, f"(only the first {MAX_KEPT_BYTES} of its {len(data)} bytes are kept)"]
        data = data[:MAX_KEPT_BYTES]
    with transaction(engine) as tx:
        store.add_refusal(tx, game_id, side, turn, data, signature, "\n".join(problems), source)
        if within is not None:
            within(tx, None, problems)


# -------------------------------------------------------------------- resolving


@dataclass(frozen=True)
class ProcessOutcome:
    game_id: str
    resolved: int | None  # k of the resolution made, or None
    label: str
    awaiting: tuple[str, ...] = ()
    nmr: tuple[str, ...] = ()
    over: bool = False
    note: str = ""
    problems: tuple[str, ...] = ()  # why this game could not be resolved (the batch went on)


def pending_games(engine: Engine) -> list[str]:
    with transaction(engine, write=False) as tx:
        return store.unfinished_game_ids(tx)


def process(
    engine: Engine,
    game_ids: Iterable[str] | None = None,
    force_nmr: bool = False,
    on_resolved: Callable[[ProcessOutcome], None] | None = None,
    within: "Callable[[Tx, ProcessOutcome], None] | None" = None,
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


def process_game(engine: Engine, game_id: str, force_nmr: bool = False, within: "Callable[[Tx, ProcessOutcome], None] | None" = None) -> ProcessOutcome:
    """:func:`resolve_next` for one game of a batch: a game that cannot be
    resolved gives an outcome naming why, so the batch goes on."""
    try:
        return resolve_next(engine, game_id, force_nmr, within)
    except (Refused, store.StoreError, LookupError) as exc:
        problems = exc.problems if isinstance(exc, Refused) else [str(exc).strip("'\"")]
        return ProcessOutcome(game_id, None, "", note="not resolved", problems=tuple(f"{game_id}: {p}" for p in problems))


def resolve_next(engine: Engine, game_id: str, force_nmr: bool = False, within: "Callable[[Tx, ProcessOutcome], None] | None" = None) -> ProcessOutcome:
    """Make the next resolution of one game if it is ready, with each side's report
    queued in the outbox; ``within`` is called in the resolution's transaction too
    (the deadline step records a late turn there).

    Whether it is ready is read first, in a reader's transaction: a game that is
    only waiting for orders costs no write transaction (and no write lock).  A
    ready game is then claimed (:func:`store.claim_game`: on PostgreSQL a game
    another processor holds is passed over, never waited for) and resolved in
    one writer's transaction, which reads everything again under the lock."""
    with transaction(engine, write=False) as tx:
        waiting = _waiting(tx, game_id, force_nmr)
    if waiting is not None:
        return waiting
    try:
        with transaction(engine) as tx:
            if not store.claim_game(tx, game_id):
                return ProcessOutcome(game_id, None, "", note="being resolved by another process")
            return _resolve_claimed(tx, game_id, force_nmr, within)
    except Conflict:
        # Another process made this resolution first (unique game_id, k): nothing to do.
        return ProcessOutcome(game_id, None, "", note="resolved by another process")


def _waiting(tx: Tx, game_id: str, force_nmr: bool) -> ProcessOutcome | None:
    """Why the game cannot be resolved now (over, or sides awaited), or ``None``
    when it is ready."""
    game = store.known_game(tx, game_id)
    ruleset = find_ruleset(game.rules)
    if game.over:
        return ProcessOutcome(game_id, None, ruleset.turn_label(game.position), over=True, note="game over")
    if force_nmr:
        return None
    queued = set(store.queued_sides(tx, game_id, game.next_k))
    missing = tuple(side for side in ruleset.due(game.position) if side not in queued)
    return ProcessOutcome(game_id, None, ruleset.turn_label(game.position), awaiting=missing) if missing else None


def _resolve_claimed(tx: Tx, game_id: str, force_nmr: bool, within: "Callable[[Tx, ProcessOutcome], None] | None" = None) -> ProcessOutcome:
    game = store.known_game(tx, game_id)
    ruleset = find_ruleset(game.rules)
    position = game.position
    label = ruleset.turn_label(position)
    if game.over:
        return ProcessOutcome(game_id, None, label, over=True, note="game over")
    k = game.next_k
    due = ruleset.due(position)
    queued = {f.side: f for f in store.queued_files(tx, game_id, k)}
    missing = tuple(side for side in due if side not in queued)
    if missing and not force_nmr:
        return ProcessOutcome(game_id, None, label, awaiting=missing)
    files = [queued[side] for side in sorted(queued) if side in due]
    link = _chain_link(tx, game, k)
    if link is None:
        raise Refused([dice_chains.used_up(game_id, _last_served(tx, game), k)])
    reveal = dice_chains.reveal(*link)
    stream = dicev1.DiceStream(dicev1.dice_key(reveal, game.id, k, [f.message for f in files]))
    orders: dict[str, Orders] = {side: NO_ORDERS for side in due}
    for f in files:
        orders[f.side] = queued_orders(ruleset, f)
    try:
        result = ruleset.resolve_validated(position, orders, stream)  # submit validated the files against this position
    except OrderError as exc:  # cannot happen: validated at submit against this position
        raise Refused([f"queued orders no longer valid: {exc}"]) from None
    outcome = ruleset.outcome(result.position)
    written = canonical_json(result.position)  # once: stored, and hashed
    store.add_resolution(
        tx,
        store.NewResolution(
            game_id=game_id,
            k=k,
            label=label,
            position=written,
            state_hash=text_hash(written),
            previous_state_hash=game.state_hash,
            events=canonical_json(result.events),
            reveal=reveal.hex(),
            nmr=json.dumps(list(missing)),
            result=json.dumps(outcome.to_json()) if outcome else None,
        ),
        [{"idx": r.index, "sides": r.sides, "value": r.value, "purpose": r.purpose} for r in stream.rolls],
        [f.id for f in files],
    )
    made = ProcessOutcome(game_id, k, label, nmr=missing, over=outcome is not None)
    notices.queue_reports(tx, game_id, k, label, ruleset.turn_label(result.position), () if outcome else ruleset.due(result.position), outcome is not None)
    if within is not None:
        within(tx, made)
    if os.environ.get(FAULT_ENV) == "kill-mid-resolution":
        os.kill(os.getpid(), signal.SIGKILL)
    return made


ORDERS_KEPT = 256
_orders_read: dict[bytes, Orders] = {}


def _remember_orders(message: bytes, orders: Orders) -> None:
    """The orders a turn file's verdict parsed from ``message`` (parsing is a pure
    function of the bytes, and orders are immutable): a process that submits and
    then resolves a file parses it once (issue 14).  The last ``ORDERS_KEPT``."""
    if len(_orders_read) >= ORDERS_KEPT:
        del _orders_read[next(iter(_orders_read))]  # the oldest
    _orders_read[message] = orders


def queued_orders(ruleset: Ruleset, queued: store.QueuedFile) -> Orders:
    """A queued file's orders, parsed (or as this process's verdict on the same
    bytes parsed them).  They are not validated again: ``submit``
    validated them against this very position (the file's ``state`` and ``turn``
    are the game's; a resolution moves the game to a new turn, and a rollback or
    a new key sets the queued files aside), so they are resolved with
    ``Ruleset.resolve_validated``, which skips a ruleset's own second check."""
    if (orders := _orders_read.pop(queued.message, None)) is not None:
        return orders
    try:
        tf = parse_turn_file(queued.message)
    except TurnFileError as exc:  # cannot happen, unless the row was damaged
        raise Refused([f"queued {queued.side} file no longer readable: {p}" for p in exc.problems]) from None
    orders, problems = ruleset.parse_orders(tf.body)
    if problems:  # cannot happen either: parsed at submit
        raise Refused([f"queued {queued.side} file no longer readable: {Problem(p.line + tf.body_offset if p.line else 0, p.message)}" for p in problems])
    return orders


# ------------------------------------------------------------- dice extension


def extend_dice(engine: Engine, game_id: str, chain_length: int = dicev1.DEFAULT_CHAIN_LENGTH) -> store.ChainAnchor:
    """Commit a new dice chain that takes over where the game's last one ends
    (docs/dice.md, "Extending a game's dice").  Its anchor is published like the
    first one: in the archive (``dice.extensions``), reports and ``pbem status``."""
    if not 2 <= chain_length <= 1_000_000:
        raise Refused([f"dice chain length {chain_length} refused: it must be between 2 and 1,000,000 (a chain of N serves N-1 resolutions)"])
    with transaction(engine) as tx:
        game = store.known_game(tx, game_id)
        if game.over:
            raise Refused([f"game {game_id} is over ({result_text(game.result, game.rules)}); its dice need no extension"])
        chains = dice_chains.public_chains(game, store.chain_anchors(tx, game_id))
        commitment = dicev1.Commitment.new(chain_length)
        chain = store.ChainAnchor(dice_chains.last_served(chains) + 1, chain_length, commitment.anchor.hex())
        tx.run(
            "INSERT INTO dice_chain (game_id, first_k, chain_length, anchor, seed, seed_checkpoints, created)"
            " VALUES (:game, :first_k, :chain_length, :anchor, :seed, :checkpoints, :created)",
            {
                "game": game_id,
                "first_k": chain.first_k,
                "chain_length": chain_length,
                "anchor": chain.anchor,
                "seed": commitment.seed.hex(),
                "checkpoints": commitment.kept.hex(),
                "created": store.utcnow(),
            },
        )
    return chain


# ------------------------------------------------------------------ rollback


def rollback(engine: Engine, game_id: str, to_k: int) -> store.RolledBack:
    """Set aside every active resolution after ``to_k`` (kept, shown by export and
    audit); queued files written against the discarded positions are set aside
    too.  Resolution numbers are never reused: the next one is a fresh ``k``."""
    with transaction(engine) as tx:
        game = store.known_game(tx, game_id)
        params = {"game": game_id, "to_k": to_k}
        known = [0] + [r[0] for r in tx.all("SELECT k FROM resolution WHERE game_id = :game AND active = :active ORDER BY k", {**params, "active": True})]
        if to_k not in known:
            raise Refused([f"game {game_id} has no active resolution {to_k} (active: {', '.join(map(str, known))})"])
        discarded = [k for k in known if k > to_k]
        if not discarded:
            raise Refused([f"game {game_id} is already at resolution {to_k}; nothing to roll back"])
        tx.run('INSERT INTO "rollback" (game_id, to_k, at, discarded) VALUES (:game, :to_k, :at, :discarded)', {**params, "at": store.utcnow(), "discarded": json.dumps(discarded)})
        record = store.RolledBack(tx.one('SELECT MAX(id) FROM "rollback" WHERE game_id = :game', params)[0], to_k, discarded)  # type: ignore[index]
        tx.run(
            "UPDATE resolution SET active = :inactive, rollback_id = :rollback WHERE game_id = :game AND active = :active AND k > :to_k",
            {**params, "inactive": False, "active": True, "rollback": record.id},
        )
        set_aside, resolved, queued = (s.name for s in (store.SubmissionStatus.SET_ASIDE, store.SubmissionStatus.RESOLVED, store.SubmissionStatus.QUEUED))
        tx.run_many(
            "UPDATE submission SET status = :set_aside WHERE game_id = :game AND turn = :k AND status = :resolved",
            [{"set_aside": set_aside, "resolved": resolved, "game": game_id, "k": k} for k in discarded],
        )
        tx.run(
            "UPDATE submission SET status = :set_aside WHERE game_id = :game AND turn = :k AND status = :queued",
            {"set_aside": set_aside, "queued": queued, "game": game_id, "k": game.next_k},
        )
        if to_k == 0:
            kept = tx.one("SELECT initial_state_hash, initial_position FROM game WHERE id = :game", params)
        else:
            kept = tx.one("SELECT state_hash, position FROM resolution WHERE game_id = :game AND k = :to_k", params)
        state_hash, position = kept[0], json.loads(kept[1])  # type: ignore[index]
        ruleset = find_ruleset(game.rules)
        outcome = ruleset.outcome(position)
        tx.run(
            "UPDATE game SET current_k = :to_k, state_hash = :state_hash, over = :over, result = :result WHERE id = :game",
            {**params, "state_hash": state_hash, "over": outcome is not None, "result": json.dumps(outcome.to_json()) if outcome else None},
        )
        notices.queue_rollback_notice(tx, game_id, to_k, discarded, game.next_k, ruleset.turn_label(position), state_hash, record.id)
    return record


# ------------------------------------------------------------------- helpers


def next_turn_file(engine: Engine, game_id: str, side: str, bot: str | None = None, seed: int = 0) -> str:
    """``pbem orders``: the next turn file for ``side``: a commented template, or
    one filled with a bot's legal orders."""
    with transaction(engine, write=False) as tx:
        game = store.known_game(tx, game_id)
        ruleset = find_ruleset(game.rules)
        position = game.position
        sides = ruleset.sides(game.scenario)
        if side not in sides:
            raise Refused([f"no side {side!r} in game {game_id} (sides: {', '.join(sides)})"])
        if game.over:
            raise Refused([f"game {game_id} is over ({result_text(game.result, game.rules)})"])
        due = ruleset.due(position)
        if side not in due:
            raise Refused([f"it is not the {side} side's turn in game {game_id}: awaiting {', '.join(due)} for resolution {game.next_k}"])
        if bot is None:
            body = ruleset.order_template(position, side)
        else:
            if bot not in ruleset.bots():
                raise Refused([f"unknown bot {bot!r} for {game.rules} (bots: {', '.join(ruleset.bots())})"])
            body = ruleset.bot_orders(position, side, bot, random.Random(f"{game_id}/{game.next_k}/{side}/{seed}"))
        head = fit_comments(f"# {ruleset.title}: {game_id}, resolution {game.next_k} - {ruleset.turn_label(position)}\n") if bot is None else ""
        return render_turn_file(game.id, game.rules, side, game.next_k, game.state_hash, head + body)


@dataclass(frozen=True)
class Status:
    game: str
    rules: str
    scenario: str
    turn: int
    label: str
    awaiting: list[str]
    over: bool
    result: dict | None
    score: list[dict] = field(default_factory=list)
    anchor: str = ""
    queued: list[str] = field(default_factory=list)
    result_text: str = ""
    score_heading: str = "score"
    dice_left: int = 0  # resolutions the committed dice chains can still serve
    extensions: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "rules": self.rules,
            "scenario": self.scenario,
            "turn": self.turn,
            "resolution": self.turn,
            "label": self.label,
            "awaiting": self.awaiting,
            "queued": self.queued,
            "over": self.over,
            "result": self.result,
            "outcome": self.result_text or None,
            "score": self.score,
            "anchor": self.anchor,
            "dice_left": self.dice_left,
            "dice_extensions": self.extensions,
        }


def status(engine: Engine, game_id: str) -> Status:
    with transaction(engine, write=False) as tx:
        game = store.known_game(tx, game_id)
        ruleset = find_ruleset(game.rules)
        position = game.position
        queued = store.queued_sides(tx, game_id, game.next_k)
        chains = dice_chains.public_chains(game, store.chain_anchors(tx, game_id))
        due = [] if game.over else [s for s in ruleset.due(position) if s not in queued]
        score = ruleset.score(position)
        return Status(
            game=game.id,
            rules=game.rules,
            scenario=game.scenario,
            turn=game.next_k,
            label=ruleset.turn_label(position),
            awaiting=due,
            over=game.over,
            result=json.loads(game.result) if game.result else None,
            score=[{"side": s.side, "value": s.value, "detail": s.detail} for s in score],
            anchor=game.anchor,
            queued=queued,
            result_text=result_text(game.result, game.rules) if game.result else "",
            score_heading=score[0].heading if score else "score",
            dice_left=max(0, dice_chains.last_served(chains) - game.next_k + 1),
            extensions=[c.to_json() for c in chains[1:]],
        )

