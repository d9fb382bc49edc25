"""From a resolution's stored events to the lines a report shows (:class:`EventLine`):
which events are fights (shown with every detail), their details as short text,
their dice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pbem.reports.battle_table import EventLine

if TYPE_CHECKING:
    from pbem.reports.render import RollLine


def event_lines(events: Sequence[Mapping[str, Any]], rolls: Sequence[RollLine]) -> list[EventLine]:
    """Each event as a line: its type and text, its details when it is a fight, its dice."""
    by_index = {r.index: r for r in rolls}  # once per resolution, not once per event
    return [
        EventLine(
            str(event.get("type", "")),
            str(event.get("text", "")),
            _event_details(event) if battle else [],
            _event_rolls(event, by_index),
            battle,
            event,
        )
        for event in events
        for battle in (is_battle(event),)
    ]


_EVENT_HIDDEN_KEYS = {"type", "text", "roll_indices"}
_BATTLE_WORDS = ("battle", "combat", "attack", "assault", "siege", "fire", "charge", "morale", "melee")


def is_battle(event: Mapping[str, Any]) -> bool:
    """Fighting events (battles, rounds, combats, fire, charges, morale checks) are
    shown with every detail the ruleset recorded; the rest by their text alone
    (their text already says all, e.g. a move's path)."""
    return _battle_kind(str(event.get("type", "")))


@lru_cache(maxsize=256)
def _battle_kind(kind: str) -> bool:  # once per event type in a process
    kind = kind.lower()
    return any(word in kind for word in _BATTLE_WORDS)


def detail_value(value: Any) -> str:
    """An event detail as one short line of text (lists joined, dicts as k=v).  A
    string, a whole number and a list or tuple of them (most of a combat's fields) are
    told by their exact type first: the ``Mapping`` check is a Python call to the ABC's
    ``__instancecheck__`` a value (some hundred thousand instructions a combat)."""
    kind = value.__class__
    if kind is str:
        return value
    if kind is int:
        return str(value)
    if kind is list or kind is tuple:
        return "; ".join(map(detail_value, value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {detail_value(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(detail_value(v) for v in value)
    if value is None:
        return "-"
    return str(value)


_EMPTY: tuple[Any, ...] = (None, "", [], {})
"""A detail left out (never changed: ``in`` compares with each, as the literal did)."""


@lru_cache(maxsize=256)
def _detail_name(key: Any) -> str:  # once per field name in a process
    return str(key).replace("_", " ")


def _event_details(event: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [
        (_detail_name(key), detail_value(value))
        for key, value in event.items()
        if key not in _EVENT_HIDDEN_KEYS and value not in _EMPTY
    ]


def _event_rolls(event: Mapping[str, Any], by_index: Mapping[int, RollLine]) -> list[RollLine]:
    """Dice that belong to an event: listed by index (``roll_indices``/``rolls`` as
    ints) when the ruleset says so; ``by_index``: the resolution's dice by their
    index (made once per resolution, not once per event)."""
    wanted = event.get("roll_indices")
    if wanted is None and isinstance(event.get("rolls"), list) and all(isinstance(i, int) for i in event["rolls"]):
        wanted = event["rolls"]
    if not wanted:
        return []
    return [by_index[i] for i in wanted if i in by_index]
