"""Positions to draw: each shipped game (every Furor Barbarus scenario) at the start
and late in a bot-vs-bot game, with the events of its last resolution (pure rules,
no database)."""

from __future__ import annotations

import copy
import functools
import hashlib
import random
from dataclasses import dataclass

from pbem.dice import DiceStream
from pbem.rules import find_ruleset

SHIPPED: tuple[tuple[str, str | None], ...] = (
    ("farrapos", None),
    ("furor-barbarus", "campus-mauriacus"),
    ("furor-barbarus", "soissons"),
    ("furor-barbarus", "tolbiac"),
    ("furor-barbarus", "vouille"),
)


@dataclass(frozen=True)
class Drawn:
    name: str
    rules_id: str
    scenario: str | None
    position: dict
    events: list
    k: int


def start(rules_id: str, scenario: str | None) -> Drawn:
    """The game as it starts: Farrapos as set up; a Furor Barbarus battle once both
    armies are deployed (the set-up resolutions)."""
    ruleset = find_ruleset(rules_id)
    position = ruleset.setup(scenario, ())
    if rules_id == "farrapos":
        return Drawn(f"{scenario or rules_id}-start", rules_id, scenario, position, [], 0)
    events: list = []
    for k in range(1, 4):  # the set-up may take a resolution per side
        if position.get("phase") != "setup":
            break
        orders = {
            s: ruleset.parse_orders(ruleset.bot_orders(position, s, "random", random.Random(k)))[0]
            for s in ruleset.due(position)
        }
        result = ruleset.resolve(position, orders, DiceStream(hashlib.sha256(f"map-start-{k}".encode()).digest()))
        position, events = result.position, list(result.events)
    assert position.get("phase") != "setup", "the set-up placed both armies"
    return Drawn(f"{scenario or rules_id}-start", rules_id, scenario, position, events, k)


def late(rules_id: str, scenario: str | None, seed: int = 3, limit: int = 60) -> Drawn:
    """The last position of a greedy-against-random game (or after ``limit``
    resolutions) with its events; the last resolution that had fighting is kept
    when the game's final one had none, so that the map has combats to show."""
    ruleset = find_ruleset(rules_id)
    position = ruleset.setup(scenario, ())
    best = Drawn(f"{scenario or rules_id}-late", rules_id, scenario, position, [], 0)
    for k in range(1, limit + 1):
        due = ruleset.due(position)
        if not due or ruleset.outcome(position) is not None:
            break
        orders = {
            s: ruleset.parse_orders(
                ruleset.bot_orders(position, s, "greedy" if i == 0 else "random", random.Random(seed * 1000 + k))
            )[0]
            for i, s in enumerate(due)
        }
        result = ruleset.resolve(position, orders, DiceStream(hashlib.sha256(f"map-{seed}-{k}".encode()).digest()))
        position = result.position
        fought = any(e.get("type") in ("combat", "battle", "battle_round") for e in result.events)
        if fought or not best.events or k > best.k + 6:
            best = Drawn(best.name, rules_id, scenario, position, list(result.events), k)
    return best


@functools.cache
def _played() -> tuple[Drawn, ...]:
    return tuple(d for rules_id, scenario in SHIPPED for d in (start(rules_id, scenario), late(rules_id, scenario)))


def every_map() -> list[Drawn]:
    """Each shipped game's start and late position, played once per test process and
    handed out as fresh copies (a test gets objects no other test has seen, as when
    each played its own)."""
    return list(copy.deepcopy(_played()))
