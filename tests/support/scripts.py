"""A script of the project that is not a package module (``bench/*.py``,
``tools/*.py``) loaded as a module, for the tests that call its functions."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_script(path: str, name: str) -> ModuleType:
    """The script at ``path`` (from the project's folder) run as a new module ``name``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
