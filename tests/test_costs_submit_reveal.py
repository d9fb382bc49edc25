"""Costs of a Farrapos submit and of a resolution's reveal, counted, never timed:

- an SSHSIG verify reads its Ed25519 key once (``PublicKey.from_blob`` then
  ``to_crypto`` made the ``cryptography`` key twice), and every malformed blob
  is refused in the same words as before;
- a reveal reads only the checkpoint its walk starts from out of the stored
  hex (``bytes.fromhex`` of all 8 KB took longer than the walk), with the same
  value as the bytes' reveal for both checkpoint intervals;
- Farrapos splits an order line into words with ``str.split`` (no regular
  expression), into the same words as the pattern ``[\\s,]+`` did.
"""

from __future__ import annotations

import re
import struct
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from pbem import dice
from pbem.dice import chains
from pbem.rules.farrapos import orders as farrapos_orders
from pbem.turnfiles import keys, sshsig

MESSAGE = b"game: g1\nrules: farrapos\nside: republic\nturn: 3\nstate: " + b"0" * 64 + b"\n\npass\n"


def test_an_ed25519_verify_makes_its_key_once_and_only_for_openssl(monkeypatch: pytest.MonkeyPatch) -> None:
    """libsodium settles a good signature from the key's point: OpenSSL's key is made
    once, for a signature libsodium refuses (pbem.turnfiles.sodium)."""
    private = ed25519.Ed25519PrivateKey.generate()
    armored = sshsig.sign(MESSAGE, private)
    made = []
    real = ed25519.Ed25519PublicKey.from_public_bytes
    monkeypatch.setattr(
        ed25519.Ed25519PublicKey, "from_public_bytes", staticmethod(lambda data: made.append(data) or real(data))
    )
    signer = sshsig.verify(MESSAGE, armored)
    assert made == []
    assert signer == keys.PublicKey.from_crypto(private) and signer.comment == ""
    made.clear()
    with pytest.raises(sshsig.SignatureError, match="does not match"):
        sshsig.verify(MESSAGE + b"\n", armored)
    assert len(made) == 1


def _blob(*fields: bytes, magic: bytes = sshsig.MAGIC, version: int = 1) -> bytes:
    return magic + struct.pack(">I", version) + b"".join(keys.wire_string(f) for f in fields)


def test_malformed_signature_blobs_are_refused_in_the_same_words() -> None:
    private = ed25519.Ed25519PrivateKey.generate()
    blob = keys.PublicKey.from_crypto(private).blob
    good = keys.wire_string("ssh-ed25519") + keys.wire_string(b"x" * 64)
    cases = {
        b"SSH": "truncated signature",
        b"NOTSIG" + bytes(8): "not an SSH signature (no SSHSIG magic)",
        sshsig.MAGIC + b"\0\0": "truncated signature",
        _blob(version=2): "unsupported SSHSIG version 2",
        _blob(blob, b"pbem", b"", b"sha512"): "truncated signature",
        _blob(blob, b"pbem", b"", b"sha512", good)[:-3]: "truncated signature",
        _blob(blob, b"pbem", b"", b"sha512", good) + b"!": "garbled signature: trailing bytes after the signature",
        _blob(blob, b"pbem", b"", b"sha512", good + b"!"): "garbled signature: trailing bytes after the signature",
        _blob(blob, b"mail", b"", b"sha512", good): "signature namespace is 'mail', expected 'pbem'",
        _blob(blob, b"pbem", b"", b"md5", good): "unsupported hash algorithm 'md5' (SSHSIG allows sha256, sha512)",
        _blob(blob, b"pbem", b"", b"sha512", keys.wire_string("ssh-rsa") + keys.wire_string(b"x")): (
            "unsupported signature algorithm 'ssh-rsa' for a ssh-ed25519 key"
        ),
        _blob(blob, b"pbem", b"", b"sha512", good): "signature does not match the file",
    }
    for raw, words in cases.items():
        with pytest.raises(sshsig.SignatureError) as refused:
            sshsig.verify(MESSAGE, sshsig.armor(raw))
        assert str(refused.value) == words, raw
    with pytest.raises(sshsig.SignatureError, match="unsupported key type 'ssh-dss'"):
        sshsig.verify(MESSAGE, sshsig.armor(_blob(keys.wire_string("ssh-dss"), b"pbem", b"", b"sha512", good)))


@pytest.mark.parametrize("interval", [dice.CHECKPOINT_INTERVAL, dice.LEGACY_CHECKPOINT_INTERVAL])
def test_a_reveal_from_the_stored_hex_is_the_reveal_of_the_bytes(interval: int) -> None:
    seed = bytes(range(32))
    for length in (2, 33, 300):
        kept = dice.checkpoints(seed, length, interval)
        for k in range(1, length):
            dice._walks.clear()
            from_hex, walked = chains.reveal(lambda kept=kept: (seed.hex(), kept.hex()), length, k)
            assert from_hex == dice.chain_value(seed, length - k)
            below = range((length - k) // interval * interval + 1, length - k)
            assert walked == b"".join(dice.chain_value(seed, i) for i in below).hex()
    with pytest.raises(ValueError, match="outside the dice chain"):
        chains.reveal(lambda: (seed.hex(), dice.checkpoints(seed, 300).hex()), 300, 300)


def test_farrapos_words_are_the_patterns_words() -> None:
    pattern = re.compile(r"[\s,]+")
    separators = [chr(c) for c in range(sys.maxunicode + 1) if pattern.fullmatch(chr(c)) or chr(c).isspace()]
    for sep in [*separators, ",", ", ", " ,\t"]:
        for line in (f"Move{sep}INF-1{sep}{sep}from a{sep}to b", f"{sep}place cav-6{sep}", sep):
            assert farrapos_orders._tokens(line) == [t for t in pattern.split(line.strip().lower()) if t], repr(sep)
