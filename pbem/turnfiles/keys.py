"""OpenSSH keys: generate, load, and the public key as a value (docs/design.md, "Signatures").

Players sign turn files with ordinary OpenSSH keys. `pbem keygen` writes an Ed25519
pair in the same files `ssh-keygen -t ed25519` does; keys made by `ssh-keygen`
(Ed25519, RSA, ECDSA) work as well.

Ed25519 keys, the ones `pbem keygen` writes, are read and written here without
`cryptography`'s SSH module (`serialization.ssh`: about a sixth of `pbem sign`'s
start-up, docs/performance.md "Start-up"): a public key blob, an unencrypted
OpenSSH private key file, and a new pair.  Anything else (RSA, ECDSA, a key with a
passphrase, a file out of the ordinary) goes to that module, imported on first
use, which also words every error.  tests/test_keys.py checks both readers agree.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Union, cast

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import ed25519

from pbem import paths

if TYPE_CHECKING:  # imported where an RSA or ECDSA key is met (pbem keygen's keys are Ed25519)
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes

PrivateKey = Union[ed25519.Ed25519PrivateKey, "rsa.RSAPrivateKey", "ec.EllipticCurvePrivateKey"]
CryptoPublicKey = Union[ed25519.Ed25519PublicKey, "rsa.RSAPublicKey", "ec.EllipticCurvePublicKey"]

# The SSH key types pbem signs and verifies with.
KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
)

MIN_RSA_BITS = 1024
"""OpenSSH's floor (SSH_RSA_MINIMUM_MODULUS_SIZE): smaller RSA keys are refused
everywhere, so a signature an auditor's ssh-keygen would refuse is never accepted."""

_KEY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class KeyFileError(ValueError):
    """A key file or key line that cannot be used: unreadable, malformed or unsupported."""


class KeyExistsError(KeyFileError):
    """`pbem keygen` refuses to overwrite a key file."""


class WireReader:
    """Reads the SSH wire encoding (RFC 4251): uint32 and length-prefixed strings.

    >>> r = WireReader(b"\\x00\\x00\\x00\\x02hi")
    >>> r.string(), r.at_end()
    (b'hi', True)
    """

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def take(self, n: int) -> bytes:
        if self._pos + n > len(self._data):
            raise EOFError(f"needs {n} bytes at offset {self._pos}, has {len(self._data) - self._pos}")
        chunk = self._data[self._pos : self._pos + n]
        self._pos += n
        return chunk

    def uint32(self) -> int:
        return struct.unpack(">I", self.take(4))[0]

    def string(self) -> bytes:
        return self.take(self.uint32())

    def at_end(self) -> bool:
        return self._pos == len(self._data)

    def rest(self) -> bytes:
        """The bytes not read yet."""
        return self._data[self._pos :]


def wire_string(value: bytes | str) -> bytes:
    """SSH `string`: uint32 length, then the bytes (text in UTF-8)."""
    if isinstance(value, str):
        value = value.encode("utf-8")
    return struct.pack(">I", len(value)) + value


def blob_key_type(blob: bytes) -> str:
    """The key type named at the start of an SSH public key blob."""
    try:
        return WireReader(blob).string().decode("ascii")
    except (EOFError, UnicodeDecodeError):
        raise KeyFileError(f"malformed public key blob ({len(blob)} bytes)") from None


