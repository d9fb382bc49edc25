"""What the Farrapos rules engine works out per submitted file and per resolution
(the instruction budgets of ``bench/budgets.py``): each test counts calls, never
time, and fails on the engine before this work.

- the turn file's order lines are split with a compiled pattern and read their
  names through each table's index: no regular expression looked up, no name of
  the board folded again, no walk over every name for a name of nothing;
- the canonical JSON of a position and its events is written by one encoder per
  process (``json.dumps`` built one per call);
- a View lists the MU arriving this turn once (validating asked for it once per
  ``place`` line, then once more);
- a battle finds its attackers in their city, not in a map of every MU on the board;
- new MU with no ``place`` order find their default city without looking each
  city up in the board's list;
- a resolution's working copy copies each city's dict, not its list of MU;
- a legal move is checked against its own destination: the list of every city the
  MU could reach is made only for a refusal, and the walk along the path lines
  stops at the MU's MF instead of covering the board;
- the score and the VP count find both sides' held cities in one walk, with the
  board's colour groups as sets made once per board.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from pbem.rules.base import Orders
from tests.support.farrapos_walks import whole_reach


def _played(resolutions: int, seed: int = 7) -> Iterator[tuple[dict[str, Any], str, str, Orders]]:
    """A random-bot Farrapos game: each position, the side due, its file body and its orders."""
    rules = find_ruleset("farrapos")
    position = rules.setup(None, [])
    for n in range(resolutions):
        if not rules.due(position):
            return  # the game is over
        (side,) = rules.due(position)
        body = rules.bot_orders(position, side, "random", random.Random(seed * 1000 + n))
        orders, problems = rules.parse_orders(body)
        assert not problems
        yield position, side, body, orders
        position = rules.resolve(position, {side: orders}, DiceStream(hashlib.sha256(b"%d" % n).digest())).position


def test_reading_orders_compiles_no_pattern_and_folds_no_board_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each order line was split by ``re.split`` with the pattern as text (a look in
    ``re``'s cache per line; the envelope's turn number too) and each name was folded (Unicode normalisation and a
    ``re.sub``) at every lookup; now reading a game's files asks ``re`` for no pattern
    and folds no id written as the board and the counters spell it."""
    from pbem.rules import name_index
    from pbem.turnfiles.envelope import parse_turn_file, render_turn_file

    rules = find_ruleset("farrapos")
    bodies = [body for _, _, body, _ in _played(12)]
    rules.parse_orders("\n".join(bodies))  # the tables, built once per process
    looked_up, folded = [0], [0]
    real_compile, real_fold = re._compile, name_index.fold  # type: ignore[attr-defined]

    def counting_compile(*args: Any) -> Any:
        looked_up[0] += 1
        return real_compile(*args)

    def counting_fold(name: str) -> str:
        folded[0] += 1
        return real_fold(name)

    files = [render_turn_file("g1", "farrapos", "republic", 3, "0" * 64, body).encode() for body in bodies]
    monkeypatch.setattr(re, "_compile", counting_compile)
    monkeypatch.setattr(name_index, "fold", counting_fold)
    for body, file in zip(bodies, files):
        orders, problems = rules.parse_orders(body)
        assert len(orders) and not problems
        assert parse_turn_file(file).turn == 3
    assert looked_up[0] == 0
    assert folded[0] == 0


def test_a_name_of_nothing_is_not_looked_for_in_every_name() -> None:
    """``place inf-11 piratini`` first asks whether ``inf-11 piratini`` names a city:
    a name of nothing was compared with the start of every name of the table; now
    the table keeps the leading words of its names, and a name asked twice is
    answered from what the table remembers."""
    from pbem.rules.farrapos.orders import city_names

    table = city_names()

    class CountingNames(dict):  # type: ignore[type-arg]
        walks = 0

        def items(self) -> Any:
            CountingNames.walks += 1
            return super().items()

    table._names = CountingNames(table._names)  # type: ignore[attr-defined]
    try:
        for typed in ("inf-11 piratini", "cav-6 cangucu", "inf-11 piratini", "nowhere at all"):
            assert table.lookup(typed) is None
        assert table.find("rio") == ("rio-grande", "rio-pardo")
        assert table.lookup("Porto Alegre") == "porto-alegre"
    finally:
        table._names = dict(table._names)  # type: ignore[attr-defined]
    assert CountingNames.walks == 0


