"""``pbem audit``: re-verify a whole game from its archive alone.

Checks, in this order, stopping at the first discrepancy:
0. nothing secret in the archive (no seed, no checkpoint, no chain value not yet revealed);
1. every submission's signature against the archive's key for that side;
2. every turn file's header (game, side, turn, state) against the chain of positions;
3. the reveal chain back to the anchor (over all resolutions, set-aside ones too);
4. every roll recomputed from the reveal and the files (dice v1);
5. a full replay through the ruleset, from the set-up with the archive's house
   tables (``game.tables``), reproducing every position hash, the rolls'
   purposes, the events and the result; the orders the greedy bot wrote for a
   side in civil disorder are regenerated and compared (pbem/audit/civil.py).
6. the referee's ledger (``ledger``, pbem/audit/ledger_check.py): every entry's
   hash, the chain, every signature against the referee key of its ``new``
   entry, and the acts the rest of the archive shows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pbem import dice as dicev1
from pbem.audit import civil, ledger_check, shape
from pbem.audit.errors import AuditFailure, shown
from pbem.audit.secrets import all_resolutions, archive_chains, leaked_secrets
from pbem.dice import chains as dice_chains
from pbem.referee.ledger import LedgerError
from pbem.rules import find_ruleset
from pbem.rules.base import NO_ORDERS, Orders, Position, Resolution, Ruleset, TableError
from pbem.store import house_tables
from pbem.turnfiles import keys, sshsig
from pbem.turnfiles.canonical import canonical_json, position_hash
from pbem.turnfiles.envelope import TurnFile, TurnFileError, parse_turn_file


@dataclass(frozen=True)
class AuditSummary:
    game: str
    resolutions: int
    set_aside: int
    files: int
    rolls: int
    rollbacks: int
    result: Any
    rollback_notes: tuple[str, ...] = ()
    result_text: str = ""
    nmr_notes: tuple[str, ...] = ()
    player_notes: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    civil_notes: tuple[str, ...] = ()
    nmr_short: tuple[str, ...] = ()
    bound: tuple[str, ...] = ()

    def verdict(self) -> str:
        """The audit in one line, the same on the command line and the audit page."""
        tables = ", ".join(t.split(" ", 1)[0] for t in self.tables)
        rollbacks = f"{self.rollbacks} ({self.set_aside} resolution{'s' if self.set_aside != 1 else ''} set aside)"
        return (
            f"verified: {self.resolutions} resolution{'s' if self.resolutions != 1 else ''}, {self.rolls} dice, "
            f"{self.files} signature{'s' if self.files != 1 else ''}; NMRs: {', '.join(self.nmr_short) or 'none'}; "
            f"rollbacks: {rollbacks if self.rollbacks else 'none'}; house tables: {tables or 'none'}"
        )

    ledger_notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        out = [
            f"game {self.game}: all checks hold",
            f"  resolutions replayed: {self.resolutions} active, {self.set_aside} set aside by {self.rollbacks} "
            "rollback(s)",
            f"  turn files verified:  {self.files} (signatures and headers)",
            f"  dice verified:        {self.rolls} rolls recomputed from the committed chain",
        ]
        out.extend(f"  house table:          {note}" for note in self.tables)
        out.extend(f"  rollback:             {note}" for note in self.rollback_notes)
        out.extend(f"  no moves received:    {note}" for note in self.nmr_notes)
        out.extend(f"  player change:        {note}" for note in self.player_notes)
        out.extend(f"  civil disorder:       {note}" for note in self.civil_notes)
        out.extend(f"  bound to:             {note}" for note in self.bound)
        out.extend(f"  referee's ledger:     {note}" for note in self.ledger_notes)
        if self.result:
            out.append(f"  result:               {self.result_text or self.result}")
        out.append(self.verdict())
        return out


def audit_archive(
    archive: dict[str, Any], anchors: Sequence[str] = (), held_keys: Mapping[str, str] | None = None
) -> AuditSummary:
    """Every check of the archive; with ``anchors`` and ``held_keys`` (side ->
    OpenSSH public key line), also that it is the game whose commitment and keys
    the player holds (:mod:`pbem.audit.binding`)."""
    from pbem.audit import binding

    held = dict(held_keys or {})
    try:
        shape.check(archive)  # every field the audit reads, of its type: one line naming a broken one
    except shape.ShapeError as exc:
        raise AuditFailure(f"archive is malformed: {exc}") from None
    try:
        if anchors or held:
            chains = [c.anchor for c in archive_chains(archive)]
            problems = binding.binding_problems(archive, anchors, held, chains)
            if problems:
                raise AuditFailure("; ".join(problems))
        summary = _audit(archive)
        return replace(summary, bound=binding.bound_lines(anchors, held)) if anchors or held else summary
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        if isinstance(exc, AuditFailure):
            raise
        raise AuditFailure(f"archive is malformed: {type(exc).__name__}: {exc}") from None


def verdict_of(archive: dict[str, Any]) -> str:
    """The audit's verdict line, or ``audit failed: ...`` naming the first discrepancy."""
    try:
        return audit_archive(archive).verdict()
    except AuditFailure as exc:
        return f"audit failed: {exc}"


