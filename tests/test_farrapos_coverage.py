"""Rulebook sentences that a rule case (position + orders + dice) cannot state, each
checked here by a test named after its section (docs/rules/farrapos-coverage.md
lists every sentence of the rulebook and the test or case that checks it); and
checks on that table: it quotes the rulebook in order and cites only tests and rule
cases that exist, and every rule case."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pbem.rules import find_ruleset
from pbem.rules.base import NO_ORDERS
from pbem.rules.dice import ScriptedDice
from pbem.rules.farrapos.counters import SIDE_NAMES, SIDES, load_counters
from pbem.rules.farrapos.legal import legal_actions
from pbem.rules.farrapos.orders import Attack, Invade, Move, Pass

RULES = find_ruleset("farrapos")
NS = "{http://www.w3.org/2000/svg}"


def _strength(side: str, year: int) -> tuple[int, int]:
    """(AF, AF + DF) of every MU of ``side`` that has entered the game by ``year``,
    on its full face."""
    arrived = [c for c in load_counters().of_side(side) if c.arrival <= year]
    af = sum(c.type.full.af for c in arrived)
    return af, af + sum(c.type.full.df for c in arrived)


def test_rules_the_counters_of_each_army_are_identified_by_their_blazon():
    # "Empire of Brazil" and "Republic Rio-Grandense": the two sides, and every
    # counter carries exactly one of them.
    assert RULES.sides() == SIDES == ("empire", "republic")
    assert SIDE_NAMES == {"empire": "Empire", "republic": "Republic"}
    by_side = {side: load_counters().of_side(side) for side in SIDES}
    assert all(by_side.values())
    assert sum(len(v) for v in by_side.values()) == len(load_counters().counters)


def test_components_4_markers_the_phase_the_turn_and_the_two_vp_blazons():
    position = RULES.setup(None, [])
    # the four markers are the position's phase, turn and each side's VP
    assert (position["phase"], position["turn"], position["vp"]) == (1835, 1, {"empire": 7, "republic": 5})
    root = ET.fromstring(RULES.map_svg(position))
    titles = [t.text for t in root.iter(NS + "title")]
    assert "Empire 7 VP" in titles and "Republic 5 VP" in titles  # the two blazon markers on the VP track
    texts = [t.text for t in root.iter(NS + "text")]
    assert "Phase track" in texts and "Turn track" in texts


def test_components_1d6_every_battle_die_is_a_six_sided_die():
    position = RULES.setup(None, [])
    orders, _ = RULES.parse_orders("attack porto-alegre from triunfo with inf-1 inf-2 art-1 cav-1 rounds 3")
    dice = ScriptedDice([(3, None, None), (5, None, None)] * 3)
    RULES.resolve(position, {"republic": orders}, dice)
    assert dice.rolls and {roll.sides for roll in dice.rolls} == {6}


def test_setup_each_mu_stands_in_the_city_specified_on_its_counter():
    position = RULES.setup(None, [])
    where = {u: city for city, data in position["cities"].items() for u in data["units"]}
    sheet = load_counters()
    assert where == {c.id: c.setup for c in sheet.counters.values() if c.arrival == 1835}
    assert all(position["cities"][c]["owner"] == sheet.counters[u].side for u, c in where.items())


def test_setup_turn_marker_on_0_no_turn_has_been_played_yet():
    # The position keeps the turn to play; "on 0" is the state before turn 1:
    # nothing moved, reduced or eliminated, no Militia down, no outcome.
    position = RULES.setup(None, [])
    assert (position["phase"], position["turn"]) == (1835, 1)
    assert position["reduced"] == [] and position["eliminated"] == [] and position["outcome"] is None
    assert all(data["militia"] == 0 for data in position["cities"].values())
    after = RULES.resolve(position, {"republic": NO_ORDERS}, ScriptedDice([])).position
    assert RULES.turn_label(after) == "1835, turn 2 (Empire)"


def test_turn_sequence_2nd_turn_the_empire_can_perform_the_same_actions():
    position = RULES.setup(None, [])
    position = RULES.resolve(position, {"republic": NO_ORDERS}, ScriptedDice([])).position
    assert (position["phase"], position["turn"]) == (1835, 2)  # the Turn marker on the 2nd Turn
    kinds = {type(a) for a in legal_actions(position, "empire")}
    assert kinds == {Attack, Invade, Move, Pass}
    assert not list(legal_actions(position, "republic"))


def test_turn_sequence_phase_2_after_the_4th_turn_the_turn_marker_returns_to_1_and_the_phase_is_1836():
    position = RULES.setup(None, [])
    for expected in ((1835, 1), (1835, 2), (1835, 3), (1835, 4)):
        assert (position["phase"], position["turn"]) == expected
        (side,) = RULES.due(position)
        position = RULES.resolve(position, {side: NO_ORDERS}, ScriptedDice([])).position
    assert (position["phase"], position["turn"]) == (1836, 1)
    assert RULES.due(position) == ("republic",)  # the Republic repeats the procedures


def test_battles_observations_the_republic_is_stronger_early_and_the_empire_in_the_second_half():
    # Designed counters (docs/rules/farrapos.md, "Who gets what, and when"),
    # measured as the AF + DF of every MU that has entered the game.
    for year in range(1836, 1842):
        assert _strength("republic", year)[1] > _strength("empire", year)[1], year
    for year in range(1842, 1846):
        assert _strength("empire", year)[1] > _strength("republic", year)[1], year
    # from its 1836 reinforcements to 1839 the Republic also attacks with far more AF
    for year in range(1836, 1840):
        assert _strength("republic", year)[0] >= _strength("empire", year)[0] + 10, year


def test_battles_observations_only_the_attacker_can_end_a_fight():
    # The defender wins three rounds running; the fight goes on, because only the
    # attacker's standing decision (here until-won) ends it short of a decision.
    position = RULES.position_from_case(
        {"cities": {"pelotas": {"units": ["inf-3", "inf-4", "cav-2"]}, "rio-grande": {"units": ["inf-16"]}}}, None, []
    )
    orders, _ = RULES.parse_orders("attack rio-grande from pelotas with inf-3 inf-4 cav-2 until-won")
    # AF 8 (2) against DF 3 + 2 VP = 5 (1): attacker die 1 and defender die 6 lose
    # the round; then attacker 6 against defender 1 wins it.
    script = [(1, 6, None), (6, 6, None)] * 3 + [(6, 6, None), (1, 6, None)] * 2
    resolution = RULES.resolve(position, {"republic": orders}, ScriptedDice(script))
    rounds = [e for e in resolution.events if e["type"] == "battle_round"]
    assert [r["winner"] for r in rounds[:3]] == ["empire"] * 3
    (battle,) = [e for e in resolution.events if e["type"] == "battle"]
    assert battle["taken"] and battle["winner"] == "republic" and battle["rounds"] == len(rounds) > 3
    # and no order lets the defender break off a battle: his only battle orders are loss orders
    _, problems = RULES.parse_orders("defend rio-grande stop")
    assert problems and "is not an order" in problems[0].message


# --- the coverage table itself (docs/rules/farrapos-coverage.md) -------------------
ROOT = Path(__file__).resolve().parent.parent
COVERAGE = ROOT / "docs" / "rules" / "farrapos-coverage.md"
RULEBOOK = ROOT.parent / "shared" / "seeds" / "farrapos-rulebook.txt"


def _rows():
    return [line.split(" | ") for line in COVERAGE.read_text(encoding="utf-8").splitlines() if re.match(r"\| \d", line)]


def test_coverage_table_names_only_cases_and_tests_that_exist():
    text = COVERAGE.read_text(encoding="utf-8")
    cases = {p.name for p in (ROOT / "rules" / "farrapos" / "cases").glob("*.toml")}
    named_cases = set(re.findall(r"`([a-z0-9]+-[a-z0-9-]+\.toml)`", text))
    assert named_cases <= cases, named_cases - cases
    assert cases <= named_cases, f"rule cases the coverage table does not cite: {sorted(cases - named_cases)}"
    for module, test in set(re.findall(r"`([a-z_]+)::(test_[a-z0-9_]+)`", text)):
        source = (ROOT / "tests" / f"test_farrapos_{module}.py").read_text(encoding="utf-8")
        assert f"def {test}(" in source, f"{module}::{test}"


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2013", "-").split())


def test_coverage_table_quotes_the_rulebook_in_its_order():
    if not RULEBOOK.exists():
        pytest.skip("the rulebook is not next to this checkout")
    book = _norm(RULEBOOK.read_text(encoding="utf-8"))
    at = 0
    for row in _rows():
        quote = row[1].strip()
        if not quote.startswith('"') or "(...)" in quote:
            continue
        body = _norm(quote[1:-1] if quote.endswith('"') else quote[1 : quote.rindex('"')])
        found = book.find(body, at)
        assert found >= 0, f"row {row[0]}: {body!r} is not in the rulebook after the previous row"
        at = found
