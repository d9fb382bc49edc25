"""SSHSIG signatures, as OpenSSH writes them (`PROTOCOL.sshsig`; docs/design.md, "Signatures").

A turn file is signed with `ssh-keygen -Y sign -f KEY -n pbem FILE` or `pbem sign`;
both write the same armored block, and each checks the other's. The signed message
is the file's bytes with CRLF turned into LF (`normalise`). A signature is either
detached (`FILE.sig`) or inline: the armored block appended after the orders, where
the message is every byte before the BEGIN line.

Blob:   "SSHSIG" uint32(1) string(public key) string(namespace) string("")
        string(hash algorithm) string(signature)
Signed: "SSHSIG" string(namespace) string("") string(hash algorithm) string(H(message))
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ed25519

from pbem import paths
from pbem.turnfiles import sodium, weak_keys
from pbem.turnfiles.keys import (
    ED25519,
    KeyFileError,
    PublicKey,
    WireReader,
    ed25519_point,
    load_private_key,
    wire_string,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    from pbem.turnfiles.keys import PrivateKey

NAMESPACE = "pbem"
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
MAGIC = b"SSHSIG"
VERSION = 1
LINE_WIDTH = 70  # ssh-keygen wraps the base64 at 70 columns

MESSAGE_HASHES = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}
# Signature algorithm names each key type may use, and the hash each implies.
SIGNATURE_HASHES: dict[str, dict[str, hashes.HashAlgorithm | None]] = {
    "ssh-ed25519": {"ssh-ed25519": None},
    "ssh-rsa": {"rsa-sha2-512": hashes.SHA512(), "rsa-sha2-256": hashes.SHA256()},
    "ecdsa-sha2-nistp256": {"ecdsa-sha2-nistp256": hashes.SHA256()},
    "ecdsa-sha2-nistp384": {"ecdsa-sha2-nistp384": hashes.SHA384()},
    "ecdsa-sha2-nistp521": {"ecdsa-sha2-nistp521": hashes.SHA512()},
}


class SignatureError(ValueError):
    """A signature that is missing, malformed, for another purpose, or does not match."""


def normalise(data: bytes) -> bytes:
    r"""The signed form of a turn file: CRLF turned into LF.

    >>> normalise(b"move a b\r\nend\r\n")
    b'move a b\nend\n'
    """
    return data.replace(b"\r\n", b"\n")


def _signed_data(message: bytes, namespace: str, hash_alg: str) -> bytes:
    digest = MESSAGE_HASHES[hash_alg](message).digest()
    head = _SIGNED_HEADS.get((namespace, hash_alg))
    if head is None:
        head = _SIGNED_HEADS[namespace, hash_alg] = (
            MAGIC + wire_string(namespace) + wire_string(b"") + wire_string(hash_alg)
        )
    return head + wire_string(digest)


_SIGNED_HEADS: dict[tuple[str, str], bytes] = {}
"""The signed data's fixed start for a namespace and hash (a pure function of the
two: ``pbem`` with ``sha512``, in practice)."""


def _mpint(n: int) -> bytes:
    """SSH `mpint` of a non-negative integer (a leading zero byte keeps it positive)."""
    raw = n.to_bytes((n.bit_length() + 8) // 8, "big") if n else b""
    return wire_string(raw)


def _raw_sign(private_key: PrivateKey, key_type: str, data: bytes) -> tuple[str, bytes]:
    """Sign `data` the way OpenSSH does for this key type: (algorithm name, signature)."""
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        return "ssh-ed25519", private_key.sign(data)
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    if isinstance(private_key, rsa.RSAPrivateKey):
        return "rsa-sha2-512", private_key.sign(data, padding.PKCS1v15(), hashes.SHA512())
    if isinstance(private_key, ec.EllipticCurvePrivateKey):
        (digest,) = SIGNATURE_HASHES[key_type].values()
        assert digest is not None  # each ECDSA key type names its hash
        r, s = decode_dss_signature(private_key.sign(data, ec.ECDSA(digest)))
        return key_type, _mpint(r) + _mpint(s)
    raise SignatureError(f"unsupported key type {type(private_key).__name__}")


def sign(message: bytes, private_key: PrivateKey, namespace: str = NAMESPACE, hash_alg: str = "sha512") -> str:
    """The armored SSHSIG of `message` (exactly as `ssh-keygen -Y sign` writes it)."""
    if hash_alg not in MESSAGE_HASHES:
        raise SignatureError(f"unsupported hash algorithm {hash_alg!r} (SSHSIG allows sha256, sha512)")
    try:
        public = PublicKey.from_crypto(private_key)
    except KeyFileError as e:
        raise SignatureError(str(e)) from None
    algorithm, raw = _raw_sign(private_key, public.key_type, _signed_data(message, namespace, hash_alg))
    blob = (
        MAGIC
        + struct.pack(">I", VERSION)
        + wire_string(public.blob)
        + wire_string(namespace)
        + wire_string(b"")
        + wire_string(hash_alg)
        + wire_string(wire_string(algorithm) + wire_string(raw))
    )
    return armor(blob)


def armor(blob: bytes) -> str:
    """The armored text of a signature blob, wrapped as ssh-keygen wraps it."""
    text = base64.b64encode(blob).decode("ascii")
    lines = [text[i : i + LINE_WIDTH] for i in range(0, len(text), LINE_WIDTH)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def dearmor(armored: str | bytes) -> bytes:
    """The blob inside an armored block. Only whitespace may surround the block."""
    if isinstance(armored, bytes):
        armored = armored.decode("ascii", errors="replace")
    lines = [line.strip() for line in armored.strip().splitlines()]
    if not lines or lines[0] != BEGIN:
        raise SignatureError(f"not an SSH signature (expected {BEGIN!r}, found {armored.strip()[:40]!r})")
    if END not in lines:
        raise SignatureError(f"truncated signature (no {END!r} line)")
    end = lines.index(END)
    if any(lines[end + 1 :]):
        raise SignatureError(f"text after {END!r} is not part of the signature")
    body = "".join(lines[1:end])
    if not body.isascii():
        bad = next(ch for ch in body if not ch.isascii())
        raise SignatureError(
            f"garbled signature: {ascii(bad)} is not a base64 character (the block is ASCII only;"
            " was the mail re-encoded on the way?)"
        )
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError) as e:
        raise SignatureError(f"garbled signature: bad base64 ({e})") from None


def _text(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")


def verify(message: bytes, armored: str | bytes, namespace: str = NAMESPACE) -> PublicKey:
    """Check an armored SSHSIG over `message`; return the signer's public key.

    The caller decides whether that key is the one it expects (`PublicKey.same_key`).
    Raises `SignatureError` saying what is wrong.
    """
    blob = dearmor(armored)
    try:
        if len(blob) < len(MAGIC):
            raise EOFError
        if blob[: len(MAGIC)] != MAGIC:
            raise SignatureError("not an SSH signature (no SSHSIG magic)")
        version = _uint32(blob, len(MAGIC))
        if version != VERSION:
            raise SignatureError(f"unsupported SSHSIG version {version}")
        (key_blob, signed_namespace, _reserved, hash_name, inner), end = _strings(blob, len(MAGIC) + 4, 5)
        (algorithm_name, raw), inner_end = _strings(inner, 0, 2)
    except EOFError:
        raise SignatureError("truncated signature") from None
    if end != len(blob) or inner_end != len(inner):
        raise SignatureError("garbled signature: trailing bytes after the signature")
    if _text(signed_namespace) != namespace:
        raise SignatureError(f"signature namespace is {_text(signed_namespace)!r}, expected {namespace!r}")
    hash_alg, algorithm = _text(hash_name), _text(algorithm_name)
    if hash_alg not in MESSAGE_HASHES:
        raise SignatureError(f"unsupported hash algorithm {hash_alg!r} (SSHSIG allows sha256, sha512)")
    public, key = _signer(key_blob)
    allowed = SIGNATURE_HASHES[public.key_type]
    if algorithm not in allowed:
        raise SignatureError(f"unsupported signature algorithm {algorithm!r} for a {public.key_type} key")
    data = _signed_data(message, namespace, hash_alg)
    try:
        if isinstance(key, bytes):
            _verify_ed25519(key, raw, data)
        else:
            _verify_rsa_or_ecdsa(key, raw, data, allowed[algorithm])
    except InvalidSignature:
        raise SignatureError("signature does not match the file") from None
    return public


_U32 = struct.Struct(">I")


def _uint32(data: bytes, at: int) -> int:
    if at + 4 > len(data):
        raise EOFError
    value: int = _U32.unpack_from(data, at)[0]
    return value


def _strings(data: bytes, at: int, count: int) -> tuple[list[bytes], int]:
    """``count`` SSH strings of ``data`` from offset ``at``, and the offset after
    them (what :class:`pbem.turnfiles.keys.WireReader` reads, without a call per
    field); ``EOFError`` when they run past its end."""
    found = []
    end = len(data)
    for _ in range(count):
        if at + 4 > end:
            raise EOFError
        (size,) = _U32.unpack_from(data, at)  # as :func:`_uint32` reads it, without a call per string
        at += 4
        if at + size > end:
            raise EOFError
        found.append(data[at : at + size])
        at += size
    return found, at


def _signer(key_blob: bytes) -> tuple[PublicKey, bytes | rsa.RSAPublicKey | ec.EllipticCurvePublicKey]:
    """The signature's public key, and what verifies with it: an Ed25519 key's
    32-byte point (a well-formed blob is read once, without ``PublicKey.from_blob``
    and ``to_crypto`` reading it twice; ``cryptography``'s key is made only where
    libsodium refuses), or ``cryptography``'s RSA or ECDSA key."""
    point = ed25519_point(key_blob)
    if point is not None:
        return PublicKey(ED25519, key_blob), point
    try:
        public = PublicKey.from_blob(key_blob)
        key = public.to_crypto()
    except KeyFileError as e:
        raise SignatureError(str(e)) from None
    if isinstance(key, ed25519.Ed25519PublicKey):
        return public, key.public_bytes_raw()
    return public, key


