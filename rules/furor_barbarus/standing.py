"""Standing orders (``standing KEY VALUE``): which keys and values a side may give.

The core keys are ``advance`` (yes or no, 9.11), ``losses`` (the side's own units,
in the order it wants them to take step losses) and ``retreat`` (hexes of the map,
preferred among retreat hexes of equal priority, 9.8); a scenario adds its own
(:meth:`ScenarioRules.standing_orders`, e.g. Vouille's ``breton-evasion``).  A key
or value outside these is refused: a standing order that would be stored with no
effect, or read as something the player did not write, is worse than a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.rules.base import OrderLine
from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.orders import StandingOrder
from pbem.rules.suggest import did_you_mean, listing

CORE_STANDING = ("advance", "losses", "retreat")
YES_NO = ("yes", "no")


def standing_keys(field: Battlefield) -> dict[str, tuple[str, ...]]:
    """Every standing key of this scenario -> its values (empty: a list of units
    or hexes)."""
    return {"advance": YES_NO, "losses": (), "retreat": (), **field.special.standing_orders()}


def standing_forms(field: Battlefield) -> list[str]:
    """The standing order forms, as the template lists them."""
    out = []
    for key, values in standing_keys(field).items():
        what = {"losses": "UNIT,UNIT,...", "retreat": "HEX,HEX,..."}.get(key, "|".join(values))
        out.append(f"standing {key} {what}")
    return out


def standing_problem(field: Battlefield, side: str, order: StandingOrder) -> str | None:
    keys = standing_keys(field)
    if order.kind not in keys:
        return (
            f"unknown standing order {order.kind!r}; the standing orders are: "
            f"{listing(keys)}{did_you_mean(order.kind, keys)}"
        )
    allowed = keys[order.kind]
    if allowed:
        value = order.values[0] if order.values else ""
        if len(order.values) != 1 or value not in allowed:
            return f"'standing {order.kind}' takes {' or '.join(allowed)}, not {value!r}{did_you_mean(value, allowed)}"
        return None
    if order.kind == "losses":
        own = sorted(u for u in field.units if field.side_of(u) == side)
        for uid in order.values:
            if uid not in own:
                return (
                    f"unknown unit {uid!r} in 'standing losses'; your units are: {listing(own)}{did_you_mean(uid, own)}"
                )
    if order.kind == "retreat":
        for h in order.values:
            if not field.game_map.on_map(h):
                return f"{h} in 'standing retreat' is not a hex of the map"
    return None


def standing_problems(field: Battlefield, side: str, lines: Sequence[OrderLine]) -> list[tuple[int, str]]:
    """``(line, problem)`` for every standing order of ``lines`` that is refused."""
    out = []
    for ol in lines:
        if isinstance(ol.order, StandingOrder):
            why = standing_problem(field, side, ol.order)
            if why:
                out.append((ol.line, why))
    return out
