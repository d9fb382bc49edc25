"""Shared fixtures: real keys, a real SQLite file, the real CLI."""

from __future__ import annotations

import compileall
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli.application import app
from pbem.turnfiles import keys

ROOT = Path(__file__).resolve().parent.parent

# The fixtures of tests/support/ (servers, a loopback SMTP collector, maps drawn once), for every test module.
pytest_plugins = [
    "tests.support.drawn_maps",
    "tests.support.imap_server",
    "tests.support.mail_game",
    "tests.support.mailkit",
    "tests.support.pg_server",
]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile pbem's own modules once: many tests run ``python -m pbem`` as a
    process, and where PYTHONDONTWRITEBYTECODE is set (as on the project's
    machine) each of them would otherwise compile every module it imports again
    (about 50 ms of CPU per process; docs/performance.md, "Start-up")."""
    for package in ("pbem", "rules", "templates"):
        compileall.compile_dir(str(ROOT / package), quiet=2)


@pytest.fixture(autouse=True, scope="session")
def template_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Compiled templates (``pbem.reports.template_cache``) go to a folder of the test
    session, for this process and every process a test starts: never to the
    developer's home."""
    folder = tmp_path_factory.mktemp("template-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PBEM_CACHE_DIR", str(folder))
        yield folder


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@dataclass
class Table:
    """A referee's desk: a database file, key pairs per side, and the CLI."""

    tmp: Path
    db: Path

    def run(self, *args: str) -> CliResult:
        runner = CliRunner()
        result = runner.invoke(app, ["--db", str(self.db), *args], catch_exceptions=False)
        return CliResult(result.exit_code, result.stdout, result.stderr)

    def run_subprocess(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, **(env or {})}
        return subprocess.run(
            [sys.executable, "-m", "pbem", "--db", str(self.db), *args],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=timeout,
            cwd=self.tmp,
        )

    def key(self, name: str) -> tuple[Path, Path]:
        private = self.tmp / "keys" / name
        if not private.exists():
            keys.generate_ed25519(name, self.tmp / "keys")
        return private, private.with_name(name + ".pub")

    def dump(self, skip: tuple[str, ...] = ("refusal",)) -> list[str]:
        """Every row of every table (but ``skip``), to compare before and after."""
        con = sqlite3.connect(self.db)
        try:
            con.execute("PRAGMA wal_checkpoint(FULL)")
            lines = []
            for line in con.iterdump():
                if any(f'INSERT INTO "{t}"' in line for t in skip):
                    continue
                lines.append(line)
            return lines
        finally:
            con.close()

    def count(self, table: str) -> int:
        con = sqlite3.connect(self.db)
        try:
            return con.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
        finally:
            con.close()


@pytest.fixture(scope="module")
def farrapos_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    """A Farrapos game played to resolution 3, its last reports written once (what a
    counting test of the reports must not count), and its database, per test module."""
    from tests.support.desk import reported_farrapos_game

    db, game = reported_farrapos_game(tmp_path_factory.mktemp("desk"))
    yield db, game
    db.dispose()


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path, tmp_path / "referee.db")


@pytest.fixture
def new_farrapos(table: Table) -> Callable[[str], Table]:
    def make(game: str = "g1", *extra: str) -> Table:
        _, rep_pub = table.key("republic")
        _, emp_pub = table.key("empire")
        r = table.run(
            "new",
            game,
            "--rules",
            "farrapos",
            "--player",
            f"republic={rep_pub}",
            "--player",
            f"empire={emp_pub}",
            *extra,
        )
        assert r.exit_code == 0, r.stderr
        return table

    return make
