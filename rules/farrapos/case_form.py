"""The compact position form of rule cases (``rules/farrapos/cases/*.toml``).

    phase = 1835
    turn = 1
    vp = { empire = 7, republic = 5 }          # optional: recounted when left out
    eliminated = ["inf-14"]
    militia_lost = { republic = 1 }            # optional
    standing = { empire = { "*" = ["militia"], porto-alegre = ["inf-13"] } }
    [position.cities]
    porto-alegre = { owner = "empire", units = ["inf-13", "inf-14r"], militia = 1 }

A MU id with an ``r`` suffix is on its reduced face.  Cities left out are empty and
nobody's; ``owner`` may be left out when the city has MU (their side).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.rules.farrapos.counters import SIDES, load_counters
from pbem.rules.farrapos.position import Position, View, sort_units
from pbem.rules.farrapos.setup import blank_position
from pbem.rules.farrapos.victory_points import count_vp


class CaseFormError(ValueError):
    """A rule case's compact position is not a Farrapos position."""


def _unit(token: str) -> tuple[str, bool]:
    sheet = load_counters()
    if token in sheet.counters:
        return token, False
    if token.endswith("r") and token[:-1] in sheet.counters:
        return token[:-1], True
    raise CaseFormError(f"unknown MU {token!r} in the case position")


def position_from_case(data: Mapping[str, Any], scenario: str, options: Sequence[str]) -> Position:
    position = blank_position(scenario, options)
    sheet = load_counters()
    position["phase"] = int(data.get("phase", position["phase"]))
    position["turn"] = int(data.get("turn", position["turn"]))
    reduced: list[str] = []
    seen: set[str] = set()
    for city, raw in dict(data.get("cities", {})).items():
        if city not in position["cities"]:
            raise CaseFormError(f"unknown city {city!r} in the case position")
        units = []
        for token in raw.get("units", []):
            unit, is_reduced = _unit(token)
            if unit in seen:
                raise CaseFormError(f"{unit} is placed twice in the case position")
            seen.add(unit)
            units.append(unit)
            if is_reduced:
                reduced.append(unit)
        sides = {sheet.counters[u].side for u in units}
        owner = raw.get("owner", next(iter(sides)) if len(sides) == 1 else None)
        if len(sides) > 1 or (sides and owner not in sides):
            raise CaseFormError(f"{city}: MU of {sorted(sides)} cannot stand in a city of {owner!r}")
        militia = int(raw.get("militia", 0))
        if militia and owner is None:
            raise CaseFormError(f"{city}: Militia needs an owner")
        if owner is not None and owner not in SIDES:
            raise CaseFormError(f"{city}: unknown owner {owner!r}")
        position["cities"][city] = {"owner": owner, "units": sort_units(units), "militia": militia}
    eliminated = []
    for token in data.get("eliminated", []):
        unit, _ = _unit(token)
        if unit in seen:
            raise CaseFormError(f"{unit} is both on the board and eliminated")
        eliminated.append(unit)
    position["reduced"] = sort_units(reduced)
    position["eliminated"] = sort_units(eliminated)
    for side, n in dict(data.get("militia_lost", {})).items():
        position["militia_lost"][side] = int(n)
    for side, table in dict(data.get("standing", {})).items():
        position["standing"][side] = {str(k): list(v) for k, v in dict(table).items()}
    if "outcome" in data:
        position["outcome"] = dict(data["outcome"])
    position["vp"] = {s: int(v) for s, v in dict(data["vp"]).items()} if "vp" in data else count_vp(View(position))
    return position


def position_to_case(position: Position) -> dict[str, Any]:
    reduced = set(position["reduced"])
    cities = {}
    for city, raw in position["cities"].items():
        if raw["owner"] is None and not raw["units"] and not raw["militia"]:
            continue
        cities[city] = {
            "owner": raw["owner"],
            "units": [f"{u}r" if u in reduced else u for u in raw["units"]],
            "militia": raw["militia"],
        }
    case: dict[str, Any] = {
        "phase": position["phase"],
        "turn": position["turn"],
        "vp": dict(position["vp"]),
        "cities": cities,
        "eliminated": list(position["eliminated"]),
        "militia_lost": dict(position["militia_lost"]),
        "standing": {s: dict(t) for s, t in position["standing"].items()},
    }
    if position.get("outcome"):
        case["outcome"] = dict(position["outcome"])
    return case
