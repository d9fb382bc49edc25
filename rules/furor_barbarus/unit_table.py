"""The table of every unit of every scenario of a data library, the names orders may
use (:attr:`FurorBarbarus.unit_names <pbem.rules.furor_barbarus.ruleset.FurorBarbarus.unit_names>`):
each unit's id, the short id its counter prints and its name.

Its index is kept in the user's rules data cache (``data_cache.load_derived``) under
the SHA-256 of the library's scenario files, as bytes, each with its id in the
library's order, and of the code that derives the index from them (:func:`code_key`:
this module's source, the short ids' code and ``name_index``'s key).  A process that
finds it reads the scenario files and the cache file only: no scenario or map is
loaded (they were some 31 M instructions under callgrind, much of it the maps).  A
table not found is built once from the files' parses, after each scenario and its
map have been loaded as a game loads them, so that a scenario the library refuses is
refused here as before.  A scenario added to, edited in or taken from any folder of
the library (the package's, a house folder) changes the key.

>>> [e[:2] for e in scenario_entries({"unit": [{"id": "Visigoth-Cavalry-1", "side": "v"}]})]
[('visigoth-cavalry-1', 'vis-cav-1')]
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pbem.rules import data_cache, name_index
from pbem.rules.furor_barbarus.scenarios import DataLibrary
from pbem.rules.furor_barbarus.svg_shapes import _short_ids, short_ids

KIND = "fb-unit-table"
"""The data cache's name for what this module builds."""


def scenario_entries(data: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Each unit of a scenario's TOML table as its counter has it: ``(id, short id,
    name)`` (``counter_from_dict``: the id in lower case, the name the id when none;
    ``short_ids`` of the scenario's sorted ids, as its counters print them)."""
    units = [(str(u["id"]).lower(), str(u.get("name", u["id"]))) for u in data.get("unit", [])]
    short = short_ids(sorted(uid for uid, _ in units))
    return [(uid, short[uid], name) for uid, name in units]


def table_entries(scenarios: Iterable[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
    """The entries of the table of ``scenarios`` (parsed TOML tables): each unit id,
    sorted, with every short id and name it has in any of them, sorted."""
    entries: dict[str, set[str]] = {}
    for data in scenarios:
        for uid, short, name in scenario_entries(data):
            entries.setdefault(uid, set()).update((short, name))
    return [(uid, sorted(names)) for uid, names in sorted(entries.items())]


@functools.lru_cache(maxsize=1)
def code_key() -> bytes | None:
    """The SHA-256 of the code that derives the index from the scenario files: this
    module's source, the compiled short ids (``marshal`` of their code objects: the
    same bytes in every process of one Python, which the cache key holds) and
    ``name_index.code_key()``; None when a source is unread (then nothing is kept)."""
    index_key = name_index.code_key()
    try:
        with open(__file__, "rb") as f:
            source = f.read()
        shorts = marshal.dumps((short_ids.__code__, _short_ids.__wrapped__.__code__), 2)
    except (OSError, TypeError, ValueError, AttributeError):  # no file (frozen), code marshal cannot write
        return None
    if index_key is None:
        return None
    return hashlib.sha256(b"\0".join((source, shorts, index_key))).digest()


def _content(path: Path) -> bytes:
    """The bytes of ``path``."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return data_cache.read_to_end(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def unit_index(library: DataLibrary) -> dict[str, Any]:
    """The index (``name_index.build``) of every unit of every scenario of ``library``,
    from the data cache when built before from the same files by the same code."""
    code = code_key()
    try:
        files = [(sid, _content(path)) for sid, path in library.scenario_files()]
    except OSError:  # a listed scenario the library cannot read: refused as it refuses it
        files = None
    if code is None or files is None:
        return _built(library, files)
    material = [code]
    for sid, content in files:  # BLAKE2b: under half SHA-256's instructions a byte (12 and 27 under callgrind)
        material += (sid.encode(), hashlib.blake2b(content).digest())
    return data_cache.load_derived(KIND, b"\0".join(material), lambda: _built(library, files))


def _built(library: DataLibrary, files: list[tuple[str, bytes]] | None) -> dict[str, Any]:
    """The index built from the scenario files (read again when ``files`` is None),
    after loading each scenario (and its map) as a game does: a scenario the library
    refuses raises its error here."""
    import tomllib

    for sid in library.scenario_ids():
        library.scenario(sid)
    if files is None:
        files = [(sid, _content(path)) for sid, path in library.scenario_files()]
    return name_index.build(table_entries(tomllib.loads(content.decode()) for _, content in files))
