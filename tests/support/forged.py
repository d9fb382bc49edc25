"""Signatures made without a private key, for keys of small order (pbem.turnfiles.weak_keys)."""

from __future__ import annotations

import hashlib

from pbem.turnfiles import sshsig, weak_keys
from pbem.turnfiles.keys import ED25519, wire_string


def armored(public_key: bytes, signature: bytes) -> str:
    """An SSHSIG (namespace pbem, sha512) carrying a raw Ed25519 ``signature`` by the
    32-byte ``public_key``."""
    return sshsig.armor(
        sshsig.MAGIC
        + sshsig.VERSION.to_bytes(4, "big")
        + wire_string(wire_string(ED25519) + wire_string(public_key))
        + wire_string(sshsig.NAMESPACE)
        + wire_string(b"")
        + wire_string("sha512")
        + wire_string(wire_string(ED25519) + wire_string(signature))
    )


def forgeable_turn(text: bytes, public_key: bytes) -> bytes:
    """``text`` with a comment line added until the forged signature (R = B, S = 1)
    verifies for a key of small order: what anyone could mail in the player's name."""
    for counter in range(1 << 12):
        message = text + b"# %d\n" % counter
        data = sshsig._signed_data(message, sshsig.NAMESPACE, "sha512")
        k = int.from_bytes(hashlib.sha512(weak_keys.BASE_POINT + public_key + data).digest(), "little")
        if k % weak_keys.GROUP_ORDER % 8 == 0:
            return message
    raise AssertionError("no message found")
