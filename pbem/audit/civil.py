"""The audit of civil disorder: the orders the referee's bot wrote for a side
whose player had gone (a resolution's ``civil_disorder`` list in the archive)
are regenerated with the same bot and the seed made of public data
(pbem/referee/disorder.py) from the resolution's starting position, and must be
the recorded text, legal, for a due side that sent no file."""

from __future__ import annotations

from typing import Any

from pbem.referee import disorder
from pbem.rules.base import Orders, Position, Ruleset


class BotOrdersFailure(ValueError):
    """The recorded bot orders are not what the bot writes."""


def bot_orders(game_id: str, ruleset: Ruleset, start: Position, res: dict[str, Any]) -> dict[str, Orders]:
    """Each side's orders written by the bot in one resolution, checked."""
    k = res["k"]
    sent = {s["side"] for s in res.get("submissions", [])}
    due = ruleset.due(start)
    out: dict[str, Orders] = {}
    for entry in res.get("civil_disorder", []):
        side = entry["side"]
        where = f"resolution {k}, {side} in civil disorder"
        if side not in due or side in sent or side not in res.get("nmr", []):
            raise BotOrdersFailure(f"{where}: bot orders for a side that was not due or that sent its own file")
        want_seed = disorder.bot_seed(game_id, k, side)
        if entry.get("bot") != disorder.BOT or entry.get("bot_seed") != want_seed:
            raise BotOrdersFailure(
                f"{where}: the bot must be {disorder.BOT!r} with seed {want_seed!r}, the archive has "
                f"{entry.get('bot')!r} with seed {entry.get('bot_seed')!r}"
            )
        text = disorder.bot_text(ruleset, start, side, want_seed)
        if text != entry.get("orders"):
            raise BotOrdersFailure(f"{where}: the {disorder.BOT} bot writes other orders than the archive's")
        orders, problems = ruleset.parse_orders(text)
        problems = problems or ruleset.validate(start, side, orders)
        if problems:
            raise BotOrdersFailure(f"{where}: the bot's orders are not legal: {problems[0]}")
        out[side] = orders
    return out


def notes(archive: dict[str, Any]) -> tuple[str, ...]:
    """The audit's lines on civil disorder: each period."""
    return tuple(
        f"{p['side']} from resolution {p['from']}"
        + (f" until resolution {p['until']} (ended by {p.get('ended_by') or '?'})" if p.get("until") else " (still)")
        for p in archive.get("civil_disorder", [])
    )