def _audit(archive: dict[str, Any]) -> AuditSummary:
    game = archive["game"]
    _check_no_secrets(archive)
    resolutions = all_resolutions(archive)
    _check_numbering(resolutions)
    files = _check_signatures(archive, resolutions)
    turn_files = _check_headers(archive, resolutions)
    _check_reveals(archive, resolutions)
    rolls, dice_keys = _check_rolls(game["id"], resolutions)
    ruleset, tables, final_position = _replay(archive, resolutions, turn_files, dice_keys)
    nmr = _check_nmr(resolutions)
    try:
        ledger_notes = ledger_check.check_ledger(archive)
    except LedgerError as exc:
        raise AuditFailure(str(exc)) from None
    outcome = ruleset.outcome(final_position)
    want = outcome.to_json() if outcome else None
    final = archive["final"]
    if bool(final["over"]) != (outcome is not None) or json.dumps(final["result"], sort_keys=True) != json.dumps(
        want, sort_keys=True
    ):
        raise AuditFailure(
            f"final result: replay gives {shown(want)}, archive says {shown(final['result'])} "
            f"(over={shown(final['over'])})"
        )
    return AuditSummary(
        game=game["id"],
        resolutions=len(archive.get("resolutions", [])),
        set_aside=sum(len(g.get("resolutions", [])) for g in archive.get("set_aside", [])),
        files=files,
        rolls=rolls,
        rollbacks=len(archive.get("set_aside", [])),
        result=want,
        result_text=ruleset.outcome_text(outcome) if outcome else "",
        tables=tuple(f"{name} (sha256 {house_tables.digest(data)})" for name, data in sorted(tables.items())),
        rollback_notes=_rollback_notes(archive),
        nmr_notes=tuple(long for long, _ in nmr),
        nmr_short=tuple(short for _, short in nmr),
        player_notes=_player_notes(archive),
        civil_notes=civil.notes(archive),
        ledger_notes=ledger_notes,
    )


_Resolutions = list[tuple[dict[str, Any], bool]]
"""Every resolution of the archive with whether it is active (not set aside)."""


def _check_no_secrets(archive: dict[str, Any]) -> None:
    """0. Nothing secret in the archive."""
    leaks = leaked_secrets(archive, archive_chains(archive))
    if leaks:
        raise AuditFailure(
            f"archive leaks a secret: {leaks[0]}" + (f" (and {len(leaks) - 1} more)" if len(leaks) > 1 else "")
        )


def _check_numbering(resolutions: _Resolutions) -> None:
    ks = [r["k"] for r, _ in resolutions]
    if ks != list(range(1, len(ks) + 1)):
        missing = sorted(set(range(1, (max(ks) if ks else 0) + 1)) - set(ks))
        raise AuditFailure(
            f"resolutions are not numbered 1..{len(ks)} without gaps: missing {missing or 'none'}, found {ks}"
        )


def _check_signatures(archive: dict[str, Any], resolutions: _Resolutions) -> int:
    """1. Every submission's signature, by the key its side held then; the number of files."""
    key_at = _keys_by_resolution(archive)
    keys_by_side = {p["side"]: keys.PublicKey.from_openssh(p["public_key"]) for p in archive["players"]}
    files = 0
    for res, _ in resolutions:
        for sub in res["submissions"]:
            where = f"resolution {res['k']}, {sub['side']} turn file"
            if sub["side"] not in keys_by_side:
                raise AuditFailure(f"{where}: no player {sub['side']!r} in the archive")
            message = sub["turn_file"].encode("utf-8")
            try:
                signer = sshsig.verify(message, sub["signature"])
            except sshsig.SignatureError as exc:
                raise AuditFailure(f"{where}: signature does not verify: {exc}") from None
            expected = key_at(sub["side"], res["k"])
            if not signer.same_key(expected):
                raise AuditFailure(
                    f"{where}: signed by {signer.fingerprint()}, expected the {sub['side']} key "
                    f"{expected.fingerprint()}"
                )
            files += 1
    return files


