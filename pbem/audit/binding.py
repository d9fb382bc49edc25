"""An audit bound to what the player holds: the anchor and the keys.

An archive that is consistent in itself proves nothing to a player unless it is
the game he played: a referee could re-forge a whole game (new keys, new chain,
every signature and die consistent).  What the player was sent before any die was
rolled, the dice commitment (the anchor, printed in every report) and each side's
key fingerprint (``SHA256:...``, also in every report), binds the archive to that
game: ``pbem audit --archive A --anchor HEX --key SIDE=PUBFILE`` fails naming what
differs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbem.turnfiles import keys

_ANCHOR = re.compile(r"^[0-9a-f]{64}$")


def archive_keys(archive: Mapping[str, Any], side: str) -> list[str]:
    """Every key ``side`` signed with in the game (its first, any changed, its last)."""
    lines = [p["public_key"] for p in archive.get("players", []) if p.get("side") == side]
    for change in archive.get("player_changes", []):
        if change.get("side") == side:
            lines += [change[k] for k in ("previous_public_key", "public_key") if change.get(k)]
    return list(dict.fromkeys(lines))


def _fingerprint(line: str, where: str) -> str:
    try:
        return keys.PublicKey.from_openssh(line.strip()).fingerprint()
    except ValueError as exc:
        raise ValueError(f"{where}: not an OpenSSH public key ({exc})") from None


def binding_problems(
    archive: Mapping[str, Any], anchors: Iterable[str], held: Mapping[str, str], chain_anchors: Sequence[str]
) -> list[str]:
    """What differs between the archive and what the player holds: each anchor
    given must be the anchor of one of the archive's dice chains; each side's key
    (an OpenSSH line) must be a key that side signed with in the archive."""
    problems = []
    known = [a.lower() for a in chain_anchors]
    for anchor in anchors:
        wanted = anchor.strip().lower()
        if not _ANCHOR.match(wanted):
            raise ValueError(f"--anchor {anchor!r} is not 64 hex digits (the anchor a report prints)")
        if wanted not in known:
            problems.append(
                f"the dice commitment differs: you hold anchor {wanted}, the archive's is {' / '.join(known)}"
            )
    sides = [p.get("side") for p in archive.get("players", [])]
    for side, line in held.items():
        mine = _fingerprint(line, f"--key {side}")
        if side not in sides:
            problems.append(f"--key {side}: {side!r} is not a side of this archive (its sides: {', '.join(sides)})")
            continue
        theirs = [_fingerprint(k, f"the archive's key of {side}") for k in archive_keys(archive, side)]
        if mine not in theirs:
            problems.append(f"the key of {side} differs: you hold {mine}, the archive has {' / '.join(theirs)}")
    return problems


def bound_lines(anchors: Iterable[str], held: Mapping[str, str]) -> tuple[str, ...]:
    """What the audit was bound to, for its summary."""
    out = [f"anchor {a.strip().lower()} (as you hold it)" for a in anchors]
    out += [f"{side} key {_fingerprint(line, f'--key {side}')} (as you hold it)" for side, line in held.items()]
    return tuple(out)
