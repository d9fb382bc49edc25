"""Ed25519 keys read and written without cryptography's SSH module (pbem/turnfiles/keys.py):
the same keys, the same files, and every file out of the ordinary left to
cryptography, which reads or refuses it in its own words."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from pbem.turnfiles import keys
from pbem.turnfiles.keys import WireReader, wire_string

SSH_KEYGEN = shutil.which("ssh-keygen")


def _body(pem: bytes) -> bytes:
    lines = pem.strip().splitlines()
    return base64.b64decode(b"".join(lines[1:-1]))


def _pem(body: bytes) -> bytes:
    text = base64.b64encode(body)
    return b"\n".join([keys._SK_START, *[text[i : i + 64] for i in range(0, len(text), 64)], keys._SK_END]) + b"\n"


def _without_check(body: bytes) -> bytes:
    """The file's body with its random check value zeroed (both copies)."""
    reader = WireReader(body[len(keys._SK_MAGIC) :])
    (
        reader.string(),
        reader.string(),
        reader.string(),
        reader.uint32(),
        reader.string(),
    )  # cipher, kdf, options, count, public key
    at = len(body) - len(reader.rest()) + 4  # the private section's length, then its two check values
    return body[:at] + b"\0" * 8 + body[at + 8 :]


def test_a_new_key_file_is_the_one_cryptography_writes() -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    ours = keys._ed25519_openssh(key)
    theirs = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    )
    assert len(ours) == len(theirs)
    assert _without_check(_body(ours)) == _without_check(_body(theirs))
    assert [len(line) for line in ours.splitlines()] == [len(line) for line in theirs.splitlines()]


def test_keygen_files_read_back_without_the_ssh_module(tmp_path: Path) -> None:
    private, public = keys.generate_ed25519("side", tmp_path)
    data = private.read_bytes()
    fast = keys._ed25519_private(data)
    assert fast is not None
    slow = serialization.load_ssh_private_key(data, None)
    assert fast.private_bytes_raw() == slow.private_bytes_raw()  # type: ignore[union-attr]
    line = slow.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
    assert keys.PublicKey.from_file(public).openssh() == f"{line} side"


@pytest.mark.skipif(SSH_KEYGEN is None, reason="OpenSSH ssh-keygen is not installed")
def test_an_ssh_keygen_key_is_read_without_the_ssh_module(tmp_path: Path) -> None:
    path = tmp_path / "id_ed25519"
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "a comment", "-f", str(path)], check=True)
    data = path.read_bytes()
    fast = keys._ed25519_private(data)
    assert fast is not None
    assert fast.private_bytes_raw() == serialization.load_ssh_private_key(data, None).private_bytes_raw()  # type: ignore[union-attr]


def _cryptography_reads(data: bytes) -> bytes | None:
    try:
        key = serialization.load_ssh_private_key(data, None)
    except (ValueError, UnsupportedAlgorithm):
        return None
    return key.private_bytes_raw() if isinstance(key, ed25519.Ed25519PrivateKey) else None


def test_a_file_out_of_the_ordinary_is_left_to_cryptography() -> None:
    """Every byte of a key file's body changed in turn, and the body cut short at
    every length: the fast reader reads a file only where cryptography reads the
    same key from it; the rest it leaves to cryptography."""
    key = ed25519.Ed25519PrivateKey.generate()
    body = _body(keys._ed25519_openssh(key))
    variants = [body[:n] for n in range(len(body))]
    variants += [body[:i] + bytes([body[i] ^ flip]) + body[i + 1 :] for i in range(len(body)) for flip in (0x01, 0x80)]
    variants += [body + b"\0", body[:-1] + b"\x06"]
    read = 0
    for variant in variants:
        fast = keys._ed25519_private(_pem(variant))
        if fast is not None:
            read += 1
            assert fast.private_bytes_raw() == _cryptography_reads(_pem(variant))
    assert read >= 64  # at least each change to the secret's 32 bytes is another key, read


def test_public_blobs_agree_with_cryptography() -> None:
    point = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    blob = wire_string("ssh-ed25519") + wire_string(point)
    assert keys.ed25519_point(blob) == point
    for bad in (
        blob[:-1],
        blob + b"\0",
        wire_string("ssh-ed25519") + wire_string(point[:31]),
        wire_string("ssh-rsa") + wire_string(point),
    ):
        assert keys.ed25519_point(bad) is None
    with pytest.raises(keys.KeyFileError, match="malformed ssh-ed25519 public key"):
        keys.PublicKey("ssh-ed25519", blob[:-1]).to_crypto()


def test_a_key_with_a_passphrase_goes_to_cryptography(tmp_path: Path) -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    path = tmp_path / "plain"
    path.write_bytes(keys._ed25519_openssh(key))
    with pytest.raises(keys.KeyFileError, match="has no passphrase, but one was given"):
        keys.load_private_key(path, b"sesame")
