"""What the Farrapos engine reads and makes in a turn (the ``process --all`` budget of
``bench/budgets.py``): each test counts reads, calls or the objects made, never
time, and fails on the engine before this work.

- new MU's default city is found by reading the board's cities from the highest VP
  down, stopping below the VP of the first held city met, where the side's cities
  were listed over the whole board and then compared; and it is looked for only
  when an arriving MU has no ``place`` order to follow;
- a turn makes one View, of the position it began with (and a battle its own):
  the new MU's set-up and the VP count read the cities as the turn left them;
- a VP count reads the board's scoring facts once for both sides, and makes no
  generator per side;
- the working copy of a turn shares each city's entry with the position it
  copies until a step changes the city (it copied all thirty), and the new
  position's text is written copying each shared entry's text after one identity
  test, with no comparison of the entries' members;
- a Farrapos order line's objects set their fields in place (``set_fields``'s call
  with keywords, before), an attack that fights on until won shares one
  ``Decision``, and ``rounds``/``stop-after`` are read without the enum's call;
- a battle's strength is summed in one loop (a generator step and a ``factors``
  call per unit before), and its table's column found by bisection of the column
  tops (one Python step per column before).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from pbem.rules.base import Orders
from pbem.rules.farrapos import position as positions
from pbem.rules.farrapos import turn, victory_points
from pbem.rules.farrapos.position import View
from tests.support.calls import counted_calls, python_calls

RULES = find_ruleset("farrapos")


def _played(resolutions: int, seed: int = 11) -> Iterator[tuple[dict[str, Any], str, Orders]]:
    """A random-bot Farrapos game: each position, the side due and its orders."""
    position = RULES.setup(None, [])
    for n in range(resolutions):
        if not RULES.due(position):
            return
        (side,) = RULES.due(position)
        orders, problems = RULES.parse_orders(RULES.bot_orders(position, side, "random", random.Random(seed + n)))
        assert not problems
        yield position, side, orders
        position = RULES.resolve(position, {side: orders}, DiceStream(hashlib.sha256(b"%d" % n).digest())).position


def _expected_default(view: View, side: str) -> str | None:
    """The rule as it reads: the held city of the highest VP, then the most MU, then
    board order; failing that any city of the side's possession."""
    order = list(view.board.cities)
    cities = [c for c in order if view.owner(c) == side]
    if not cities:
        return None
    return min(
        cities, key=lambda c: (not view.occupied(c), -view.board.cities[c].vp, -len(view.units_in(c)), order.index(c))
    )


class _CountingCities(dict):  # type: ignore[type-arg]
    """A position's cities, counting the entries read."""

    reads = 0

    def __getitem__(self, key: str) -> Any:
        _CountingCities.reads += 1
        return super().__getitem__(key)


def test_the_default_city_is_found_from_the_highest_vp_down() -> None:
    board = View(RULES.setup(None, [])).board
    asked = 0
    for position, _, _ in _played(60):
        for side in ("republic", "empire"):
            cities = _CountingCities(position["cities"])
            view = View({**position, "cities": cities})
            _CountingCities.reads = 0
            assert turn.default_placement(view, side) == _expected_default(View(position), side)
            assert _CountingCities.reads <= len(board.cities)
            asked += _CountingCities.reads
            # (the engine before read every city's entry to list the side's, then its
            # own again for each of them to compare: more than the board's cities)
    assert asked < 60 * 2 * len(board.cities) // 3, asked


def _arrival_turns() -> Iterator[tuple[dict[str, Any], str, list[str]]]:
    for position, side, _ in _played(60):
        arrivals = View(position).arrivals_now(side)
        if arrivals:
            yield position, side, arrivals


