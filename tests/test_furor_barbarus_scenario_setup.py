"""Furor Barbarus, section 3 and scenarios 1-4: each scenario's data checked hex by
hex against the rulebook's set-up lists.

These tests read the scenario and map TOML files directly (no engine): the
expected values below are typed from the rulebook (``seeds/furor-barbarus-rulebook.txt``),
one entry per printed set-up line.  Unit names are the counters' names in our data
(the rulebook's "3 Roman" are three counters named "Romans", and so on; the
mapping is in the "Scenarios" part of ``docs/rules/furor-barbarus.md``).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "rules" / "furor_barbarus" / "data"
SCENARIOS = ("campus-mauriacus", "soissons", "tolbiac", "vouille")


def load(kind: str, ident: str) -> dict:
    with open(DATA / kind / f"{ident}.toml", "rb") as fh:
        return tomllib.load(fh)


def neighbours(h: str) -> set[str]:
    c, r = int(h[:2]), int(h[2:])
    if c % 2:
        cand = [(c, r - 1), (c, r + 1), (c - 1, r - 1), (c - 1, r), (c + 1, r - 1), (c + 1, r)]
    else:
        cand = [(c, r - 1), (c, r + 1), (c - 1, r), (c - 1, r + 1), (c + 1, r), (c + 1, r + 1)]
    return {f"{a:02d}{b:02d}" for a, b in cand}


def on_map(h: str, game_map: dict) -> bool:
    return 1 <= int(h[:2]) <= game_map["columns"] and 1 <= int(h[2:]) <= game_map["rows"]


def area_hexes(area: str, game_map: dict) -> set[str]:
    """Our own reading of the schema's areas, limited to the map."""
    out: set[str] = set()
    for part in area.split(","):
        kind, _, arg = part.strip().partition(":")
        if kind == "line":
            out |= {f"{int(arg):02d}{r:02d}" for r in range(1, game_map["rows"] + 1)}
        elif kind == "range":
            a, _, b = arg.partition("-")
            out |= {f"{a[:2]}{r:02d}" for r in range(int(a[2:]), int(b[2:]) + 1)}
        else:
            raise AssertionError(f"unknown area {part!r}")
    return {h for h in out if on_map(h, game_map)}


def deploy_hexes(entry: dict, game_map: dict) -> set[str]:
    return set(entry["hexes"]) if "hexes" in entry else area_hexes(entry["area"], game_map)


# --- the rulebook's set-up lists -------------------------------------------------
# (side, units as (name, how many, printed strength or None), hexes or area, fixed)
Line = tuple[str, tuple[tuple[str, int, int | None], ...], tuple[str, ...] | str, bool]

RED = ("1705", "1804", "1905", "2005", "1604", "1505", "1504")
RIGHT_WING = ("1105", "0905", "0705", "0505", "0305", "0205", "0803", "0403")
GEPID_LINE = ("2212", "2011", "1811", "1711")
HUNS = ("1511", "1411", "1311", "1211", "1111", "1011", "0911", "0811", "0712")
OSTROGOTHS = ("0512", "0411", "0312", "0311", "0211")

