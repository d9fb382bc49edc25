"""Furor Barbarus's table of every unit of every scenario, kept in the rules data cache
under its scenario files' content (rules/furor_barbarus/unit_table.py): read back, it
answers as the table built from the loaded scenarios, for the shipped library and a
library with house folders; an edited, added or removed scenario file gets a table
of its own; a warm process loads no scenario and no map for it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.rules import data_cache, name_index
from pbem.rules.furor_barbarus import ruleset, scenarios, unit_table
from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from pbem.rules.furor_barbarus.scenarios import REPO_TEST_DATA
from pbem.rules.names import NameTable
from tests.support.calls import counted_calls
from tests.support.name_tables import Entries, assert_alike, loaded_entries


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PBEM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "rules-data"


@pytest.fixture()
def house(tmp_path: Path) -> Path:
    """A house folder: the test map, and the test scenario edited under an id of its
    own (a unit renamed, one added with a name a Vouille unit has, one whose id is a
    shipped unit's)."""
    folder = tmp_path / "house"
    (folder / "maps").mkdir(parents=True)
    (folder / "scenarios").mkdir()
    shutil.copy(REPO_TEST_DATA / "maps" / "test-fontenoy.toml", folder / "maps")
    text = (REPO_TEST_DATA / "scenarios" / "test-fontenoy.toml").read_text(encoding="utf-8")
    text = text.replace('id = "test-fontenoy"', 'id = "house-fontenoy"').replace('"Provence"', '"Provence Nouvelle"')
    for uid, name in (("Clovis-Junior", "Clovis"), ("alans", "Alans of the house")):
        text += f'\n[[unit]]\nid = "{uid}"\nside = "charles"\nname = "{name}"\ntype = "infantry"\n'
        text += "strength = 2\nmp = 3\n"
    (folder / "scenarios" / "house-fontenoy.toml").write_text(text, encoding="utf-8")
    return folder


def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ruleset's and library's memories emptied, as a new process begins."""
    monkeypatch.setattr(ruleset, "_UNIT_NAMES", {})
    for loader in (
        scenarios._load_toml,
        scenarios._load_scenario_cached,
        scenarios._load_map_cached,
        scenarios._located,
        scenarios._listed,
    ):
        loader.cache_clear()
    scenarios._SCENARIOS.clear()
    scenarios._MAPS.clear()


def _assert_alike(table: NameTable, entries: Entries) -> None:
    """``table`` answers as the table built from ``entries``."""
    assert_alike(table, NameTable(entries), entries, seed=7)


def _libraries(house: Path) -> list[tuple[Path, ...]]:
    return [(), (house,), (house, REPO_TEST_DATA)]


def test_the_table_read_back_answers_as_the_loaded_scenarios_table(
    cache: Path, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for folders in _libraries(house):
        rules = FurorBarbarus(folders)
        entries = loaded_entries(rules.library)
        for _ in ("built", "read back"):
            _fresh_process(monkeypatch)
            _assert_alike(rules.unit_names, entries)
    assert len(list(cache.glob("*.marshal"))) >= 3
    table = FurorBarbarus((house,)).unit_names
    assert table.find("provence nouvelle") == ("provence",) and table.find("alans of the house") == ("alans",)


def test_an_edited_added_or_removed_scenario_gets_a_table_of_its_own(
    cache: Path, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = FurorBarbarus((house,))
    assert rules.unit_names.find("provence nouvelle") == ("provence",)
    scenario = house / "scenarios" / "house-fontenoy.toml"
    scenario.write_text(scenario.read_text(encoding="utf-8").replace("Provence Nouvelle", "Old Provence"), "utf-8")
    _fresh_process(monkeypatch)
    table = rules.unit_names
    assert table.find("old provence") == ("provence",) and table.find("provence nouvelle") == ()
    _assert_alike(table, loaded_entries(rules.library))
    added = house / "scenarios" / "house-two.toml"
    added.write_text(scenario.read_text(encoding="utf-8").replace("Old Provence", "Second Provence"), "utf-8")
    _fresh_process(monkeypatch)
    assert rules.unit_names.find("second provence") == ("provence",)
    added.unlink()
    _fresh_process(monkeypatch)
    assert rules.unit_names.find("second provence") == ()
    _assert_alike(rules.unit_names, loaded_entries(rules.library))


def test_a_warm_process_loads_no_scenario_or_map_for_the_table(
    cache: Path, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table loaded every scenario of the library and its map, only for the
    counters' names (some 31 M instructions under callgrind, much of it the maps);
    a process that finds it kept reads the scenario files' bytes and the cache file."""
    for folders in _libraries(house):
        _fresh_process(monkeypatch)  # a table an earlier test left in this process would leave the cache cold
        FurorBarbarus(folders).unit_names  # noqa: B018 (built: the cache warm)
    loads = [
        counted_calls(monkeypatch, scenarios, "scenario_from_dict"),
        counted_calls(monkeypatch, scenarios, "load_map"),
        counted_calls(monkeypatch, data_cache, "load_toml"),
        counted_calls(monkeypatch, name_index, "build"),
    ]
    for folders in _libraries(house):
        _fresh_process(monkeypatch)
        assert FurorBarbarus(folders).unit_names.find("clovis")
    assert loads == [[], [], [], []]


def test_a_scenario_the_library_refuses_is_refused_by_the_table(
    cache: Path, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = house / "scenarios" / "house-fontenoy.toml"
    scenario.write_text(scenario.read_text(encoding="utf-8") + '\n[[unit]]\nid = "provence"\n', "utf-8")
    with pytest.raises(scenarios.ScenarioError):
        FurorBarbarus((house,)).unit_names  # noqa: B018


def test_the_code_key_is_the_same_in_every_process() -> None:
    """The key holds ``marshal`` of the short ids' code objects: the same bytes under
    any hash seed, or each process would miss the table kept by the one before."""
    script = "from pbem.rules.furor_barbarus import unit_table; print(unit_table.code_key().hex())"
    keys = {
        subprocess.run(
            [sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True
        ).stdout.strip()
        for seed in ("1", "2", "random")
    }
    assert keys == {unit_table.code_key().hex()}  # type: ignore[union-attr]


def test_the_scenario_listing_finds_what_glob_found(tmp_path: Path) -> None:
    """``_tomls`` lists a folder as ``sorted(Path(folder).glob("*.toml"))`` did, without its pattern."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name in ("b.toml", "a.toml", ".toml", ".hidden.toml", "x.TOML", "a..toml", "toml", "z.toml.bak", "É.toml"):
        (folder / name).write_text("", encoding="utf-8")
    (folder / "dir.toml").mkdir()
    for where in (folder, tmp_path / "absent", folder / "b.toml"):
        assert scenarios._tomls(str(where)) == [p.name for p in sorted(where.glob("*.toml"))]
    assert scenarios._scenario_ids((tmp_path,)) == tuple(p.stem for p in sorted(folder.glob("*.toml")))
