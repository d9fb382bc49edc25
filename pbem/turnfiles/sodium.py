"""Ed25519 signatures checked by libsodium first, for speed (docs/design.md, "Signatures").

OpenSSL, through ``cryptography``, decides whether a signature verifies: it is what
``ssh-keygen`` agrees with and what pbem has always accepted. libsodium (the copy
PyNaCl bundles) verifies the same equation in about half the instructions (0.68 M
against 1.46 M), and accepts a strict subset of what OpenSSL accepts: it also
refuses a public key or a commitment of small order and a key not canonically
encoded, which OpenSSL lets through. So a signature libsodium accepts is one
OpenSSL accepts, and only a refusal needs OpenSSL's word (:func:`sshsig.verify`):
every verdict is OpenSSL's, most of them reached at libsodium's price.

The library is PyNaCl's compiled module ``nacl._sodium``, read directly: importing
the public ``nacl.bindings`` initialises every binding PyNaCl has (about 13 M
instructions, against 1.4 M), which a command that checks one file would pay for
nothing. Without it, :func:`accepts` answers False and OpenSSL checks everything.
"""

from __future__ import annotations

from typing import Any

SIGNATURE_BYTES = 64
PUBLIC_KEY_BYTES = 32

_library: tuple[Any, Any] | None = None
_loaded = False


def _sodium() -> tuple[Any, Any] | None:
    """libsodium's ``ffi`` and ``lib``, initialised once; None where PyNaCl's
    compiled module is missing or libsodium fails to start."""
    global _library, _loaded
    if not _loaded:
        _loaded = True
        try:
            from nacl._sodium import ffi, lib
        except ImportError:
            return None
        if lib.sodium_init() >= 0:  # 0 started now, 1 already started, -1 failed
            _library = (ffi, lib)
    return _library


def available() -> bool:
    """Whether libsodium checks signatures ahead of OpenSSL in this process."""
    return _sodium() is not None


def accepts(signature: bytes, message: bytes, public_key: bytes) -> bool:
    """True when libsodium accepts ``signature`` over ``message`` by the raw 32-byte
    Ed25519 ``public_key`` (then OpenSSL does too); False when it refuses or is
    missing, which says nothing: ask OpenSSL."""
    library = _sodium()
    if library is None or len(signature) != SIGNATURE_BYTES or len(public_key) != PUBLIC_KEY_BYTES:
        return False
    ffi, lib = library
    signed = signature + message  # crypto_sign_open's "signed message": the signature, then the message
    return bool(lib.crypto_sign_open(ffi.NULL, ffi.NULL, signed, len(signed), public_key) == 0)