SETUP: dict[str, list[Line]] = {
    "campus-mauriacus": [
        ("romans", (("Aetius", 1, None),), RED, False),  # with a red unit
        (
            "romans",
            (("Burgundians", 1, None), ("Franks", 1, None), ("Armoricans", 1, None), ("Saxons", 1, None)),
            ("1705", "1804", "1905", "2005"),
            False,
        ),
        ("romans", (("Romans", 3, None),), ("1604", "1505", "1504"), False),
        ("romans", (("Sangiban", 1, None),), ("1404", "1305", "1204"), False),  # with an Alan unit
        ("romans", (("Alans", 3, None),), ("1404", "1305", "1204"), False),
        ("romans", (("Theodoric", 1, None),), RIGHT_WING, False),  # with a right-wing Visigoth
        ("romans", (("Visigoths", 8, None),), RIGHT_WING, False),
        ("romans", (("Visigoths", 2, None),), ("2309", "2410"), False),
        ("huns", (("Ardaric", 1, None),), GEPID_LINE, False),  # with a Gepid unit
        ("huns", (("Burgundians", 1, 2), ("Franks", 1, 2), ("Gepids", 2, 3)), GEPID_LINE, False),
        ("huns", (("Attila", 1, None),), HUNS, False),
        ("huns", (("Huns", 9, None),), HUNS, False),
        ("huns", (("Valamir", 1, None),), OSTROGOTHS, False),
        ("huns", (("Ostrogoths", 5, None),), OSTROGOTHS, False),
    ],
    "soissons": [
        ("gallo-romans", (("Syagrius", 1, None),), ("0508",), True),
        ("gallo-romans", (("Legionaries", 2, None), ("Palatina", 1, None)), ("0507", "0508", "0509"), False),
        ("gallo-romans", (("Roman cavalry", 1, None), ("Foederati", 2, None)), ("0511", "0512", "0513"), False),
        ("gallo-romans", (("Militia", 3, None),), ("0502", "0503", "0504"), False),
        ("gallo-romans", (("Archers", 3, None),), "line:04", False),
        (
            "franks",
            (
                ("Clovis", 1, None),
                ("Salian Franks", 2, 4),
                ("Salian Franks", 4, 3),
                ("Light infantry", 1, 2),
                ("Light infantry", 1, 1),
            ),
            "range:0806-0814",
            False,
        ),
        ("franks", (("Archers", 1, 1),), "range:0907-0912", False),
        (
            "neutral",
            (("Salian Franks", 1, 3), ("Salian Franks", 1, 2), ("Light infantry", 1, 1)),
            ("0703", "0702", "0803"),
            True,
        ),
    ],
    "tolbiac": [
        (
            "franks",
            (
                ("Clovis", 1, None),
                ("Salian Franks", 2, 4),
                ("Salian Franks", 4, 3),
                ("Light infantry", 1, 1),
                ("Ripuarian Franks", 1, 3),
                ("Ripuarian Franks", 1, 2),
                ("Archers", 2, 1),
            ),
            "line:09,line:10",
            False,
        ),
        (
            "alemanni",
            (
                ("Gibuld", 1, None),
                ("Suevi warriors", 2, None),
                ("Hermunduri warriors", 4, None),
                ("Juthungi warriors", 2, None),
                ("Armalausi warriors", 2, None),
                ("Archers", 3, 1),
            ),
            "line:03,line:04",
            False,
        ),
    ],
    "vouille": [
        ("franks", (("Clovis", 1, None),), ("0907",), True),
        ("franks", (("Bretons", 1, None),), ("0903",), True),
        ("franks", (("Alans", 1, None),), ("0902",), True),
        ("franks", (("Aquitaines", 2, None),), ("0913", "0914"), False),
        (
            "franks",
            (("Salian Franks", 1, 4), ("Salian Franks", 2, 3), ("Salian Franks", 1, 2)),
            ("0906", "0907", "0908", "0909"),
            False,
        ),
        ("franks", (("Ripuarian Franks", 1, 3),), ("0910",), True),
        ("franks", (("Light infantry", 1, 1),), ("0911",), True),
        ("franks", (("Archers", 3, None),), ("1007", "1009", "1013"), False),
        ("visigoths", (("Alaric II", 1, None),), ("0407",), True),
        ("visigoths", (("Visigothic cavalry", 5, None),), ("0406", "0407", "0408", "0409", "0410"), False),
        ("visigoths", (("Visigothic infantry", 2, None),), ("0412", "0413"), False),
        ("visigoths", (("Urban militia", 3, None),), ("0402", "0404", "0304"), False),
        ("visigoths", (("Laeti", 1, None),), ("0403",), True),
        ("visigoths", (("Arverni", 2, None),), ("0208", "0209"), False),
        ("visigoths", (("Archers", 1, None),), ("0313",), True),
    ],
}

# --- what the rulebook prints for each scenario -----------------------------------
PRINTED = {
    "campus-mauriacus": dict(
        sides=["huns", "romans"],
        turns=12,
        first_player="roll",
        roll_ties="romans",
        setup_first="huns",
        thresholds={"romans": 30, "huns": 29},
    ),
    "soissons": dict(
        sides=["franks", "gallo-romans"],
        turns=6,
        first_player="franks",
        setup_first="gallo-romans",
        thresholds={"franks": 13, "gallo-romans": 14},
    ),
    "tolbiac": dict(
        sides=["alemanni", "franks"],
        turns=8,
        first_player="franks",
        setup_first="franks",
        thresholds={"franks": 15, "alemanni": 14},
    ),
    "vouille": dict(
        sides=["franks", "visigoths"], turns=6, first_player="visigoths", thresholds={"franks": 15, "visigoths": 15}
    ),
}

