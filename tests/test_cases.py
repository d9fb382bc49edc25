"""Every rule case each installed ruleset ships (``Ruleset.cases_folder``: Farrapos's
in rules/farrapos/cases/, Furor Barbarus's in rules/furor_barbarus/cases/), each
named after its rulebook section."""

from pathlib import Path

import pytest

from pbem.rules import find_ruleset
from pbem.rules.cases import run_case_file

RULES = Path(__file__).parent.parent / "rules"
CASES = sorted([*(RULES / "farrapos" / "cases").glob("*.toml"), *(RULES / "furor_barbarus" / "cases").glob("*.toml")])


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.parent.name}/{p.name}" for p in CASES])
def test_rule_case(path: Path) -> None:
    result = run_case_file(path)
    assert result.passed, result.summary()


@pytest.mark.parametrize("rules", ["farrapos", "furor-barbarus"])
def test_each_shipped_ruleset_ships_its_cases(rules: str) -> None:
    """The cases travel with the ruleset (package data), so ``pbem conformance``
    runs them on an installed pbem."""
    folder = find_ruleset(rules).cases_folder()
    assert folder is not None
    shipped = sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml"))
    assert shipped == sorted(p.name for p in CASES if p.parent.parent.name == rules.replace("-", "_"))
    assert len(shipped) > 40
