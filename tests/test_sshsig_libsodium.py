"""Ed25519 signatures checked by libsodium first (pbem.turnfiles.sodium): every verdict
is still OpenSSL's, and a good signature costs OpenSSL nothing."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.turnfiles import sodium
from pbem.turnfiles.keys import ED25519, PublicKey, wire_string
from pbem.turnfiles.sshsig import MAGIC, NAMESPACE, VERSION, SignatureError, _signed_data, armor, sign, verify
from tests.support.ssh_keygen import needs_ssh_keygen, ssh_keygen_verifies

ORDERS = b"# imperial, turn 4\nmove inf-1 to rio-pardo\n"
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493  # L, the order of Ed25519's base point
BASE_POINT = bytes.fromhex("58" + "66" * 31)  # the encoding of B
IDENTITY = b"\x01" + bytes(31)  # the neutral point: a public key of order 1
ORDER_TWO = bytes.fromhex("ec" + "ff" * 30 + "7f")  # (0, -1)


def _openssl_accepts(signature: bytes, message: bytes, public_key: bytes) -> bool:
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def _armored(public_key: bytes, signature: bytes, message: bytes) -> str:
    """An SSHSIG over ``message`` carrying a raw Ed25519 ``signature`` of its signed data."""
    key_blob = wire_string(ED25519) + wire_string(public_key)
    return armor(
        MAGIC
        + VERSION.to_bytes(4, "big")
        + wire_string(key_blob)
        + wire_string(NAMESPACE)
        + wire_string(b"")
        + wire_string("sha512")
        + wire_string(wire_string(ED25519) + wire_string(signature))
    )


def _small_order_signature(public_key: bytes, order: int, message: bytes) -> tuple[bytes, bytes]:
    """A signature (R = B, S = 1) OpenSSL's cofactorless check accepts for a public key
    ``A`` of small ``order``: [S]B = R + [k]A holds when k = H(R, A, data) is a
    multiple of the order. The message is ``message`` with a counter appended until
    it is; returns (message, signature)."""
    for counter in range(256):
        candidate = message + b"# %d\n" % counter
        data = _signed_data(candidate, NAMESPACE, "sha512")
        k = int.from_bytes(hashlib.sha512(BASE_POINT + public_key + data).digest(), "little") % GROUP_ORDER
        if k % order == 0:
            return candidate, BASE_POINT + (1).to_bytes(32, "little")
    raise AssertionError("no message found")


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
    assert _openssl_calls(lambda: pytest.raises(SignatureError, verify, ORDERS + b"x", armored)) == 1


@pytest.mark.parametrize(("public_key", "order"), [(IDENTITY, 1), (ORDER_TWO, 2)], ids=["order-1", "order-2"])
def test_a_small_order_key_libsodium_refuses_is_judged_by_openssl(public_key: bytes, order: int) -> None:
    message, signature = _small_order_signature(public_key, order, ORDERS)
    data = _signed_data(message, NAMESPACE, "sha512")
    assert not sodium.accepts(signature, data, public_key)
    assert _openssl_accepts(signature, data, public_key)
    assert verify(message, _armored(public_key, signature, message)).blob.endswith(public_key)


@needs_ssh_keygen
def test_ssh_keygen_agrees_on_the_signature_libsodium_refuses(tmp_path: Path) -> None:
    message, signature = _small_order_signature(IDENTITY, 1, ORDERS)
    armored = _armored(IDENTITY, signature, message)
    signer = verify(message, armored)
    assert ssh_keygen_verifies(signer, message, armored, tmp_path)


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
        verify(message, _armored(public_key, signature, message))
        pbem = True
    except SignatureError:
        pbem = False
    assert pbem == openssl
