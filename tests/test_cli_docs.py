"""Every command has help text and is documented in docs/formats.md."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from pbem.cli import app

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_the_design_commands_all_exist() -> None:
    design = {"keygen", "new", "status", "orders", "check", "sign", "submit", "process", "ingest", "report", "send", "dice", "export", "audit", "rollback", "case", "demo"}
    assert design <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_has_help_and_docs(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.stdout
    command_obj = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    assert (command_obj.help or "").strip(), f"{command} has no help text"
    assert f"`pbem {command}" in (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
