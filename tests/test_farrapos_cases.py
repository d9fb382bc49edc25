"""Rule cases of Farrapos (``rules/farrapos/cases/*.toml``): each is named after the
rulebook section it checks, and every section of the rulebook that a position,
orders and dice can state has at least one case.  (``tests/test_cases.py`` runs
them all; this checks they cover the rulebook and run green here too.)"""

import tomllib
from pathlib import Path

import pytest

from pbem.rules.cases import run_case_file

CASES = sorted((Path(__file__).parent.parent / "rules" / "farrapos" / "cases").glob("*.toml"))
SECTIONS = {"Turn Sequence", "Battles", "Final Objective", "Advanced Rules (Optional)"}
RULEBOOK = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "farrapos-rulebook.txt"


def _load(path):
    with path.open("rb") as f:
        return tomllib.load(f)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_is_named_after_a_rulebook_section(path):
    data = _load(path)
    assert data["rules"] == "farrapos"
    assert data["section"] in SECTIONS
    if RULEBOOK.exists():
        assert data["section"] in RULEBOOK.read_text(encoding="utf-8")
    stem = path.stem.split("-")[0]
    assert stem in {"battles", "militia", "extra", "turn", "actions", "sequence", "final", "advanced", "order"}


def test_cases_cover_every_section_that_a_position_can_state():
    assert {_load(p)["section"] for p in CASES} == SECTIONS


def test_cases_include_both_worked_examples():
    names = {p.stem for p in CASES}
    assert {"battles-worked-example", "turn-sequence-vp-worked-example"} <= names


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_passes(path):
    result = run_case_file(path)
    assert result.passed, result.summary()
