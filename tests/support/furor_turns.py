"""The play resolutions of seeded random bot games of Furor Barbarus (no tests here),
for the cost tests that count what checking and playing them calls."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from pbem.dice import DiceStream
from pbem.rules import find_ruleset
from pbem.rules.base import Orders


def bot_turns(scenario: str, count: int, seed: int = 0) -> list[tuple[Any, str, Orders]]:
    """Up to ``count`` play resolutions of a random bot game of ``scenario``: the
    position before each, the side due and its orders."""
    rules = find_ruleset("furor-barbarus")
    position = rules.setup(scenario, [])
    out: list[tuple[Any, str, Orders]] = []
    for n in range(200):
        due = rules.due(position)
        if not due or len(out) >= count:
            break
        rng = {s: random.Random(f"{seed}/{n}/{s}") for s in due}
        orders = {s: rules.parse_orders(rules.bot_orders(position, s, "random", rng[s]))[0] for s in due}
        if position["phase"] == "play":
            out.append((position, due[0], orders[due[0]]))
        dice = DiceStream(hashlib.sha256(b"%d/%d" % (seed, n)).digest())
        position = rules.resolve(position, orders, dice).position
    return out
