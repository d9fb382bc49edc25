"""The game archive, version 1 (docs/design.md, "Archive, version 1"; docs/formats.md).

Everything an auditor needs and nothing secret: no seed, no reveal of a
resolution not yet processed.  Additions to the printed format, all optional for
a reader of v1: each resolution's ``previous_state_hash``, ``turn_label`` and
``nmr``; ``set_aside`` (resolutions discarded by ``pbem rollback``, grouped by
rollback); ``game.chain_length`` is in ``dice``; ``dice.extensions`` (the chains
committed by ``pbem extend``, each with ``first_k``, ``chain_length`` and ``anchor``);
``game.tables``, the house tables the game plays by name (``{}`` for the shipped
tables; pbem/store/house_tables.py);
for a resolution made at the end of a deadline's grace, ``deadline`` (the
deadline, the end of grace, the time it was resolved and the sides that sent
nothing); ``player_changes`` (``pbem player``: a side's new address or key, from
which resolution on); a resolution's ``civil_disorder`` (the orders the greedy bot
wrote for a side in civil disorder, with its bot and seed), and the game's
``civil_disorder`` periods and ``allowances``; ``observers`` (each address as its
SHA-256, when added and removed).  These last keys are present only when not empty.
``ledger``, the referee's acts as a hash chain
(pbem/referee/ledger.py), each entry with its ``seq``, ``act``, ``time``,
``details``, ``previous`` hash, ``hash`` and ``signature``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import limits, paths, store
from pbem.audit.errors import shown
from pbem.dice import chains as dice_chains
from pbem.store.sql import Tx
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from pbem.store.database import Database

ARCHIVE_FORMAT = "pbem-archive/1"


def _iso(when: datetime | str) -> str:
    when = store.as_datetime(when)
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).isoformat().replace("+00:00", "Z")


def build_archive(engine: Database, game_id: str) -> dict[str, Any]:
    """The archive of one game, read in one transaction with a fixed number of
    statements however long the game (tests/test_costs.py counts them).
    ``game.tables``: the house tables the game plays, as ``house_tables.game_tables``
    reads them."""
    with transaction(engine, write=False) as tx:
        return _archive(tx, game_id)


def _archive(tx: Tx, game_id: str) -> dict[str, Any]:
    game = tx.one(
        "SELECT id, rules, scenario, options, created, chain_length, anchor, initial_state_hash, over, result,"
        " rules_version FROM game WHERE id = :game",
        {"game": game_id},
    )
    if game is None:
        raise store.unknown_game(game_id, store.known_game_ids(tx))
    gid, rules, scenario, options, created, chain_length, anchor, initial_state_hash, over, result, version = game
    players = tx.all(
        "SELECT side, public_key, email FROM player WHERE game_id = :game ORDER BY side", {"game": game_id}
    )
    resolutions = tx.all(
        "SELECT k, label, reveal, previous_state_hash, nmr, state_hash, events, active, rollback_id FROM "
        "resolution WHERE game_id = :game ORDER BY k",
        {"game": game_id},
    )
    from pbem.referee import disorder  # only where an archive is built: 'pbem dice --archive' reads one

    parts = _ResolutionParts(_files(tx, game_id), _rolls(tx, game_id), {}, disorder.turns_by_k(tx, game_id))
    rollbacks = tx.all("SELECT id, to_k, at FROM rollback WHERE game_id = :game ORDER BY id", {"game": game_id})
    extensions = [dice_chains.PublicChain(*row) for row in store.chain_anchors(tx, game_id)]
    parts.late.update(_late_turns(tx, game_id))
    changes = _player_changes(tx, game_id)
    return {
        "format": ARCHIVE_FORMAT,
        "game": {
            "id": gid,
            "rules": rules,
            "rules_version": version,
            "scenario": scenario,
            "options": list(json.loads(options)),
            "created": store.as_datetime(created).isoformat(),
            "tables": {
                name: json.loads(data)
                for name, data in tx.all(
                    "SELECT name, data FROM house_table WHERE game_id = :game ORDER BY name", {"game": game_id}
                )
            },
        },
        "players": [{"side": side, "public_key": key, "email": email} for side, key, email in players],
        "dice": {
            "version": 1,
            "chain_length": chain_length,
            "anchor": anchor,
            **({"extensions": [e.to_json() for e in extensions]} if extensions else {}),
        },
        "initial_state_hash": initial_state_hash,
        "resolutions": [parts.resolution_json(r) for r in resolutions if r[7]],
        "set_aside": [
            {
                "to": to_k,
                "at": store.as_datetime(at).isoformat(),
                "resolutions": [parts.resolution_json(r) for r in resolutions if r[8] == rollback_id],
            }
            for rollback_id, to_k, at in rollbacks
        ],
        "player_changes": changes,
        **_joining_and_leaving(tx, game_id),
        "ledger": _ledger(tx, game_id),
        "final": {"over": bool(over), "result": json.loads(result) if result else None},
    }


def _joining_and_leaving(tx: Tx, game_id: str) -> dict[str, Any]:
    """The archive's ``allowances``, ``civil_disorder`` periods and ``observers``,
    each only when there is something to say."""
    from pbem.referee import disorder, observers

    limit = disorder.threshold(tx, game_id)
    periods = disorder.periods(tx, game_id)
    watching = observers.archived(tx, game_id)
    return {
        **({"allowances": {"civil_disorder": limit}} if limit is not None else {}),
        **({"civil_disorder": periods} if periods else {}),
        **({"observers": watching} if watching else {}),
    }


@dataclass
class _ResolutionParts:
    """What one resolution's entry gathers from other tables: its signed files (by
    turn and status), its rolls, its missed deadline."""

    files: dict[tuple[int, str], list[dict[str, str]]]
    rolls: dict[int, list[dict[str, Any]]]
    late: dict[int, dict[str, Any]]
    bots: dict[int, list[dict[str, Any]]]

    def resolution_json(self, row: Any) -> dict[str, Any]:
        k, label, reveal, previous, nmr, state_hash, events, active, _rollback = row
        wanted = store.SubmissionStatus.RESOLVED if active else store.SubmissionStatus.SET_ASIDE
        return {
            "k": k,
            "label": label,
            "reveal": reveal,
            "previous_state_hash": previous,
            "nmr": json.loads(nmr),
            "submissions": self.files.get((k, wanted.name), []),
            "rolls": self.rolls.get(k, []),
            "state_hash": state_hash,
            "events": json.loads(events),
            **({"deadline": self.late[k]} if k in self.late else {}),
            **({"civil_disorder": self.bots[k]} if k in self.bots else {}),
        }


def _files(tx: Tx, game_id: str) -> dict[tuple[int, str], list[dict[str, str]]]:
    """Every resolved or set-aside turn file, by turn and status, in side order."""
    files: dict[tuple[int, str], list[dict[str, str]]] = defaultdict(list)
    for turn, status, side, message, signature in tx.all(
        "SELECT turn, status, side, message, signature FROM submission WHERE game_id = :game AND status IN "
        "(:resolved, :set_aside) ORDER BY side, id",
        {
            "game": game_id,
            "resolved": store.SubmissionStatus.RESOLVED.name,
            "set_aside": store.SubmissionStatus.SET_ASIDE.name,
        },
    ):
        files[(turn, status)].append(
            {"side": side, "turn_file": bytes(message).decode("utf-8"), "signature": signature}
        )
    return files


def _rolls(tx: Tx, game_id: str) -> dict[int, list[dict[str, Any]]]:
    rolls: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for k, idx, sides, value, purpose in tx.all(
        "SELECT k, idx, sides, value, purpose FROM roll WHERE game_id = :game ORDER BY k, idx", {"game": game_id}
    ):
        rolls[k].append({"index": idx, "sides": sides, "value": value, "purpose": purpose})
    return rolls


def _late_turns(tx: Tx, game_id: str) -> dict[int, dict[str, Any]]:
    """The resolutions whose deadline passed with a side missing."""
    return {
        k: {
            "deadline": _iso(deadline),
            "grace_until": _iso(grace_until),
            "resolved_at": _iso(resolved_at),
            "sides": json.loads(sides),
        }
        for k, deadline, grace_until, resolved_at, sides in tx.all(
            "SELECT k, deadline, grace_until, resolved_at, sides FROM late_turn WHERE game_id = :game",
            {"game": game_id},
        )
    }


def _player_changes(tx: Tx, game_id: str) -> list[dict[str, Any]]:
    return [
        {
            "side": side,
            "from_k": from_k,
            "at": _iso(at),
            **({"email": email, "previous_email": previous_email} if email is not None else {}),
            **(
                {"public_key": public_key, "previous_public_key": previous_public_key} if public_key is not None else {}
            ),
        }
        for side, from_k, at, email, previous_email, public_key, previous_public_key in tx.all(
            "SELECT side, from_k, at, email, previous_email, public_key, previous_public_key FROM player_change "
            "WHERE game_id = :game ORDER BY id",
            {"game": game_id},
        )
    ]


def _ledger(tx: Tx, game_id: str) -> list[dict[str, Any]]:
    return [
        {
            "seq": seq,
            "act": act,
            "time": time,
            "details": json.loads(details),
            "previous": previous,
            "hash": digest,
            "signature": signature,
        }
        for seq, act, time, details, previous, digest, signature in tx.all(
            "SELECT seq, act, time, details, previous, hash, signature FROM ledger WHERE game_id = :game ORDER BY seq",
            {"game": game_id},
        )
    ]


def export(engine: Database, game_id: str, path: Path) -> dict[str, Any]:
    archive = build_archive(engine, game_id)
    paths.replace_file(path, json.dumps(archive, indent=1, ensure_ascii=False) + "\n")
    return archive


MAX_ARCHIVE_BYTES = 32 * 1024 * 1024
"""The largest archive read (a whole shipped game exports 40-100 KB)."""
MAX_ARCHIVE_CONTAINERS = 500_000
"""Objects and arrays at most (counted as '{' and '[' bytes before parsing, which
bounds the memory a parse can take; a shipped game has under 1,000)."""
MAX_ARCHIVE_RESOLUTIONS = 100_000
MAX_NUMBER_DIGITS = 20


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {len(text)} digits (an archive's numbers have at most {MAX_NUMBER_DIGITS})")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number an archive holds")


def load(path: Path) -> dict[str, Any]:
    """Read an archive within its limits (size, containers, nesting, numbers,
    resolutions, parse time); anything past them is refused, naming the limit."""
    try:
        size = path.stat().st_size
        if size > MAX_ARCHIVE_BYTES:
            raise ValueError(f"{size} bytes, over the limit of {MAX_ARCHIVE_BYTES} bytes: not read")
        raw = path.read_bytes()
        containers = raw.count(b"{") + raw.count(b"[")
        if containers > MAX_ARCHIVE_CONTAINERS:
            raise ValueError(f"{containers} objects and arrays, over the limit of {MAX_ARCHIVE_CONTAINERS}: not parsed")
        with limits.time_limit(limits.ARCHIVE_PARSE_SECONDS, f"archive {path}"):
            archive = json.loads(raw.decode("utf-8"), parse_int=_bounded_int, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"cannot read archive {path}: nested too deeply to be an archive") from None
    except (OSError, UnicodeDecodeError, ValueError, limits.TimeLimit) as exc:
        raise ValueError(f"cannot read archive {path}: {exc}") from None
    resolutions = archive.get("resolutions") if isinstance(archive, dict) else None
    if isinstance(resolutions, list) and len(resolutions) > MAX_ARCHIVE_RESOLUTIONS:
        raise ValueError(
            f"archive {path} holds {len(resolutions)} resolutions, over the limit of {MAX_ARCHIVE_RESOLUTIONS}"
        )
    if not isinstance(archive, dict) or archive.get("format") != ARCHIVE_FORMAT:
        found = archive.get("format") if isinstance(archive, dict) else None
        raise ValueError(f"{path} is not a {ARCHIVE_FORMAT} archive (format: {shown(found)})")
    return archive
