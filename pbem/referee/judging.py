"""The verdict on a turn file against a game as it stands: its envelope, signature,
resolution, state and orders, whether the game comes from the referee's database
(:mod:`pbem.referee.verdict`, which adds what only the referee knows) or from a
position file (``pbem check --position``, :func:`check_offline`).

Light on purpose: ``pbem check --position`` imports this module and not the
verdict's database half, so neither the store nor the dice (``pbem.dice``,
``pbem.store``: about a twentieth of that command's start-up); the store is
imported where only the database's answers lead (an earlier copy of a file), and
the signature module where a signature is checked.  Single calls raise
:class:`Refused` with one problem per line."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from pbem import limits
from pbem.rules import find_ruleset
from pbem.rules.base import Orders, Problem, Ruleset
from pbem.rules.frozen import Frozen, set_fields
from pbem.turnfiles import keys
from pbem.turnfiles.envelope import TurnFile, TurnFileError, normalise, parse_turn_file, rewrapped_lines

if TYPE_CHECKING:
    from pbem import store
    from pbem.turnfiles.position_file import PositionFile

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


class Refused(ValueError):
    """An input was refused; ``problems`` are the lines to print (one per problem,
    clipped by :func:`clip_problems`)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = clip_problems(problems)
        super().__init__("\n".join(self.problems))


class Duplicate(Refused):
    """The same bytes are already queued: harmless, nothing to do.  Not a refusal
    to keep or to show in reports (its bytes are held by the queued file); a note
    in the receipt to its sender."""


class Checked(Frozen):
    """A turn file that passed every check (envelope, signature, orders)."""

    game_id: str
    side: str
    turn: int
    message: bytes  # the signed bytes (LF line ends)
    signature: str | None
    turn_file: TurnFile
    orders: Orders
    label: str
    others_queued: bool
    """Whether any file was queued for the game's next resolution when it was
    checked against the referee's database (True when not known): with none,
    queueing this one supersedes nothing."""

    def __init__(
        self,
        game_id: str,
        side: str,
        turn: int,
        message: bytes,
        signature: str | None,
        turn_file: TurnFile,
        orders: Orders,
        label: str,
        others_queued: bool = True,
    ) -> None:
        set_fields(
            self,
            game_id=game_id,
            side=side,
            turn=turn,
            message=message,
            signature=signature,
            turn_file=turn_file,
            orders=orders,
            label=label,
            others_queued=others_queued,
        )


def split_signature(data: bytes, signature: str | bytes | None) -> tuple[bytes, str | None]:
    """The signed message and its armored signature: detached if given, else inline."""
    import pbem.turnfiles.sshsig as sshsig  # (not ``from``: no Python call, ``_handle_fromlist``, a file)

    if signature is not None:
        return normalise(data), signature.decode("utf-8", "replace") if isinstance(signature, bytes) else signature
    return sshsig.split_inline(data)


@functools.lru_cache(maxsize=4096)
def registered_key(line: str) -> keys.PublicKey:
    """A side's stored public key line, parsed once per process."""
    return keys.PublicKey.from_openssh(line)


class GameView(Protocol):
    """What the verdict on a turn file reads of a game: :class:`pbem.store.GameState`
    (the referee's database) or :class:`pbem.turnfiles.position_file.PositionFile` (offline)."""

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


def ruleset_of(game: GameView) -> Ruleset:
    """The installed ruleset a game plays, refused by name when it is not the version
    the game began with (``pbem new`` records ``Ruleset.version``; a position file
    that does not say is read with the installed one)."""
    ruleset = find_ruleset(game.rules)
    began = getattr(game, "rules_version", None)
    if began is not None and began != ruleset.version:
        raise Refused(
            [
                f"game {game.id} began with {game.rules} version {began}, and the {game.rules} installed here is "
                f"version {ruleset.version}: play it on with the version it began with"
            ]
        )
    return ruleset


def roster_of(game_id: str, lines: Mapping[str, str]) -> dict[str, keys.PublicKey]:
    """Each side's registered key; one stored before a rule refused it (a weak RSA
    key) refuses the file instead of being trusted."""
    roster = {}
    for side, line in lines.items():
        try:
            roster[side] = registered_key(line)
        except keys.KeyFileError as exc:
            raise Refused(
                [
                    f"the {side} side's registered key is refused: {exc}; the referee registers a new one with "
                    f"'pbem player {game_id} {side} --key FILE'"
                ]
            ) from None
    return roster


