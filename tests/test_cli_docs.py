"""Every command has help text and is documented in docs/formats.md."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from pbem.cli.application import app

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_the_design_commands_all_exist() -> None:
    design = {
        "keygen",
        "new",
        "status",
        "orders",
        "check",
        "sign",
        "submit",
        "process",
        "ingest",
        "report",
        "send",
        "dice",
        "export",
        "audit",
        "rollback",
        "case",
        "demo",
    }
    assert design <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_has_help_and_docs(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.stdout
    command_obj = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    assert (command_obj.help or "").strip(), f"{command} has no help text"
    assert f"`pbem {command}" in (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")


# --- CLI conventions --------------------------------------------------------------------------

GROUP = typer.main.get_command(app)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_a_description_and_a_metavar_not_a_type_name(command: str) -> None:
    """As Click, git and sqlite-utils users expect: ``--db PATH|URL``, never
    ``--db <str>`` or ``--player <list[str]>``, and a line saying what each option does."""
    command_obj = GROUP.commands[command]  # type: ignore[attr-defined]
    for param in command_obj.params:
        assert (getattr(param, "help", None) or "").strip(), f"pbem {command}: {param.opts} has no description"
    text = CliRunner().invoke(app, [command, "--help"]).stdout
    assert "<" not in text.replace("<=", ""), f"pbem {command} --help shows a type name:\n{text}"
    assert "{" not in text.split("Options:")[0], f"pbem {command} --help shows an argument as {{name}}:\n{text}"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_shows_an_example(command: str) -> None:
    text = CliRunner().invoke(app, [command, "--help"]).stdout
    assert "Example" in text and f"  pbem {command}" in text, text


def test_the_programs_own_help_shows_metavars_and_the_version_option() -> None:
    text = CliRunner().invoke(app, ["--help"]).stdout
    assert "--db PATH|URL" in text and "--version" in text and "<bool>" not in text and "<str>" not in text


def test_db_is_accepted_before_or_after_the_command(tmp_path: Path) -> None:
    from pbem.cli.application import hoist_global_options

    missing = tmp_path / "none.db"
    before = CliRunner().invoke(app, ["--db", str(missing), "status", "g1"])
    after = CliRunner().invoke(app, ["status", "g1", "--db", str(missing)])
    with_equals = CliRunner().invoke(app, ["status", "--db=" + str(missing), "g1"])
    assert before.exit_code == after.exit_code == with_equals.exit_code == 1
    assert (
        before.stderr
        == after.stderr
        == with_equals.stderr
        == f"pbem: no database at {missing} (create a game with 'pbem new' first, or give --db)\n"
    )
    # after "--", --db is an argument like any other; an option the command lacks is still a usage error
    assert hoist_global_options(["check", "--", "--db"], {"check"}) == ["check", "--", "--db"]
    assert CliRunner().invoke(app, ["status", "g1", "--nosuch"]).exit_code == 2


def test_version_needs_no_command() -> None:
    from pbem import __version__

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"pbem {__version__}\n"
