"""Compiled templates kept between processes (Jinja's bytecode cache), so that a
command that writes a report does not compile its templates again in every
process.

The folder is per user: ``$PBEM_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/pbem/templates``, else ``~/.cache/pbem/templates``; it is made
``0700``.  Jinja stores each template's checksum with its code and compiles the
template again when its source changed, so an edited template is never served
stale, and the folder is safe to delete at any time.  A folder that cannot be
made or written, or that others could write into (code loaded from it is run),
means no cache: the templates are compiled as they would be without one, and no
report ever fails for its cache.  Inside the folder, a file that is not a plain
file of the user's own, or that others may write, is never loaded (it is compiled
afresh and replaced); so is a file that cannot be loaded for any reason (truncated,
corrupt, of another version).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket


def cache_folder() -> Path:
    """Where this user's compiled templates are kept."""
    explicit = os.environ.get("PBEM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "pbem" / "templates"


def _trusted(status: os.stat_result) -> bool:
    """A cache file may be loaded (its code is run) only if it is a plain file of
    this user's that nobody else may write."""
    if not stat.S_ISREG(status.st_mode) or status.st_mode & 0o022:
        return False
    return not hasattr(os, "getuid") or status.st_uid == os.getuid()


class _QuietCache(jinja2.FileSystemBytecodeCache):
    """Jinja's file cache, silent when the file system says no, and wary: a file
    that is not this user's alone is never loaded, and a file that cannot be
    loaded (unreadable, truncated, corrupt) means the template is compiled afresh
    and the file replaced; a template that cannot be stored is not."""

    def load_bytecode(self, bucket: Bucket) -> None:
        filename = self._get_cache_filename(bucket)
        try:
            fd = os.open(filename, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError:  # absent, a link, or unreadable: compile
            return
        with open(fd, "rb") as f:
            try:
                if not _trusted(os.fstat(fd)):
                    return
                bucket.load_bytecode(f)
            except Exception:  # any failure to load means: compile afresh (pickle raises many kinds)
                bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def bytecode_cache() -> jinja2.BytecodeCache | None:
    """The user's cache of compiled templates, or ``None`` (no cache) when its
    folder cannot be made or written, or is not the user's alone."""
    try:
        folder = cache_folder()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = folder.stat()
    except (OSError, RuntimeError):  # RuntimeError: no home folder to be found
        return None
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return None
    if status.st_mode & 0o022 or not os.access(folder, os.W_OK | os.X_OK):
        return None
    return _QuietCache(str(folder))
