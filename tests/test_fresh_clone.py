"""The README's two commands work on a fresh clone (slow: creates a venv and
installs from the package index)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_readme_starts_with_the_two_commands() -> None:
    lines = [line for line in (ROOT / "README.md").read_text().splitlines() if line.strip()]
    assert lines[0] == "```sh"
    assert lines[1].startswith("make demo")
    assert lines[2].startswith("make test")


@pytest.mark.slow
def test_make_demo_on_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    result = subprocess.run(["make", "demo"], cwd=clone, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    index = clone / "demo" / "index.html"
    assert index.is_file()
    assert index.read_text().count("audit page") == 5


def test_wheel_ships_templates_and_rules_data(tmp_path: Path) -> None:
    import sys
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    wheel = next(tmp_path.glob("pbem-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "pbem/templates/report.html.j2",
        "pbem/templates/report.txt.j2",
        "pbem/templates/audit.html.j2",
        "pbem/rules/farrapos/data/board.toml",
        "pbem/rules/farrapos/data/counters.toml",
        "pbem/rules/furor_barbarus/data/crt.toml",
        "pbem/rules/furor_barbarus/data/scenarios/vouille.toml",
        "pbem/rules/furor_barbarus/data/maps/campus-mauriacus.toml",
    ):
        assert required in names, f"the wheel lacks {required}"
