"""Nothing secret in an archive: no field named like the seed, and no value of a
dice chain not yet revealed (the audit's step 0, and what an auditor can run on
any archive); the public chains an archive commits to."""

from __future__ import annotations

import re
from typing import Any, Union

from pbem import dice as dicev1
from pbem.audit.errors import AuditFailure
from pbem.dice import chains as dice_chains


def all_resolutions(archive: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    items = [(r, True) for r in archive.get("resolutions", [])]
    for group in archive.get("set_aside", []):
        items.extend((r, False) for r in group.get("resolutions", []))
    return sorted(items, key=lambda item: item[0]["k"])


SECRET_FIELDS = frozenset({"seed", "seed_checkpoints", "checkpoints"})


MAX_UNEXPLAINED_VALUES = 256
"""An archive from pbem carries no 32-byte hex value but its hashes and reveals;
a player may quote a few in a comment.  Past this many, the archive is refused
rather than hashed down every chain for each."""


_HEX_RUN = re.compile(r"[0-9a-fA-F]{64,}")


def leaked_secrets(archive: dict[str, Any], chains: list[dice_chains.PublicChain]) -> list[str]:
    """Where the archive carries something secret: a field named like the seed, or
    any value of a dice chain not yet revealed (the seed, a checkpoint, a future
    reveal), found by hashing every unexplained 32-byte hex value down the chains.
    ``pbem export`` writes none; a referee's mistake or a doctored export would."""
    resolutions = all_resolutions(archive)
    public = {c.anchor.lower() for c in chains} | {str(r.get("reveal", "")).lower() for r, _ in resolutions}
    public |= {str(h).lower() for r, _ in resolutions for h in (r.get("state_hash"), r.get("previous_state_hash"))}
    public.add(str(archive.get("initial_state_hash", "")).lower())
    frontier: dict[bytes, str] = {}  # the last published link of each chain
    for chain in chains:
        served = [r for r, _ in resolutions if chain.first_k <= r["k"] <= chain.last_k]
        last = bytes.fromhex(max(served, key=lambda r: r["k"])["reveal"]) if served else bytes.fromhex(chain.anchor)
        frontier[last] = f"the chain from resolution {chain.first_k}"
    longest = max(c.chain_length for c in chains)
    found: list[str] = []
    candidates: dict[str, _Where] = {}
    stack: list[tuple[_Where, Any]] = [("archive", archive)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in SECRET_FIELDS and item:
                    found.append(
                        f"{_spelt(where)}.{key}: a field named {key!r} (an archive carries no seed or checkpoint)"
                    )
                if _may_hold_hex(item):
                    stack.append(((where, key), item))
        elif isinstance(value, list):
            stack.extend(((where, i), item) for i, item in enumerate(value) if _may_hold_hex(item))
        else:
            for run in _HEX_RUN.findall(value):
                for i in range(0, len(run) - 63, 64):
                    chunk = run[i : i + 64].lower()
                    if chunk not in public:
                        candidates.setdefault(chunk, where)
            if len(candidates) > MAX_UNEXPLAINED_VALUES:
                raise AuditFailure(
                    f"archive carries over {MAX_UNEXPLAINED_VALUES} unexplained 32-byte hex values (first at "
                    f"{_spelt(next(iter(candidates.values())))}); an archive from pbem carries none"
                )
    for chunk, where in candidates.items():
        value = bytes.fromhex(chunk)
        for steps in range(1, longest + 1):
            value = dicev1.H(value)
            if value in frontier:
                found.append(
                    f"{_spelt(where)}: holds a dice chain value not yet revealed ({steps} hash(es) above the "
                    f"last published link of {frontier[value]}): whoever reads it knows future dice"
                )
                break
    return found


def _may_hold_hex(value: Any) -> bool:
    """A container, or a string long enough to hold a 32-byte hex value: the rest
    of an archive's values need no walking."""
    return isinstance(value, (dict, list)) or (isinstance(value, str) and len(value) >= 64)


_Where = Union[str, tuple[Any, Union[str, int]]]
"""Where a value sits in the archive: ``"archive"``, or (where its container sits,
its key or list index).  Spelt out only for a value reported (before the speed work, the walk
wrote out the place of every value of the archive)."""


def _spelt(where: _Where) -> str:
    """``archive.resolutions[3].events``."""
    parts: list[str] = []
    while isinstance(where, tuple):
        where, step = where
        parts.append(f".{step}" if isinstance(step, str) else f"[{step}]")
    return where + "".join(reversed(parts))


def archive_chains(archive: dict[str, Any]) -> list[dice_chains.PublicChain]:
    """The archive's dice chains in order: the game's own, then ``dice.extensions``,
    each of which must start where the one before ends."""
    dice = archive["dice"]
    chains = [dice_chains.PublicChain(1, int(dice["chain_length"]), str(dice["anchor"]))]
    for ext in dice.get("extensions", []):
        chain = dice_chains.PublicChain(int(ext["first_k"]), int(ext["chain_length"]), str(ext["anchor"]))
        if chain.first_k != chains[-1].last_k + 1 or chain.chain_length < 2:
            raise AuditFailure(
                f"dice extension from resolution {chain.first_k}: must start at {chains[-1].last_k + 1}, where "
                "the chain before it ends, with a length of at least 2"
            )
        chains.append(chain)
    return chains
