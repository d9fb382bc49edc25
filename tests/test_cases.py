"""Every rule case in tests/cases/<ruleset>/ (named after its rulebook section)."""

from pathlib import Path

import pytest

from pbem.cases import run_case_file

CASES = sorted((Path(__file__).parent / "cases").rglob("*.toml"))


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(Path(__file__).parent / "cases")) for p in CASES])
def test_rule_case(path: Path) -> None:
    result = run_case_file(path)
    assert result.passed, result.summary()
