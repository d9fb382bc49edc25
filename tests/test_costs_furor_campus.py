"""Costs of a Furor Barbarus move's check and play that must not come back (each
test counts, never times); a Campus Mauriacus file moves a dozen units four hexes
or more, checked at submit and again as they are played, each in a fresh process:

- a plain step's cost is read from the map's few facts (``StepFacts``: the hexes of
  another terrain than the map's default, its road hexes, its hexsides), worked out
  once per map, not worked out per hex and next hex the first time a process met
  them (some forty a resolution, each with five calls);
- a move of the dry walk (``validate``) is checked and placed by ``walk_orders``
  itself: no ``hex_of`` for the path's first hex, no ``_dry_move``, no named tuple
  ``__new__`` for a legal verdict, and ``place`` calls ``touched`` only when the move
  may change a cached zone (the mover's own side's enemies' zone it leaves as it is);
- a plain step of a check looks up its hex's neighbours and its cost (two
  ``dict.get``), not also its hex's hexsides and the next hex's units (four);
- a move line naming a unit named before is read by the parse's own loop, without
  the parse callable, ``Order.parse``, ``_parse_move`` and ``MoveOrder.__new__``;
- a battlefield's first move check works out the enemy zone and the hex index in one
  pass over the units (``zone_and_index``), not one pass each;
- before each combat, Campus Mauriacus notes the Romans' Alans at full strength
  from the Alans' entries (their ids found once per counter sheet), not with a
  generator over every unit of the battle.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from typing import Any

import pytest

from pbem.rules import find_ruleset
from pbem.rules.base import parse_order_lines
from pbem.rules.furor_barbarus import movement, zones_of_control
from pbem.rules.furor_barbarus.orders import MoveOrder, Order
from pbem.rules.furor_barbarus.sequence import normalised_path
from pbem.rules.furor_barbarus.special_rules import campus_mauriacus
from tests.support.calls import counted_calls, python_calls
from tests.support.furor_turns import bot_turns

SCENARIOS = ("vouille", "soissons", "tolbiac", "campus-mauriacus")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_step_s_cost_from_the_map_s_facts_is_the_terrain_effects_chart_s(scenario: str) -> None:
    """Every step between adjacent hexes of the map, off road and (from a road hex)
    on road: the cost read from the facts is ``_cost_half``'s, the one rule."""
    rules = find_ruleset("furor-barbarus")
    field = rules.field(rules.setup(scenario, []))
    gm = field.game_map
    neighbours, enter, default, road, crossed = movement.step_facts(gm)
    assert default
    compared = 0
    for a in gm.all_hexes():
        assert neighbours[a] == frozenset(gm.neighbours(a))
        for b in gm.neighbours(a):
            for on_road in (False, True) if a in road else (False,):
                found = movement.step_cost_half(field, a, b, on_road)
                assert found == movement._cost_half(gm, a, b, on_road), (a, b, on_road)
                compared += 1
    assert compared > 6 * 100


