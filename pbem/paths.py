"""Names that become paths: game ids, and folders built from them.

A game id is a short slug (``GAME_ID_RULE``): letters, digits, ``-``, ``_`` and
``.``, not starting with ``.`` (a hidden or parent folder) nor ``-`` (it would read as
an option on every command line), at most 64 characters.  It names folders of reports
and sites, so anything else (``../x``, ``a/b``, ``.``, an absolute path) is refused
at ``pbem new``; :func:`inside` also guards every path built from a stored id or
side, for databases made before the rule."""

from __future__ import annotations

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


def inside(folder: Path, *parts: str) -> Path:
    """``folder / part / ...``, refusing any part that would leave ``folder``."""
    base = folder.resolve()
    path = base.joinpath(*parts).resolve()
    if any(not p or p in (".", "..") or "/" in p or "\\" in p or "\0" in p for p in parts) or not path.is_relative_to(base):
        raise UnsafePath(f"refusing to write outside {folder}: {'/'.join(parts)!r} is not a plain name")
    return folder.joinpath(*parts)
