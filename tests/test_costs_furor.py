"""Costs of the Furor Barbarus rules engine that must not come back: each test
counts calls, never time.

- the battlefield's hex index is built once per battlefield (one check of a
  file, one resolution), then kept up to date as units move, leave or die
  (every move threw it away: some twenty builds per resolution);
- the table of unit names an order may use is folded once per process, not once
  per ruleset (the referee makes a ruleset per game);
- a scenario's map with its overlay is made once per process, not per battlefield.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from pbem.rules.base import Orders
from pbem.rules.furor_barbarus import maps, movement, ruleset
from pbem.rules.furor_barbarus.battlefield import ACTIVE, Battlefield
from pbem.rules.names import NameTable


def _turns(scenario: str, count: int) -> list[tuple[Any, str, Orders, DiceStream]]:
    """The play resolutions of a random bot game: position, side, orders, dice."""
    rules = find_ruleset("furor-barbarus")
    position = rules.setup(scenario, [])
    out: list[tuple[Any, str, Orders, DiceStream]] = []
    for n in range(60):
        due = rules.due(position)
        if not due or len(out) >= count:
            break
        texts = {s: rules.bot_orders(position, s, "random", random.Random(n)) for s in due}
        orders = {s: rules.parse_orders(t)[0] for s, t in texts.items()}
        dice = hashlib.sha256(b"%d" % n).digest()
        if position["phase"] == "play":
            out.append((position, due[0], orders[due[0]], DiceStream(dice)))
        position = rules.resolve(position, orders, DiceStream(dice)).position
    return out


@pytest.mark.parametrize("scenario", ["vouille", "campus-mauriacus"])
def test_the_hex_index_is_built_once_per_battlefield(monkeypatch: pytest.MonkeyPatch, scenario: str) -> None:
    """Each check and each resolution builds the index of units by hex once; and
    the index kept up to date answers as one built afresh would, at every look-up."""
    builds: dict[Battlefield, int] = {}
    real_index = Battlefield._index
    real_units_in = Battlefield.units_in

    def counting(self: Battlefield) -> Any:
        builds[self] = builds.get(self, 0) + 1
        return real_index(self)

    def checked(self: Battlefield, h: str) -> list[str]:
        found = real_units_in(self, h)
        fresh = [u for u, s in self.units.items() if s["status"] == ACTIVE and s["hex"] == h]
        assert found == fresh, (h, found, fresh)
        return found

    real_with_zone = movement.zone_and_index  # a first move's check builds it with the enemy zone

    def counting_with_zone(field: Battlefield, side: str) -> Any:
        builds[field] = builds.get(field, 0) + 1
        return real_with_zone(field, side)

    monkeypatch.setattr(Battlefield, "_index", counting)
    monkeypatch.setattr(movement, "zone_and_index", counting_with_zone)
    monkeypatch.setattr(Battlefield, "units_in", checked)
    rules = find_ruleset("furor-barbarus")
    turns = _turns(scenario, 8)
    assert len(turns) == 8
    moves = 0
    for position, side, orders, dice in turns:
        builds.clear()
        assert rules.validate(position, side, orders) == []
        result = rules.resolve(position, {side: orders}, dice)
        moves += sum(1 for e in result.events if e["type"] == "move")
        assert builds and max(builds.values()) == 1, builds
    assert moves > 8  # the resolutions moved units: the index was kept up to date


def test_unit_names_are_folded_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee makes a ruleset per game: each one's first order folded every
    unit name of every scenario again (over 5 M instructions per resolution)."""
    find_ruleset("furor-barbarus").parse_orders("move clovis 0101")
    made = [0]
    real = NameTable.__init__

    def counting(self: NameTable, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(NameTable, "__init__", counting)
    for _ in range(3):
        orders, problems = find_ruleset("furor-barbarus").parse_orders("move Clovis 0101 0102")
        assert not problems and [str(ol.order) for ol in orders] == ["move clovis 0101 0102"]
    assert made[0] == 0


def test_the_overlaid_map_is_made_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every battlefield copied its map's terrain and hexsides with the scenario's
    overlay; now each is made once and shared (with the hex tables it keeps)."""
    position = find_ruleset("furor-barbarus").setup("tolbiac", [])
    first = find_ruleset("furor-barbarus").field(position).game_map
    made = [0]
    real = maps.GameMap.with_overlay

    def counting(self: maps.GameMap, overlay: Any) -> maps.GameMap:
        made[0] += 1
        return real(self, overlay)

    monkeypatch.setattr(maps.GameMap, "with_overlay", counting)
    again = [find_ruleset("furor-barbarus").field(position).game_map for _ in range(3)]
    assert made[0] == 0 and all(m is first for m in again)
    assert ruleset.overlaid(first, {}) is first


def test_a_resolution_checks_each_move_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The resolution checked each move, then ``apply_move`` checked it again; now
    the check made just before is passed on."""
    from pbem.rules.furor_barbarus import movement, sequence
    from pbem.rules.furor_barbarus.orders import MoveOrder

    checks = [0]
    real = movement.check_move

    def counting(*args: Any, **kwargs: Any) -> Any:
        checks[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(movement, "check_move", counting)
    monkeypatch.setattr(sequence, "check_move", counting)
    rules = find_ruleset("furor-barbarus")
    ordered = 0
    for position, side, orders, dice in _turns("vouille", 8):
        checks[0] = 0
        rules.resolve(position, {side: orders}, dice)
        moves = sum(1 for ol in orders if isinstance(ol.order, MoveOrder))
        assert checks[0] == moves
        ordered += moves
    assert ordered > 8


def test_step_costs_are_looked_up_not_worked_out_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost of each step (terrain, hexside, road) is worked out once per map and
    looked up after: checking the same file again works none out."""
    from pbem.rules.furor_barbarus import movement

    rules = find_ruleset("furor-barbarus")
    turns = _turns("soissons", 6)
    for position, side, orders, _ in turns:
        assert rules.validate(position, side, orders) == []
    worked = [0]
    real = movement._cost_half

    def counting(*args: Any, **kwargs: Any) -> Any:
        worked[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(movement, "_cost_half", counting)
    for position, side, orders, _ in turns:
        assert rules.validate(position, side, orders) == []
    assert worked[0] == 0


def test_orders_naming_units_by_their_ids_are_not_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settling the names of a file that names every unit by its id made a settled
    copy of each order only to read what it names; now nothing is copied."""
    from pbem.rules.furor_barbarus import unit_names

    rules = find_ruleset("furor-barbarus")
    copies = [0]
    real = unit_names.replace

    def counting(*args: Any, **kwargs: Any) -> Any:
        copies[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(unit_names, "replace", counting)
    for position, side, orders, _ in _turns("tolbiac", 4):
        assert len(orders) and rules.validate(position, side, orders) == []
    assert copies[0] == 0


def test_neighbours_are_worked_out_without_hex_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hex's neighbours (the first time a process asks) came from six cube
    conversions of hex objects; now from the column and row steps of its parity,
    in the same order."""
    from pbem.rules.furor_barbarus import hexgrid

    expected = {
        h: tuple(str(n) for n in hexgrid.Hex.parse(h).neighbours() if 1 <= n.col <= 14 and 1 <= n.row <= 11)
        for h in (f"{c:02d}{r:02d}" for c in range(1, 15) for r in range(1, 12))
    }
    made = [0]
    real = hexgrid.Hex.neighbours

    def counting(self: hexgrid.Hex) -> Any:
        made[0] += 1
        return real(self)

    monkeypatch.setattr(hexgrid.Hex, "neighbours", counting)
    maps._neighbours.cache_clear()
    assert {h: maps._neighbours(h, 14, 11) for h in expected} == expected
    assert made[0] == 0


def test_the_scenario_with_its_options_is_made_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every battlefield made the scenario with the game's options again (a copy of
    every counter); now once per scenario and options in a process."""
    from pbem.rules.furor_barbarus import scenarios

    position = find_ruleset("furor-barbarus").setup("soissons", [])
    find_ruleset("furor-barbarus").field(position)
    made = [0]
    real = scenarios.Scenario.with_options

    def counting(self: scenarios.Scenario, chosen: Any) -> scenarios.Scenario:
        made[0] += 1
        return real(self, chosen)

    monkeypatch.setattr(scenarios.Scenario, "with_options", counting)
    fields = [find_ruleset("furor-barbarus").field(position) for _ in range(3)]
    assert made[0] == 0 and len({id(f.scenario) for f in fields}) == 1


def test_hex_distances_are_worked_out_without_hex_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """The distance between two hexes (the first time a process asks) parsed two hex
    objects; now it reads the digits, with the same answers."""
    from pbem.rules.furor_barbarus import hexgrid

    hexes = [f"{c:02d}{r:02d}" for c in range(1, 16) for r in range(1, 13)]
    expected = {(a, b): hexgrid.distance(hexgrid.Hex.parse(a), hexgrid.Hex.parse(b)) for a in hexes[::5] for b in hexes}
    parsed = [0]
    real = hexgrid.Hex.parse

    def counting(text: str) -> hexgrid.Hex:
        parsed[0] += 1
        return real(text)

    monkeypatch.setattr(hexgrid.Hex, "parse", staticmethod(counting))
    hexgrid.hex_distance.cache_clear()
    assert {pair: hexgrid.hex_distance(*pair) for pair in expected} == expected
    assert parsed[0] == 0


def test_a_battlefield_copies_the_units_without_marshal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A battlefield's copy of the position went through ``marshal`` whole (the
    units are most of it: about 0.24 M instructions a copy, two copies a
    resolution); now each unit's flat entry is copied as a dict, the rest as before,
    and the copy is whole: equal, the same key order, sharing nothing mutable."""
    import marshal

    rules = find_ruleset("furor-barbarus")
    turns = _turns("campus-mauriacus", 6)
    dumped: list[Any] = []
    real = marshal.dumps

    def recording(value: Any, *args: Any) -> bytes:
        dumped.append(value)
        return real(value, *args)

    monkeypatch.setattr(marshal, "dumps", recording)
    for position, _, _, _ in turns:
        assert all(type(v) in (str, bool, int, type(None)) for u in position["units"].values() for v in u.values())
        dumped.clear()
        pos = rules.field(position).position
        assert not any(isinstance(d, dict) and "units" in d for d in dumped)
        assert pos == position and list(pos) == list(position)
        assert all(pos[k] is not position[k] for k in pos if isinstance(position[k], (dict, list)))
        assert all(pos["units"][u] is not position["units"][u] for u in position["units"])
