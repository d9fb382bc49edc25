"""Names that become paths: game ids, and folders built from them.

A game id is a short slug (``GAME_ID_RULE``): letters, digits, ``-``, ``_`` and
``.``, not starting with ``.`` (a hidden or parent folder) nor ``-`` (it would read as
an option on every command line), at most 64 characters.  It names folders of reports
and sites, so anything else (``../x``, ``a/b``, ``.``, an absolute path) is refused
at ``pbem new``; :func:`inside` also guards every path built from a stored id or
side, for databases made before the rule."""

from __future__ import annotations

import errno
import os
import re
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
    """``folder / part / ...``, refusing any part that would leave ``folder``."""
    base = folder.resolve()
    path = base.joinpath(*parts).resolve()
    if not all(_plain(p) for p in parts) or not path.is_relative_to(base):
        raise UnsafePath(f"refusing to write outside {folder}: {'/'.join(parts)!r} is not a plain name")
    return folder.joinpath(*parts)


def write_inside(folder: Path, name: str, text: str) -> Path:
    """Write ``text`` (UTF-8) to the file ``name`` of ``folder``, refusing what
    :func:`inside` refuses: a name that is not a plain name, and a symbolic link
    in its place (never followed).  It resolves no path: a resolution's reports
    write six files, and resolving each one's whole path took longer than
    writing it (since the speed work)."""
    if not _plain(name):
        raise UnsafePath(f"refusing to write outside {folder}: {name!r} is not a plain name")
    path = folder / name
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(f"refusing to write through the symbolic link {path}") from None
        raise
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return path