# colour bands of the commanders (Campus Mauriacus names them; the others: "(blue units)" ...)
BANDS = {
    "campus-mauriacus": {
        "Aetius": "red",
        "Sangiban": "brown",
        "Theodoric": "blue",
        "Ardaric": "blue",
        "Attila": "yellow",
        "Valamir": "green",
    },
    "soissons": {"Syagrius": "red", "Clovis": "blue"},
    "tolbiac": {"Clovis": "blue", "Gibuld": "brown"},
    "vouille": {"Clovis": "brown", "Alaric II": "red"},
}


def units_by_id(scenario: dict) -> dict[str, dict]:
    return {u["id"]: u for u in scenario["unit"]}


@pytest.mark.parametrize("sid", SCENARIOS)
def test_section_3_scenario_header_as_printed(sid: str) -> None:
    """First player, length, set-up order and thresholds as the rulebook gives them."""
    s = load("scenarios", sid)
    p = PRINTED[sid]
    assert s["id"] == sid and s["map"] == sid
    assert s["sides"] == p["sides"] == sorted(p["sides"])
    assert s["turns"] == p["turns"]
    assert s["first_player"] == p["first_player"]
    if "roll_ties" in p:
        assert s["roll_ties"] == p["roll_ties"]
    if "setup_first" in p:
        assert s["setup_first"] == p["setup_first"]
    assert {side: s["side"][side]["threshold"] for side in s["sides"]} == p["thresholds"]


@pytest.mark.parametrize("sid", SCENARIOS)
def test_section_3_setup_hex_by_hex(sid: str) -> None:
    """Every printed set-up line: exactly its units (names, numbers, printed strengths)
    go to exactly its hexes, and every unit of the scenario is on one line."""
    s = load("scenarios", sid)
    game_map = load("maps", s["map"])
    units = units_by_id(s)
    entries = s["deploy"]
    used: set[int] = set()
    for side, wanted, where, fixed in SETUP[sid]:
        expected_hexes = set(where) if isinstance(where, tuple) else area_hexes(where, game_map)
        expected_units = Counter({(name, strength): n for name, n, strength in wanted})
        matches = []
        for i, entry in enumerate(entries):
            if deploy_hexes(entry, game_map) != expected_hexes:
                continue
            got = [units[u] for u in entry["units"]]
            names = Counter((u["name"], None) for u in got)
            for (name, strength), n in expected_units.items():
                if strength is not None:
                    names[(name, None)] -= n
                    names[(name, strength)] += n
            printed_ok = all(
                sum(1 for u in got if u["name"] == name and u["strength"] == strength) == n
                for (name, strength), n in expected_units.items()
                if strength is not None
            )
            if +names == expected_units and printed_ok:
                matches.append(i)
        assert len(matches) == 1, f"{sid}: no single deploy entry for {wanted} in {sorted(expected_hexes)}"
        i = matches[0]
        used.add(i)
        entry = entries[i]
        assert all(units[u]["side"] == side for u in entry["units"]), (sid, entry["units"])
        assert bool(entry.get("fixed", False)) == fixed
        if fixed:
            # fixed: units[i] -> hexes[i] in the rulebook's own order
            by_unit = dict(zip(entry["units"], entry["hexes"]))
            for (name, _n, strength), h in zip(wanted, where):
                u = next(
                    u
                    for u in entry["units"]
                    if units[u]["name"] == name
                    and (strength is None or units[u]["strength"] == strength)
                    and by_unit[u] == h
                )
                assert by_unit[u] == h
        # enough room: one hex for each combat unit (commanders stack, section 5)
        combat = [u for u in entry["units"] if units[u]["type"] != "commander"]
        assert len(combat) <= len(expected_hexes)
    assert used == set(range(len(entries))), (
        f"{sid}: deploy entries not in the rulebook: {set(range(len(entries))) - used}"
    )
    deployed = [u for e in entries for u in e["units"]]
    assert sorted(deployed) == sorted(units), f"{sid}: units deployed twice or never"


@pytest.mark.parametrize("sid", SCENARIOS)
def test_section_3_every_named_hex_is_on_the_map(sid: str) -> None:
    s = load("scenarios", sid)
    game_map = load("maps", s["map"])
    for entry in s["deploy"]:
        for h in entry.get("hexes", []):
            assert on_map(h, game_map), (sid, h)
        if "area" in entry:
            for part in entry["area"].split(","):
                kind, _, arg = part.partition(":")
                if kind == "range":
                    a, _, b = arg.partition("-")
                    assert on_map(a, game_map) and on_map(b, game_map), (sid, part)
                else:
                    assert 1 <= int(arg) <= game_map["columns"], (sid, part)
    for h in list(game_map.get("names", {})) + [h for hs in game_map["terrain"].values() for h in hs]:
        assert on_map(h, game_map), (sid, h)


