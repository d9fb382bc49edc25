"""Dice, version 1 (docs/design.md, "Dice, version 1"; explained in docs/dice.md).

A committed hash chain ``s_0 = seed, s_(i+1) = H(s_i)``; the anchor is ``s_N``.
Resolution ``k`` reveals ``s_(N-k)``; its dice key binds the reveal to the game
and to the signed turn files of that resolution; its bytes come from HMAC in
counter mode; an n-sided roll rejects bytes that would bias it."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

from pbem.rules.dice import Roll

DICE_VERSION = 1
DEFAULT_CHAIN_LENGTH = 4096
_LABEL = b"pbem-dice-v1"


def H(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


_INNER = bytes(x ^ 0x36 for x in range(256))
_OUTER = bytes(x ^ 0x5C for x in range(256))


def _pads(key: bytes) -> tuple[bytes, bytes]:
    """HMAC-SHA256's inner and outer keys (RFC 2104) of ``key``."""
    block = (H(key) if len(key) > 64 else key).ljust(64, b"\0")
    return block.translate(_INNER), block.translate(_OUTER)


def hmac_sha256(pads: tuple[bytes, bytes], msg: bytes) -> bytes:
    """HMAC-SHA256 of ``msg`` under the key whose :func:`_pads` are given: the
    bytes of ``hmac.new(key, msg, hashlib.sha256).digest()``, as two SHA-256
    hashes (OpenSSL's HMAC set-up made it some 25 k instructions, these 17 k; a
    resolution makes two or three)."""
    inner, outer = pads
    return H(outer + H(inner + msg))


def enc(x: bytes | str) -> bytes:
    raw = x.encode("utf-8") if isinstance(x, str) else x
    return len(raw).to_bytes(4, "big") + raw


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def chain_value(seed: bytes, i: int) -> bytes:
    """``s_i``: the seed hashed ``i`` times."""
    value = seed
    for _ in range(i):
        value = H(value)
    return value


def anchor(seed: bytes, chain_length: int = DEFAULT_CHAIN_LENGTH) -> bytes:
    return chain_value(seed, chain_length)


CHECKPOINT_INTERVAL = 32
"""Every 32nd chain value is kept (secret, beside the seed) so that a reveal in a
fresh process costs at most 31 hashes instead of up to N - 1 (4095 by default:
1.7 ms).  Chains made before kept every 128th (``LEGACY_CHECKPOINT_INTERVAL``: up
to 127 hashes, about 0.85 M instructions a resolution, the largest single cost
of one); a chain's interval is read from how many values it keeps
(:func:`kept_interval`), so both kinds are read alike."""

LEGACY_CHECKPOINT_INTERVAL = 128