def _verify_ed25519(point: bytes, raw: bytes, data: bytes) -> None:
    """Raises ``InvalidSignature``. libsodium first; what it refuses, OpenSSL judges
    (:mod:`pbem.turnfiles.sodium`), but for a key anyone can sign for, which
    OpenSSL would accept (:mod:`pbem.turnfiles.weak_keys`)."""
    if sodium.accepts(raw, data, point):
        return
    key = ed25519.Ed25519PublicKey.from_public_bytes(point)
    if weak_keys.forgeable(key):
        raise SignatureError(
            "signed by a key anyone can sign for (an Ed25519 point of small order): refused; the referee registers"
            " the side's new key (pbem player GAME SIDE --key FILE)"
        )
    key.verify(raw, data)


def _verify_rsa_or_ecdsa(
    key: rsa.RSAPublicKey | ec.EllipticCurvePublicKey, raw: bytes, data: bytes, digest: hashes.HashAlgorithm | None
) -> None:
    """Raises ``InvalidSignature``.  RSA's and ECDSA's modules are imported here, where
    such a key is met (pbem keygen's keys are Ed25519)."""
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

    assert digest is not None  # only Ed25519's algorithm names no hash, and it is verified apart
    if isinstance(key, rsa.RSAPublicKey):
        key.verify(raw, data, padding.PKCS1v15(), digest)
    else:
        key.verify(_ecdsa_der(raw), data, ec.ECDSA(digest))


