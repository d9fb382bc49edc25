"""How names fold, and the index a :class:`~pbem.rules.names.NameTable` answers from
(plain data, as ``marshal`` keeps it: rules/data_cache.py).  The index depends on its
entries and this module only; :func:`code_key` is the SHA-256 of this module's source
(kept short: it is hashed in each process that reads a kept table).

>>> fold("  São_Gabriel "), build([("santo-angelo", ["Santo Ângelo"]), ("santo-antonio", [])])["starts"]
('sao-gabriel', {'santo': ('santo-angelo', 'santo-antonio')})
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from collections.abc import Iterable
from typing import Any


def fold(name: str) -> str:
    """A name as compared: lower case, no accents, spaces and underscores as ``-``
    (runs of whitespace, ``_`` and ``-`` as one, none at either end: ``str.split``'s
    whitespace is the pattern ``\\s``'s, which compiled at each import before)."""
    # an ASCII name has no accent to take off (NFKD leaves it as it is, and no ASCII character combines)
    plain = (
        name
        if name.isascii()
        else "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    )
    return "-".join(plain.strip().lower().replace("_", " ").replace("-", " ").split())


def folded(name: str) -> str:
    """:func:`fold` of ``name``, without its work for a name already folded: an id,
    lower-case ASCII letters and digits in words joined by single hyphens."""
    if name.isascii() and name.replace("-", "").isalnum() and name == name.lower():
        if "--" not in name and name[0] != "-" and name[-1] != "-":
            return name
    return fold(name)


def build(entries: Iterable[tuple[str, Iterable[str]]]) -> dict[str, Any]:
    """The index of ``entries`` (ids and their names), as ``NameTable._adopt`` reads it."""
    by_fold: dict[str, set[str]] = {}
    ids: dict[str, str] = {}
    plain: list[str] = []
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
    """The SHA-256 of this module's source and Unicode data; None when unread (no index kept)."""
    try:
        with open(__file__, "rb") as f:
            source = f.read()
    except (OSError, TypeError):  # TypeError: no file (a frozen module)
        return None
    return hashlib.sha256(source + b"\0" + unicodedata.unidata_version.encode()).digest()
