"""Did-you-mean for order problems, shared by every ruleset.

A name a player typed is compared with the names that are *legal there* (the
caller passes only those), folded the same way on both sides: case, accents,
spaces and underscores do not matter (``Porto Alegre``, ``porto_alegre`` and
``porto-alegre`` are one name; ``Aetuis`` is close to ``aetius``).

>>> did_you_mean("Porto Alegre", ["porto-alegre", "pelotas"])
' (did you mean porto-alegre?)'
>>> did_you_mean("aetuis", ["aetius", "roman-1"])
' (did you mean aetius?)'
>>> did_you_mean("cav-9", ["inf-5", "art-1"])
''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from pbem.rules.name_index import fold

__all__ = ["closest", "did_you_mean", "fold", "listing"]


def closest(name: str, legal: Iterable[str], n: int = 3) -> list[str]:
    """The legal names ``name`` may have meant, best first: one whose folded form
    is ``name``'s folded form, else up to ``n`` close ones."""
    names = list(dict.fromkeys(legal))
    folded = fold(name)
    same = [c for c in names if fold(c) == folded]
    if same:
        return same[:1]
    by_fold: dict[str, str] = {}
    for c in names:
        by_fold.setdefault(fold(c), c)
    return [by_fold[f] for f in difflib.get_close_matches(folded, list(by_fold), n=n, cutoff=0.6)]


def did_you_mean(name: str, legal: Iterable[str]) -> str:
    """`` (did you mean a, b?)`` or ``""`` when nothing legal is close."""
    close = closest(name, legal)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def listing(names: Iterable[str]) -> str:
    """Names as a list a player reads: ``a, b, c`` or ``none``."""
    items = list(names)
    return ", ".join(items) if items else "none"
