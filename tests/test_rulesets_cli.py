"""``pbem rules`` and ``pbem conformance``: what is installed, and what the referee
relies on a ruleset for, checked from the command line."""

import json
from pathlib import Path

from typer.testing import CliRunner

from pbem.cli.application import app

RULES = Path(__file__).parent.parent / "rules"
KEYS = {"id", "title", "version", "sides", "scenarios", "from"}


def test_rules_lists_the_installed_rulesets_as_json() -> None:
    result = CliRunner().invoke(app, ["rules", "--json"])
    assert result.exit_code == 0, result.output
    listed = {r["id"]: r for r in json.loads(result.stdout)}
    assert {"farrapos", "furor-barbarus"} <= set(listed)
    for entry in listed.values():
        assert KEYS <= set(entry)
    assert listed["furor-barbarus"]["sides"]["vouille"] == ["franks", "visigoths"]
    assert listed["farrapos"]["from"]["distribution"] == "pbem"


def test_rules_in_words_names_every_scenario() -> None:
    result = CliRunner().invoke(app, ["rules"])
    assert result.exit_code == 0
    assert "furor-barbarus: Furor Barbarus, version 1" in result.stdout
    assert "  tolbiac: alemanni, franks" in result.stdout


def test_conformance_of_a_shipped_ruleset_passes() -> None:
    result = CliRunner().invoke(app, ["conformance", "furor-barbarus", "--scenario", "vouille", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "furor-barbarus 1 conforms: vouille, 1 game(s) each from seed 1"


def test_conformance_fails_by_name_on_a_failing_rule_case(tmp_path: Path) -> None:
    case = (RULES / "farrapos" / "cases" / "actions-invade-empty-city.toml").read_text(encoding="utf-8")
    (tmp_path / "wrong.toml").write_text(case.replace("piratini = {", "camaqua = {"), encoding="utf-8")
    result = CliRunner().invoke(app, ["conformance", "farrapos", "--games", "1", "--cases", str(tmp_path)])
    assert result.exit_code == 1
    assert "wrong.toml" in result.stderr
    assert result.stderr.strip().endswith("farrapos 1: 1 conformance failure(s)")


def test_conformance_of_an_unknown_ruleset_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["conformance", "chess"])
    assert result.exit_code == 2
    assert "unknown rules 'chess'" in result.stderr
