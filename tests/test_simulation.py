"""Bot-vs-bot games of every registered ruleset and every scenario through one loop,
played through the ruleset interface alone (``pbem.rules.registry``) with a dice
stream, as the referee plays them.  After every resolution: the position survives
a JSON round trip unchanged, resolving did not change the position it was given,
and every bot's orders parse and validate; each game ends within a bound.

The default run plays one seed per ruleset, scenario and pairing of bots (a few
seconds); ``-m slow`` plays ten.  The rule-specific invariants of each game (VP
recounts, stacking, the result by the victory conditions) stay in its own tests.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random

import pytest

from pbem.dice import DiceStream
from pbem.rules.base import Position, Ruleset
from pbem.rules.registry import find_ruleset, ruleset_ids

MAX_RESOLUTIONS = 400  # Farrapos has 44 turns, a Furor Barbarus battle at most 2 per game turn


def games() -> list[tuple[str, str]]:
    """(ruleset, scenario) for every registered ruleset and each of its scenarios."""
    return [(rid, s.id) for rid in ruleset_ids() for s in find_ruleset(rid).scenarios()]


def pairings(rules: Ruleset, scenario: str) -> list[dict[str, str]]:
    """Every side playing random, then each side in turn playing greedy (where the
    ruleset has a greedy bot) against random."""
    sides = rules.sides(scenario)
    out = [dict.fromkeys(sides, "random")]
    if "greedy" in rules.bots():
        out += [{s: ("greedy" if s == g else "random") for s in sides} for g in sides]
    return out


def play(rules_id: str, scenario: str, bots: dict[str, str], seed: int) -> int:
    """One game to its end; the number of resolutions it took."""
    rules = find_ruleset(rules_id)
    position: Position = rules.setup(scenario, [])
    rng = random.Random(seed)
    for k in itertools.count(1):
        due = rules.due(position)
        if not due:
            assert rules.outcome(position) is not None, f"{rules_id}/{scenario}: nobody is due but no outcome"
            return k - 1
        assert k <= MAX_RESOLUTIONS, f"{rules_id}/{scenario}: no end after {MAX_RESOLUTIONS} resolutions"
        orders = {}
        for side in due:
            text = rules.bot_orders(position, side, bots[side], rng)
            parsed, problems = rules.parse_orders(text)
            assert not problems, (rules_id, scenario, side, problems, text)
            refused = rules.validate(position, side, parsed)
            assert not refused, (rules_id, scenario, side, refused, text)
            orders[side] = parsed
        before = json.dumps(position, sort_keys=True)
        dice = DiceStream(hashlib.sha256(f"simulation-{rules_id}-{scenario}-{seed}-{k}".encode()).digest())
        previous, position = position, rules.resolve(position, orders, dice).position
        assert json.dumps(previous, sort_keys=True) == before, f"{rules_id}/{scenario}: resolve changed its input"
        assert json.loads(json.dumps(position)) == position, f"{rules_id}/{scenario}: no JSON round trip at {k}"
    raise AssertionError("unreachable")


CASES = [
    pytest.param(rid, scenario, bots, id=f"{rid}-{scenario}-{'-'.join(bots.values())}")
    for rid, scenario in games()
    for bots in pairings(find_ruleset(rid), scenario)
]


@pytest.mark.parametrize("rules_id,scenario,bots", CASES)
def test_bot_games_of_every_ruleset_and_scenario_end(rules_id: str, scenario: str, bots: dict[str, str]) -> None:
    assert play(rules_id, scenario, bots, seed=0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 11))
@pytest.mark.parametrize("rules_id,scenario,bots", CASES)
def test_bot_games_of_every_ruleset_and_scenario_end_many_seeds(
    rules_id: str, scenario: str, bots: dict[str, str], seed: int
) -> None:
    assert play(rules_id, scenario, bots, seed) > 0


def test_every_registered_ruleset_is_played() -> None:
    assert {rid for rid, _ in games()} == set(ruleset_ids()) and len(games()) >= len(ruleset_ids())
