"""``pbem audit``'s check of the referee's ledger (archive key ``ledger``;
pbem/referee/ledger.py): the chain itself, then what the rest of the archive
shows the referee did, each of which must be an entry of it."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.referee.ledger import LedgerError, check_chain
from pbem.store import house_tables


def check_ledger(archive: dict[str, Any]) -> tuple[str, ...]:
    """Notes for the audit's summary; :class:`LedgerError` names the entry at fault."""
    items = archive.get("ledger")
    if not items:
        return ("none (the game was created before pbem kept a ledger)",)
    if not isinstance(items, list):
        raise LedgerError("ledger: not a list of entries")
    entries = check_chain(items)
    if entries[0].act == "new":
        _check_new(archive, entries[0].details)
    acts = Counter(e.act for e in entries)
    _check_shown(archive, [e for e in entries])
    signed = items[0].get("signature") is not None
    how = f"signed by {entries[0].details.get('referee_key', '').split(' ')[1][:16]}..." if signed else "unsigned"
    listed = ", ".join(f"{n} {act}" for act, n in sorted(acts.items()))
    return (f"{len(entries)} entries chained, {how}: {listed}",)


def _check_new(archive: dict[str, Any], details: dict[str, Any]) -> None:
    """The ``new`` entry is this game's: its id, dice anchor and opening position."""
    for field, want in (
        ("game", archive["game"]["id"]),
        ("anchor", archive["dice"]["anchor"]),
        ("initial_state_hash", archive["initial_state_hash"]),
    ):
        if details.get(field) != want:
            raise LedgerError(f"ledger entry 1 (new): {field} is {details.get(field)!r}, the archive's is {want!r}")


def _check_shown(archive: dict[str, Any], entries: list[Any]) -> None:
    """Every rollback, forced or deadline NMR, player change, dice extension and
    house table the archive shows has its entry in the ledger."""
    by_act: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        by_act.setdefault(e.act, []).append(e.details)
    rollbacks = [(d.get("to"), d.get("set_aside")) for d in by_act.get("rollback", [])]
    for group in archive.get("set_aside", []):
        shown = (group["to"], sorted(r["k"] for r in group.get("resolutions", [])))
        if shown not in rollbacks:
            raise LedgerError(
                f"ledger: no rollback entry for the rollback to resolution {group['to']} the archive shows"
            )
    nmr = {d.get("k") for d in by_act.get("nmr", [])}
    for res in archive.get("resolutions", []):
        if res.get("nmr") and res["k"] not in nmr:
            raise LedgerError(f"ledger: no nmr entry for resolution {res['k']} (no moves from {', '.join(res['nmr'])})")
    changes = archive.get("player_changes", [])
    if len(by_act.get("player", [])) < len(changes):
        raise LedgerError(
            f"ledger: {len(by_act.get('player', []))} player entries for {len(changes)} player changes in the archive"
        )
    anchors = {d.get("anchor") for d in by_act.get("extend", [])}
    for chain in archive["dice"].get("extensions", []):
        if chain["anchor"] not in anchors:
            raise LedgerError(f"ledger: no extend entry for the dice chain from resolution {chain['first_k']}")
    tables = {d.get("name"): d.get("sha256") for d in by_act.get("house-table", [])}
    for name, data in archive["game"].get("tables", {}).items():
        if tables.get(name) != house_tables.digest(data):
            raise LedgerError(f"ledger: no house-table entry for {name} (sha256 {house_tables.digest(data)})")