def test_canonical_json_builds_no_encoder_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """``json.dumps`` with options builds a ``JSONEncoder`` at every call (and keeps a
    table of every container written, for a circular check JSON data never needs);
    the canonical JSON is now written by one encoder, to the same text."""
    from pbem.turnfiles.canonical import canonical_json

    positions = [position for position, _, _, _ in _played(6)]
    built = [0]
    real_init = json.JSONEncoder.__init__

    def counting_init(self: json.JSONEncoder, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(json.JSONEncoder, "__init__", counting_init)
    texts = [canonical_json(p) for p in positions]
    assert built[0] == 0
    monkeypatch.undo()
    assert texts == [json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for p in positions]
    assert canonical_json({"é": [1.5, None, True, "ü"]}) == '{"é":[1.5,null,true,"ü"]}'


def _arrival_turn() -> tuple[dict[str, Any], str, Orders]:
    """A position where the side due has new MU to place, with orders placing each apart."""
    from pbem.rules.farrapos.position import View

    rules = find_ruleset("farrapos")
    for position, side, _, _ in _played(40):
        view = View(position)
        arrivals = view.arrivals_now(side)
        cities = view.owned_cities(side)
        if len(arrivals) >= 2 and cities:
            body = "".join(f"place {unit} {cities[0]}\n" for unit in arrivals)
            orders, problems = rules.parse_orders(body)
            assert not problems
            return position, side, orders
    raise AssertionError("no arrival turn in the game")


def test_a_view_lists_the_arriving_mu_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating a turn with ``place`` lines listed the MU arriving now once per
    line and once more for the turn; a View now lists them once."""
    from pbem.rules.farrapos.counters import CounterSheet

    rules = find_ruleset("farrapos")
    position, side, orders = _arrival_turn()
    asked = [0]
    real = CounterSheet.arriving

    def counting(self: CounterSheet, *args: Any) -> Any:
        asked[0] += 1
        return real(self, *args)

    monkeypatch.setattr(CounterSheet, "arriving", counting)
    assert rules.validate(position, side, orders) == []
    assert len(orders) >= 2
    assert asked[0] == 1


def test_new_mu_find_their_default_city_without_the_board_s_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """New MU with no ``place`` order set up in a default city, whose ties were
    broken by ``list.index`` in a list of the board's cities made for the purpose
    (once per city compared); the board order now breaks them by itself (``min``
    keeps the first of equals), and no city's MU are copied to be counted."""
    from pbem.rules.farrapos.position import View
    from pbem.rules.farrapos.turn import default_placement

    position, side, _ = _arrival_turn()
    copied = [0]
    real = View.units_in

    def counting(self: View, city: str) -> list[str]:
        copied[0] += 1
        return real(self, city)

    monkeypatch.setattr(View, "units_in", counting)
    view = View(position)
    chosen = default_placement(view, side)
    assert copied[0] == 0
    monkeypatch.undo()
    cities = view.owned_cities(side)
    order = list(view.board.cities)
    expected = min(
        cities,
        key=lambda c: (not view.occupied(c), -view.board.cities[c].vp, -len(view.units_in(c)), order.index(c)),
    )
    assert chosen == expected


def test_a_battle_does_not_map_every_mu(monkeypatch: pytest.MonkeyPatch) -> None:
    """A battle found its attackers through the View's map of every MU on the board
    to its city (a walk over every city); it now looks in the city they attack from."""
    from pbem.rules.farrapos.battle import fight
    from pbem.rules.farrapos.orders import Attack
    from pbem.rules.farrapos.position import View, working_copy

    attacks = [
        (position, side, line.order)
        for position, side, _, orders in _played(60, seed=3)
        for line in orders
        if isinstance(line.order, Attack)
    ]
    assert attacks
    mapped = [0]
    real = View.__dict__["location"]

    def counting(self: View) -> dict[str, str]:
        mapped[0] += 1
        return real.func(self)  # type: ignore[no-any-return]

    monkeypatch.setattr(View, "location", property(counting))
    for n, (position, side, attack) in enumerate(attacks):
        events = fight(working_copy(position), side, attack, DiceStream(b"%032d" % n))
        assert any(e["type"] == "battle" for e in events)
    assert mapped[0] == 0


def test_the_working_copy_shares_the_lists_of_mu() -> None:
    """A resolution copied every city's list of MU as well as its dict; the engine
    only ever replaces a list, so the copy shares them and the position is left as
    it was.  (It now shares each city's dict too, until a step changes the city:
    tests/test_costs_farrapos_engine.py.)"""
    from pbem.rules.farrapos.position import working_copy

    rules = find_ruleset("farrapos")
    for n, (position, side, _, orders) in enumerate(_played(16)):
        before = rules.copy_position(position)
        work = working_copy(position)
        assert all(work["cities"][c]["units"] is data["units"] for c, data in position["cities"].items())
        assert work["cities"] is not position["cities"]
        rules.resolve_validated(position, {side: orders}, DiceStream(b"%032d" % n))
        assert position == before


def test_a_legal_move_lists_no_destinations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking a move listed every city its MU could reach, then looked for the
    destination in the list; a legal move now asks about its destination only."""
    from pbem.rules.farrapos import legal
    from pbem.rules.farrapos.orders import Move

    rules = find_ruleset("farrapos")
    moves = [
        (position, side, orders)
        for position, side, _, orders in _played(60, seed=5)
        if any(isinstance(line.order, Move) for line in orders)
    ]
    assert moves
    listed = [0]
    real = legal.move_destinations

    def counting(*args: Any) -> list[str]:
        listed[0] += 1
        return real(*args)

    monkeypatch.setattr(legal, "move_destinations", counting)
    for position, side, orders in moves:
        assert rules.validate(position, side, orders) == []
    assert listed[0] == 0
    position, side, orders = moves[0]
    move = next(line.order for line in orders if isinstance(line.order, Move))
    wrong, _ = rules.parse_orders(f"move {' '.join(move.units)} from {move.origin} to {move.origin}\n")
    assert rules.validate(position, side, wrong) and listed[0] == 1  # a refusal names where they can go


def test_the_score_walks_the_board_once_for_both_sides(monkeypatch: pytest.MonkeyPatch) -> None:
    """The score and the end of a turn mapped who holds each city, then listed each
    side's held cities apart (a walk over the board per side, then a set of the
    list); both sides' are now found in one walk over the cities, with the same VP,
    and what the count reads of the board (colour groups as sets) is made once."""
    from pbem.rules.farrapos.position import View
    from pbem.rules.farrapos.victory_points import breakdown

    rules = find_ruleset("farrapos")
    positions = [position for position, _, _, _ in _played(16)]
    expected = [[str(breakdown(View(p), side)) for side in ("empire", "republic")] for p in positions]
    walks = [0]
    real = View.held_cities

    def counting(self: View, side: str) -> list[str]:
        walks[0] += 1
        return real(self, side)

    def mapping(self: View) -> dict[str, str | None]:
        walks[0] += 1
        return real_map.func(self)  # type: ignore[no-any-return]

    real_map = View.__dict__["_controllers"]
    monkeypatch.setattr(View, "held_cities", counting)
    monkeypatch.setattr(View, "_controllers", property(mapping))
    lines = [rules.score(p) for p in positions]
    assert walks[0] == 0
    assert all(len(score) == 2 for score in lines)
    from pbem.rules.farrapos.victory_points import breakdowns

    assert [[str(b) for b in breakdowns(View(p)).values()] for p in positions] == expected


def test_checking_a_move_walks_no_farther_than_its_mf(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move was checked by walking the path lines from its origin over the whole
    board (every city's distance); the walk now stops at the MU's MF, and finds
    the same cities at the same distances (checked against the whole walk)."""
    from pbem.rules.farrapos.board import Board
    from pbem.rules.farrapos.counters import SIDES
    from pbem.rules.farrapos.orders import Move
    from pbem.rules.farrapos.position import View

    rules = find_ruleset("farrapos")
    played = list(_played(40, seed=5))
    moves = [(p, side, orders) for p, side, _, orders in played if any(isinstance(x.order, Move) for x in orders)]
    assert moves
    walked = [0]
    real = Board.distances_from

    def counting(self: Board, *args: Any) -> dict[str, int]:
        walked[0] += 1
        return real(self, *args)

    monkeypatch.setattr(Board, "distances_from", counting)
    for position, side, orders in moves:
        assert rules.validate(position, side, orders) == []
    assert walked[0] == 0
    monkeypatch.undo()
    for position, _, _, _ in played[::8]:
        for side in SIDES:
            for origin in View(position).board.cities:
                whole = whole_reach(View(position), side, origin)
                for destination in whole:
                    for limit in range(4):
                        steps = whole[destination] if whole[destination] <= limit else 0
                        assert View(position).steps_to(side, origin, destination, limit) == steps


