"""Legal orders and bots, and random games on the test scenario: no unit in two
hexes, no illegal stack, every loss accounted for in the army morale totals."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from pbem.dice import DiceStream
from pbem.rules.furor_barbarus.battlefield import ACTIVE, morale_points
from pbem.rules.furor_barbarus.bots import legal_attacks, legal_moves
from pbem.rules.furor_barbarus.combat import declare
from pbem.rules.furor_barbarus.movement import check_move
from pbem.rules.furor_barbarus.stacking import stack_is_legal
from pbem.turnfiles.canonical import position_hash
from tests.support.furor_barbarus_test_map import RULES, SCENARIO, battlefield


def test_legal_moves_and_attacks_pass_the_checker() -> None:
    field = battlefield(
        {
            "provence": "0708",
            "neustrie": "0611",
            "austrasie": "0807",
            "bourgogne": "0707",
            "bowmen": "0607",
            "aquitaine": "0711",
        }
    )
    moves = legal_moves(field, "lothaire")
    assert moves and all(check_move(field, m.unit, m.path, "lothaire").legal for m in moves)
    attacks = legal_attacks(field, "lothaire")
    assert attacks and all(
        not declare(field, "lothaire", a.target, list(a.all_attackers), a.charge)[0] for a in attacks
    )
    assert {a.target for a in attacks} == {"0708", "0611"}


def check_invariants(pos: dict) -> None:  # type: ignore[type-arg]
    field = RULES.field(pos)
    seen: dict[str, str] = {}
    for uid, u in pos["units"].items():
        assert (u["hex"] is None) == (u["status"] != ACTIVE), uid
        if u["hex"]:
            assert uid not in seen
            seen[uid] = u["hex"]
    for h in set(seen.values()):
        assert stack_is_legal(field, h), (h, field.units_in(h))
    for side in field.scenario.sides:
        lost = sum(morale_points(field.counter(u)) for u in pos["eliminated"] if field.counter(u).side == side)
        assert pos["losses"][side] == lost, side


def play(seed: int) -> dict:  # type: ignore[type-arg]
    rng = random.Random(seed)
    pos = RULES.setup(SCENARIO, ["zoc-to-zoc"] if seed % 5 == 0 else [])
    k = 0
    while RULES.due(pos):
        k += 1
        orders = {}
        for side in RULES.due(pos):
            text = RULES.bot_orders(pos, side, ("random", "greedy")[(seed + k) % 2], rng)
            parsed, problems = RULES.parse_orders(text)
            assert not problems and not RULES.validate(pos, side, parsed), (text, RULES.validate(pos, side, parsed))
            orders[side] = parsed
        before = position_hash(pos)
        res = RULES.resolve(pos, orders, DiceStream(hashlib.sha256(f"test-{seed}-{k}".encode()).digest()))
        assert position_hash(pos) == before  # resolve never mutates its input
        json.dumps(res.events)  # events are JSON too
        assert all(isinstance(e["type"], str) and isinstance(e["text"], str) for e in res.events)
        pos = res.position
        check_invariants(pos)
        assert k < 40
    assert RULES.outcome(pos) is not None
    return pos


# The shipped scenarios' bot games are in tests/test_simulation.py; here the test map's
# own scenario, with its stacking and event checks: 12 seeds by default, 200 with -m slow.
@pytest.mark.parametrize("seed", range(12))
def test_random_games_on_the_test_scenario(seed: int) -> None:
    play(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12, 200))
def test_random_games_on_the_test_scenario_many_seeds(seed: int) -> None:
    play(seed)


def test_random_games_end_in_more_than_one_way() -> None:
    assert len({play(seed)["outcome"]["kind"] for seed in range(12)}) > 1


def test_same_seed_same_game() -> None:
    assert position_hash(play(7)) == position_hash(play(7))


def test_bots_names_and_unknown_bot() -> None:
    assert RULES.bots() == ("random", "greedy")
    with pytest.raises(ValueError, match="'clever'"):
        RULES.bot_orders(RULES.setup(SCENARIO, []), "charles", "clever", random.Random(1))


def test_order_template_is_all_comments() -> None:
    pos = RULES.setup(SCENARIO, [])
    for side in ("charles", "lothaire"):
        text = RULES.order_template(pos, side)
        orders, problems = RULES.parse_orders(text)
        assert not orders and not problems and "place UNIT HEX" in text