@pytest.mark.parametrize("sid", SCENARIOS)
def test_section_1_map_data_is_consistent(sid: str) -> None:
    """Hexsides join adjacent hexes; a hex has one terrain; no set-up hex is cut off
    (every fixed or listed hex has a neighbour it can be left by)."""
    game_map = load("maps", sid)
    seen: dict[str, str] = {}
    for kind, hexes in game_map["terrain"].items():
        assert kind in {"clear", "road", "village", "woods", "hill", "bridge", "ford"}
        for h in hexes:
            assert h not in seen, f"{sid}: {h} is both {seen[h]} and {kind}"
            seen[h] = kind
    for side in game_map.get("hexside", []):
        a, b = side["hexes"]
        assert b in neighbours(a), f"{sid}: hexside {a}-{b} joins hexes that are not adjacent"
        assert side["feature"] in {"river", "stream"}
        assert side.get("crossing") in {None, "bridge", "ford", "road"}
    assert game_map.get("designed") is True


def commanders(s: dict) -> dict[str, dict]:
    return {u["id"]: u for u in s["unit"] if u["type"] == "commander"}


@pytest.mark.parametrize("sid", SCENARIOS)
def test_section_6_colour_bands_follow_their_commanders(sid: str) -> None:
    s = load("scenarios", sid)
    cmd = commanders(s)
    assert {c["name"]: c["band"] for c in cmd.values()} == BANDS[sid]
    for u in s["unit"]:
        if u.get("commander"):
            assert u["commander"] in cmd, (sid, u["id"])
            assert u["band"] == cmd[u["commander"]]["band"], (sid, u["id"])
            assert u["side"] == cmd[u["commander"]]["side"], (sid, u["id"])


def test_scenario_1_commanders_stand_where_their_troops_do() -> None:
    """Campus Mauriacus: Aetius with a red unit, Sangiban with an Alan, Theodoric with
    a right-wing Visigoth, Ardaric with a Gepid, Attila with a Hun, Valamir with an
    Ostrogoth: each commander's hexes are among his companions' hexes."""
    s = load("scenarios", "campus-mauriacus")
    units = units_by_id(s)
    companions = {
        "aetius": "red",
        "sangiban": "Alans",
        "theodoric": "right wing",
        "ardaric": "Gepids",
        "attila": "Huns",
        "valamir": "Ostrogoths",
    }
    for entry in s["deploy"]:
        if len(entry["units"]) != 1 or units[entry["units"][0]]["type"] != "commander":
            continue
        cid = entry["units"][0]
        # the hexes of the entries holding the companions
        companion_hexes: set[str] = set()
        for other in s["deploy"]:
            us = [units[u] for u in other["units"]]
            if any(u["type"] == "commander" for u in us):
                continue
            if companions[cid] == "red" and all(u["band"] == "red" for u in us):
                companion_hexes |= set(other["hexes"])
            elif companions[cid] == "right wing" and set(other["hexes"]) == set(RIGHT_WING):
                companion_hexes |= set(other["hexes"])
            elif any(u["name"] == companions[cid] for u in us):
                companion_hexes |= set(other["hexes"])
        assert set(entry["hexes"]) == companion_hexes, cid


@pytest.mark.parametrize("sid", SCENARIOS)
def test_section_2_counter_values_in_the_a_la_charge_range(sid: str) -> None:
    s = load("scenarios", sid)
    for u in s["unit"]:
        assert u["designed"] is True
        if u["type"] == "commander":
            assert 1 <= u["strength"] <= 3 and "reduced" not in u
            continue
        assert 1 <= u["strength"] <= 5, u["id"]
        assert 4 <= u["mp"] <= 8, u["id"]
        if "reduced" in u:
            assert 1 <= u["reduced"] < u["strength"], u["id"]
        else:
            assert u["strength"] == 1, f"{u['id']}: only strength-1 counters have one step"
        missile = u["type"] in ("missile_infantry", "missile_cavalry")
        assert (u["range"] >= 1) == missile, u["id"]
        assert set(u["marks"]) <= {"charge", "impetuous", "feigned_flight", "no_melee_penalty"}
        if sid != "campus-mauriacus":
            # marks are Campus Mauriacus' (section 2), except Vouille's Alan cavalry (special rule 2)
            assert not u["marks"] or (sid, u["id"]) == ("vouille", "alans")