def test_the_side_due_is_read_without_a_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Ruleset.due`` (asked by the referee several times a resolution: the look,
    the resolution, the next turn's notices) built a View for the turn number;
    it now reads the position."""
    from pbem.rules.farrapos import position as farrapos_position

    rules = find_ruleset("farrapos")
    positions = [p for p, _, _, _ in _played(8)]
    expected = [(farrapos_position.View(p).due_side(),) for p in positions]
    built = [0]
    real = farrapos_position.View.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(farrapos_position.View, "__init__", counting)
    assert [rules.due(p) for p in positions] == expected
    assert built[0] == 0


def test_a_name_table_folds_no_id_when_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a name table folded every id and name (Unicode normalisation and a
    ``re.sub`` each), and its index of leading words walked every character of
    every name; an id written as one is now taken as it is, and only a name as the
    map prints it ("Porto Alegre") is folded."""
    from pbem.rules import name_index, names
    from pbem.rules.farrapos.board import load_board
    from pbem.rules.farrapos.counters import load_counters

    folded: list[str] = []
    real = name_index.fold

    def counting(name: str) -> str:
        folded.append(name)
        return real(name)

    monkeypatch.setattr(name_index, "fold", counting)
    units = names.NameTable((cid, []) for cid in load_counters().counters)
    assert folded == []
    cities = names.NameTable((cid, [city.name]) for cid, city in load_board().cities.items())
    assert folded and all(name != real(name) for name in folded)
    assert units.lookup("INF_1") == "inf-1" and cities.lookup("Porto Alegre") == "porto-alegre"
