"""A name table compared with another (a kept one with one built afresh): every id
and name as a player may type it, and random names, answered alike."""

from __future__ import annotations

import random
from typing import Any

from pbem.rules import name_index
from pbem.rules.base import OrderSyntaxError
from pbem.rules.furor_barbarus.scenarios import DataLibrary
from pbem.rules.furor_barbarus.svg_shapes import short_ids
from pbem.rules.names import NameTable

Entries = list[tuple[str, tuple[str, ...]]]


def typed_names(entries: Entries, seed: int) -> list[str]:
    """Every id and name, as written, folded, shouted and spaced, each run of their
    leading words, and random names made of their letters and separators."""
    typed: list[str] = []
    for ident, names in entries:
        for name in (ident, *names):
            f = name_index.fold(name)
            words = f.split("-")
            typed += [name, name.upper(), f, f.replace("-", " "), f.replace("-", "_"), f" {name.title()} "]
            typed += ["-".join(words[:n]) for n in range(1, len(words))]
            typed += [" ".join(words[:n]) for n in range(1, len(words))]
    letters = sorted({c for ident, names in entries for n in (ident, *names) for c in n} | set(" _-Xé"))
    rng = random.Random(seed)
    typed += ["".join(rng.choice(letters) for _ in range(rng.randint(0, 12))) for _ in range(400)]
    typed += [rng.choice(typed[:-400])[: rng.randint(0, 9)] for _ in range(200)]
    return typed


def answers(table: NameTable, typed: str) -> tuple[Any, ...]:
    """Everything ``table`` says of ``typed``: what it finds, looks up (or why it refuses), settles."""
    try:
        looked: Any = table.lookup(typed)
    except OrderSyntaxError as refused:
        looked = str(refused)
    return table.find(typed), looked, table.settle(typed), table.longest


def assert_alike(kept: NameTable, fresh: NameTable, entries: Entries, seed: int = 0) -> None:
    """``kept`` answers every name of :func:`typed_names` and takes the names of random
    lines of their words as ``fresh`` does."""
    assert kept.own_ids() == fresh.own_ids()
    typed = typed_names(entries, seed)
    for name in typed:
        assert answers(kept, name) == answers(fresh, name), name
    rng = random.Random(seed)
    words = [w for name in typed[:300] for w in name.split()] + ["from", "to", "with"]
    for _ in range(300):
        line = [rng.choice(words) for _ in range(rng.randint(1, 6))]
        start = rng.randrange(len(line))
        assert kept.take(line, start, frozenset({"from"})) == fresh.take(line, start, frozenset({"from"}))


def loaded_entries(library: DataLibrary) -> Entries:
    """Furor Barbarus's table of every unit of every scenario, its entries made as the
    ruleset made them before it kept them: from each loaded scenario's counters."""
    entries: dict[str, set[str]] = {}
    for sid in library.scenario_ids():
        counters = library.scenario(sid).counters
        short = short_ids(sorted(counters))
        for uid, counter in counters.items():
            entries.setdefault(uid, set()).update((short[uid], counter.name))
    return [(uid, tuple(sorted(names))) for uid, names in sorted(entries.items())]
