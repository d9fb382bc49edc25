"""Ed25519 signatures checked by libsodium first (pbem.turnfiles.sodium): every verdict
is still OpenSSL's, but for keys anyone can sign for (pbem.turnfiles.weak_keys), and a
good signature costs OpenSSL nothing."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.turnfiles import sodium, weak_keys
from pbem.turnfiles.keys import ED25519, PublicKey, wire_string
from pbem.turnfiles.sshsig import NAMESPACE, SignatureError, _signed_data, sign, verify
from tests.support import forged
from tests.support.ssh_keygen import needs_ssh_keygen, ssh_keygen_verifies

ORDERS = b"# imperial, turn 4\nmove inf-1 to rio-pardo\n"
ORDER_TWO = bytes.fromhex("ec" + "ff" * 30 + "7f")  # (0, -1)
IDENTITY = b"\x01" + bytes(31)  # the neutral point


def _openssl_accepts(signature: bytes, message: bytes, public_key: bytes) -> bool:
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def _openssl_calls(run: Callable[[], Any]) -> int:
    """How many times ``run()`` asks OpenSSL to verify an Ed25519 signature."""
    calls = 0

    def profile(_frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "c_call" and getattr(arg, "__name__", "") == "verify":
            calls += isinstance(getattr(arg, "__self__", None), ed25519.Ed25519PublicKey)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


def test_libsodium_is_there_to_check_signatures() -> None:
    assert sodium.available()


def test_a_good_signature_is_settled_by_libsodium_alone() -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    armored = sign(ORDERS, key)
    assert _openssl_calls(lambda: verify(ORDERS, armored)) == 0
    assert verify(ORDERS, armored) == PublicKey.from_crypto(key)


def test_a_bad_signature_is_refused_in_openssls_words() -> None:
    armored = sign(ORDERS, ed25519.Ed25519PrivateKey.generate())
    with pytest.raises(SignatureError, match="signature does not match the file"):
        verify(ORDERS + b"move cav-1 to bage\n", armored)
    assert _openssl_calls(lambda: pytest.raises(SignatureError, verify, ORDERS + b"x", armored)) >= 1


@pytest.mark.parametrize("public_key", [IDENTITY, ORDER_TWO], ids=["order-1", "order-2"])
def test_a_forged_signature_openssl_accepts_is_refused(public_key: bytes) -> None:
    """(R = B, S = 1), made without a private key, over a file whose k is a multiple
    of 8: OpenSSL accepts it for a key of small order; libsodium and pbem do not."""
    data = weak_keys.forged_data(public_key)
    assert _openssl_accepts(weak_keys.FORGED, data, public_key)
    assert not sodium.accepts(weak_keys.FORGED, data, public_key)
    message = forged.forgeable_turn(ORDERS, public_key)
    with pytest.raises(SignatureError, match="signed by a key anyone can sign for"):
        verify(message, forged.armored(public_key, weak_keys.FORGED))


@needs_ssh_keygen
def test_ssh_keygen_accepts_the_forgery_pbem_refuses(tmp_path: Path) -> None:
    message = forged.forgeable_turn(ORDERS, IDENTITY)
    armored = forged.armored(IDENTITY, weak_keys.FORGED)
    signer = PublicKey(ED25519, wire_string(ED25519) + wire_string(IDENTITY))
    assert ssh_keygen_verifies(signer, message, armored, tmp_path)
    with pytest.raises(SignatureError, match="anyone can sign for"):
        verify(message, armored)


def test_a_signature_of_another_length_is_left_to_openssl() -> None:
    """libsodium reads its signed message as 64 bytes of signature, then the message:
    a 63-byte signature must not borrow the message's first byte to verify."""
    key = ed25519.Ed25519PrivateKey.generate()
    public_key = key.public_key().public_bytes_raw()
    rest = b"the rest of the message"
    signature = key.sign(rest)
    short, data = signature[:63], signature[63:] + rest  # the same bytes, split one byte early
    assert sodium.accepts(signature, rest, public_key)
    assert not sodium.accepts(short, data, public_key)
    assert not _openssl_accepts(short, data, public_key)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    message=st.binary(max_size=200),
    flip=st.one_of(st.none(), st.tuples(st.sampled_from(["signature", "key"]), st.integers(0, 63), st.integers(0, 7))),
)
def test_the_verdict_is_always_openssls(seed: bytes, message: bytes, flip: tuple[str, int, int] | None) -> None:
    """A signature or key with one bit flipped (or none): libsodium accepts only what
    OpenSSL accepts, and pbem's verdict is OpenSSL's."""
    key = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
    public_key = key.public_key().public_bytes_raw()
    data = _signed_data(message, NAMESPACE, "sha512")
    signature = key.sign(data)
    if flip is not None:
        part, at, bit = flip
        if part == "signature":
            signature = signature[:at] + bytes([signature[at] ^ (1 << bit)]) + signature[at + 1 :]
        else:
            at %= 32
            public_key = public_key[:at] + bytes([public_key[at] ^ (1 << bit)]) + public_key[at + 1 :]
    openssl = _openssl_accepts(signature, data, public_key)
    assert not sodium.accepts(signature, data, public_key) or openssl
    try:
        verify(message, forged.armored(public_key, signature))
        pbem = True
    except SignatureError:
        pbem = False
    assert pbem == (openssl and not weak_keys.forgeable(ed25519.Ed25519PublicKey.from_public_bytes(public_key)))