def test_a_fresh_process_works_out_no_plain_step_s_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh process (the map's step costs not yet worked out) checking the moves
    of a Campus Mauriacus game worked out the cost of each step it met for the first
    time (``step_cost_half``, then ``_cost_half``: some forty a resolution); it now
    reads every step's cost from the map's facts and works out none."""
    rules = find_ruleset("furor-barbarus")
    turns = bot_turns("campus-mauriacus", 6)
    gm = rules.field(turns[0][0]).game_map
    gm.__dict__.pop("_step_facts", None)  # as a fresh process finds it
    movement.step_facts(gm)
    worked_out = counted_calls(monkeypatch, movement, "_cost_half")
    plain = 0
    for position, side, orders in turns:
        field = rules.field(position)
        for ol in orders:
            if isinstance(ol.order, MoveOrder):
                check = movement.check_move(field, ol.order.unit, normalised_path(field, ol.order), side)
                plain += check.legal and not check.zoc_tests and not check.overruns
                if check.legal:
                    movement.apply_move(field, ol.order.unit, normalised_path(field, ol.order), check)
    assert plain > 20
    assert len(worked_out) == 0, [args[1:] for args in worked_out]


def test_the_alans_at_full_strength_are_read_from_the_alans_entries() -> None:
    """``before_combat`` went through the 44 units of the battle in a generator at
    every combat (resumed once per Alan it found); it now reads the entries of the
    three Alans, whose ids are found once per counter sheet: the same list."""
    rules = find_ruleset("furor-barbarus")
    position = bot_turns("campus-mauriacus", 1)[0][0]
    field = rules.field(position)
    units, counters = field.units, field.scenario.counters
    units[next(u for u in units if counters[u].name == campus_mauriacus.ALAN_NAME)]["reduced"] = True
    expected = sorted(
        u
        for u, s in units.items()
        if s["status"] == "active"
        and s["hex"]
        and s["side"] == "romans"
        and counters[u].name == "Alans"
        and not s["reduced"]
    )
    assert 1 <= len(expected) < len([u for u in counters if counters[u].name == "Alans"])
    field.special.before_combat(field, None)  # type: ignore[arg-type]  # the combat is not read
    _, calls = python_calls(lambda: field.special.before_combat(field, None))  # type: ignore[arg-type]
    assert field.memo[campus_mauriacus.FULL_ALANS] == expected
    assert calls == ["<lambda>", "before_combat", "alan_units"], calls


def test_a_checked_file_s_moves_are_placed_in_few_calls() -> None:
    """Checking a Campus Mauriacus file (``validate``: the dry walk) called, for each
    move, ``hex_of`` for the path's first hex, the verdict's named tuple ``__new__``,
    ``_dry_move`` and ``touched`` from ``place``; none of them now, once per move."""
    rules = find_ruleset("furor-barbarus")
    for position, side, orders in bot_turns("campus-mauriacus", 4):
        moves = sum(isinstance(ol.order, MoveOrder) for ol in orders)
        problems, called = python_calls(functools.partial(rules.validate, position, side, orders))
        calls = Counter(called)
        assert not problems and moves > 10 and calls["check_move"] == calls["place"] == moves, calls
        assert calls["touched"] == 0 and calls["_dry_move"] == 0, calls
        assert calls["hex_of"] < moves and calls["<lambda>"] < moves / 2, calls  # (hex_of: the attacks)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_first_check_passes_over_the_units_once(scenario: str) -> None:
    """The first move a check looks at needs the enemy zone and the hex index: two
    passes over the units (``_zone_of_enemies``, ``Battlefield._index``); one now,
    which gives the zone and the index the two passes give."""
    rules = find_ruleset("furor-barbarus")
    for position, side, orders in bot_turns(scenario, 3):
        problems, called = python_calls(functools.partial(rules.validate, position, side, orders))
        calls = Counter(called)
        assert not problems and calls["check_move"] > 3, calls
        assert calls["zone_and_index"] == 1 and calls["_index"] == 0 and calls["_zone_of_enemies"] == 0, calls
        one, two = rules.field(position), rules.field(position)
        for s in {side, *(str(e["side"]) for e in position["units"].values())}:
            zone, where = zones_of_control.zone_and_index(one, s)
            assert zone == zones_of_control._zone_of_enemies(two, s) and where == two.occupied(), s
            one._where, one._cache = None, {}


def test_a_plain_step_is_read_with_two_look_ups() -> None:
    """Each plain step of a check called ``dict.get`` four times (the hex's
    neighbours, its hexsides, the next hex's cost and its units); now twice (the
    neighbours and the cost: the few hexes with a hexside, and the hexes holding a
    unit, are found with ``in``), with three a check (the unit's entry, the cached
    zone, the map's facts)."""
    rules = find_ruleset("furor-barbarus")
    gets = steps = checks = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal gets
        gets += event == "c_call" and arg.__name__ == "get"

    for position, side, orders in bot_turns("campus-mauriacus", 4):
        field = rules.field(position)
        movement.enemy_zoc(field, side), field.occupied()  # looked up once a check, before its first step
        for ol in orders:
            if isinstance(ol.order, MoveOrder):
                path = normalised_path(field, ol.order)
                before = gets
                sys.setprofile(profile)
                try:
                    check = movement.check_move(field, ol.order.unit, path, side)
                finally:
                    sys.setprofile(None)
                if check.legal and not check.zoc_tests and not check.overruns:
                    steps += len(path)
                    checks += 1
                else:
                    gets = before
                if check.legal:
                    movement.apply_move(field, ol.order.unit, path, check)
    assert steps > 100 and gets <= 2 * steps + 3 * checks, (gets, steps, checks)


def test_a_move_line_is_read_in_the_parse_s_loop() -> None:
    """A move line went through the parse callable, ``Order.parse``, ``_parse_move``
    and the named tuple's ``__new__`` (four Python calls a line, most lines of a
    file, at submit and again at resolve); a line whose one-word unit was named
    before is read in the parse's loop, to the same order: none of the four."""
    rules = find_ruleset("furor-barbarus")
    text = "\n".join(ol.text for _, _, orders in bot_turns("campus-mauriacus", 3) for ol in orders)
    first = rules.parse_orders(text)  # names each unit once
    again, called = python_calls(functools.partial(rules.parse_orders, text))
    moves = sum(isinstance(ol.order, MoveOrder) for ol in again[0])
    assert again == first and moves > 30 and not again[1]
    calls = Counter(called)
    assert calls["_parse_move"] == 0 and calls["<lambda>"] == 0 and calls["parse"] == len(again[0]) - moves, calls


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_parse_reads_every_line_as_order_parse_does(scenario: str) -> None:
    """The parse's own loop gives the orders and problems ``parse_order_lines`` gives
    with ``Order.parse``: bot files, and lines that look like moves but are not
    (a hex of three digits or of other characters, digits of another script, a
    unit named by several words, a name not known), before and after their units
    are named once."""
    rules = find_ruleset("furor-barbarus")
    names = rules.unit_names
    texts = ["\n".join(ol.text for ol in orders) for _, _, orders in bot_turns(scenario, 4)]
    unit = next(iter(rules.field(rules.setup(scenario, [])).units))
    texts.append(
        "\r\n".join(
            [
                f"move {unit} 0101 0102 # a comment",
                f"MOVE\t{unit.upper()}  0101",
                f"move {unit} 0101 010",
                f"move {unit} 0101 01a2",
                f"move {unit} 0101 \u0661\u0662\u0663\u0664",
                f"move {unit} 01010 0101",
                f"move {unit}",
                "move nobody-at-all 0101",
                "move light infantry 0101 0102",
                f"move {unit} 0101 0102 0103 0104 0105 0106 0107 0108 0109",
                "  # nothing",
                "attack 0101 with " + unit,
            ]
        )
    )
    for text in texts:
        for _ in range(2):
            expected = parse_order_lines(text, lambda line: Order.parse(line, names))
            assert rules.parse_orders(text) == expected, text
