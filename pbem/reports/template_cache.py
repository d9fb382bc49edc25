"""Compiled templates kept between processes (Jinja's bytecode cache), so that a
command that writes a report does not compile its templates again in every
process (since the speed work).

The folder is per user: ``$PBEM_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/pbem/templates``, else ``~/.cache/pbem/templates``; it is made
``0700``.  Jinja stores each template's checksum with its code and compiles the
template again when its source changed, so an edited template is never served
stale, and the folder is safe to delete at any time.  A folder that cannot be
made or written, or that others could write into (code loaded from it is run),
means no cache: the templates are compiled as they would be without one, and no
report ever fails for its cache.
"""

from __future__ import annotations

import os
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


class _QuietCache(jinja2.FileSystemBytecodeCache):
    """Jinja's file cache, silent when the file system says no: a template that
    cannot be loaded from the cache is compiled, one that cannot be stored is not."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:
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