def _ecdsa_der(raw: bytes) -> bytes:
    """ECDSA's SSH signature (mpint r, mpint s) as the DER `cryptography` checks."""
    reader = WireReader(raw)
    try:
        r, s = (int.from_bytes(reader.string(), "big", signed=True) for _ in range(2))
    except EOFError:
        raise SignatureError("truncated signature") from None
    if not reader.at_end() or r <= 0 or s <= 0:
        raise SignatureError("garbled signature: bad ECDSA values")
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    return encode_dss_signature(r, s)


def split_inline(data: bytes) -> tuple[bytes, str | None]:
    """Split a turn file into (signed message, armored block or None).

    CRLF is normalised first. The block starts at the last line that is exactly the
    BEGIN marker; the message is every byte before that line. Without a block the
    whole (normalised) file is the message.
    """
    data = normalise(data)
    marker = BEGIN.encode("ascii")
    start, offset = None, 0
    for line in data.split(b"\n"):
        if line.rstrip() == marker:
            start = offset
        offset += len(line) + 1
    if start is None:
        return data, None
    return data[:start], data[start:].decode("ascii", errors="replace")


def sign_file(path: Path, key_path: Path, inline: bool = False, passphrase: bytes | None = None) -> Path:
    """Sign a turn file; return the path written.

    Detached: writes `FILE.sig` (replacing an old one). Inline: appends the block to
    FILE (after a newline if the file lacks one), replacing an inline block already
    there.
    """
    path = Path(path)
    key = load_private_key(key_path, passphrase)
    data = path.read_bytes()
    if not inline:
        sig_path = path.with_name(path.name + ".sig")
        paths.write_file(sig_path, sign(normalise(data), key))
        return sig_path
    body, old_block = split_inline(data)
    if old_block is None:
        body = data  # keep the file's own line endings; verification normalises them
    if body and not body.endswith(b"\n"):
        body += b"\n"
    paths.write_file(path, body + sign(normalise(body), key).encode("ascii"))
    return path
