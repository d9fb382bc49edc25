"""Names that become paths: game ids, and folders built from them.

A game id is a short slug (``GAME_ID_RULE``): letters, digits, ``-``, ``_`` and
``.``, not starting with ``.`` (a hidden or parent folder) nor ``-`` (it would read as
an option on every command line), at most 64 characters.  It names folders of reports
and sites, so anything else (``../x``, ``a/b``, ``.``, an absolute path) is refused
at ``pbem new``; :func:`inside` also guards every path built from a stored id or
side, for databases made before the rule."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

GAME_ID_RULE = "a game id is 1-64 letters, digits, '-', '_' or '.', not starting with '.' or '-'"
_GAME_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")


def game_id_problem(game_id: str) -> str | None:
    """Why ``game_id`` cannot be a game id, or None."""
    if _GAME_ID.fullmatch(game_id):
        return None
    return f"game id {game_id!r} refused: {GAME_ID_RULE}"


class UnsafePath(ValueError):
    """A name that would put a file outside its folder."""


def _plain(part: str) -> bool:
    return bool(part) and part not in (".", "..") and "/" not in part and "\\" not in part and "\0" not in part


def inside(folder: Path, *parts: str) -> Path:
    """``folder / part / ...``, refusing any part that would leave ``folder``: a part
    that is not a plain name, or a symbolic link (among the parts) that resolves
    outside ``folder``.  Plain names none of which is a link stay inside whatever
    ``folder`` resolves to: only then is a path resolved (each of its folders
    looked up in Python, some 300,000 instructions for a report folder)."""
    if not all(_plain(p) for p in parts):
        raise _outside(folder, parts)
    path = folder.joinpath(*parts)
    if _any_link(folder, parts) and not path.resolve().is_relative_to(folder.resolve()):
        raise _outside(folder, parts)
    return path


def _outside(folder: Path, parts: Sequence[str]) -> UnsafePath:
    return UnsafePath(f"refusing to write outside {folder}: {'/'.join(parts)!r} is not a plain name")


def _any_link(folder: Path, parts: Sequence[str]) -> bool:
    """Whether a path ``folder/parts[0]``, ``folder/parts[0]/parts[1]``, ... is a
    symbolic link (a missing one is not: nothing below it exists either)."""
    path = os.fspath(folder)
    for part in parts:
        path = os.path.join(path, part)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return True
        except OSError:
            return False
    return False


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# A new file only (O_EXCL: a name taken by anything, a symbolic link included, is
# refused with EEXIST and nothing is followed): what it opens is the plain file it made.
_MADE_HERE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW


def _link_refused(path: str | Path) -> UnsafePath:
    return UnsafePath(f"refusing to write through the symbolic link {path}")


def write_file(path: Path, data: str | bytes | Sequence[bytes], *, mode: int = 0o666, new: bool = False) -> Path:
    """Write ``data`` (text as UTF-8; bytes, or pieces of bytes written one after
    the other) to ``path``: every file pbem writes goes through here (or
    :func:`replace_file`).  A symbolic link in ``path``'s place is never followed
    (``O_NOFOLLOW``: refused with :class:`UnsafePath`), nor is anything but a plain
    file written into (a FIFO, a device).  ``new``: the file must not exist
    (``FileExistsError``); ``mode`` is the new file's mode before the umask."""
    _write(path, data, mode, new)
    return path


def _write(path: str | Path, data: str | bytes | Sequence[bytes], mode: int, new: bool) -> None:
    """:func:`write_file`'s work, ``path`` a string or a path."""
    pieces = [data.encode("utf-8")] if isinstance(data, str) else [data] if isinstance(data, bytes) else data
    if not new:
        try:  # a file made here (a report's files are new): a plain file, empty, nothing to check
            fd = os.open(path, _MADE_HERE, mode)
        except FileExistsError:
            pass
        else:
            try:
                _write_all(fd, pieces)
            finally:
                os.close(fd)
            return
    fd = _open_existing(path, mode, new)
    try:  # written through the descriptor: no buffered file object made per file
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePath(f"refusing to write into {path}: it is not a plain file")
        os.set_blocking(fd, True)
        if new and not mode & 0o077:
            os.fchmod(fd, mode)  # a private file is exactly ``mode``, whatever the umask
        if not new:
            os.ftruncate(fd, 0)
        _write_all(fd, pieces)
    finally:
        os.close(fd)


def _open_existing(path: str | Path, mode: int, new: bool) -> int:
    """``path`` opened to be written (made if missing), never through a symbolic link
    (refused), nor blocking on a FIFO (left to the caller's check of a plain file)."""
    flags = os.O_WRONLY | os.O_CREAT | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | (os.O_EXCL if new else 0)
    try:
        return os.open(path, flags, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (new and exc.errno == errno.EEXIST and os.path.islink(path)):
            raise _link_refused(path) from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise UnsafePath(f"refusing to write into {path}: it is not a plain file") from None
        raise


def _write_all(fd: int, pieces: Sequence[bytes]) -> None:
    """Write ``pieces`` one after the other, in as few system calls as the kernel
    allows (``writev``: a page's pieces are not joined into one copy first).  A plain
    file takes them all in one call; only a short write cuts the rest into views."""
    size = sum(map(len, pieces))
    done = os.writev(fd, pieces) if size else 0
    left = [memoryview(piece) for piece in pieces if piece] if done < size else []
    while left:
        while left and done >= len(left[0]):
            done -= len(left.pop(0))
        if done:
            left[0] = left[0][done:]
        if left:
            done = os.writev(fd, left) if len(left) > 1 else os.write(fd, left[0])


def append_file(path: Path, text: str) -> Path:
    """Append ``text`` (UTF-8) to ``path`` (made if missing), never through a
    symbolic link in its place, never into anything but a plain file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_refused(path) from None
        if exc.errno == errno.ENXIO:
            raise UnsafePath(f"refusing to write into {path}: it is not a plain file") from None
        raise
    try:  # written through the descriptor: a buffered file object was half of an append's instructions
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePath(f"refusing to write into {path}: it is not a plain file")
        _write_all(fd, [text.encode("utf-8")])
    finally:
        os.close(fd)
    return path


def replace_file(path: Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` at once: into a new temporary file of the same
    folder (a fresh random name, created exclusively, so no planted link is met),
    then renamed over ``path``.  A symbolic link in ``path``'s place is refused, as
    by :func:`write_file`."""
    if path.is_symlink():
        raise _link_refused(path)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            write_file(tmp, data, new=True)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def write_inside(folder: Path, name: str, text: str | bytes | Sequence[bytes]) -> Path:
    """Write ``text`` (UTF-8, or bytes as :func:`write_file` does) to the file ``name`` of ``folder``, refusing what
    :func:`inside` refuses: a name that is not a plain name, and a symbolic link
    in its place (never followed).  It resolves no path: a resolution's reports
    write six files, and resolving each one's whole path took longer than
    writing it."""
    if not _plain(name):
        raise UnsafePath(f"refusing to write outside {folder}: {name!r} is not a plain name")
    _write(f"{os.fspath(folder)}/{name}", text, 0o666, False)  # opened by its text: no path turned into text
    return folder / name
