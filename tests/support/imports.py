"""What a ``pbem`` command imports: run it under ``-X importtime`` and read the list."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def imports_of(args: list[str], cwd: Path, db: Path | None = None) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``pbem ARGS`` in a new interpreter; its result and every module it imported."""
    env = {k: v for k, v in os.environ.items() if k != "PBEM_DB"}
    db_args = ["--db", str(db)] if db is not None else []
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pbem", *db_args, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    modules = {
        line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")
    }
    return result, modules


def offending(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in forbidden))
