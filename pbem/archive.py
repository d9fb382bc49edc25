"""The game archive, version 1 (DESIGN.md, "Archive, version 1"; docs/formats.md).

Everything an auditor needs and nothing secret: no seed, no reveal of a
resolution not yet processed.  Additions to the printed format, all optional for
a reader of v1: each resolution's ``previous_state_hash``, ``turn_label`` and
``nmr``; ``set_aside`` (resolutions discarded by ``pbem rollback``, grouped by
rollback); ``game.chain_length`` is in ``dice``; ``dice.extensions`` (the chains
committed by ``pbem extend``, each with ``first_k``, ``chain_length`` and ``anchor``);
``game.tables``, the house tables the game plays by name (``{}`` for the shipped
tables; pbem/house_tables.py);
for a resolution made at the end of a deadline's grace, ``deadline`` (the
deadline, the end of grace, the time it was resolved and the sides that sent
nothing); ``player_changes`` (``pbem player``: a side's new address or key, from
which resolution on).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import dice_chains, house_tables, limits, store

ARCHIVE_FORMAT = "pbem-archive/1"


def _iso(when: datetime) -> str:
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat().replace("+00:00", "Z")


def _resolution_json(session: Session, game_id: str, row: store.Resolution, late: dict[int, store.LateTurn] | None = None) -> dict[str, Any]:
    wanted = store.SubmissionStatus.RESOLVED if row.active else store.SubmissionStatus.SET_ASIDE
    subs = [s for s in store.submissions_for(session, game_id, row.k, wanted)]
    out = _resolution_fields(session, game_id, row, subs)
    lt = (late or {}).get(row.k)
    if lt is not None:
        out["deadline"] = {"deadline": _iso(lt.deadline), "grace_until": _iso(lt.grace_until), "resolved_at": _iso(lt.resolved_at), "sides": json.loads(lt.sides)}
    return out


def _resolution_fields(session: Session, game_id: str, row: store.Resolution, subs: list[store.Submission]) -> dict[str, Any]:
    return {
        "k": row.k,
        "label": row.label,
        "reveal": row.reveal,
        "previous_state_hash": row.previous_state_hash,
        "nmr": json.loads(row.nmr),
        "submissions": [
            {"side": s.side, "turn_file": s.message.decode("utf-8"), "signature": s.signature}
            for s in sorted(subs, key=lambda s: s.side)
        ],
        "rolls": [
            {"index": r.idx, "sides": r.sides, "value": r.value, "purpose": r.purpose} for r in store.rolls_for(session, game_id, row.k)
        ],
        "state_hash": row.state_hash,
        "events": json.loads(row.events),
    }


def build_archive(engine: Engine, game_id: str) -> dict[str, Any]:
    with store.reading(engine) as session:
        game = store.get_game(session, game_id)
        rows = store.all_resolutions(session, game_id)
        chains = dice_chains.public_chains(game, store.dice_chains(session, game_id))
        rollbacks = list(session.exec(select(store.Rollback).where(store.Rollback.game_id == game_id).order_by(store.Rollback.id)).all())
        late = {lt.k: lt for lt in session.exec(select(store.LateTurn).where(store.LateTurn.game_id == game_id)).all()}
        changes = list(session.exec(select(store.PlayerChange).where(store.PlayerChange.game_id == game_id).order_by(store.PlayerChange.id)).all())
        return {
            "format": ARCHIVE_FORMAT,
            "game": {
                "id": game.id,
                "rules": game.rules,
                "scenario": game.scenario,
                "options": game.option_list(),
                "created": game.created.isoformat(),
                "tables": house_tables.game_tables(session, game_id),
            },
            "players": [{"side": p.side, "public_key": p.public_key, "email": p.email} for p in store.players(session, game_id)],
            "dice": {
                "version": 1,
                "chain_length": game.chain_length,
                "anchor": game.anchor,
                **({"extensions": [e.to_json() for e in chains[1:]]} if len(chains) > 1 else {}),
            },
            "initial_state_hash": game.initial_state_hash,
            "resolutions": [_resolution_json(session, game_id, r, late) for r in rows if r.active],
            "set_aside": [
                {
                    "to": rb.to_k,
                    "at": rb.at.isoformat(),
                    "resolutions": [_resolution_json(session, game_id, r, late) for r in rows if r.rollback_id == rb.id],
                }
                for rb in rollbacks
            ],
            "player_changes": [
                {
                    "side": c.side,
                    "from_k": c.from_k,
                    "at": _iso(c.at),
                    **({"email": c.email, "previous_email": c.previous_email} if c.email is not None else {}),
                    **({"public_key": c.public_key, "previous_public_key": c.previous_public_key} if c.public_key is not None else {}),
                }
                for c in changes
            ],
            "final": {"over": game.over, "result": json.loads(game.result) if game.result else None},
        }


def export(engine: Engine, game_id: str, path: Path) -> dict[str, Any]:
    archive = build_archive(engine, game_id)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(archive, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
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
        raise ValueError(f"archive {path} holds {len(resolutions)} resolutions, over the limit of {MAX_ARCHIVE_RESOLUTIONS}")
    if not isinstance(archive, dict) or archive.get("format") != ARCHIVE_FORMAT:
        raise ValueError(f"{path} is not a {ARCHIVE_FORMAT} archive (format: {archive.get('format') if isinstance(archive, dict) else None!r})")
    return archive