def test_new_mu_all_placed_look_for_no_default_city(monkeypatch: pytest.MonkeyPatch) -> None:
    found = 0
    for position, side, arrivals in _arrival_turns():
        city = View(position).owned_cities(side)[0]
        placed, _ = RULES.parse_orders(f"place {' '.join(arrivals)} {city}\n")
        one_left, _ = RULES.parse_orders(f"place {' '.join(arrivals[1:])} {city}\n" if arrivals[1:] else "")
        dice = DiceStream(b"\0" * 32)
        looked = counted_calls(monkeypatch, turn, "default_city")
        resolved = RULES.resolve(position, {side: placed}, dice)
        assert looked == []
        for event in resolved.events:
            if event["type"] == "arrival":
                assert event["city"] == city and not event["default"]
        RULES.resolve(position, {side: one_left}, DiceStream(b"\0" * 32))
        assert len(looked) == 1  # one MU with no place order: looked for once, for it
        monkeypatch.undo()
        found += 1
    assert found >= 2


def test_a_turn_makes_one_view_and_a_battle_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    made = [0]
    real = positions.View.__init__

    def counting(self: View, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        real(self, *args, **kwargs)

    turns = 0
    for position, side, orders in _played(60):
        attacks = sum(1 for line in orders if type(line.order).__name__ == "Attack")
        militia = sum(1 for line in orders if type(line.order).__name__ == "DeployMilitia")
        monkeypatch.setattr(positions.View, "__init__", counting)
        made[0] = 0
        RULES.resolve_validated(position, {side: orders}, DiceStream(hashlib.sha256(b"v").digest()))
        monkeypatch.undo()
        # the start's View, one per battle and one per Militia order (as before); the
        # engine before made one more for the new MU's set-up and one for the VP count
        assert made[0] == 1 + attacks + militia, (made[0], orders)
        turns += 1
    assert turns >= 20


def test_a_vp_count_reads_the_scoring_once_and_makes_no_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    views = [View(position) for position, _, _ in _played(30)]
    expected = [{side: victory_points.breakdown(view, side) for side in ("republic", "empire")} for view in views]
    scorings = counted_calls(monkeypatch, victory_points, "_scoring")
    for view, want in zip(views, expected, strict=True):
        before = len(scorings)
        counted, called = python_calls(lambda view=view: victory_points.breakdowns(view, ("republic", "empire")))
        assert counted == want
        assert len(scorings) - before == 1  # once for both sides (once per side before)
        assert "<genexpr>" not in called, called  # two per side before: the colours' names and bonus
    assert sum(b.total for want in expected for b in want.values()) > 0


def test_a_turn_copies_only_the_cities_it_changes() -> None:
    from pbem.rules.farrapos.position import working_copy

    copied = changed = 0
    for n, (position, side, orders) in enumerate(_played(60)):
        before = RULES.copy_position(position)
        work = working_copy(position)
        assert all(work["cities"][c] is entry for c, entry in position["cities"].items())  # every city before
        after = RULES.resolve_validated(position, {side: orders}, DiceStream(hashlib.sha256(b"c%d" % n).digest()))
        assert position == before  # the position handed over is left as it was
        new, old = after.position["cities"], position["cities"]
        own = {c for c in new if new[c] is not old[c]}
        assert own >= {c for c in new if new[c] != old[c]}  # a changed city is the copy's own
        copied += len(own)
        changed += sum(1 for c in new if new[c] != old[c])
    assert changed > 0 and copied <= 2 * changed  # a few cities a turn, not all thirty


class _CountingEntry(dict):  # type: ignore[type-arg]
    """A city's entry, counting the comparisons made with it."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _CountingEntry.compared += 1
        return super().__eq__(other)

    def __ne__(self, other: object) -> bool:
        _CountingEntry.compared += 1
        return super().__ne__(other)

    __hash__ = None  # type: ignore[assignment]


def test_the_new_position_text_compares_no_city() -> None:
    from pbem.turnfiles.canonical import canonical_json, canonical_json_after

    for n, (position, side, orders) in enumerate(_played(30)):
        text = canonical_json(position)
        before = json.loads(text)  # as the referee reads it: parsed from the stored text (its cities first)
        before["cities"] = {c: _CountingEntry(e) for c, e in before["cities"].items()}
        after = RULES.resolve_validated(before, {side: orders}, DiceStream(hashlib.sha256(b"t%d" % n).digest()))
        _CountingEntry.compared = 0
        written = canonical_json_after(after.position, before, text)
        assert _CountingEntry.compared == 0  # one identity test an entry (a comparison of its members before)
        assert written == canonical_json(after.position)


def test_the_new_position_text_keeps_an_entry_whose_name_begins_with_a_colon() -> None:
    """An entry's name is cut at the first '":' after its opening quote: a name such as
    ":a" (whose text begins '":') was cut at its very start, the entry written short."""
    from pbem.turnfiles.canonical import canonical_json, canonical_json_after

    before = {"cities": {":a": {"owner": "x"}, "b:": {"owner": "y"}, "c": {"owner": "z"}}, "turn": 1}
    text = canonical_json(before)
    before = json.loads(text)
    for changed in (":a", "b:", "c"):
        new = {"cities": dict(before["cities"]), "turn": 2}
        new["cities"][changed] = {"owner": "w"}
        assert canonical_json_after(new, before, text) == canonical_json(new), changed


def test_an_order_sets_its_fields_in_place_and_calls_no_enum() -> None:
    from pbem.rules.farrapos import orders

    lines = [
        "attack porto-alegre from triunfo with inf-1 inf-2 rounds 2 losses inf-2",
        "attack rio-grande from pelotas with inf-4 stop-after 1",
        "attack rio-grande from pelotas with inf-4",
        "invade cangucu from pelotas with art-2 inf-3",
        "move cav-3 inf-6 from piratini to encruzilhada",
        "carry inf-3 from pelotas to jaguarao",
        "place inf-11 piratini",
        "militia pelotas",
        "defend porto-alegre losses inf-13 militia",
    ]
    for line in lines:
        order, called = python_calls(lambda line=line: orders.parse_order(line))
        assert orders.parse_order(str(order)) == order
        # each object's fields set in place: no call to set them (``set_fields``), no ``Persistence(word)``
        assert "set_fields" not in called and "__call__" not in called and "__new__" not in called, called
        assert called.count("__init__") == 1 + ("rounds" in line or "stop-after" in line), called
    assert orders.parse_order(lines[2]).decision == orders.Decision()  # until won, as the default


class _CountingTops:
    """The battle table's column tops, counting each one read."""

    def __init__(self, tops: tuple[int, ...]) -> None:
        self.tops, self.reads = tops, 0

    def __len__(self) -> int:
        return len(self.tops)

    def __getitem__(self, i: int) -> int:
        self.reads += 1
        return self.tops[i]

    def __iter__(self) -> Iterator[int]:
        for top in self.tops:
            self.reads += 1
            yield top


def test_a_battle_s_strengths_and_columns_are_read_without_a_step_per_unit_or_column(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pbem.rules.farrapos import tables

    table = tables.shipped_battle_table()
    expected = {(s, die): table.index(s, die) for s in range(0, 40) for die in range(1, 7)}
    tops = _CountingTops(tables.COLUMN_TOPS)
    monkeypatch.setattr(tables, "COLUMN_TOPS", tops)
    for (strength, die), index in expected.items():
        tops.reads = 0
        assert table.index(strength, die) == index
        assert tops.reads <= 4, (strength, tops.reads)  # by bisection: up to all thirteen, one at a time, before
    monkeypatch.undo()
    for position, _, _ in _played(30):
        view = View(position)
        for units in (list(view.on_board), sorted(view.reduced)):
            for attack in (True, False):
                total, called = python_calls(lambda v=view, u=units, a=attack: v.strength(u, a))
                faces = [view.factors(u) for u in units]
                assert total == sum(f.af if attack else f.df for f in faces)
                assert called == ["<lambda>", "strength"], called  # a generator step and ``factors`` per unit before
