"""House tables: `pbem tables`, `pbem table`, `pbem new --table`, and a
game played by a house table, exported and audited from its archive; through the
real CLI on a real SQLite file with real signatures."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem.rules import find_ruleset
from pbem.rules.farrapos.tables import BattleTable, shipped_battle_table
from pbem.store import house_tables
from tests.conftest import ROOT, CliResult, Table
from tests.support.house_tables import every_die_reads_the_printed_row, write_table
from tests.support.scripts import load_script

FARRAPOS = find_ruleset("farrapos")
FUROR = find_ruleset("furor-barbarus")
SCENARIOS = ("campus-mauriacus", "soissons", "tolbiac", "vouille")


def new_game(t: Table, game: str, rules: str, *extra: str, scenario: str | None = None) -> CliResult:
    ruleset = find_ruleset(rules)
    args = ["new", game, "--rules", rules, *(["--scenario", scenario] if scenario else [])]
    for side in ruleset.sides(scenario):
        args += ["--player", f"{side}={t.key(side)[1]}"]
    return t.run(*args, *extra)


def play_turn(t: Table, game: str, bots: dict[str, str], seed: int) -> None:
    st = json.loads(t.run("status", game, "--json").stdout)
    for side in st["awaiting"]:
        path = t.tmp / f"{game}-{st['turn']}-{side}.txt"
        r = t.run("orders", game, "--side", side, "--bot", bots[side], "--seed", str(seed), "-o", str(path))
        assert r.exit_code == 0, r.stderr
        assert t.run("sign", str(path), "--key", str(t.key(side)[0])).exit_code == 0
        r = t.run("submit", str(path))
        assert r.exit_code == 0, r.stderr
    r = t.run("process", game)
    assert r.exit_code == 0 and f"resolution {st['turn']}" in r.stdout, r.stdout + r.stderr


# --- pbem tables / pbem table ------------------------------------------------------------


def test_tables_lists_each_replaceable_table_printed_or_designed_and_where_documented(table: Table) -> None:
    r = table.run("tables", "farrapos")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        'battle-table\tprinted in part: row 1 (die 1) printed; rows 2-6 designed\tdocs/rules/farrapos.md, "Battles"\n'
        'counter-values\tdesigned\tdocs/rules/farrapos.md, "Components and counters"\n'
    )
    r = table.run("tables", "furor-barbarus", "--scenario", "soissons")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        'crt\tprinted in part: rows 1-3 printed; rows 4-6 designed\tdocs/rules/furor-barbarus.md, "9. Combat" '
        "(the CRT)\n"
        "counter-values\tdesigned (strengths the rulebook prints are not in the table)\t"
        'docs/rules/furor-barbarus.md, "Counter values" and the scenario\'s order of battle\n'
    )
    for documented in {line.split("\t")[2].split(",")[0] for line in r.stdout.splitlines()}:
        assert (ROOT / documented).is_file()


def test_table_and_tables_usage_errors_exit_2_and_unknown_table_exits_1(table: Table) -> None:
    assert table.run("tables", "chess").exit_code == 2
    assert table.run("table", "furor-barbarus", "crt", "--scenario", "marengo").exit_code == 2
    r = table.run("table", "farrapos", "crt")
    assert r.exit_code == 1
    assert r.stderr == "pbem: farrapos has no replaceable table 'crt' (tables: battle-table, counter-values)\n"


ALL_TABLES = [("farrapos", None, "battle-table"), ("farrapos", None, "counter-values")] + [
    ("furor-barbarus", s, name) for s in SCENARIOS for name in ("crt", "counter-values")
]


@pytest.mark.parametrize(
    ("rules", "scenario", "name"), ALL_TABLES, ids=[f"{r}-{s or ''}-{n}" for r, s, n in ALL_TABLES]
)
def test_table_prints_toml_in_the_form_new_takes_back(
    table: Table, rules: str, scenario: str | None, name: str
) -> None:
    ruleset = find_ruleset(rules)
    r = table.run("table", rules, name, *(["--scenario", scenario] if scenario else []))
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("# ") and f"--table {name}=FILE" in r.stdout
    data = tomllib.loads(r.stdout)
    assert data == ruleset.shipped_table(name, scenario)
    assert ruleset.read_table(name, data, scenario) == data


def test_new_with_the_shipped_table_is_an_ordinary_game(table: Table) -> None:
    path = table.tmp / "battle.toml"
    path.write_text(table.run("table", "farrapos", "battle-table").stdout, encoding="utf-8")
    plain = new_game(table, "plain", "farrapos")
    same = new_game(table, "same", "farrapos", "--table", f"battle-table={path}")
    assert plain.exit_code == same.exit_code == 0, same.stderr
    assert "house table:" not in same.stdout
    assert "table battle-table: the same as the shipped table (not a house table)" in same.stdout.splitlines()
    position = [line for line in plain.stdout.splitlines() if line.startswith("position: ")]
    assert position and position[0] in same.stdout.splitlines()  # the same opening position hash
    assert table.count("house_table") == 0


# --- refused at pbem new: the cell named, exit 1, nothing stored ----------------------------


def _battle(edit) -> dict[str, Any]:
    data = copy.deepcopy(FARRAPOS.shipped_table("battle-table"))
    edit(data)
    return data


def _counters(edit) -> dict[str, Any]:
    data = copy.deepcopy(FARRAPOS.shipped_table("counter-values"))
    edit(data)
    return data


def _crt(edit) -> dict[str, Any]:
    data = copy.deepcopy(FUROR.shipped_table("crt"))
    edit(data)
    return data


def _units(edit, scenario: str = "soissons") -> dict[str, Any]:
    data = copy.deepcopy(FUROR.shipped_table("counter-values", scenario))
    edit(data)
    return data


MALFORMED = [
    (
        "farrapos",
        None,
        "battle-table",
        _battle(lambda d: d["rows"]["3"].pop()),
        "row 3 has 13 cells; the battle table has 14 columns (1 to +25)",
    ),
    (
        "farrapos",
        None,
        "battle-table",
        _battle(lambda d: d["rows"].pop("5")),
        "row 5 is missing (rows 1-6, one per die face)",
    ),
    (
        "farrapos",
        None,
        "battle-table",
        _battle(lambda d: d["rows"]["4"].__setitem__(10, "x")),
        "row 4, column 11-15: 'x' is not an index (a whole number 0-99, or \"-\")",
    ),
    (
        "farrapos",
        None,
        "battle-table",
        _battle(lambda d: d["rows"]["1"].__setitem__(10, 5)),
        "row 1, column 11-15: 5, but the rulebook prints 4 (printed cells cannot be replaced)",
    ),
    (
        "farrapos",
        None,
        "battle-table",
        _battle(lambda d: d.__setitem__("columns", ["1", "2"])),
        "columns must be 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11-15, 16-20, 21-25, +25 (the printed strength columns), "
        "not 1, 2",
    ),
    (
        "farrapos",
        None,
        "counter-values",
        _counters(lambda d: d["types"]["cav"]["full"].__setitem__("af", "4")),
        "types.cav.full.af: '4' is not a whole number 0-99",
    ),
    (
        "farrapos",
        None,
        "counter-values",
        _counters(lambda d: d["types"].pop("art")),
        "types.art is missing (every MU type: inf, cav, art)",
    ),
    (
        "furor-barbarus",
        "soissons",
        "crt",
        _crt(lambda d: d["rows"]["5"].__setitem__(3, "XX")),
        "row 5, column 3/2: 'XX' is not a combat result (e.g. DR, AT, D1R, A1, -)",
    ),
    (
        "furor-barbarus",
        "soissons",
        "crt",
        _crt(lambda d: d["rows"]["2"].__setitem__(3, "D2")),
        "row 2, column 3/2: D2, but the rulebook prints D1 (printed cells cannot be replaced)",
    ),
    (
        "furor-barbarus",
        "soissons",
        "crt",
        _crt(lambda d: d["rows"].pop("6")),
        "row 6 is missing (rows 1-6, one per modified die)",
    ),
    (
        "furor-barbarus",
        "soissons",
        "counter-values",
        _units(lambda d: d["units"]["salian-1"].__setitem__("strength", 5)),
        "units.salian-1.strength: printed by the rulebook; it cannot be replaced",
    ),
    (
        "furor-barbarus",
        "soissons",
        "counter-values",
        _units(lambda d: d["units"].pop("clovis")),
        "units.clovis is missing (every counter of soissons is listed)",
    ),
    (
        "furor-barbarus",
        "soissons",
        "counter-values",
        _units(lambda d: None, "vouille"),
        "scenario: these are counter values of 'vouille', the game plays 'soissons'",
    ),
]


@pytest.mark.parametrize(
    ("rules", "scenario", "name", "data", "message"), MALFORMED, ids=[m[4][:40] for m in MALFORMED]
)
def test_malformed_table_is_refused_at_new_naming_the_cell(
    table: Table, rules: str, scenario: str | None, name: str, data: dict[str, Any], message: str
) -> None:
    assert new_game(table, "first", "farrapos").exit_code == 0
    before = table.dump()
    path = write_table(table, rules, name, data, scenario)
    r = new_game(table, "g2", rules, "--table", f"{name}={path}", scenario=scenario)
    assert r.exit_code == 1
    assert r.stderr == f"pbem: --table {name}={path}: {message}\n"
    assert table.dump() == before


def test_unknown_table_and_unreadable_file_are_refused_and_every_problem_named(table: Table) -> None:
    assert new_game(table, "first", "farrapos").exit_code == 0
    before = table.dump()
    bad = table.tmp / "bad.toml"
    bad.write_text("rows = [\n", encoding="utf-8")
    r = new_game(
        table,
        "g2",
        "farrapos",
        "--table",
        f"crt={bad}",
        "--table",
        f"battle-table={bad}",
        "--table",
        f"counter-values={table.tmp / 'none.toml'}",
    )
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert (
        lines[0]
        == f"pbem: --table crt={bad}: farrapos has no replaceable table 'crt' (tables: battle-table, counter-values)"
    )
    assert lines[1].startswith(f"pbem: --table battle-table={bad}: not TOML: ")
    assert (
        lines[2]
        == f"pbem: --table counter-values={table.tmp / 'none.toml'}: cannot read the file (No such file or directory)"
    )
    assert table.dump() == before
    assert new_game(table, "g3", "farrapos", "--table", "battle-table").exit_code == 2
    twice = new_game(table, "g3", "farrapos", "--table", f"battle-table={bad}", "--table", f"battle-table={bad}")
    assert twice.exit_code == 2 and twice.stderr == "pbem: --table names each table once\n"
    assert table.dump() == before


# --- a game played by a house table, audited from its archive -------------------------------


@pytest.fixture(scope="module")
def house_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Table, dict[str, Any], Path]:
    """A Farrapos game played by a house Battle Table until its battles have read
    designed rows, then exported (one game for the tests that read it)."""
    tmp = tmp_path_factory.mktemp("house")
    table = Table(tmp, tmp / "referee.db")
    house = every_die_reads_the_printed_row()
    path = write_table(table, "farrapos", "battle-table", house)
    r = new_game(table, "house", "farrapos", "--table", f"battle-table={path}")
    assert r.exit_code == 0, r.stderr
    assert f"house table: battle-table (sha256 {house_tables.digest(house)})" in r.stdout
    assert table.count("house_table") == 1
    for seed in range(1, 41):
        play_turn(table, "house", {"republic": "random", "empire": "random"}, seed)
        table.run("export", "house", "-o", str(table.tmp / "house.json"))
        archive = json.loads((table.tmp / "house.json").read_text(encoding="utf-8"))
        rounds = [e for res in archive["resolutions"] for e in res["events"] if e["type"] == "battle_round"]
        if sum(e["attacker_die"] > 1 or e["defender_die"] > 1 for e in rounds) >= 3:
            break
    return table, house, table.tmp / "house.json"


def test_game_played_by_a_house_battle_table_reads_it_and_audits_from_its_archive(house_game) -> None:
    t, house, archive_path = house_game
    archive = json.loads(archive_path.read_text(encoding="utf-8"))
    assert archive["game"]["tables"] == {"battle-table": house}
    mine, shipped = BattleTable(tuple(tuple(house["rows"][str(d)]) for d in range(1, 7))), shipped_battle_table()
    rounds = [e for res in archive["resolutions"] for e in res["events"] if e["type"] == "battle_round"]
    assert rounds
    for e in rounds:
        assert e["attacker_index"] == mine.index(e["attack_strength"], e["attacker_die"])
        assert e["defender_index"] == mine.index(e["defence_strength"], e["defender_die"])
    differing = [
        e
        for e in rounds
        if shipped.index(e["attack_strength"], e["attacker_die"]) != e["attacker_index"]
        or shipped.index(e["defence_strength"], e["defender_die"]) != e["defender_index"]
    ]
    assert differing, "the house table gave the shipped results: nothing was tested"

    r = t.run("audit", "--archive", str(archive_path))
    assert r.exit_code == 0, r.stderr
    assert f"  house table:          battle-table (sha256 {house_tables.digest(house)})" in r.stdout.splitlines()
    assert t.run("audit", "house").exit_code == 0


def _audit_tampered(t: Table, archive_path: Path, tamper) -> CliResult:
    data = json.loads(archive_path.read_text(encoding="utf-8"))
    tamper(data)
    path = t.tmp / "tampered.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return t.run("audit", "--archive", str(path))


def test_audit_refuses_an_archive_whose_house_tables_were_removed_or_altered(house_game) -> None:
    t, house, archive_path = house_game
    r = _audit_tampered(t, archive_path, lambda a: a["game"].pop("tables"))
    assert r.exit_code == 1
    assert (
        "pbem: audit failed: set-up: position hash " in r.stderr and "with the shipped tables, archive says" in r.stderr
    )
    r = _audit_tampered(t, archive_path, lambda a: a["game"]["tables"]["battle-table"]["rows"]["2"].__setitem__(0, 1))
    assert r.exit_code == 1 and "with house tables battle-table, archive says" in r.stderr
    r = _audit_tampered(t, archive_path, lambda a: a["game"]["tables"]["battle-table"]["rows"]["1"].__setitem__(0, 1))
    assert r.exit_code == 1
    assert r.stderr == (
        "pbem: audit failed: game.tables: a house table does not fit farrapos: "
        "row 1, column 1: 1, but the rulebook prints - (printed cells cannot be replaced)\n"
    )


def test_audit_page_shows_the_house_table_and_the_cells_that_differ(house_game) -> None:
    t, house, _ = house_game
    page = t.tmp / "audit.html"
    r = t.run("report", "house", "--format", "audit", "-o", str(page))
    assert r.exit_code == 0, r.stderr
    html = page.read_text(encoding="utf-8")
    assert "<td>battle-table</td><td>house table</td>" in html
    assert house_tables.digest(house) in html
    assert "rows.2[1]: 1 -&gt; 0" in html and "rows.6[14]: 12 -&gt; 7" in html
    plain = t.tmp / "plain.html"
    assert new_game(t, "plain", "farrapos").exit_code == 0
    assert t.run("report", "plain", "--format", "audit", "-o", str(plain)).exit_code == 0
    assert "house table</td>" not in plain.read_text(encoding="utf-8")  # (the verdict says "house tables: none")


def test_independent_dice_verifier_names_the_house_tables(house_game) -> None:
    _, house, archive_path = house_game
    verifier = load_script("tools/verify_dice.py", "verify_dice")
    summary = verifier.verify(json.loads(archive_path.read_text(encoding="utf-8")))
    assert summary.endswith(f"; house tables: battle-table (sha256 {house_tables.digest(house)})")


def test_furor_barbarus_game_with_a_house_crt_and_counter_values(table: Table) -> None:
    crt = copy.deepcopy(FUROR.shipped_table("crt"))
    crt["rows"]["4"] = ["D1"] * 7
    crt["rows"]["5"] = ["D1"] * 7
    crt["rows"]["6"] = ["D2"] * 7
    units = copy.deepcopy(FUROR.shipped_table("counter-values", "soissons"))
    units["units"]["clovis"]["strength"] = 3
    units["units"]["salian-1"]["mp"] = 5
    r = new_game(
        table,
        "fb",
        "furor-barbarus",
        "--table",
        f"crt={write_table(table, 'furor-barbarus', 'crt', crt, 'soissons')}",
        "--table",
        f"counter-values={write_table(table, 'furor-barbarus', 'counter-values', units, 'soissons')}",
        scenario="soissons",
    )
    assert r.exit_code == 0, r.stderr
    assert table.count("house_table") == 2
    for seed in range(1, 4):
        play_turn(table, "fb", {"franks": "greedy", "gallo-romans": "random"}, seed)
    out = table.tmp / "fb.json"
    assert table.run("export", "fb", "-o", str(out)).exit_code == 0
    archive = json.loads(out.read_text(encoding="utf-8"))
    assert archive["game"]["tables"] == {"crt": crt, "counter-values": units}
    r = table.run("audit", "--archive", str(out))
    assert r.exit_code == 0, r.stderr
    assert sum("house table:" in line for line in r.stdout.splitlines()) == 2
    position = json.loads(table.run("status", "fb", "--json").stdout) and _current_position(table, "fb")
    scenario = FUROR.field(position).scenario
    assert scenario.counters["clovis"].strength == 3 and scenario.counters["salian-1"].mp == 5
    assert FUROR.field(FUROR.setup("soissons", [])).scenario.counters["clovis"].strength == 2


def _current_position(t: Table, game: str) -> dict[str, Any]:
    from pbem import store

    engine = store.open_engine(t.db, create=False)
    try:
        with store.reading(engine) as session:
            return store.current_position(session, store.get_game(session, game))
    finally:
        engine.dispose()


def test_house_counter_values_apply_before_the_scenarios_printed_options() -> None:
    """Vouille's printed 'elite' option makes visigoth-cavalry-2 a 4/2: a house
    table that gives it other designed values changes it without the option, and
    the option still applies over it."""
    units = copy.deepcopy(FUROR.shipped_table("counter-values", "vouille"))
    units["units"]["visigoth-cavalry-2"].update(strength=2, reduced=1, mp=5)
    for options, strength, mp in (([], 2, 5), (["elite"], 4, 5)):
        position = FUROR.with_house_tables(FUROR.setup("vouille", options), {"counter-values": units})
        counter = FUROR.field(position).scenario.counters["visigoth-cavalry-2"]
        assert (counter.strength, counter.mp) == (strength, mp)
