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
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAGIC = b"pbem-rules-data/1\n"
"""The first bytes of every cache file (a new layout changes the number)."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_VERSION = f"{sys.implementation.cache_tag} {sys.version}".encode()


def cache_folder() -> str:
    """Where this user's parsed rules data is kept (module docstring), as a string
    (``os.path``: ``pathlib``'s objects cost a cache hit more than its read);
    RuntimeError when there is no home folder."""
    explicit = os.environ.get("PBEM_CACHE_DIR")
    if explicit:
        return os.path.join(explicit, "rules-data")
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        home = os.path.expanduser("~")
        if home.startswith("~"):
            raise RuntimeError("no home folder")
        base = os.path.join(home, ".cache")
    return os.path.join(base, "pbem", "rules-data")


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


def _folder() -> str | None:
    """The cache folder, made if needed; None when it cannot be used."""
    try:
        folder = cache_folder()
        status = _made(folder)
    except (OSError, RuntimeError):  # RuntimeError: no home folder to be found
        return None
    if not stat.S_ISDIR(status.st_mode) or status.st_mode & 0o022:
        return None
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return None
    return folder


def _made(folder: str) -> os.stat_result:
    """The folder's own status (not through a link), the folder made first when absent."""
    try:
        return os.stat(folder, follow_symlinks=False)
    except FileNotFoundError:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return os.stat(folder, follow_symlinks=False)


def read_to_end(fd: int, size: int) -> bytes:
    """What is left to read of the open file ``fd``, ``size`` bytes long when it was
    looked at (``os.read``: a file object costs a small file more than its read)."""
    parts = [os.read(fd, size + 1)]
    while parts[-1]:
        parts.append(os.read(fd, 1 << 16))
    return b"".join(parts)


def _read(path: str, key: bytes) -> dict[str, Any] | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:  # absent, a link, unreadable
        return None
    try:
        status = os.fstat(fd)
        if not _trusted(status):
            return None
        data = read_to_end(fd, status.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    head = MAGIC + key
    if not data.startswith(head):
        return None
    try:
        parsed = marshal.loads(data[len(head) :])
    except (EOFError, ValueError, TypeError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _write(path: str, key: bytes, parsed: dict[str, Any]) -> None:
    try:
        payload = marshal.dumps(parsed)
    except ValueError:  # a value marshal cannot hold (a TOML date): not kept
        return
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
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
    return _kept(lambda: key_of(content), lambda: _parse(content))


def derived_key(kind: str, material: bytes) -> bytes:
    """The cache key of data derived by ``kind``'s builder from ``material``: never
    the key of a data file's content (another prefix), nor of another kind's."""
    return hashlib.sha256(MAGIC + _VERSION + b"\0derived\0" + kind.encode() + b"\0" + material).digest()


def load_derived(kind: str, material: bytes, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``build()``, from the user's cache when it holds what ``kind``'s builder made
    of ``material`` before.  ``material`` holds everything the answer depends on:
    the data it is derived from and the SHA-256 of the code that derives it (the
    caller's to give), so an edited data file or an edited builder never finds a
    stale entry; what ``build`` returns is plain data, as a parse is."""
    return _kept(lambda: derived_key(kind, material), build)


def _kept(key_of_it: Callable[[], bytes], build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    folder = _folder()
    if folder is None:
        return build()
    key = key_of_it()
    entry = os.path.join(folder, f"{key.hex()}.marshal")
    cached = _read(entry, key)
    if cached is not None:
        return cached
    built = build()
    _write(entry, key, built)
    return built