def _check_headers(archive: dict[str, Any], resolutions: _Resolutions) -> dict[tuple[int, str], TurnFile]:
    """2. Every turn file's header against the chain of positions; the files read,
    once, for the replay."""
    game = archive["game"]
    initial = archive["initial_state_hash"]
    known_hashes = {initial} | {r["state_hash"] for r, _ in resolutions}
    expected_prev = initial
    turn_files: dict[tuple[int, str], TurnFile] = {}
    for res, active in resolutions:
        prev = res.get("previous_state_hash", expected_prev if active else None)
        if active:
            if prev != expected_prev:
                raise AuditFailure(
                    f"resolution {res['k']}: follows position {prev}, expected {expected_prev} (the chain of "
                    "positions is broken)"
                )
            expected_prev = res["state_hash"]
        elif prev not in known_hashes:
            raise AuditFailure(f"set-aside resolution {res['k']}: follows unknown position {prev}")
        sides = [s["side"] for s in res["submissions"]]
        if sides != sorted(sides) or len(set(sides)) != len(sides):
            raise AuditFailure(f"resolution {res['k']}: turn files out of side order or repeated: {sides}")
        for sub in res["submissions"]:
            where = f"resolution {res['k']}, {sub['side']} turn file"
            try:
                tf = turn_files[res["k"], sub["side"]] = parse_turn_file(sub["turn_file"].encode("utf-8"))
            except TurnFileError as exc:
                raise AuditFailure(f"{where}: unreadable header: {exc}") from None
            for name, want, got in (
                ("game", game["id"], tf.game),
                ("rules", game["rules"], tf.rules),
                ("side", sub["side"], tf.side),
                ("turn", res["k"], tf.turn),
                ("state", prev, tf.state),
            ):
                if want != got:
                    raise AuditFailure(f"{where}: header {name} is {got!r}, expected {want!r}")
    return turn_files


def _check_reveals(archive: dict[str, Any], resolutions: _Resolutions) -> None:
    """3. The reveal chain (each extension chain starts again from its own anchor)."""
    chains = archive_chains(archive)
    previous = b""
    for res, _ in resolutions:
        chain = dice_chains.chain_for(chains, res["k"])
        if chain is None or res["k"] > chain.last_k:
            raise AuditFailure(
                f"resolution {res['k']}: no committed dice chain serves it (the chains serve up to "
                f"{dice_chains.last_served(chains)})"
            )
        starts = res["k"] == chain.first_k
        if starts:
            previous = bytes.fromhex(chain.anchor)
        reveal = bytes.fromhex(res["reveal"])
        if not dicev1.reveal_follows(reveal, previous):
            what = (
                "the anchor"
                if res["k"] == 1
                else f"the anchor of the chain extending from {chain.first_k}"
                if starts
                else "the previous reveal"
            )
            raise AuditFailure(
                f"resolution {res['k']}: reveal {res['reveal']} does not hash to {previous.hex()} ({what})"
            )
        previous = reveal


def _check_rolls(game_id: str, resolutions: _Resolutions) -> tuple[int, dict[int, bytes]]:
    """4. Every roll recomputed; the number of rolls and each resolution's dice key
    (rolled again by the replay)."""
    rolls = 0
    dice_keys: dict[int, bytes] = {}
    for res, _ in resolutions:
        stream = dicev1.DiceStream(dice_keys.setdefault(res["k"], _dice_key(game_id, res)))
        for i, roll in enumerate(res["rolls"]):
            if roll["index"] != i:
                raise AuditFailure(f"resolution {res['k']}: roll numbered {roll['index']}, expected {i}")
            value = stream.roll(roll["sides"], roll["purpose"])
            if value != roll["value"]:
                raise AuditFailure(
                    f"resolution {res['k']}, roll {i} ({roll['purpose']}): d{roll['sides']} recomputes to "
                    f"{value}, archive says {shown(roll['value'])}"
                )
            rolls += 1
    return rolls, dice_keys


