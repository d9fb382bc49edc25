"""Civil disorder: a side whose player has gone is played by the greedy bot.

A game created with ``pbem new ... --civil-disorder N`` (or set with ``pbem game
set G civil-disorder=N``) puts a side in civil disorder at the resolution that is
its N-th in a row without its file (every resolution it was due in and resolved
without orders from it: at the end of grace, or ``pbem process --force-nmr``; a
resolution it was not due in neither counts nor breaks the run).  From that
resolution on, where the side would have had no orders (NMR), the referee writes
its orders with the ruleset's ``greedy`` bot instead.  The bot's random numbers
come from a seed made of public data only, :func:`bot_seed` (the game id, the
resolution and the side), so anyone holding the archive regenerates the same
orders from the same position (``pbem audit``); the orders are stored
(``bot_turn``) and archived as the resolution's ``civil_disorder`` list.  They are
not signed and are not part of the dice key (which covers the players' signed
files only).

Civil disorder ends when a player takes the side over: ``pbem player G SIDE --key
FILE`` (a new player), or a signed file from the side's registered key used in a
resolution (the player came back: the file is accepted like any other, and the
resolution it is used in is the first the bot no longer plays).

:func:`mark` is the one place a side enters or leaves civil disorder.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pbem import store
from pbem.rules.base import Orders, Ruleset
from pbem.store.sql import Tx

BOT = "greedy"
SETTING = "civil-disorder"
MAX_MISSES = 1000


@dataclass(frozen=True)
class BotTurn:
    side: str
    seed: str
    text: str
    orders: Orders


def bot_seed(game_id: str, k: int, side: str) -> str:
    """The seed of the bot's orders for ``side`` in resolution ``k``: public data only."""
    return f"pbem-civil-disorder/{game_id}/{k}/{side}"


def bot_text(ruleset: Ruleset, position: dict, side: str, seed: str) -> str:
    """The bot's orders (the turn file's body) for ``side`` from ``position``."""
    return ruleset.bot_orders(position, side, BOT, random.Random(seed))


def threshold(tx: Tx, game_id: str) -> int | None:
    row = tx.one("SELECT civil_disorder FROM game_allowance WHERE game_id = :game", {"game": game_id})
    return row[0] if row else None


def parse_threshold(text: str) -> int | None:
    """``N`` (1 to 1000), or ``none``/``off`` for never; :class:`ValueError` otherwise."""
    if text.strip().lower() in ("none", "off", "no", "0"):
        return None
    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_MISSES:
        raise ValueError(
            f"civil-disorder is a number of missed deadlines from 1 to {MAX_MISSES} (or none), not {text!r}"
        )
    return int(text)


def set_threshold(tx: Tx, game_id: str, n: int | None) -> None:
    params = {"game": game_id, "n": n}
    if tx.run("UPDATE game_allowance SET civil_disorder = :n WHERE game_id = :game", params) == 0:
        tx.run("INSERT INTO game_allowance (game_id, civil_disorder) VALUES (:game, :n)", params)


CURRENT = "SELECT side, from_k FROM civil_disorder WHERE game_id = :game AND until_k IS NULL ORDER BY side"
"""The statement of :func:`current` (``:game``), which a resolution asks ahead (``Tx.prefetch``)."""


def current(tx: Tx, game_id: str) -> dict[str, int]:
    """Each side in civil disorder now, with the resolution it started at."""
    rows = tx.all(CURRENT, {"game": game_id})
    return {side: from_k for side, from_k in rows}


def misses_in_a_row(tx: Tx, game_id: str, side: str) -> int:
    """The active resolutions, latest first, that ``side`` missed, until one it sent a file for."""
    import json

    rows = tx.all(
        "SELECT r.k, r.nmr, (SELECT COUNT(*) FROM submission s WHERE s.game_id = r.game_id AND s.turn = r.k"
        " AND s.side = :side AND s.status = :resolved) FROM resolution r WHERE r.game_id = :game AND r.active = :active"
        " ORDER BY r.k DESC",
        {"game": game_id, "side": side, "resolved": store.SubmissionStatus.RESOLVED.name, "active": True},
    )
    count = 0
    for _k, nmr, sent in rows:
        if sent:
            break
        if side in json.loads(nmr):
            count += 1
    return count


