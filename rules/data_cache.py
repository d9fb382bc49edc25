"""Parsed rules data kept between processes: a TOML data file (the Farrapos board,
counters and battle table, the Furor Barbarus scenarios, maps and CRT) is parsed
once per user, not in every command that plays the rules.

:func:`load_toml` reads the file and returns what ``tomllib`` would return for it.
The parsed data is kept as a ``marshal`` of plain dicts, lists, strings and numbers
(no code is ever loaded from the cache) in a file named by the SHA-256 of the file's
content and the Python version, so an edited data file or another Python never finds
a stale entry.  The file also holds that key after a magic line, and is used only if
both match and it unmarshals to a dict: a damaged, truncated, foreign or mismatched
file is ignored and written again.

The folder is ``$PBEM_CACHE_DIR/rules-data`` if that is set, else
``$XDG_CACHE_HOME/pbem/rules-data``, else ``~/.cache/pbem/rules-data``, made ``0700``.
A folder that cannot be made or written, or that is not the user's alone, means no
cache (the file is parsed, as it would be without one); a cache file is read only if
it is a plain file of the user's that nobody else may write, never through a
symbolic link, and written into a fresh temporary file (created exclusively, links
not followed) renamed into place.  Data ``marshal`` cannot hold (a TOML date) is
simply not kept.  No rules data ever fails for its cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import stat
import sys
from pathlib import Path
from typing import Any

MAGIC = b"pbem-rules-data/1\n"
"""The first bytes of every cache file (a new layout changes the number)."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_VERSION = f"{sys.implementation.cache_tag} {sys.version}".encode()


def cache_folder() -> Path:
    """Where this user's parsed rules data is kept."""
    explicit = os.environ.get("PBEM_CACHE_DIR")
    if explicit:
        return Path(explicit) / "rules-data"
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "pbem" / "rules-data"


def key_of(content: bytes) -> bytes:
    """The cache key of a data file's content: its SHA-256 with the Python version
    (marshal's format and the parser's output are the running Python's)."""
    return hashlib.sha256(MAGIC + _VERSION + b"\0" + content).digest()


def _parse(content: bytes) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(content.decode())


def _trusted(status: os.stat_result) -> bool:
    if not stat.S_ISREG(status.st_mode) or status.st_mode & 0o022:
        return False
    return not hasattr(os, "getuid") or status.st_uid == os.getuid()


def _folder() -> Path | None:
    """The cache folder, made if needed; None when it cannot be used."""
    try:
        folder = cache_folder()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = os.stat(folder, follow_symlinks=False)
    except (OSError, RuntimeError):  # RuntimeError: no home folder to be found
        return None
    if not stat.S_ISDIR(status.st_mode) or status.st_mode & 0o022:
        return None
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return None
    return folder


def _read(path: Path, key: bytes) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:  # absent, a link, unreadable
        return None
    with open(fd, "rb") as f:
        try:
            if not _trusted(os.fstat(fd)):
                return None
            data = f.read()
        except OSError:
            return None
    head = MAGIC + key
    if not data.startswith(head):
        return None
    try:
        parsed = marshal.loads(data[len(head) :])
    except (EOFError, ValueError, TypeError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _write(path: Path, key: bytes, parsed: dict[str, Any]) -> None:
    try:
        payload = marshal.dumps(parsed)
    except ValueError:  # a value marshal cannot hold (a TOML date): not kept
        return
    tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    except OSError:
        return
    try:
        with open(fd, "wb") as f:
            f.write(MAGIC + key + payload)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def load_toml(path: Path | str) -> dict[str, Any]:
    """``tomllib.load`` of the file at ``path``, from the user's cache when it holds
    this content's parse (module docstring)."""
    with open(path, "rb") as f:
        content = f.read()
    folder = _folder()
    if folder is None:
        return _parse(content)
    key = key_of(content)
    entry = folder / f"{key.hex()}.marshal"
    cached = _read(entry, key)
    if cached is not None:
        return cached
    parsed = _parse(content)
    _write(entry, key, parsed)
    return parsed
