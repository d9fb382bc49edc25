"""The cache of parsed rules data (rules/data_cache.py): the same data as an
uncached parse, one parse per content, and nothing but its own files trusted."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from pbem.rules import data_cache
from pbem.rules.farrapos import board, counters
from pbem.rules.farrapos import tables as farrapos_tables
from pbem.rules.furor_barbarus import combat, maps, scenarios

RULES = Path(data_cache.__file__).resolve().parent
DATA_FILES = sorted(RULES.glob("*/data/**/*.toml"))


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PBEM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "rules-data"


@pytest.fixture()
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the TOML parses the cache makes."""
    counted: list[int] = []
    real = data_cache._parse

    def counting(content: bytes) -> dict[str, object]:
        counted.append(len(content))
        return real(content)

    monkeypatch.setattr(data_cache, "_parse", counting)
    return counted


def _entry(cache: Path, path: Path) -> Path:
    return cache / f"{data_cache.key_of(path.read_bytes()).hex()}.marshal"


def test_every_data_file_parses_the_same_cached_or_not(cache: Path) -> None:
    assert len(DATA_FILES) >= 8
    for path in DATA_FILES:
        with path.open("rb") as f:
            plain = tomllib.load(f)
        first = data_cache.load_toml(path)
        assert _entry(cache, path).is_file()
        second = data_cache.load_toml(path)
        assert first == plain and second == plain, path
        assert repr(second) == repr(plain), path  # key order and number types too


def test_a_warm_cache_parses_nothing(cache: Path, parses: list[int]) -> None:
    """The loaders of both games read their data through the cache: with it warm, a
    new process (the loaders' own caches cleared) parses no TOML at all."""
    loaders = [
        board.load_board,
        counters.load_counters,
        farrapos_tables.shipped_battle_table,
        scenarios._load_toml,
        scenarios._load_scenario_cached,
    ]

    def load_everything() -> None:
        for loader in loaders:
            loader.cache_clear()  # type: ignore[attr-defined]
        # the library's own memory of what those loaders made: kept, it would hand later tests
        # objects the loaders no longer return
        scenarios._SCENARIOS.clear()
        scenarios._MAPS.clear()
        board.load_board()
        counters.load_counters()
        farrapos_tables.shipped_battle_table()
        combat.CombatResultsTable.load()
        maps.load_map(next((RULES / "furor_barbarus" / "data" / "maps").glob("*.toml")))
        for path in sorted((RULES / "furor_barbarus" / "data" / "scenarios").glob("*.toml")):
            scenarios._load_toml(path)

    load_everything()
    assert len(parses) >= 6
    parses.clear()
    load_everything()
    assert parses == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"",
        lambda data: data[:-3] + b"\xff\xff\xff",  # damaged marshal
        lambda data: b"something else entirely" + data,  # foreign
        lambda data: data.replace(data_cache.MAGIC, b"pbem-rules-data/0\n"),  # another layout
    ],
    ids=["truncated", "empty", "damaged", "foreign", "old-layout"],
)
def test_a_damaged_or_foreign_file_is_ignored_and_rebuilt(cache: Path, parses: list[int], damage: object) -> None:
    path = RULES / "farrapos" / "data" / "board.toml"
    plain = tomllib.loads(path.read_text(encoding="utf-8"))
    data_cache.load_toml(path)
    entry = _entry(cache, path)
    good = entry.read_bytes()
    entry.write_bytes(damage(good))  # type: ignore[operator]
    parses.clear()
    assert data_cache.load_toml(path) == plain
    assert len(parses) == 1
    assert entry.read_bytes() == good  # written again


def test_an_entry_for_other_content_is_not_used(cache: Path, tmp_path: Path) -> None:
    """A valid cache file holding another content's key and data, put under this
    content's name, is ignored: the key inside must be the content's."""
    one, other = tmp_path / "one.toml", tmp_path / "other.toml"
    one.write_text('a = 1\nb = "x"\n', encoding="utf-8")
    other.write_text("a = 2\n", encoding="utf-8")
    data_cache.load_toml(other)
    _entry(cache, other).rename(_entry(cache, one))
    assert data_cache.load_toml(one) == {"a": 1, "b": "x"}


def test_an_edited_file_is_parsed_again(cache: Path, tmp_path: Path, parses: list[int]) -> None:
    path = tmp_path / "data.toml"
    path.write_text("a = 1\n", encoding="utf-8")
    assert data_cache.load_toml(path) == {"a": 1}
    path.write_text("a = 2\n", encoding="utf-8")
    assert data_cache.load_toml(path) == {"a": 2}
    assert len(parses) == 2


def test_the_key_holds_the_python_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = data_cache.key_of(b"a = 1\n")
    monkeypatch.setattr(data_cache, "_VERSION", b"cpython-399 3.99.0")
    assert data_cache.key_of(b"a = 1\n") != before


def test_links_and_files_of_others_are_never_read_nor_followed(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "data.toml"
    path.write_text("a = 1\n", encoding="utf-8")
    cache.mkdir(parents=True)
    entry = _entry(cache, path)
    # a planted link in the entry's place, to a file that would pass every check
    planted = tmp_path / "planted.marshal"
    import marshal

    bait = data_cache.MAGIC + data_cache.key_of(path.read_bytes()) + marshal.dumps({"a": 666})
    planted.write_bytes(bait)
    entry.symlink_to(planted)
    assert data_cache.load_toml(path) == {"a": 1}
    assert not entry.is_symlink() and planted.read_bytes() == bait  # the link replaced, not followed
    entry.unlink()
    entry.write_bytes(bait)
    os.chmod(entry, 0o666)  # others may write it: not trusted
    assert data_cache.load_toml(path) == {"a": 1}


def test_no_usable_folder_means_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("PBEM_CACHE_DIR", str(blocker))
    path = tmp_path / "data.toml"
    path.write_text("a = 1\n", encoding="utf-8")
    assert data_cache.load_toml(path) == {"a": 1}
    shared = tmp_path / "shared"
    (shared / "rules-data").mkdir(parents=True)
    os.chmod(shared / "rules-data", 0o777)
    monkeypatch.setenv("PBEM_CACHE_DIR", str(shared))
    assert data_cache.load_toml(path) == {"a": 1}
    assert list((shared / "rules-data").iterdir()) == []


def test_data_marshal_cannot_hold_is_parsed_and_not_kept(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "dated.toml"
    path.write_text("when = 2024-01-02\n", encoding="utf-8")
    assert data_cache.load_toml(path) == tomllib.loads(path.read_text(encoding="utf-8"))
    assert list(cache.iterdir()) == []
