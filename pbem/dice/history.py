"""A game's dice history for ``pbem dice``: every roll with its resolution, index,
die, value and purpose, from the store or from an exported archive (the archive
needs no database: a player or an auditor reads the dice offline)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pbem import store
from pbem.store.transaction import transaction

if TYPE_CHECKING:
    from pbem.store.database import Database


@dataclass(frozen=True)
class DiceHistory:
    game: str
    anchor: str
    rolls: list[dict[str, Any]]  # resolution, index, sides, value, purpose, set_aside


def from_store(db: Database, game_id: str) -> DiceHistory:
    """Every roll the store holds for the game, set-aside resolutions' included
    (and marked), in one statement."""
    with transaction(db, write=False) as tx:
        game = tx.one("SELECT id, anchor FROM game WHERE id = :game", {"game": game_id})
        if game is None:
            raise store.unknown_game(game_id, store.known_game_ids(tx))
        rows = tx.all(
            "SELECT ro.k, ro.idx, ro.sides, ro.value, ro.purpose, re.active FROM roll ro"
            " LEFT JOIN resolution re ON re.game_id = ro.game_id AND re.k = ro.k"
            " WHERE ro.game_id = :game ORDER BY ro.k, ro.idx",
            {"game": game_id},
        )
    rolls = [
        {
            "resolution": k,
            "index": idx,
            "sides": sides,
            "value": value,
            "purpose": purpose,
            "set_aside": active is not None and not active,
        }
        for k, idx, sides, value, purpose, active in rows
    ]
    return DiceHistory(game[0], game[1], rolls)


def from_archive(archive: dict[str, Any]) -> DiceHistory:
    """Every roll an archive (pbem-archive/1) carries, set-aside resolutions' marked."""
    try:
        resolutions = [(r, False) for r in archive["resolutions"]]
        resolutions += [(r, True) for group in archive.get("set_aside", []) for r in group["resolutions"]]
        rolls = [
            {
                "resolution": r["k"],
                "index": roll["index"],
                "sides": roll["sides"],
                "value": roll["value"],
                "purpose": roll["purpose"],
                "set_aside": aside,
            }
            for r, aside in sorted(resolutions, key=lambda item: item[0]["k"])
            for roll in r["rolls"]
        ]
        return DiceHistory(archive["game"]["id"], archive["dice"]["anchor"], rolls)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"archive is malformed: {type(exc).__name__}: {exc}") from None
