"""OpenSSH keys: generate, load, and the public key as a value (DESIGN: "Signatures").

Players sign turn files with ordinary OpenSSH keys. `pbem keygen` writes an Ed25519
pair in the same files `ssh-keygen -t ed25519` does; keys made by `ssh-keygen`
(Ed25519, RSA, ECDSA) work as well.
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
from typing import Union

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

PrivateKey = Union[ed25519.Ed25519PrivateKey, rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey]
CryptoPublicKey = Union[ed25519.Ed25519PublicKey, rsa.RSAPublicKey, ec.EllipticCurvePublicKey]

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


@dataclass(frozen=True)
class PublicKey:
    """An SSH public key: its type, its wire blob and the comment from its OpenSSH line.

    Two keys are the same key when their blobs are equal (`same_key`); the comment is
    only a label.
    """

    key_type: str
    blob: bytes
    comment: str = ""

    @classmethod
    def from_blob(cls, blob: bytes, comment: str = "") -> PublicKey:
        key_type = blob_key_type(blob)
        key = cls(key_type, blob, comment)
        crypto = key.to_crypto()  # checks the type is supported and the blob is well formed
        if isinstance(crypto, rsa.RSAPublicKey) and crypto.key_size < MIN_RSA_BITS:
            raise KeyFileError(
                f"RSA key of {crypto.key_size} bits refused: OpenSSH refuses RSA keys under {MIN_RSA_BITS} bits "
                "(ssh-keygen -Y verify would fail it); use an Ed25519 key (pbem keygen NAME)"
            )
        return key

    @classmethod
    def from_openssh(cls, line: str) -> PublicKey:
        """Parse an OpenSSH public key line: `TYPE BASE64 [COMMENT]`."""
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
        if isinstance(key, (ed25519.Ed25519PrivateKey, rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
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
        try:
            return serialization.load_ssh_public_key(self._line(with_comment=False).encode("ascii"))
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
    try:
        if b"-----BEGIN OPENSSH PRIVATE KEY-----" in data:
            key = serialization.load_ssh_private_key(data, passphrase)
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
        raise KeyFileError(f"cannot load private key {str(path)!r}: {e}") from None
    if not isinstance(key, (ed25519.Ed25519PrivateKey, rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        raise KeyFileError(
            f"private key {str(path)!r} is a {type(key).__name__}; pbem takes {', '.join(KEY_TYPES)}"
        )
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
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    )
    public_line = PublicKey.from_crypto(key, comment=name).openssh() + "\n"
    directory.mkdir(parents=True, exist_ok=True)
    _write_new(private_path, private_pem, 0o600)
    _write_new(public_path, public_line.encode("ascii"), 0o644)
    return private_path, public_path


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Create `path` with `mode` (never replacing an existing file) and write `data`."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise KeyExistsError(f"key file {str(path)!r} already exists; pbem will not overwrite it") from None
    if not mode & 0o077:
        os.fchmod(fd, mode)  # a private file is exactly `mode`, whatever the umask
    with os.fdopen(fd, "wb") as f:
        f.write(data)
