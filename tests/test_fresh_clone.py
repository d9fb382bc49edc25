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
