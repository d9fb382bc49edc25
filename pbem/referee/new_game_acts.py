"""The ledger's entries of a game's creation: the game as created with the key that
signs its acts (``new``), and each house table it plays (``house-table``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pbem.referee import ledger
from pbem.referee.absences import Limits
from pbem.store.sql import Tx
from pbem.turnfiles import keys

if TYPE_CHECKING:
    from pbem import store
    from pbem.referee.lifecycle import ClockSettings


def record_new(
    tx: Tx,
    game: store.GameState,
    options: list[str],
    parsed_keys: Mapping[str, keys.PublicKey],
    emails: Mapping[str, str],
    clock: ClockSettings | None,
    limits: Limits,
    referee_key: ledger.RefereeKey | None,
) -> None:
    """The ledger's first entry: the game as created, and the key that signs its acts."""
    details = {
        "game": game.id,
        "rules": game.rules,
        "scenario": game.scenario,
        "options": options,
        "anchor": game.anchor,
        "chain_length": game.chain_length,
        "initial_state_hash": game.state_hash,
        "players": [
            {"side": side, "public_key": parsed_keys[side].openssh(), "email": emails.get(side)}
            for side in sorted(parsed_keys)
        ],
        "clock": None
        if clock is None
        else {"deadline": clock.deadline, "grace": clock.grace, "remind": clock.remind, "wait": clock.wait},
        "limits": limits.to_json(),
        "referee_key": referee_key.public.openssh() if referee_key else None,
    }
    signed = f", its acts signed by {referee_key.public.fingerprint()}" if referee_key else ""
    ledger.record(tx, game.id, "new", details, referee_key, summary=f"game {game.id} created{signed}")


def record_tables(tx: Tx, game_id: str, played: Mapping[str, Any], referee_key: ledger.RefereeKey | None) -> None:
    """A ``house-table`` entry for each table the game plays instead of the shipped one."""
    from pbem.store import house_tables

    for name in sorted(played):
        sha = house_tables.digest(played[name])
        ledger.record(
            tx,
            game_id,
            "house-table",
            {"name": name, "sha256": sha},
            referee_key,
            summary=f"the game plays house table {name} (sha256 {sha})",
        )