def wrong_state(
    state: str,
    game_id: str,
    current: str,
    set_aside: Callable[[str], int | None],
    rollback_of: Callable[[int], store.RollbackSeen | None],
) -> str:
    """Why a turn file written against another position is refused; one written
    against a position a rollback set aside says so (docs/guide.md, section 5)."""
    k = set_aside(state)
    rb = rollback_of(k) if k is not None else None
    if rb is not None:
        return (
            f"state {state[:12]}... is the position after resolution {k}, which was set aside by the rollback of "
            f"{rb.at:%Y-%m-%d %H:%M} UTC to resolution {rb.to_k}; write against the latest report"
        )
    return (
        f"state {state} is not the current position of game {game_id} ({current}); "
        "write your orders against the latest report"
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
    set_aside: Callable[[str], int | None] = lambda state: None,
    others_queued: bool = True,
) -> Checked:
    """The verdict on a turn file against a game as it stands, the same whether
    the game comes from the database or from a position file (``pbem check
    --position``); only the referee knows ``earlier_copies`` (replays), whether
    the committed dice still serve the turn (``dice_used_up``) and whether any
    file is queued for the game's next resolution (``others_queued``, kept in
    the :class:`Checked`)."""
    if tf.rules != game.rules:
        raise Refused([f"turn file says rules {tf.rules!r} but game {game.id} plays {game.rules!r}"])
    if tf.side not in roster:
        raise Refused([f"no side {tf.side!r} in game {game.id} (sides: {', '.join(roster)})"])
    check_signature(tf, message, signature, roster, require_signature)
    earlier = list(earlier_copies())
    if earlier:  # only the referee's database knows of earlier copies
        from pbem import store

        last = earlier[-1]
        rb = rollback_of(last.turn) if last.status == store.SubmissionStatus.SET_ASIDE else None
        awaits = (
            f"game {game.id} now awaits resolution {game.next_k} ({find_ruleset(game.rules).turn_label(game.position)})"
        )
        why = [seen_before(last, f"{rb.at:%Y-%m-%d %H:%M} UTC (back to resolution {rb.to_k}): {awaits}" if rb else "")]
        if last.status == store.SubmissionStatus.QUEUED and game.next_k == last.turn:
            raise Duplicate(why)
        raise Refused(why)
    if game.over:
        raise Refused([f"game {game.id} is over ({result_text(game.result, game.rules)}); no more turns are taken"])
    if tf.turn != game.next_k:
        raise Refused(
            [
                wrong_resolution(
                    game.id, tf.turn, game.next_k, find_ruleset(game.rules).turn_label(game.position), rollback_of
                )
            ]
        )
    if (used_up := dice_used_up(tf.turn)) is not None:
        raise Refused([used_up])
    if tf.state != game.state_hash:
        raise Refused([wrong_state(tf.state, game.id, game.state_hash, set_aside, rollback_of)])
    ruleset = ruleset_of(game)
    due = ruleset.due(game.position)
    if tf.side not in due:
        raise Refused(
            [
                f"it is not the {tf.side} side's turn in game {game.id}: awaiting {', '.join(due) or 'nobody'} "
                f"for resolution {game.next_k}"
            ]
        )
    ruleset.prepare_parsing()  # a one-off load per process, not the file's parse: outside its time limit
    try:
        with limits.time_limit(limits.TURN_FILE_PARSE_SECONDS, "the orders"):
            orders, problems = orders_of(ruleset, game.position, tf)
    except limits.TimeLimit as exc:
        raise Refused([str(exc)]) from None
    if problems:
        raise Refused([str(p) for p in problems])
    _remember_orders(message, orders)
    return Checked(
        game.id, tf.side, tf.turn, message, signature, tf, orders, ruleset.turn_label(game.position), others_queued
    )


def check_signature(
    tf: TurnFile, message: bytes, signature: str | None, roster: Mapping[str, keys.PublicKey], required: bool
) -> None:
    """The file is signed (where ``required``), the signature verifies, and it is by
    the key of the side the file names."""
    import pbem.turnfiles.sshsig as sshsig  # (as in split_signature)

    if signature is None:
        if required:
            raise Refused(
                [
                    "turn file is not signed: sign it with 'pbem sign FILE --key KEY' (or ssh-keygen -Y sign -n "
                    f"{sshsig.NAMESPACE})"
                ]
            )
        return
    try:
        signer = sshsig.verify(message, signature)
    except sshsig.SignatureError as exc:
        wrapped = rewrapped_lines(message) if "does not match" in str(exc) else []
        if wrapped:
            where = ", ".join(map(str, wrapped[:5])) + (" ..." if len(wrapped) > 5 else "")
            raise Refused(
                [
                    f"signature refused: {exc}, and the file looks re-wrapped by a mail client (line {where} "
                    f"continues the line before it); send the turn file as an attachment with its .sig, "
                    f"or sign it again and paste it with no line over 72 columns"
                ]
            ) from None
        raise Refused([f"signature refused: {exc}"]) from None
    expected = roster[tf.side]
    if not signer.same_key(expected):
        owner = next((side for side, key in roster.items() if key.same_key(signer)), None)
        who = f"the {owner} side's key" if owner else f"an unknown key ({signer.fingerprint()})"
        raise Refused([f"signature is by {who}, not by the {tf.side} side's key ({expected.fingerprint()})"])


