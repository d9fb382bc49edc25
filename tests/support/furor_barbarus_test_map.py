"""Helpers for the Furor Barbarus core tests (no tests here): battlefields on the
test map ``tests/data/furor-barbarus`` with only the units a test places."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pbem.rules.dice import ScriptedDice
from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.combat import declare, resolve_attack, standard_crt
from pbem.rules.furor_barbarus.maps import map_from_dict
from pbem.rules.furor_barbarus.ruleset import FurorBarbarus
from pbem.rules.furor_barbarus.scenario_rules import NO_SPECIAL_RULES

TEST_DATA = Path(__file__).resolve().parents[1] / "data" / "furor-barbarus"
SCENARIO = "test-fontenoy"
RULES = FurorBarbarus(data_dirs=[TEST_DATA])


def dice(*script: int | tuple[int, str]) -> ScriptedDice:
    """``dice(3, (5, "morale"))``: d6 values, optionally with a purpose substring."""
    return ScriptedDice([(v, 6, None) if isinstance(v, int) else (v[0], 6, v[1]) for v in script])


def position(
    units: Mapping[str, str], *, options: Iterable[str] = (), player: str = "lothaire", **extra: Any
) -> dict[str, Any]:
    data = {"units": dict(units), "player": player, **extra}
    return RULES.position_from_case(data, SCENARIO, list(options))


def battlefield(
    units: Mapping[str, str],
    *,
    options: Iterable[str] = (),
    player: str = "lothaire",
    script: ScriptedDice | None = None,
    game_map: Mapping[str, Any] | None = None,
    changes: Mapping[str, Mapping[str, Any]] | None = None,
    **extra: Any,
) -> Battlefield:
    """A battlefield in play with only ``units`` (id -> hex, suffix r = reduced) on the
    test map, or on a map given as a dict; ``changes`` alters counter values."""
    field = RULES.field(position(units, options=options, player=player, **extra), script or dice(), copy=False)
    scenario = field.scenario
    if changes:
        counters = dict(scenario.counters)
        for uid, values in changes.items():
            counters[uid] = counters[uid].changed(**values)
        scenario = replace(scenario, counters=counters)
    gm = map_from_dict(game_map) if game_map is not None else field.game_map
    return Battlefield(field.position, scenario, gm, NO_SPECIAL_RULES, field.dice)


def attack(
    field: Battlefield,
    side: str,
    target: str,
    attackers: list[str],
    charger: str | None = None,
    losses: Iterable[str] = (),
    advance: str | None = None,
) -> None:
    problems, combat = declare(field, side, target, attackers, charger)
    assert not problems and combat is not None, problems
    resolve_attack(field, combat, list(losses), advance, standard_crt())


def events(field: Battlefield, kind: str) -> list[dict[str, Any]]:
    return [e for e in field.events if e["type"] == kind]


def blank_map(columns: int = 8, rows: int = 8, **tables: Any) -> dict[str, Any]:
    return {"id": "blank", "title": "blank", "columns": columns, "rows": rows, **tables}
