"""The conformance suite (pbem.rules.conformance) on the shipped games, through
the pytest plug-in a ruleset's author uses, and on broken rulesets it must catch."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pbem.rules import find_ruleset
from pbem.rules.base import Dice, Event, Orders, Position, Resolution
from pbem.rules.conformance import CHECKS, check
from pbem.rules.farrapos.ruleset import Farrapos

CASES = Path(__file__).parent.parent / "rules"


def test_farrapos_conforms(ruleset_conformance) -> None:  # type: ignore[no-untyped-def]
    ruleset_conformance("farrapos", games=2)  # its rule cases too: they ship with it


@pytest.mark.parametrize("scenario", [s.id for s in find_ruleset("furor-barbarus").scenarios()])
def test_furor_barbarus_conforms(ruleset_conformance, scenario: str) -> None:  # type: ignore[no-untyped-def]
    # the shipped cases folder holds every scenario's cases: run it once, with the first
    ruleset_conformance(
        "furor-barbarus", scenario=scenario, games=1, checks=CHECKS if scenario == "campus-mauriacus" else CHECKS[:-1]
    )


class _Tuples(Farrapos):
    """Puts a tuple and a set-like value into the position: not JSON data."""

    def setup(self, scenario_id: str | None, options: Sequence[str]) -> Position:
        position = super().setup(scenario_id, options)
        position["odd"] = (1, 2)
        return position


class _Unfair(Farrapos):
    """Rolls its own hidden dice and mutates its input."""

    def resolve(self, position: Position, orders: Mapping[str, Orders], dice: Dice) -> Resolution:
        position["touched"] = position.get("touched", 0) + 1
        out = super().resolve(position, orders, dice)
        out.position["luck"] = random.random()
        return out


class _BadPictures(Farrapos):
    def map_svg(self, position: Position, events: Sequence[Event] = (), side: str | None = None) -> str:
        return "<svg><text>Porto Alegre & Rio Pardo</text></svg>"

    def order_template(self, position: Position, side: str) -> str:
        return "attack everything\n"


class _CarelessBot(Farrapos):
    def bot_orders(self, position: Position, side: str, bot: str, rng: random.Random) -> str:
        return "\n\nmarch on rio de janeiro\n"


@pytest.mark.parametrize(
    ("broken", "expect"),
    [
        (_Tuples, ["json"]),
        (_Unfair, ["determinism"]),
        (_BadPictures, ["svg", "templates"]),
        (_CarelessBot, ["bots"]),
    ],
    ids=["not-json", "hidden-dice", "bad-svg-and-template", "bot-writes-nonsense"],
)
def test_the_suite_catches_a_broken_ruleset(broken: type[Farrapos], expect: list[str]) -> None:
    failures = check(broken(), games=1, max_resolutions=6, checks=[c for c in CHECKS if c not in ("game-end", "cases")])
    named = {f.split(":", 1)[0] for f in failures}
    assert set(expect) <= named, failures


def test_a_game_that_never_ends_is_caught() -> None:
    failures = check(Farrapos(), games=1, max_resolutions=3, checks=["game-end"])
    assert failures and failures[0].startswith(
        "game-end: farrapos campaign game seed 1: not over after 3 resolutions"
    ), failures


def test_a_failing_rule_case_is_reported(tmp_path: Path) -> None:
    case = (CASES / "farrapos" / "cases" / "actions-invade-empty-city.toml").read_text(encoding="utf-8")
    (tmp_path / "wrong.toml").write_text(
        case.replace('piratini = { owner = "republic"', 'piratini = { owner = "empire"'), encoding="utf-8"
    )
    failures = check(Farrapos(), games=0, cases=tmp_path)
    assert len(failures) == 1 and failures[0].startswith("cases: FAIL wrong.toml"), failures


def test_unknown_checks_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown checks"):
        check(Farrapos(), checks=["speed"])