def test_scenario_1_marks_where_the_special_rules_need_them() -> None:
    s = load("scenarios", "campus-mauriacus")
    marks = Counter(m for u in s["unit"] for m in u["marks"])
    assert all(marks[m] > 0 for m in ("charge", "impetuous", "feigned_flight", "no_melee_penalty"))
    for u in s["unit"]:
        if "charge" in u["marks"]:
            assert u["type"] == "cavalry", u["id"]
        if "no_melee_penalty" in u["marks"]:
            assert u["type"] in ("missile_infantry", "missile_cavalry"), u["id"]
    alans = [u for u in s["unit"] if u["name"] == "Alans"]
    assert len(alans) == 3 and all(u["side"] == "romans" and u["band"] == "brown" for u in alans)
    assert any("reduced" in u for u in alans), "the defection rule's 2d6 needs full (two-step) Alans"


def test_scenario_2_chararic_is_neutral_and_free_placement_option() -> None:
    s = load("scenarios", "soissons")
    game_map = load("maps", "soissons")
    chararic = [u for u in s["unit"] if u["side"] == "neutral"]
    assert sorted((u["name"], u["strength"]) for u in chararic) == [
        ("Light infantry", 1),
        ("Salian Franks", 2),
        ("Salian Franks", 3),
    ]
    (option,) = [o for o in s["option"] if o["id"] == "free-placement"]
    gallo, frankish = option["deploy"]
    units = units_by_id(s)
    assert sorted(gallo["units"]) == sorted(u for u in units if units[u]["side"] == "gallo-romans")
    assert area_hexes(gallo["area"], game_map) == area_hexes("line:04,line:05", game_map)
    assert sorted(frankish["units"]) == sorted(u for u in units if units[u]["side"] == "franks")
    allowed = area_hexes(frankish["area"], game_map)
    assert allowed <= area_hexes("line:08,line:09", game_map)
    assert min(int(h[2:]) for h in allowed) == 5  # "not after XX05", read as rows 05 on
    assert not allowed & {"0702", "0703", "0803"}


def test_scenario_3_ignored_terrain() -> None:
    """Special rule 2: the terrain running from 0114 and the farms in 1115 and 0214
    are on the map and the scenario ignores them."""
    s = load("scenarios", "tolbiac")
    game_map = load("maps", "tolbiac")
    ignored = set(s["overlay"]["ignore"]["hexes"])
    assert {"0114", "1115", "0214"} <= ignored
    assert {"0214", "1115"} <= set(game_map["terrain"]["village"])
    assert "0114" in {h for k, hs in game_map["terrain"].items() if k != "clear" for h in hs}
    # what runs from 0114 is one connected track, all of it ignored
    track = {h for k, hs in game_map["terrain"].items() for h in hs if h in ignored}
    assert track == ignored
    reached, todo = {"0114"}, ["0114"]
    while todo:
        for n in neighbours(todo.pop()) & track - reached:
            reached.add(n)
            todo.append(n)
    assert reached == track


def test_scenario_4_elite_variation() -> None:
    """One Visigothic cavalry of 3 becomes 4 and one of 2 becomes 3."""
    s = load("scenarios", "vouille")
    units = units_by_id(s)
    (option,) = [o for o in s["option"] if o["id"] == "elite"]
    changes = {c["unit"]: c["strength"] for c in option["unit_change"]}
    before = sorted(units[u]["strength"] for u in changes)
    assert before == [2, 3] and sorted(changes.values()) == [3, 4]
    for u, strength in changes.items():
        assert units[u]["name"] == "Visigothic cavalry"
        assert strength == units[u]["strength"] + 1


def test_scenario_4_alan_cavalry_exception() -> None:
    """Special rule 2: the Alans are mounted shooters that may charge, without the
    hand-to-hand penalty; the Bretons are light cavalry (cavalry: no range)."""
    s = load("scenarios", "vouille")
    units = units_by_id(s)
    assert units["alans"]["type"] == "missile_cavalry"
    assert set(units["alans"]["marks"]) == {"charge", "no_melee_penalty"}
    assert units["bretons"]["type"] == "cavalry" and units["bretons"]["range"] == 0
