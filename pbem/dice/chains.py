"""A game's dice chains: the one committed at ``pbem new`` and the extensions a
referee commits later with ``pbem extend`` (docs/dice.md, "Extending a game's dice").

A chain of length ``N`` that starts at resolution ``first_k`` serves resolutions
``first_k .. first_k + N - 2``: resolution ``k`` reveals its link ``s_(N-j)`` with
``j = k - first_k + 1`` (``j = N`` would publish its seed).  The first chain starts at
1; each extension starts right after the chain before it ends, so the resolution
numbers it serves are fixed before anyone writes orders for them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from pbem import dice as dicev1

NEAR_THE_END = 10
"""``pbem status`` warns when the chains can serve this many resolutions or fewer."""


@dataclass(frozen=True)
class PublicChain:
    """What the archive and reports show of a chain: never its seed."""

    first_k: int
    chain_length: int
    anchor: str

    @property
    def last_k(self) -> int:
        return self.first_k + self.chain_length - 2

    def to_json(self) -> dict[str, Any]:
        return {"first_k": self.first_k, "chain_length": self.chain_length, "anchor": self.anchor}


class _Chain(Protocol):  # read-only members, so that NamedTuple rows qualify
    @property
    def first_k(self) -> int: ...
    @property
    def chain_length(self) -> int: ...
    @property
    def anchor(self) -> str: ...


class _Game(Protocol):
    @property
    def chain_length(self) -> int: ...
    @property
    def anchor(self) -> str: ...


def public_chains(game: _Game, extensions: Iterable[_Chain]) -> list[PublicChain]:
    """Every chain of a game (stored rows), the one committed at ``pbem new`` first."""
    return [PublicChain(1, game.chain_length, game.anchor)] + [
        PublicChain(e.first_k, e.chain_length, e.anchor) for e in extensions
    ]


def chain_for(chains: list[PublicChain], k: int) -> PublicChain | None:
    """The chain that serves resolution ``k``, if any."""
    return next((c for c in reversed(chains) if c.first_k <= k), None) if k >= 1 else None


def last_served(chains: list[PublicChain]) -> int:
    return chains[-1].last_k if chains else 0


def used_up(game_id: str, last_k: int, k: int) -> str:
    return (
        f"game {game_id}'s dice chain is used up: it serves resolutions up to {last_k}, so resolution {k} "
        f"cannot be rolled; the referee extends it with 'pbem extend {game_id}' (docs/dice.md)"
    )


def reveal(
    secret: Callable[[], tuple[str, str]], chain_length: int, link: int, walked: str = "", previous: str = ""
) -> tuple[bytes, str]:
    """The reveal of link ``j`` of a chain (``1 <= j <= N - 1``), with the values
    kept for the chain's next reveals (hex, see :func:`dicev1.reveal_and_walk`).
    ``walked`` is what the resolution before kept, ``previous`` its reveal (hex):
    given (and the link not the chain's first), the reveal is the value kept just
    below ``previous`` (:func:`dicev1.kept_reveal`; the values are kept as they
    were), checked by one hash against it, instead of a walk of up to 31
    hashes up from the checkpoint in a fresh process.  ``secret`` gives the
    chain's seed and checkpoints (hex), asked for only when the reveal is walked."""
    if link > 1 and (kept := dicev1.kept_reveal(walked, previous)) is not None:
        return kept
    seed_hex, checkpoints_hex = secret()
    if checkpoints_hex:
        return dicev1.reveal_and_walk(chain_length, link, checkpoints_hex)
    return dicev1.reveal(bytes.fromhex(seed_hex), chain_length, link), ""