def kept_interval(chain_length: int, kept: bytes) -> int:
    """The interval of the checkpoints ``kept`` for a chain of ``chain_length``:
    the one of :data:`CHECKPOINT_INTERVAL` and :data:`LEGACY_CHECKPOINT_INTERVAL`
    that keeps as many values (both only where one value is kept, and then either
    serves)."""
    return _interval_of(chain_length, len(kept) // 32)


def _interval_of(chain_length: int, count: int) -> int:
    for interval in (CHECKPOINT_INTERVAL, LEGACY_CHECKPOINT_INTERVAL):
        if -(-chain_length // interval) == count:
            return interval
    raise ValueError(f"{count} dice checkpoints do not fit a chain of {chain_length} values")


def checkpoints(seed: bytes, chain_length: int, interval: int = CHECKPOINT_INTERVAL) -> bytes:
    """``s_0 || s_interval || s_2interval || ...`` (every ``s_i`` with ``i < N``).

    As secret as the seed: a checkpoint ``s_j`` gives every reveal of ``k <= N - j``."""
    out = bytearray()
    value = seed
    for i in range(chain_length):
        if i % interval == 0:
            out += value
        value = H(value)
    return bytes(out)


def reveal(seed: bytes, chain_length: int, k: int, kept: bytes = b"") -> bytes:
    """``reveal_k = s_(N-k)`` for resolution ``k`` (1-based), from the nearest
    checkpoint below it when ``kept`` (see :func:`checkpoints`) is given.

    ``k`` stops at ``N - 1``: ``k = N`` would publish ``s_0``, the seed itself,
    which never leaves the database."""
    if not kept:
        return chain_value(seed, _target(chain_length, k))
    j, links = _walk_start(chain_length, k, len(kept) // 32)
    return _walk_up(kept[32 * j : 32 * j + 32], links)


def reveal_and_walk(chain_length: int, k: int, kept_hex: str) -> tuple[bytes, str]:
    """:func:`reveal` from the checkpoints as the database keeps them (hex, not
    empty), with the values walked on the way up from the checkpoint, below the
    reveal and above the checkpoint (hex, lowest first): the reveals of the
    chain's next resolutions, which the game keeps for them (:func:`kept_reveal`;
    as secret as the checkpoints, never exported).  Only the one checkpoint the
    walk starts from is read out of the text (a 4,096-link chain keeps 8 KB of
    hex, which ``bytes.fromhex`` took longer to read than the walk took to hash)."""
    j, links = _walk_start(chain_length, k, len(kept_hex) // 64)
    walk = _walk(bytes.fromhex(kept_hex[64 * j : 64 * j + 64]), links)
    return walk[links], b"".join(walk[1:links]).hex()


def kept_reveal(walked_hex: str, previous_hex: str) -> tuple[bytes, str] | None:
    """The next reveal read from the values a game kept (:func:`reveal_and_walk`),
    when it follows the reveal before (``previous_hex``, one hash; None: walk from
    the checkpoint), with the values to keep: the same text.  The next reveal is
    the value just below the reveal before where the values hold it (each
    resolution leaves them as they were), else their last (as
    :func:`reveal_and_walk` wrote them, below its reveal).  Left as they were, the
    game's row keeps its size, so SQLite overwrites the one page that changes
    instead of writing the row's overflow pages anew (shortened by one value per
    resolution, it wrote five pages).  The caller gives them only where the
    resolution before was made on the same chain."""
    if not walked_hex or not previous_hex:
        return None
    at = walked_hex.rfind(previous_hex)
    if at < 0:
        at = len(walked_hex)
    if at < 64 or at % 64:
        return None
    value = bytes.fromhex(walked_hex[at - 64 : at])
    if not reveal_follows(value, bytes.fromhex(previous_hex)):
        return None
    return value, walked_hex


def _walk_start(chain_length: int, k: int, count: int) -> tuple[int, int]:
    """Where a reveal of resolution ``k`` starts, ``count`` checkpoints kept: the
    index of the nearest checkpoint below its value, and the links from there."""
    target = _target(chain_length, k)
    interval = _interval_of(chain_length, count)
    j = min(target // interval, count - 1)
    return j, target - j * interval


def _target(chain_length: int, k: int) -> int:
    """The chain index ``N - k`` that resolution ``k`` reveals."""
    if not 1 <= k < chain_length:
        raise ValueError(
            f"resolution {k} is outside the dice chain of length {chain_length} (resolutions 1..{chain_length - 1})"
        )
    return chain_length - k


WALKS_KEPT = 64
_walks: dict[bytes, list[bytes]] = {}


def _walk_up(checkpoint: bytes, steps: int) -> bytes:
    """``checkpoint`` hashed ``steps`` times."""
    return _walk(checkpoint, steps)[steps]


def _walk(checkpoint: bytes, steps: int) -> list[bytes]:
    """``checkpoint`` hashed up to ``steps`` times, each value on the way (at least
    ``steps + 1`` of them).  The values on the way up are the reveals of the
    game's next resolutions, so the walk is kept (per process, as secret as the
    checkpoint it starts from, for the last ``WALKS_KEPT`` checkpoints) and the
    next reveal is read from it instead of walking again (before the speed work,
    up to 127 hashes per resolution)."""
    walk = _walks.get(checkpoint)
    if walk is None:
        if len(_walks) >= WALKS_KEPT:
            del _walks[next(iter(_walks))]  # the oldest
        walk = _walks[checkpoint] = [checkpoint]
    while len(walk) <= steps:
        walk.append(H(walk[-1]))
    return walk


def reveal_follows(reveal_k: bytes, previous: bytes) -> bool:
    """``H(reveal_k) == reveal_(k-1)`` (``previous`` is the anchor for k = 1)."""
    return hmac.compare_digest(H(reveal_k), previous)


def dice_key(reveal_k: bytes, game_id: str, k: int, signed_messages: Iterable[bytes]) -> bytes:
    """``K_k``; ``signed_messages`` are the resolution's turn files, ordered by side id."""
    return dice_key_of_hashes(reveal_k, game_id, k, [H(message) for message in signed_messages])


def dice_key_of_hashes(reveal_k: bytes, game_id: str, k: int, message_hashes: Iterable[bytes]) -> bytes:
    """:func:`dice_key` from the turn files' SHA-256 hashes (``H(message)``, in the
    same order): the referee keeps each queued file's with it, and a resolution
    reads them instead of hashing the files again."""
    msg = enc(_LABEL) + enc(game_id) + enc(str(k))
    for digest in message_hashes:
        msg += enc(digest)
    return hmac_sha256(_pads(reveal_k), msg)


class DiceStream:
    """The dice of one resolution: bytes ``HMAC(K, u64(0)) || HMAC(K, u64(1)) ...``,
    rolls with rejection sampling, every roll recorded with its purpose."""

    def __init__(self, key: bytes) -> None:
        self._pads = _pads(key)
        self._block = 0
        self._buffer = b""
        self._pos = 0
        self.rolls: list[Roll] = []

    def _next_byte(self) -> int:
        if self._pos >= len(self._buffer):
            self._buffer = hmac_sha256(self._pads, u64(self._block))
            self._block += 1
            self._pos = 0
        b = self._buffer[self._pos]
        self._pos += 1
        return b

    def roll(self, sides: int, purpose: str) -> int:
        if not 2 <= sides <= 256:
            raise ValueError(f"die size {sides} outside 2..256")
        limit = 256 - (256 % sides)
        while True:
            b = self._next_byte()
            if b < limit:
                break
        value = b % sides + 1
        self.rolls.append(Roll(len(self.rolls), sides, value, purpose))
        return value


@dataclass(frozen=True)
class Commitment:
    seed: bytes = field(repr=False)  # the only secret: never printed
    chain_length: int
    anchor: bytes
    kept: bytes = field(default=b"", repr=False)  # checkpoints(seed, N): as secret as the seed

    @classmethod
    def new(cls, chain_length: int = DEFAULT_CHAIN_LENGTH, seed: bytes | None = None) -> Commitment:
        if chain_length < 2:
            # N = 0 would publish the seed as the anchor; N = 1 leaves no resolution
            raise ValueError(f"dice chain length {chain_length} is too short (at least 2)")
        seed = new_seed() if seed is None else seed
        kept = checkpoints(seed, chain_length)  # one walk down the chain gives both
        last = (chain_length - 1) // CHECKPOINT_INTERVAL
        return cls(seed, chain_length, chain_value(kept[32 * last :], chain_length - last * CHECKPOINT_INTERVAL), kept)

    def reveal(self, k: int) -> bytes:
        return reveal(self.seed, self.chain_length, k, self.kept)
