"""The shipped data's name tables, built once per user (rules/name_index.py, kept by
rules/data_cache.py), and the battle table read without formatting each cell's place:
a table read back answers every name as a freshly built one, a table of other entries
or of another builder is built again, a damaged cache file is ignored."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from pbem.rules import data_cache, name_index
from pbem.rules.farrapos import orders
from pbem.rules.farrapos import tables as farrapos_tables
from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.counters import load_counters
from pbem.rules.grid_table import grid_cells
from pbem.rules.names import NameTable
from pbem.rules.registry import find_ruleset
from tests.support.calls import counted_calls, python_calls
from tests.support.name_tables import Entries, assert_alike, loaded_entries, typed_names


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PBEM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "rules-data"


@pytest.fixture()
def builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Each index a name table builds (rather than reads back)."""
    return counted_calls(monkeypatch, name_index, "build")


def _cities() -> Entries:
    return [(cid, (city.name,)) for cid, city in load_board().cities.items()]


def _units() -> Entries:
    return [(cid, ()) for cid in load_counters().counters]


def _furor_units() -> Entries:
    """The entries of Furor Barbarus's table of every unit of every scenario, from its loaded scenarios."""
    return loaded_entries(find_ruleset("furor-barbarus").library)  # type: ignore[attr-defined]


def test_a_kept_table_answers_every_name_as_a_built_one(cache: Path) -> None:
    for seed, entries in enumerate((_cities(), _units(), _furor_units())):
        fresh = NameTable(entries)
        NameTable.kept(entries)  # built and written
        read_back = NameTable.kept(entries)
        assert_alike(read_back, fresh, entries, seed)


def test_a_second_process_builds_no_name_table(cache: Path, builds: list[tuple[Any, ...]]) -> None:
    """``city_names`` and ``mu_names`` built their tables in every process that read
    a turn file (about 1 M instructions each); now a process after the first reads
    them back."""
    for loader in (orders.city_names, orders.mu_names):
        loader.cache_clear()
        loader()
    assert len(builds) == 2
    for loader in (orders.city_names, orders.mu_names):
        loader.cache_clear()  # as a new process begins
        assert loader().lookup("Porto Alegre" if loader is orders.city_names else "INF_5") is not None
    assert len(builds) == 2


def test_other_entries_or_another_builder_are_built_again(
    cache: Path, builds: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = _cities()
    NameTable.kept(entries)
    edited = [(ident, ("Nova Porto",) if ident == "porto-alegre" else names) for ident, names in entries]
    table = NameTable.kept(edited)
    assert len(builds) == 2
    assert table.lookup("nova porto") == "porto-alegre" and table.lookup("Porto Alegre") == "porto-alegre"
    assert NameTable.kept(entries).lookup("nova porto") is None
    assert len(builds) == 2
    monkeypatch.setattr(name_index, "code_key", lambda: b"another builder's source")
    NameTable.kept(entries)
    assert len(builds) == 3


def test_the_builder_key_is_its_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    name_index.code_key.cache_clear()
    try:
        key = name_index.code_key()
        edited = tmp_path / "name_index.py"
        edited.write_bytes(Path(name_index.__file__).read_bytes() + b"\n# edited\n")
        name_index.code_key.cache_clear()
        monkeypatch.setattr(name_index, "__file__", str(edited))
        assert key is not None and name_index.code_key() not in (key, None)
    finally:
        name_index.code_key.cache_clear()
    assert data_cache.derived_key("name-table", b"x") not in (
        data_cache.derived_key("other", b"x"),
        data_cache.derived_key("name-table", b"y"),
        data_cache.key_of(b"x"),
    )


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: b"",
        lambda data: data[:-3] + b"\xff\xff\xff",
        lambda data: data[:30] + b"\x00" * 32 + data[62:],  # another key
    ],
    ids=["truncated", "empty", "damaged", "other-key"],
)
def test_a_damaged_cache_file_is_ignored(cache: Path, builds: list[tuple[Any, ...]], damage: Any) -> None:
    entries = _units()  # the counters loaded first: their parse, kept too when this process had not loaded them yet
    kept_before = set(cache.iterdir()) if cache.is_dir() else set()
    NameTable.kept(entries)
    [entry] = set(cache.iterdir()) - kept_before
    good = entry.read_bytes()
    entry.write_bytes(damage(good))
    table = NameTable.kept(entries)
    assert len(builds) == 2
    assert_alike(table, NameTable(entries), entries)
    assert entry.read_bytes() == good  # written again


def test_no_cache_folder_still_gives_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("PBEM_CACHE_DIR", str(blocker))
    entries = _cities()
    assert_alike(NameTable.kept(entries), NameTable(entries), entries)


def test_the_battle_table_is_read_without_a_call_per_cell_but_its_own() -> None:
    """Reading the shipped battle table formatted each cell's place ("row 4, column
    11-15") for a message it never gave, through a generator step per cell; now the
    place is worked out only for a refused cell: one call per cell, to read it."""
    data = data_cache.load_toml(farrapos_tables.DATA / "battle-table.toml")
    rows, called = python_calls(lambda: grid_cells(farrapos_tables.SHAPE, data, farrapos_tables._cell))
    cells = sum(len(row) for row in rows.values())
    assert cells == 84 and called.count("_cell") == cells
    assert len(called) - cells <= 24  # the shape's own checks (its columns); a generator step per cell before
    assert tuple(rows[die] for die in farrapos_tables.DICE) == farrapos_tables.shipped_battle_table().rows


_OLD_SEPARATORS = re.compile(r"[\s_-]+")
_OLD_ALREADY_FOLDED = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*").fullmatch


def _old_fold(name: str) -> str:
    """``fold`` as it was, through the pattern."""
    plain = (
        name
        if name.isascii()
        else "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    )
    return _OLD_SEPARATORS.sub("-", plain.strip().lower()).strip("-")


def _old_folded(name: str) -> str:
    return name if _OLD_ALREADY_FOLDED(name) else _old_fold(name)


def test_fold_and_folded_answer_as_their_patterns_did() -> None:
    """``fold`` took runs of ``[\\s_-]`` with ``re.sub`` and ``folded`` told an id by
    a ``fullmatch``: the patterns, compiled at each import, are now ``str`` methods;
    compared on every character's whitespace, the shipped names and random ones."""
    every = "".join(map(chr, range(0x110000)))
    assert re.findall(r"\s", every) == [c for c in every if c.isspace()]
    names = [n for entries in (_cities(), _units(), _furor_units()) for n in typed_names(entries, 3)]
    rng = random.Random(5)
    alphabet = "abcXYZ0189-_ -_\t\n\x1c\x85\xa0\u2003\u3000éÉßİﬁ\u0301"
    names += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(20000)]
    for name in names:
        assert name_index.folded(name) == _old_folded(name), repr(name)
        assert (name_index.folded(name) is name) == (_old_folded(name) is name), repr(name)  # an index's plain ids
        assert name_index.fold(name) == _old_fold(name), repr(name)


def test_importing_the_name_tables_compiles_no_pattern() -> None:
    """``names`` and ``suggest`` compiled a pattern each at import (0.46 M and 0.26 M
    instructions in every process that loads a ruleset; ``difflib``'s own is imported first)."""
    counting = (
        "import difflib, re, pbem.rules.base, pbem.rules.data_cache\n"
        "real, seen = re._compile, []\n"
        "re._compile = lambda *args: seen.append(args) or real(*args)\n"
        "import pbem.rules.names, pbem.rules.suggest\n"
        "print(len(seen))\n"
    )
    done = subprocess.run([sys.executable, "-c", counting], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"
