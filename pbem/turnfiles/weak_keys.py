"""Public keys anyone can sign for, refused when a player registers one.

An Ed25519 public key is a point A; a signature (R, S) verifies when
[S]B = R + [k]A, with k = SHA-512(R, A, signed data). If A is of small order (the
neutral point, and the seven points whose order divides 8), [k]A vanishes whenever k
is a multiple of that order, and (R = B, S = 1) then verifies without any private
key: anyone who adds a comment line to a turn file until its k is a multiple of 8
signs it for that player. OpenSSL and ``ssh-keygen`` accept such a key and such a
signature (libsodium refuses both: pbem.turnfiles.sodium), and a key made by
``ssh-keygen`` or ``pbem keygen`` is never one.

:func:`forgeable` asks OpenSSL itself, with the forgery: a key for which it accepts
(R = B, S = 1) over data whose k is a multiple of 8 but not of the group's order L
has [k]A = 0, so an order dividing 8; any other key refuses it.
"""

from __future__ import annotations

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519

from pbem.turnfiles.keys import ED25519, KeyFileError, PublicKey, ed25519_point

GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493  # L, the order of the base point B
BASE_POINT = bytes.fromhex("58" + "66" * 31)  # B's encoding
COFACTOR = 8
FORGED = BASE_POINT + (1).to_bytes(32, "little")  # (R = B, S = 1)


def forged_data(point: bytes) -> bytes:
    """Data whose k, for the key ``point`` and the commitment B, is a multiple of the
    cofactor and not of L (found by counting: one try in eight succeeds)."""
    for counter in range(1 << 16):
        data = b"anyone can sign for this key %d" % counter
        k = int.from_bytes(hashlib.sha512(BASE_POINT + point + data).digest(), "little") % GROUP_ORDER
        if k and k % COFACTOR == 0:
            return data
    raise AssertionError("no data found")  # unreachable: each try succeeds with odds of one in eight


def forgeable(key: ed25519.Ed25519PublicKey) -> bool:
    """Whether a signature anyone can make verifies under the Ed25519 ``key`` (a point
    of small order, in any encoding OpenSSL reads)."""
    try:
        key.verify(FORGED, forged_data(key.public_bytes_raw()))
    except InvalidSignature:
        return False
    return True


def registrable(line: str) -> PublicKey:
    """The key of an OpenSSH public key line a player registers; ``KeyFileError``
    for a line that is not one, or for a key anyone can sign for."""
    key = PublicKey.from_openssh(line)
    point = ed25519_point(key.blob) if key.key_type == ED25519 else None
    if point is not None and forgeable(ed25519.Ed25519PublicKey.from_public_bytes(point)):
        raise KeyFileError(REFUSAL)
    return key


REFUSAL = "anyone can sign for this key (an Ed25519 point of small order): make one with pbem keygen"
