"""Costs of a Furor Barbarus file at submit that must not come back: each test
counts, never times.

- the table of every scenario's unit names (built once per process) is built
  before the time limit on a turn file's orders is entered, so that the limit
  covers the file's parse alone (under a loaded machine or valgrind the first
  parse of a process went over it);
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem import limits, store
from pbem.dice import DiceStream
from pbem.referee import intake, lifecycle
from pbem.rules import find_ruleset
from pbem.rules.furor_barbarus import maps, ruleset, zones_of_control
from pbem.rules.furor_barbarus.hexgrid import Hex
from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from pbem.rules.names import NameTable
from pbem.turnfiles import keys, sshsig


def _first_play_turn() -> tuple[Any, str, Any, DiceStream]:
    """The first play resolution of a random bot game of Vouille: position, side, orders, dice."""
    rules = find_ruleset("furor-barbarus")
    position = rules.setup("vouille", [])
    for n in range(60):
        due = rules.due(position)
        orders = {s: rules.parse_orders(rules.bot_orders(position, s, "random", random.Random(n)))[0] for s in due}
        dice = hashlib.sha256(b"%d" % n).digest()
        if position["phase"] == "play":
            return position, due[0], orders[due[0]], DiceStream(dice)
        position = rules.resolve(position, orders, DiceStream(dice)).position
    raise AssertionError("no play resolution")


def _vouille(tmp_path: Path) -> tuple[store.Database, dict[str, keys.PrivateKey]]:
    signers, public = {}, {}
    for side in ("franks", "visigoths"):
        private, pub = keys.generate_ed25519(side, tmp_path)
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    engine = store.create_database(tmp_path / "referee.db")
    lifecycle.new_game(engine, "g1", "furor-barbarus", "vouille", [], public)
    return engine, signers


def test_the_unit_name_table_is_built_before_the_orders_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first parse of a process built the every-scenario name table inside the
    10-second limit on the orders; now the ruleset loads it (``prepare_parsing``)
    before the limit starts."""
    engine, signers = _vouille(tmp_path)
    side = lifecycle.status(engine, "g1").awaiting[0]
    message = lifecycle.next_turn_file(engine, "g1", side, bot="random", seed=1).encode("utf-8")
    built: list[int] = []
    real_names = FurorBarbarus._unit_names

    def counting(self: FurorBarbarus) -> NameTable:
        built.append(1)
        return real_names(self)

    entered: list[tuple[str, int, int]] = []
    real_limit = limits.time_limit

    @contextlib.contextmanager
    def watched(seconds: float, what: str) -> Iterator[None]:
        before = len(built)
        with real_limit(seconds, what):
            yield
        entered.append((what, before, len(built)))

    monkeypatch.setattr(ruleset, "_UNIT_NAMES", {})  # a fresh process: no table yet
    monkeypatch.setattr(FurorBarbarus, "_unit_names", counting)
    monkeypatch.setattr(limits, "time_limit", watched)
    intake.submit(engine, message, sshsig.sign(message, signers[side]))
    assert [(b, a) for what, b, a in entered if what == "the orders"] == [(1, 1)]
    assert len(built) == 1
    engine.dispose()


def _python_calls(action: Any, where: str) -> Counter[str]:
    """The Python functions of module files ending in ``where`` that ``action`` calls, by name."""
    calls: Counter[str] = Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.endswith(where):
            calls[frame.f_code.co_name] += 1

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return calls


def test_a_battlefield_reads_its_units_without_a_call() -> None:
    """``Battlefield.units`` was a property: a Python call at each of the
    thousands of reads of a resolution (``exists`` alone read it three times)."""
    rules = find_ruleset("furor-barbarus")
    position, side, orders, dice = _first_play_turn()
    calls = _python_calls(lambda: rules.resolve(position, {side: orders}, dice), "furor_barbarus/battlefield.py")
    assert sum(calls.values()) > 10 and calls["units"] == 0, calls


def test_forgetting_cached_zones_calls_nothing_per_key() -> None:
    """A unit's move forgot the cached enemy zones through ``side_of`` and
    ``enemies``, two calls for each cached key at each step."""
    rules = find_ruleset("furor-barbarus")
    position, side, orders, dice = _first_play_turn()
    calls = _python_calls(lambda: rules.resolve(position, {side: orders}, dice), "furor_barbarus/battlefield.py")
    assert calls["place"] > 5 and calls["enemies"] < calls["place"], calls  # each place forgets what the move changes


def test_a_hex_s_neighbours_inside_the_map_need_no_generator() -> None:
    """A hex's neighbours (worked out once per hex and process, and a fresh
    process meets some forty new hexes a resolution) were six f-strings through a
    generator; a hex with all six on the map now adds a step to ``CCRR``: the same
    hexes in the same order as the hex objects say, on every hex of several maps."""
    for columns, rows in ((30, 20), (25, 17), (3, 3), (2, 2), (99, 99)):
        for col in range(1, columns + 1):
            for row in range(1, rows + 1):
                h = f"{col:02d}{row:02d}"
                want = tuple(str(n) for n in Hex(col, row).neighbours() if 1 <= n.col <= columns and 1 <= n.row <= rows)
                assert maps._neighbours.__wrapped__(h, columns, rows) == want, h
    calls = _python_calls(lambda: maps._neighbours.__wrapped__("1010", 30, 20), "furor_barbarus/maps.py")
    assert sum(calls.values()) == 1, calls


def test_the_enemy_zone_is_worked_out_from_the_units_entries() -> None:
    """Working out a side's enemy zone called on_map, enemies, side_of,
    exerts_zoc, counter and hex_of for each unit; now it reads the units' entries
    (and the battlefield's cache without a call: no ``cached`` and its closure).
    The zone is the one the unit-by-unit rule gives."""
    rules = find_ruleset("furor-barbarus")
    position, side, _, _ = _first_play_turn()
    field = rules.field(position)
    calls = _python_calls(lambda: zones_of_control.enemy_zoc(field, side), "furor_barbarus/battlefield.py")
    assert sum(calls.values()) == 0, calls
    by_unit: set[str] = set()
    for u in field.on_map():
        if field.enemies(side, field.side_of(u)) and zones_of_control.exerts_zoc(field, u):
            by_unit |= field.game_map.zoc_reach(field.hex_of(u) or "")
    assert zones_of_control.enemy_zoc(field, side) == by_unit and by_unit


def test_a_hex_s_zoc_reach_asks_no_river_question_per_neighbour() -> None:
    """A hex's ZOC reach (once per hex and process) asked river_between, hexside
    and side_key for each neighbour; now it reads the hexsides itself, and agrees
    with river_between on every hex of every scenario's map."""
    rules = find_ruleset("furor-barbarus")
    for scenario in ("vouille", "soissons", "tolbiac", "campus-mauriacus"):
        field = rules.field(rules.setup(scenario, []))
        gm = dataclasses.replace(field.game_map)  # a copy with no tables kept yet
        calls = _python_calls(lambda gm=gm: [gm.zoc_reach(h) for h in gm.all_hexes()], "furor_barbarus/maps.py")
        assert calls["river_between"] == 0 and calls["hexside"] == 0, calls
        for h in gm.all_hexes():
            assert gm.zoc_reach(h) == {n for n in gm.neighbours(h) if not gm.river_between(h, n)}, (scenario, h)
