"""Seeded Farrapos bot-vs-bot games played to the end through the ruleset."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

from pbem.dice import DiceStream
from pbem.rules import find_ruleset

RULES = find_ruleset("farrapos")


def play_game(
    seed: int, bots: dict[str, str], options: tuple[str, ...] = (), after_turn: Callable | None = None
) -> dict:
    """One game to its end; ``after_turn(before, after, side, events)`` after each turn."""
    position = RULES.setup(None, list(options))
    rng = random.Random(seed)
    dice = DiceStream(hashlib.sha256(f"test-{seed}".encode()).digest())
    while RULES.due(position):
        (side,) = RULES.due(position)
        body = RULES.bot_orders(position, side, bots[side], rng)
        orders, problems = RULES.parse_orders(body)
        assert not problems, (body, problems)
        assert not RULES.validate(position, side, orders), body
        resolution = RULES.resolve(position, {side: orders}, dice)
        if after_turn is not None:
            after_turn(position, resolution.position, side, resolution.events)
        position = resolution.position
    return position
