"""Rulebook, "Turn Sequence": 11 Phases (1835-1845) of 4 turns; the Republic
ALWAYS plays first; turns alternate Republic, Empire, Republic, Empire; new units
set up and VP are computed at the end of each turn; in 1836 the Republic includes 4
MU in any city of his possession; one turn file per player turn."""

import pytest

from pbem.rules import find_ruleset
from pbem.rules.base import NO_ORDERS
from pbem.rules.dice import ScriptedDice
from pbem.rules.farrapos.counters import load_counters
from pbem.rules.farrapos.position import View
from pbem.rules.farrapos.sequence import label, next_turn, turn_side

RULES = find_ruleset("farrapos")


def play_out_with_no_orders(position):
    """Every side sends nothing (forced NMR): the game still runs to its end."""
    seen = []
    while RULES.due(position):
        (side,) = RULES.due(position)
        seen.append((position["phase"], position["turn"], side))
        position = RULES.resolve(position, {side: NO_ORDERS}, ScriptedDice([])).position
    return seen, position


def test_turn_sequence_11_phases_of_4_turns_republic_first_alternating():
    seen, final = play_out_with_no_orders(RULES.setup(None, []))
    assert len(seen) == 44
    assert [p for p, _, _ in seen[::4]] == list(range(1835, 1846))
    for _phase, turn, side in seen:
        assert side == ("republic" if turn in (1, 3) else "empire")
    assert RULES.due(final) == ()
    assert RULES.turn_label(final) == "1845, turn 4 (Empire)"


def test_turn_sequence_one_side_due_per_resolution():
    position = RULES.setup(None, [])
    for _ in range(6):
        due = RULES.due(position)
        assert len(due) == 1
        position = RULES.resolve(position, {due[0]: NO_ORDERS}, ScriptedDice([])).position


def test_turn_sequence_labels_and_advance():
    assert label(1837, 3) == "1837, turn 3 (Republic)"
    assert next_turn(1836, 3) == (1836, 4)
    assert next_turn(1836, 4) == (1837, 1)
    assert turn_side(4) == "empire"
    with pytest.raises(ValueError):
        turn_side(5)


def test_turn_sequence_1836_republic_includes_4_mu_in_cities_of_his_possession():
    position = RULES.setup(None, [])
    for _ in range(4):
        (side,) = RULES.due(position)
        position = RULES.resolve(position, {side: NO_ORDERS}, ScriptedDice([])).position
    assert (position["phase"], position["turn"]) == (1836, 1)
    before = set(View(position).location)
    resolution = RULES.resolve(position, {"republic": NO_ORDERS}, ScriptedDice([]))
    arrived = set(View(resolution.position).location) - before
    assert len(arrived) == 4
    assert {load_counters().counters[u].arrival for u in arrived} == {1836}
    view = View(resolution.position)
    assert all(view.owner(view.location[u]) == "republic" for u in arrived)
    assert [e["unit"] for e in resolution.events if e["type"] == "arrival"] == sorted(
        arrived, key=list(load_counters().counters).index
    )


def test_turn_sequence_arrivals_happen_in_the_phase_on_the_counter():
    position = RULES.setup(None, [])
    sheet = load_counters()
    while RULES.due(position):
        (side,) = RULES.due(position)
        phase, turn = position["phase"], position["turn"]
        position = RULES.resolve(position, {side: NO_ORDERS}, ScriptedDice([])).position
        on_board = set(View(position).location)
        for counter in sheet.counters.values():
            arrived_by_now = (
                counter.arrival == 1835
                or counter.arrival < phase
                or (counter.arrival == phase and turn >= (1 if counter.side == "republic" else 2))
            )
            assert (counter.id in on_board) == arrived_by_now, (counter.id, phase, turn)


def test_turn_sequence_new_units_placed_by_order_in_the_turn_file():
    position = RULES.position_from_case(
        {"phase": 1838, "turn": 2, "cities": {"lages": {"units": ["inf-20"]}, "rio-grande": {"units": ["inf-16"]}}},
        None,
        [],
    )
    orders, problems = RULES.parse_orders("place inf-26 lages\nplace inf-27 rio-grande\n")
    assert not problems and not RULES.validate(position, "empire", orders)
    after = RULES.resolve(position, {"empire": orders}, ScriptedDice([])).position
    assert "inf-26" in after["cities"]["lages"]["units"] and "inf-27" in after["cities"]["rio-grande"]["units"]


def test_turn_sequence_resolve_does_not_mutate_the_position():
    import copy

    position = RULES.setup(None, [])
    kept = copy.deepcopy(position)
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-1 inf-2 art-1 cav-1 rounds 1")
    RULES.resolve(position, {"republic": orders}, ScriptedDice([(6, 6, None), (1, 6, None)]))
    assert position == kept


def test_turn_sequence_illegal_orders_are_refused_by_resolve_too():
    from pbem.rules.base import IllegalOrderError

    position = RULES.setup(None, [])
    orders, _ = RULES.parse_orders("attack lages from triunfo with inf-1")
    with pytest.raises(IllegalOrderError, match="lages is not linked to triunfo"):
        RULES.resolve(position, {"republic": orders}, ScriptedDice([]))
