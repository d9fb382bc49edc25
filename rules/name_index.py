"""How names fold, and the index a :class:`~pbem.rules.names.NameTable` answers from.

:func:`build` works the index out of a table's entries as plain data (dicts,
tuples, lists, strings and a number: what ``marshal`` keeps), so that a table of
the shipped data is built once per user and read back after (rules/data_cache.py).
Everything the index depends on is its entries and this module: :func:`code_key`
(the SHA-256 of this module's source and of the Unicode data's version) is part
of the key it is kept under, so an edited builder never meets a stale entry.

>>> fold("  São_Gabriel "), folded("porto-alegre")
('sao-gabriel', 'porto-alegre')
>>> build([("santo-angelo", ["Santo Ângelo"]), ("santo-antonio", [])])["starts"]
{'santo': ('santo-angelo', 'santo-antonio')}
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

_SEPARATORS = re.compile(r"[\s_-]+")
_ALREADY_FOLDED = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*").fullmatch
"""A name that :func:`fold` leaves as it is (an id as written: lower-case ASCII words
joined by single hyphens): most names in a turn file, which then cost no Unicode
normalisation."""


def fold(name: str) -> str:
    """A name as compared: lower case, no accents, spaces and underscores as ``-``."""
    # an ASCII name has no accent to take off (NFKD leaves it as it is, and no ASCII character combines)
    plain = (
        name
        if name.isascii()
        else "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    )
    return _SEPARATORS.sub("-", plain.strip().lower()).strip("-")


def folded(name: str) -> str:
    """:func:`fold` of ``name``, without its work for a name already folded.

    >>> folded("Porto Alegre"), folded("-x")
    ('porto-alegre', 'x')
    """
    return name if _ALREADY_FOLDED(name) else fold(name)


def build(entries: Iterable[tuple[str, Iterable[str]]]) -> dict[str, Any]:
    """The index of a table of ``entries`` (each an id and the names it is shown by):
    ``ids`` (each fold of an id: the first id of that fold), ``names`` (each fold of
    a name or id: the ids of that name, sorted), ``starts`` (the leading words of
    the names, ``santo`` of ``santo-angelo``: the ids whose names begin with them,
    when two or more), ``longest`` (the most words of a name), ``plain`` (the ids
    written as they fold) and ``own`` (those of them first of their fold)."""
    by_fold: dict[str, set[str]] = {}
    ids: dict[str, str] = {}
    plain: list[str] = []  # the ids written as they fold (``porto-alegre``, ``inf-5``)
    for ident, names in entries:
        key = folded(ident)
        ids.setdefault(key, ident)
        if key is ident:
            plain.append(ident)
        for name in (ident, *names):
            if name:
                by_fold.setdefault(folded(name), set()).add(ident)
    found_by = {f: tuple(sorted(found)) for f, found in by_fold.items()}
    starts: dict[str, set[str]] = {}
    for f, found in found_by.items():
        at = f.find("-")
        while at > 0:
            starts.setdefault(f[:at], set()).update(found)
            at = f.find("-", at + 1)
    return {
        "ids": ids,
        "names": found_by,
        "starts": {words: tuple(sorted(found)) for words, found in starts.items() if len(found) >= 2},
        "longest": max((f.count("-") + 1 for f in found_by), default=1),
        "plain": plain,
        "own": [ident for ident in plain if ids[ident] is ident],
    }


@functools.lru_cache(maxsize=1)
def code_key() -> bytes | None:
    """The SHA-256 of this module's source and of the Unicode data :func:`fold`
    uses; None when the source cannot be read (then no index is kept)."""
    try:
        with open(__file__, "rb") as f:
            source = f.read()
    except (OSError, TypeError):  # TypeError: no file (a frozen module)
        return None
    return hashlib.sha256(source + b"\0" + unicodedata.unidata_version.encode()).digest()