@dataclass(frozen=True, init=False)
class PublicKey:
    """An SSH public key: its type, its wire blob and the comment from its OpenSSH line.

    Two keys are the same key when their blobs are equal (`same_key`); the comment is
    only a label.
    """

    key_type: str
    blob: bytes
    comment: str

    def __init__(self, key_type: str, blob: bytes, comment: str = "") -> None:
        # at once in its own ``__dict__``: a frozen dataclass's ``__init__`` sets each
        # field through ``object.__setattr__``, about 2 k instructions a field (a key is
        # made for each signature verified)
        self.__dict__.update(key_type=key_type, blob=blob, comment=comment)

    @classmethod
    def from_blob(cls, blob: bytes, comment: str = "") -> PublicKey:
        key_type = blob_key_type(blob)
        key = cls(key_type, blob, comment)
        crypto = key.to_crypto()  # checks the type is supported and the blob is well formed
        if key_type == "ssh-rsa":
            from cryptography.hazmat.primitives.asymmetric import rsa  # imported where an RSA key is met

            if isinstance(crypto, rsa.RSAPublicKey) and crypto.key_size < MIN_RSA_BITS:
                raise KeyFileError(
                    f"RSA key of {crypto.key_size} bits refused: OpenSSH refuses RSA keys under {MIN_RSA_BITS} bits "
                    "(ssh-keygen -Y verify would fail it); use an Ed25519 key (pbem keygen NAME)"
                )
        return key

    @classmethod
    def from_openssh(cls, line: str) -> PublicKey:
        """Parse an OpenSSH public key line: `TYPE BASE64 [COMMENT]`."""
        if line.lstrip().startswith("-----BEGIN") and "PRIVATE KEY" in line.lstrip().split("\n", 1)[0]:
            raise KeyFileError(
                "this is a private key, not a public one: give its .pub file (and keep the private key to yourself)"
            )
        fields = line.strip().split(None, 2)
        if len(fields) < 2:
            raise KeyFileError(f"not an OpenSSH public key line: {line.strip()!r}")
        key_type, b64 = fields[0], fields[1]
        comment = fields[2] if len(fields) == 3 else ""
        try:
            blob = base64.b64decode(b64, validate=True)
        except binascii.Error:
            raise KeyFileError(f"public key {key_type!r} has bad base64: {b64[:20]!r}...") from None
        key = cls.from_blob(blob, comment)
        if key.key_type != key_type:
            raise KeyFileError(f"public key line says {key_type!r} but its blob is {key.key_type!r}")
        return key

    @classmethod
    def from_file(cls, path: Path) -> PublicKey:
        """Read a `.pub` file (its first non-empty line)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise KeyFileError(f"cannot read public key {str(path)!r}: {e}") from None
        lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
        if not lines:
            raise KeyFileError(f"public key file {str(path)!r} is empty")
        try:
            return cls.from_openssh(lines[0])
        except KeyFileError as e:
            raise KeyFileError(f"{path}: {e}") from None

    @classmethod
    def from_crypto(cls, key: CryptoPublicKey | PrivateKey, comment: str = "") -> PublicKey:
        """The public key of a `cryptography` key object (public or private)."""
        if isinstance(key, ed25519.Ed25519PrivateKey):
            key = key.public_key()
        if isinstance(key, ed25519.Ed25519PublicKey):
            return cls.from_blob(_ed25519_blob(key.public_bytes_raw()), comment)
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa

        if isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
            key = key.public_key()

        try:
            line = key.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        except (ValueError, TypeError) as e:
            raise KeyFileError(f"unsupported key {type(key).__name__}: {e}") from None
        b64 = line.decode("ascii").split()[1]
        return cls.from_blob(base64.b64decode(b64), comment)

    def to_crypto(self) -> CryptoPublicKey:
        """The `cryptography` public key object, for verifying."""
        if self.key_type not in KEY_TYPES:
            raise KeyFileError(f"unsupported key type {self.key_type!r} (pbem takes {', '.join(KEY_TYPES)})")
        if self.key_type == ED25519 and (point := ed25519_point(self.blob)) is not None:
            return ed25519.Ed25519PublicKey.from_public_bytes(point)
        from cryptography.hazmat.primitives import serialization

        try:
            # the line names one of KEY_TYPES and the blob must be of that type: no DSA key comes back
            return cast(
                CryptoPublicKey, serialization.load_ssh_public_key(self._line(with_comment=False).encode("ascii"))
            )
        except (ValueError, UnsupportedAlgorithm) as e:
            raise KeyFileError(f"malformed {self.key_type} public key: {e}") from None

    def _line(self, with_comment: bool) -> str:
        line = f"{self.key_type} {base64.b64encode(self.blob).decode('ascii')}"
        return f"{line} {self.comment}" if with_comment and self.comment else line

    def openssh(self) -> str:
        """The OpenSSH line, `ssh-ed25519 AAAA... comment` (no comment if it is empty)."""
        return self._line(with_comment=True)

    def fingerprint(self) -> str:
        """`SHA256:...` as `ssh-keygen -l` prints it."""
        digest = hashlib.sha256(self.blob).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    def same_key(self, other: PublicKey) -> bool:
        return self.blob == other.blob

    def __str__(self) -> str:
        return self.openssh()


def load_private_key(path: Path, passphrase: bytes | None = None) -> PrivateKey:
    """Load an OpenSSH (or PEM) private key file as a `cryptography` key object."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise KeyFileError(f"cannot read private key {str(path)!r}: {e.strerror}") from None
    if data.lstrip().split(b" ", 1)[0].decode("ascii", "replace") in KEY_TYPES or data.lstrip().startswith(
        (b"ssh-", b"ecdsa-sha2-", b"sk-")
    ):
        hint = f" {str(path)[:-4]!r} (the same name without .pub)" if str(path).endswith(".pub") else ""
        raise KeyFileError(
            f"key file {str(path)!r} is a public key, not a private one: sign with your private key file{hint}"
        )
    ed25519_key = _ed25519_private(data) if passphrase is None else None
    if ed25519_key is not None:
        return ed25519_key
    from cryptography.hazmat.primitives import serialization

    try:
        if _SK_START in data:
            key: PrivateKeyTypes = serialization.load_ssh_private_key(data, passphrase)
        else:
            key = serialization.load_pem_private_key(data, passphrase)
    except TypeError:
        # cryptography raises TypeError for a missing (or unexpected) passphrase.
        if passphrase is None:
            raise KeyFileError(f"private key {str(path)!r} is protected by a passphrase") from None
        raise KeyFileError(f"private key {str(path)!r} has no passphrase, but one was given") from None
    except (ValueError, UnsupportedAlgorithm) as e:
        if "bcrypt" in str(e):
            raise KeyFileError(
                f"private key {str(path)!r} is protected by a passphrase, and decrypting it needs the"
                " Python package 'bcrypt'; install it, or sign with `ssh-keygen -Y sign -n pbem`"
            ) from None
        if "Unable to load PEM" in str(e) or "Could not deserialize" in str(e):
            raise KeyFileError(
                f"cannot load private key {str(path)!r}: it is not an OpenSSH or PEM private key file"
            ) from None
        raise KeyFileError(f"cannot load private key {str(path)!r}: {e}") from None
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if not isinstance(key, (ed25519.Ed25519PrivateKey, rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        raise KeyFileError(f"private key {str(path)!r} is a {type(key).__name__}; pbem takes {', '.join(KEY_TYPES)}")
    PublicKey.from_crypto(key)  # rejects curves OpenSSH has no name for
    return key


def generate_ed25519(name: str, directory: Path) -> tuple[Path, Path]:
    """Write a new Ed25519 pair `directory/name` (mode 0600) and `directory/name.pub`.

    The public line's comment is `name`. Refuses to overwrite either file.
    """
    if not _KEY_NAME.fullmatch(name):
        raise KeyFileError(f"key name {name!r} must be letters, digits, '.', '_' or '-' (a plain file name)")
    directory = Path(directory)
    private_path, public_path = directory / name, directory / f"{name}.pub"
    for path in (private_path, public_path):
        if path.exists():
            raise KeyExistsError(f"key file {str(path)!r} already exists; pbem will not overwrite it")
    key = ed25519.Ed25519PrivateKey.generate()
    private_pem = _ed25519_openssh(key)
    public_line = PublicKey.from_crypto(key, comment=name).openssh() + "\n"
    directory.mkdir(parents=True, exist_ok=True)
    _write_new(private_path, private_pem, 0o600)
    _write_new(public_path, public_line.encode("ascii"), 0o644)
    return private_path, public_path


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Create `path` with `mode` (never replacing an existing file, never through a
    link) and write `data`."""
    try:
        paths.write_file(path, data, mode=mode, new=True)
    except FileExistsError:
        raise KeyExistsError(f"key file {str(path)!r} already exists; pbem will not overwrite it") from None


# --- Ed25519 without cryptography's SSH module ---------------------------------
# The OpenSSH private key format (PROTOCOL.key): "openssh-key-v1\0", then
# string cipher, string kdf, string kdf options, uint32 count, string public key,
# string private section; the private section is uint32 check, uint32 check
# (equal), string type, the key's private fields, string comment, then padding
# 1, 2, 3 ... to a multiple of 8 (of the cipher's block; "none": 8).

ED25519 = "ssh-ed25519"
_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"
_SK_END = b"-----END OPENSSH PRIVATE KEY-----"
_SK_MAGIC = b"openssh-key-v1\0"
_NONE = wire_string("none")
_PEM_WIDTH = 64  # as cryptography and ssh-keygen wrap the base64


def _ed25519_blob(point: bytes) -> bytes:
    return wire_string(ED25519) + wire_string(point)


_ED25519_HEAD = wire_string(ED25519) + struct.pack(">I", 32)
"""What every well-formed ``ssh-ed25519`` blob begins with: its type, then the
length of its 32-byte point."""


def ed25519_point(blob: bytes) -> bytes | None:
    """The 32-byte point of a well-formed ``ssh-ed25519`` blob (its type, its point
    and nothing after: a blob of one length and one beginning, checked without
    reading it field by field); None for anything else."""
    if len(blob) != len(_ED25519_HEAD) + 32 or not blob.startswith(_ED25519_HEAD):
        return None
    return blob[len(_ED25519_HEAD) :]


def _ed25519_private(data: bytes) -> ed25519.Ed25519PrivateKey | None:
    """An unencrypted OpenSSH Ed25519 private key, as `pbem keygen` and
    `ssh-keygen -N ''` write it, read with every check cryptography makes; None
    for any other file, which cryptography then reads (or refuses, in its words)."""
    start = data.find(_SK_START)
    end = data.find(_SK_END, start + len(_SK_START)) if start >= 0 else -1
    if end < 0:
        return None
    try:
        decoded = binascii.a2b_base64(data[start + len(_SK_START) : end])
    except binascii.Error:
        return None
    if not decoded.startswith(_SK_MAGIC):
        return None
    outer = WireReader(decoded[len(_SK_MAGIC) :])
    try:
        header = outer.take(len(_NONE) * 2)  # cipher and kdf
        outer.string()  # kdf options: not read without a kdf
        count = outer.uint32()
        public = outer.string()
        section = outer.string()
        inner = WireReader(section)
        checks = inner.uint32(), inner.uint32()
        key_type = inner.string()
        point = inner.string()
        pair = inner.string()  # the 32-byte secret, then the point again
        inner.string()  # comment
    except EOFError:
        return None
    padding = inner.rest()
    well_formed = (
        header == _NONE * 2
        and count == 1
        and outer.at_end()
        and len(section) % 8 == 0
        and checks[0] == checks[1]
        and key_type == ED25519.encode("ascii")
        and public == _ed25519_blob(point)
        and len(point) == 32
        and pair == pair[:32] + point
        and len(pair) == 64
        and padding == bytes(range(1, len(padding) + 1))
        and len(padding) <= 16
    )
    return ed25519.Ed25519PrivateKey.from_private_bytes(pair[:32]) if well_formed else None


def _ed25519_openssh(key: ed25519.Ed25519PrivateKey) -> bytes:
    """The unencrypted OpenSSH private key file of ``key``, byte for byte as
    cryptography writes it (a random check value; padding 1, 2, 3 ... after the
    empty comment, up to 8 bytes)."""
    point = key.public_key().public_bytes_raw()
    check = os.urandom(4)
    section = check + check + _ed25519_blob(point) + wire_string(key.private_bytes_raw() + point) + wire_string(b"")
    section += bytes(range(1, 9 - len(section) % 8))
    body = (
        _SK_MAGIC
        + _NONE
        + _NONE
        + wire_string(b"")
        + struct.pack(">I", 1)
        + wire_string(_ed25519_blob(point))
        + wire_string(section)
    )
    text = base64.b64encode(body)
    lines = [text[i : i + _PEM_WIDTH] for i in range(0, len(text), _PEM_WIDTH)]
    return b"\n".join([_SK_START, *lines, _SK_END]) + b"\n"