def mark(tx: Tx, game_id: str, side: str, act: str, k: int, ended_by: str | None = None) -> None:
    """The act ``civil-disorder``: ``start`` (the bot plays ``side`` from resolution
    ``k``) or ``end`` (from resolution ``k`` it does not; ``ended_by`` ``file`` or
    ``player``).  The one place the act is made."""
    params = {"game": game_id, "side": side, "k": k, "at": store.utcnow(), "by": ended_by}
    if act == "start":
        tx.run(
            "INSERT INTO civil_disorder (game_id, side, from_k, started) VALUES (:game, :side, :k, :at)",
            params,
        )
    elif act == "end":
        tx.run(
            "UPDATE civil_disorder SET until_k = :k, ended = :at, ended_by = :by"
            " WHERE game_id = :game AND side = :side AND until_k IS NULL",
            params,
        )
    else:
        raise ValueError(f"unknown civil-disorder act {act!r}")


def bot_turns(
    tx: Tx,
    game_id: str,
    k: int,
    ruleset: Ruleset,
    position: dict,
    missing: Sequence[str],
    sent: Sequence[str],
    now: dict[str, int] | None = None,
) -> list[BotTurn]:
    """At resolution ``k``: civil disorder ends for a side whose file is in
    (``sent``); starts for a ``missing`` side at its N-th miss in a row; and each
    missing side in civil disorder gets the bot's orders (stored as ``bot_turn``).
    A bot's orders that its own ruleset refuses are not used (the side is NMR).
    ``now``: :func:`current`, as the caller's transaction read it."""
    if now is None:
        now = current(tx, game_id)
    for side in sent:
        if side in now:
            mark(tx, game_id, side, "end", k, "file")
    limit = threshold(tx, game_id) if any(side not in now for side in missing) else None  # read only if needed
    turns = []
    for side in missing:
        if side not in now:
            if limit is None or misses_in_a_row(tx, game_id, side) + 1 < limit:
                continue
            mark(tx, game_id, side, "start", k)
        seed = bot_seed(game_id, k, side)
        text = bot_text(ruleset, position, side, seed)
        orders, problems = ruleset.parse_orders(text)
        if problems or ruleset.validate(position, side, orders):
            continue
        tx.run(
            "INSERT INTO bot_turn (game_id, k, side, bot, seed, orders)"
            " VALUES (:game, :k, :side, :bot, :seed, :orders)",
            {"game": game_id, "k": k, "side": side, "bot": BOT, "seed": seed, "orders": text},
        )
        turns.append(BotTurn(side, seed, text, orders))
    return turns


def periods(tx: Tx, game_id: str) -> list[dict]:
    """The archive's ``civil_disorder``: every period, in order."""
    rows = tx.all(
        "SELECT side, from_k, started, until_k, ended, ended_by FROM civil_disorder WHERE game_id = :game ORDER BY id",
        {"game": game_id},
    )
    return [
        {"side": s, "from": f, "started": store_iso(a), "until": u, "ended": store_iso(e) if e else None, "ended_by": b}
        for s, f, a, u, e, b in rows
    ]


def turns_by_k(tx: Tx, game_id: str) -> dict[int, list[dict]]:
    """The archive's per-resolution ``civil_disorder`` lists."""
    out: dict[int, list[dict]] = {}
    for k, side, bot, seed, orders in tx.all(
        "SELECT k, side, bot, seed, orders FROM bot_turn WHERE game_id = :game ORDER BY k, side", {"game": game_id}
    ):
        out.setdefault(k, []).append({"side": side, "bot": bot, "bot_seed": seed, "orders": orders})
    return out


def store_iso(value: object) -> str:
    from datetime import UTC, datetime

    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return when.isoformat().replace("+00:00", "Z")