def _opening_position(archive: dict[str, Any], ruleset: Ruleset) -> tuple[Position, dict[str, Any]]:
    """The game as set up, with its house tables, checked against the archive's
    initial hash; and those tables."""
    game = archive["game"]
    position = ruleset.setup(game["scenario"], list(game["options"]))
    tables = dict(game.get("tables") or {})
    if tables:
        try:
            position = ruleset.with_house_tables(position, tables)
        except TableError as exc:
            raise AuditFailure(f"game.tables: a house table does not fit {game['rules']}: {exc}") from None
        if sorted(house_tables.of_position(position)) != sorted(tables):
            same = sorted(set(tables) - set(house_tables.of_position(position)))
            raise AuditFailure(
                f"game.tables: {', '.join(same)} equal the shipped table (an archive lists only tables that differ)"
            )
    initial = archive["initial_state_hash"]
    if position_hash(position) != initial:
        played = f" with house tables {', '.join(sorted(tables))}" if tables else " with the shipped tables"
        raise AuditFailure(f"set-up: position hash {position_hash(position)}{played}, archive says {shown(initial)}")
    return position, tables


def _replay(
    archive: dict[str, Any],
    resolutions: _Resolutions,
    turn_files: dict[tuple[int, str], TurnFile],
    dice_keys: dict[int, bytes],
) -> tuple[Ruleset, dict[str, Any], Position]:
    """5. The whole game replayed from its set-up; the ruleset, the house tables and
    the last active position."""
    ruleset = _installed_ruleset(archive["game"])
    position, tables = _opening_position(archive, ruleset)
    initial = archive["initial_state_hash"]
    positions = {initial: position}
    last_active = initial
    for res, active in resolutions:
        prev = res.get("previous_state_hash", last_active)
        start = positions.get(prev)
        if start is None:
            raise AuditFailure(f"resolution {res['k']}: cannot find its starting position {prev}")
        orders = _replayed_orders(ruleset, start, res, turn_files)
        try:
            orders.update(civil.bot_orders(archive["game"]["id"], ruleset, start, res))
        except civil.BotOrdersFailure as exc:
            raise AuditFailure(str(exc)) from None
        stream = dicev1.DiceStream(dice_keys[res["k"]])
        result = ruleset.resolve_validated(start, orders, stream)  # each file was validated by _replayed_orders
        _check_replay(res, stream, result)
        new_hash = position_hash(result.position)
        positions[new_hash] = result.position
        if active:
            last_active = new_hash
    return ruleset, tables, positions[last_active]


def _installed_ruleset(game: dict[str, Any]) -> Ruleset:
    """The installed ruleset the game plays, refused by name when it is not the
    version the game was played with (``game.rules_version``; an archive without
    it was made before games recorded it, with version 1 of the shipped games)."""
    ruleset = find_ruleset(game["rules"])
    played = game.get("rules_version")
    if played is not None and str(played) != ruleset.version:
        raise AuditFailure(
            f"game.rules_version: the game was played with {game['rules']} version {played}, and the "
            f"{game['rules']} installed here is version {ruleset.version}: audit it with the version it was played with"
        )
    return ruleset


def _replayed_orders(
    ruleset: Ruleset, start: Position, res: dict[str, Any], turn_files: dict[tuple[int, str], TurnFile]
) -> dict[str, Orders]:
    """Each due side's orders in one resolution, parsed and validated as the referee did."""
    orders: dict[str, Orders] = {side: NO_ORDERS for side in ruleset.due(start)}
    for sub in res["submissions"]:
        tf = turn_files[res["k"], sub["side"]]
        if tf.side not in orders:
            raise AuditFailure(
                f"resolution {res['k']}: a turn file from {tf.side}, who was not due (due: {', '.join(orders)})"
            )
        parsed, problems = ruleset.parse_orders(tf.body)
        problems = problems or ruleset.validate(start, tf.side, parsed)
        if problems:
            raise AuditFailure(f"resolution {res['k']}, {tf.side} turn file: orders are not legal: {problems[0]}")
        orders[tf.side] = parsed
    return orders


def _check_replay(res: dict[str, Any], stream: dicev1.DiceStream, result: Resolution) -> None:
    """The replay asked for the archive's rolls, gave its events and its position."""
    replayed = [(r.sides, r.value, r.purpose) for r in stream.rolls]
    recorded = [(r["sides"], r["value"], r["purpose"]) for r in res["rolls"]]
    if replayed != recorded:
        first = next(
            (i for i, (a, b) in enumerate(zip(replayed, recorded)) if a != b), min(len(replayed), len(recorded))
        )
        raise AuditFailure(
            f"resolution {res['k']}, roll {first}: replay asks for "
            f"{replayed[first] if first < len(replayed) else 'no roll'}, archive has "
            f"{recorded[first] if first < len(recorded) else 'no roll'}"
        )
    if canonical_json(result.events) != canonical_json(res["events"]):
        raise AuditFailure(f"resolution {res['k']}: replayed events differ from the archive's")
    new_hash = position_hash(result.position)
    if new_hash != res["state_hash"]:
        raise AuditFailure(
            f"resolution {res['k']}: replay gives position {new_hash}, archive says {shown(res['state_hash'])}"
        )


