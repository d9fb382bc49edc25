"""Helpers for the Furor Barbarus scenario tests (no tests here): a battlefield of
one of the four scenarios with only the units a test places, and scripted dice."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pbem.rules.dice import ScriptedDice
from pbem.rules.furor_barbarus.battlefield import Battlefield
from pbem.rules.furor_barbarus.combat import declare, resolve_attack, standard_crt
from pbem.rules.furor_barbarus.scenarios import DataLibrary
from pbem.rules.furor_barbarus.setup import initial_position
from pbem.rules.furor_barbarus.special_rules import REGISTRY, campus_mauriacus, soissons, tolbiac, vouille  # noqa: F401 (registration)

PLAYERS = {
    "campus-mauriacus": ["romans", "huns"],
    "soissons": ["franks", "gallo-romans"],
    "tolbiac": ["franks", "alemanni"],
    "vouille": ["visigoths", "franks"],
}


def dice(*script: int | tuple[int, str]) -> ScriptedDice:
    """``dice(3, (5, "feigned flight"))``: d6 values, optionally with a purpose."""
    return ScriptedDice([(v, 6, None) if isinstance(v, int) else (v[0], 6, v[1]) for v in script])


def battlefield(
    scenario_id: str,
    units: Mapping[str, str],
    *,
    options: Iterable[str] = (),
    turn: int = 1,
    player: int = 1,
    script: ScriptedDice | None = None,
) -> Battlefield:
    """A battlefield in play, turn ``turn``, with only ``units`` (id -> hex) on the map."""
    lib = DataLibrary()
    chosen = sorted(options)
    scenario = lib.scenario(scenario_id).with_options(chosen)
    game_map = lib.game_map(scenario.map_id).with_overlay(scenario.overlay)
    position = initial_position(scenario, chosen)
    position.update(phase="play", turn=turn, player=player, players=PLAYERS[scenario_id])
    for uid, state in position["units"].items():
        state["hex"] = units.get(uid)
    unknown = set(units) - set(position["units"])
    assert not unknown, unknown
    return Battlefield(position, scenario, game_map, REGISTRY[scenario_id](), script if script is not None else dice())


def attack(field: Battlefield, side: str, target: str, attackers: list[str], charger: str | None = None) -> None:
    problems, combat = declare(field, side, target, attackers, charger)
    assert not problems and combat is not None, problems
    resolve_attack(field, combat, [], None, standard_crt())


def events(field: Battlefield, kind: str) -> list[dict]:
    return [e for e in field.events if e["type"] == kind]
