"""Names a player may write for the things an order names, shared by every ruleset.

A map, a report or a template shows a thing by its name ("Porto Alegre", "Bagé"),
by a short id printed on a counter (``vis-cav-1``) or by its id
(``porto-alegre``); an order may name it by any of them, in any case, with or
without accents, with spaces, hyphens or underscores between the words
(:func:`pbem.rules.name_index.fold` compares them).  The order keeps the id, so
``str(order)`` (what the referee stores and hashes) does not change with the way
it was written.

A name that folds to the names of two or more things is refused with its choices,
and so is the leading word or words of several names (``santo`` when there are a
``santo-angelo`` and a ``santo-antonio``); a name of nothing is kept as typed,
for the ruleset's ``validate`` to say what is legal there.

>>> table = NameTable([("porto-alegre", ["Porto Alegre"]), ("bage", ["Bagé"]),
...                    ("santo-angelo", ["Santo Ângelo"]), ("santo-antonio", ["Santo Antônio da Patrulha"])])
>>> table.lookup("Porto Alegre"), table.lookup("BAGÉ"), table.lookup("porto_alegre")
('porto-alegre', 'bage', 'porto-alegre')
>>> table.lookup("pelotas") is None
True
>>> table.lookup("santo")
Traceback (most recent call last):
...
pbem.rules.base.OrderSyntaxError: 'santo' could be santo-angelo or santo-antonio
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Sequence
from typing import Any

from pbem.rules import data_cache, name_index
from pbem.rules.base import OrderSyntaxError
from pbem.rules.name_index import folded

__all__ = ["FOUND_KEPT", "NameTable", "ambiguous", "folded"]

FOUND_KEPT = 4096
"""How many typed names a table remembers the answer for (it forgets them all when
full): a turn file names the same cities and MU as the files before it."""


def ambiguous(typed: str, ids: Sequence[str]) -> str:
    """The refusal of a name that could be any of ``ids``."""
    choices = ", ".join(ids[:-1]) + " or " + ids[-1] if len(ids) > 1 else ids[0]
    return f"{typed!r} could be {choices}"


class NameTable:
    """The ids of one kind of thing (cities, units) and every name each is shown by."""

    def __init__(self, entries: Iterable[tuple[str, Iterable[str]]]) -> None:
        self._adopt(name_index.build(entries))

    @classmethod
    def kept(cls, entries: Iterable[tuple[str, Iterable[str]]]) -> NameTable:
        """The table of ``entries``, its index read from the user's rules data cache
        when it was built before (from the same entries by the same code): the
        shipped data's tables are built once per user, not in every process."""
        listed = [(ident, tuple(names)) for ident, names in entries]
        code = name_index.code_key()
        if code is None:
            return cls(listed)
        table = cls.__new__(cls)
        material = code + marshal.dumps(listed, 2)  # version 2: no references, the same bytes for the same entries
        table._adopt(data_cache.load_derived("name-table", material, lambda: name_index.build(listed)))
        return table

    @classmethod
    def from_index(cls, index: dict[str, Any]) -> NameTable:
        """The table that answers from ``index`` (:func:`pbem.rules.name_index.build`'s,
        as a cache kept it: :mod:`pbem.rules.furor_barbarus.unit_table`)."""
        table = cls.__new__(cls)
        table._adopt(index)
        return table

    def _adopt(self, index: dict[str, Any]) -> None:
        """Answer from ``index`` (:func:`pbem.rules.name_index.build`): ``ids`` (each
        fold of an id: the first id of that fold), ``names`` (each fold of a name or
        id: the ids of that name, sorted), ``starts`` (the leading words of the names,
        ``santo`` of ``santo-angelo``: the ids whose names begin with them, when two or
        more), ``longest`` (the most words of a name), ``plain`` (the ids written as
        they fold: ``porto-alegre``, ``inf-5``) and ``own`` (those of them first of
        their fold)."""
        ids: dict[str, str] = index["ids"]
        self._ids = ids
        self._names: dict[str, tuple[str, ...]] = index["names"]
        self._starts: dict[str, tuple[str, ...]] = index["starts"]
        self.longest: int = index["longest"]
        # an id written as it folds is found as :meth:`_find` finds it (its fold is
        # itself, and an id is always itself): answered from the start, as the names
        # a turn file writes mostly are, instead of a fold and a look-up at each
        # name's first use in the process
        self._found: dict[str, tuple[str, ...]] = {ident: (ids[ident],) for ident in index["plain"]}
        self._own: list[str] = index["own"]

    def own_ids(self) -> tuple[str, ...]:
        """The ids that name themselves, written as they are: :meth:`find`, :meth:`settle`
        and :meth:`lookup` answer each with itself (an id written as it folds, the
        first id of that fold)."""
        return tuple(self._own)

    def find(self, typed: str) -> tuple[str, ...]:
        """The ids ``typed`` may name: its own id; else every thing of that name;
        else every thing whose name begins with those words; else none."""
        found = self._found.get(typed)
        if found is None:
            if len(self._found) >= FOUND_KEPT:
                self._found.clear()
            found = self._found[typed] = self._find(typed)
        return found

    def _find(self, typed: str) -> tuple[str, ...]:
        name = folded(typed)
        if name in self._ids:  # an id is always itself, whatever else it resembles
            return (self._ids[name],)
        return self._names.get(name) or self._starts.get(name, ())

    def lookup(self, typed: str) -> str | None:
        """The id ``typed`` names, or ``None`` when it names nothing; raises
        :class:`OrderSyntaxError` when it could be several things.  A name looked
        up before is answered from :meth:`find`'s memory without a call to it (a
        turn file's parse looks up each of its words, most of them met before)."""
        found = self._found.get(typed)
        if found is None:
            found = self.find(typed)
        if len(found) > 1:
            raise OrderSyntaxError(ambiguous(typed, found))
        return found[0] if found else None

    def name(self, typed: str) -> str:
        """The id ``typed`` names, else ``typed`` as written (folded words joined
        by spaces kept as typed, for ``validate`` to point at)."""
        return self.lookup(typed) or typed

    def settle(self, typed: str) -> str:
        """The id ``typed`` names when it names one thing; when it could be several
        its folded form (``light-infantry``), for the ruleset to settle against
        the things of the position at hand; else ``typed`` as written."""
        found = self.find(typed)
        if len(found) == 1:
            return found[0]
        return folded(typed) if found else typed

    def take(self, words: Sequence[str], start: int, stop: frozenset[str] = frozenset()) -> tuple[str, int]:
        """The thing named by the most words from ``words[start]`` on (none of them
        in ``stop``): :meth:`settle`'s answer and the index after it.  A single word
        that names nothing is taken as typed."""
        end = start
        while end < len(words) and end - start < self.longest and words[end].lower() not in stop:
            end += 1
        for n in range(end, start + 1, -1):
            if self.find(" ".join(words[start:n])):
                return self.settle(" ".join(words[start:n])), n
        return self.settle(words[start]), start + 1