def _rollback_notes(archive: dict[str, Any]) -> tuple[str, ...]:
    return tuple(
        f"to resolution {g['to']} at {g.get('at', '?')}: set aside "
        + ", ".join(f"{r['k']} ({r.get('label', 'no label')})" for r in g.get("resolutions", []))
        for g in archive.get("set_aside", [])
    )


def _player_notes(archive: dict[str, Any]) -> tuple[str, ...]:
    return tuple(
        f"{c['side']} from resolution {c['from_k']} ({c.get('at', '?')}): "
        + "; ".join(
            ([f"address {c.get('previous_email') or 'none'} -> {c['email']}"] if "email" in c else [])
            + ([f"key {keys.PublicKey.from_openssh(c['public_key']).fingerprint()}"] if c.get("public_key") else [])
        )
        for c in archive.get("player_changes", [])
    )


def _keys_by_resolution(archive: dict[str, Any]) -> Callable[[str, int], keys.PublicKey]:
    """The key each side signed with for resolution k: ``player_changes`` (an
    addition to v1) says from which resolution a new key holds; before the first
    change, its ``previous_public_key``; with no change, the player's key."""
    current = {p["side"]: p["public_key"] for p in archive["players"]}
    changes = sorted((c for c in archive.get("player_changes", []) if c.get("public_key")), key=lambda c: c["from_k"])
    cache: dict[str, keys.PublicKey] = {}

    def parse(line: str) -> keys.PublicKey:
        if line not in cache:
            cache[line] = keys.PublicKey.from_openssh(line)
        return cache[line]

    def key_at(side: str, k: int) -> keys.PublicKey:
        mine = [c for c in changes if c["side"] == side]
        line = mine[0]["previous_public_key"] if mine else current[side]
        for c in mine:
            if c["from_k"] <= k:
                line = c["public_key"]
        return parse(line)

    return key_at


def _check_nmr(resolutions: list[tuple[dict[str, Any], bool]]) -> list[tuple[str, str]]:
    """Each resolution with a side that sent nothing: a deadline's record must
    name exactly those sides, none of which has a file in it, resolved at or
    after the end of grace.  Each as a note and as a few words for the verdict."""
    notes = []
    for res, _active in resolutions:
        nmr = list(res.get("nmr", []))
        record = res.get("deadline")
        if record is not None:
            if sorted(record.get("sides", [])) != sorted(nmr):
                raise AuditFailure(
                    f"resolution {res['k']}: the deadline record names {record.get('sides')}, the resolution's "
                    f"no-moves sides are {nmr}"
                )
            sent = {s["side"] for s in res["submissions"]} & set(nmr)
            if sent:
                raise AuditFailure(
                    f"resolution {res['k']}: {', '.join(sorted(sent))} resolved with no orders but has a turn "
                    "file in it"
                )
            if not (record["deadline"] <= record["grace_until"] <= record["resolved_at"]):
                raise AuditFailure(
                    f"resolution {res['k']}: resolved at {record['resolved_at']}, before the end of grace "
                    f"{record['grace_until']} (deadline {record['deadline']})"
                )
            times = f"deadline {record['deadline']}, grace until {record['grace_until']}"
            notes.append(
                (
                    f"resolution {res['k']}: {', '.join(nmr)} ({times}, resolved {record['resolved_at']})",
                    f"{' and '.join(nmr)} at resolution {res['k']} (missed the deadline {record['deadline']})",
                )
            )
        elif nmr:
            notes.append(
                (
                    f"resolution {res['k']}: {', '.join(nmr)} (resolved with no orders by the referee)",
                    f"{' and '.join(nmr)} at resolution {res['k']} (forced by the referee)",
                )
            )
    return notes


def _dice_key(game_id: str, res: dict[str, Any]) -> bytes:
    messages = [s["turn_file"].encode("utf-8") for s in sorted(res["submissions"], key=lambda s: s["side"])]
    return dicev1.dice_key(bytes.fromhex(res["reveal"]), game_id, res["k"], messages)