def wrong_resolution(
    game_id: str,
    k: int,
    awaited: int,
    label: str,
    rollback_of: Callable[[int], store.RollbackSeen | None] = lambda k: None,
) -> str:
    """Why a turn file for resolution ``k`` is refused when ``awaited`` is due: it
    was written before a rollback (``rollback_of``, the referee's memory), is
    already resolved, or is not yet due."""
    now = f"game {game_id} now awaits resolution {awaited} ({label})"
    if k > awaited:
        return f"the turn file is for resolution {k}, which is not due yet: {now}"
    rb = rollback_of(k)
    if rb is not None:
        return (
            f"the turn file is for resolution {k}, which was set aside by a rollback on {rb.at:%Y-%m-%d %H:%M} "
            f"UTC (back to resolution {rb.to_k}): {now}"
        )
    return f"the turn file is for resolution {k}, which is already resolved: {now}"


def seen_before(earlier: store.EarlierCopy, rollback: str = "") -> str:
    """Why a file whose exact bytes this game has already received is refused: a
    signed file counts once.  A superseded or set-aside file in particular must never
    come back (anyone holding a copy could otherwise undo a player's correction)."""
    from pbem import store

    when = f"{earlier.received:%Y-%m-%d %H:%M} UTC"
    match earlier.status:
        case store.SubmissionStatus.RESOLVED:
            return f"this turn file was already resolved in resolution {earlier.turn}; it cannot be replayed"
        case store.SubmissionStatus.QUEUED:
            return (
                f"this turn file is already queued for resolution {earlier.turn} (received {when}); nothing to "
                "do: those orders stand"
            )
        case store.SubmissionStatus.SUPERSEDED:
            replaced = f"{earlier.replaced:%Y-%m-%d %H:%M} UTC" if earlier.replaced else "a later date"
            return (
                f"this turn file was superseded on {replaced} by a newer file from the same side; sign a new "
                "file to change your orders"
            )
        case _:
            if rollback:
                return (
                    f"this turn file (received {when}, for resolution {earlier.turn}) was set aside by a "
                    f"rollback on {rollback}; write and sign new orders against the latest report"
                )
            return (
                f"this turn file (received {when}) was set aside, by a rollback or a new key for its side; write "
                "and sign new orders against the latest report"
            )


def orders_of(ruleset: Ruleset, position: dict, tf: TurnFile) -> tuple[Orders, list[Problem]]:
    """Parse and validate a turn file's orders; problems carry whole-file line numbers."""
    orders, problems = ruleset.parse_orders(tf.body)
    if not problems:
        problems = ruleset.validate(position, tf.side, orders)
        if not problems:  # most files: no line to quote
            return orders, problems
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


def check_offline(data: bytes, signature: str | bytes | None, position: PositionFile) -> Checked:
    """``pbem check FILE --position POSFILE``: the referee's verdict with no
    database, against the position file attached to the report the orders answer.
    The one check it cannot make is the referee's memory of files already
    received (a replayed file is named as stale instead)."""
    message, armored = split_signature(data, signature)
    tf = read_envelope(message)
    if tf.game != position.id:
        raise Refused([f"turn file is for game {tf.game!r} but the position file is of game {position.id!r}"])
    roster = roster_of(position.id, position.public_keys)
    try:
        return judge(tf, message, armored, position, roster, require_signature=False)
    except Refused:
        raise
    except Exception as exc:  # the position came from a file: its inside may be anything
        raise Refused(
            [
                f"position file: its position is not a {position.rules} position this pbem can read "
                f"({type(exc).__name__}: {str(exc)[:200]})"
            ]
        ) from None


ORDERS_KEPT = 256


_orders_read: dict[bytes, Orders] = {}


def _remember_orders(message: bytes, orders: Orders) -> None:
    """The orders a turn file's verdict parsed from ``message`` (parsing is a pure
    function of the bytes, and orders are immutable): a process that submits and
    then resolves a file parses it once (since the speed work).  The last ``ORDERS_KEPT``."""
    if len(_orders_read) >= ORDERS_KEPT:
        del _orders_read[next(iter(_orders_read))]  # the oldest
    _orders_read[message] = orders


def remembered_orders(message: bytes) -> Orders | None:
    """The orders this process's verdict parsed from ``message``, taken out of
    the memory (None when another process judged the file)."""
    return _orders_read.pop(message, None)


def result_text(result: str | None, rules_id: str) -> str:
    """A stored outcome (``Game.result``) in plain words: "Romans win a major
    victory: Huns' losses 37 against a threshold of 29"."""
    if not result:
        return "no result"
    return find_ruleset(rules_id).outcome_text(json.loads(result))
