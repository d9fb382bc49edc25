"""Rulebook, "Components" and "Counter Identification": 32 Infantry, 8 Cavalry,
8 Artillery MU, 8 Militia (4 per side); each MU counter has a side, a type, two
steps (full, reduced), MF, AF, DF, a setup city and an arrival phase."""

from collections import Counter

import pytest

from pbem.rules.farrapos.board import load_board
from pbem.rules.farrapos.counters import FIRST_PHASE, LAST_PHASE, SIDES, load_counters, sheet_from_data


def test_components_32_infantry_8_cavalry_8_artillery():
    kinds = Counter(c.type.id for c in load_counters().counters.values())
    assert kinds == {"inf": 32, "cav": 8, "art": 8}


def test_components_8_militia_counters_4_per_side():
    assert load_counters().militia_per_side * len(SIDES) == 8


def test_counter_identification_every_mu_has_side_type_steps_factors_setup_and_arrival():
    board = load_board()
    for counter in load_counters().counters.values():
        assert counter.side in SIDES
        assert counter.id.startswith(counter.type.id + "-")
        full, reduced = counter.factors(False), counter.factors(True)
        assert full.mf >= 1 and full.af >= 1 and full.df >= 1
        # the reduced face is weaker: it never gains a factor and loses some
        assert reduced.af <= full.af and reduced.df <= full.df and reduced.mf <= full.mf
        assert (reduced.af, reduced.df) != (full.af, full.df)
        assert FIRST_PHASE <= counter.arrival <= LAST_PHASE
        if counter.arrival == FIRST_PHASE:
            assert counter.setup in board.cities
        else:
            assert counter.setup == ""  # "in any city of his possession"


def test_counter_identification_cavalry_moves_farther():
    types = load_counters().types
    assert types["cav"].full.mf > types["inf"].full.mf >= types["art"].full.mf


def test_battles_worked_example_factors_exist_on_the_counters():
    # Republic (Attack): 2+2+5+4 = AF 13 (two Infantry, an Artillery, a Cavalry);
    # Empire (Defense): 3+3 (two Infantry).
    types = load_counters().types
    assert sorted([types["inf"].full.af] * 2 + [types["art"].full.af, types["cav"].full.af]) == [2, 2, 4, 5]
    assert types["inf"].full.df == 3


def test_counter_sheet_rejects_a_counter_with_an_unknown_setup_city():
    data = {
        "types": {
            "inf": {"name": "Infantry", "full": {"mf": 2, "af": 2, "df": 3}, "reduced": {"mf": 2, "af": 1, "df": 2}}
        },
        "militia": {"per_side": 4, "df": 1},
        "counter": [{"id": "inf-1", "side": "republic", "type": "inf", "setup": "atlantis", "arrival": 1835}],
    }
    with pytest.raises(ValueError, match="atlantis"):
        sheet_from_data(data, {"triunfo"})
