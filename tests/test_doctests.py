"""Every ``>>>`` example in the docstrings of ``pbem`` and ``rules`` runs."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import pbem
import pbem.rules


def _modules() -> list[str]:
    names = []
    for package in (pbem, pbem.rules):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            names.append(info.name)
    return sorted(set(names))


def _source(name: str) -> str:
    # read the file: a module pytest loads as a plug-in (pbem.rules.conformance_plugin)
    # has pytest's assertion-rewriting loader, which has no get_source
    origin = importlib.util.find_spec(name).origin  # type: ignore[union-attr]
    return Path(origin).read_text(encoding="utf-8") if origin and origin.endswith(".py") else ""


WITH_EXAMPLES = [name for name in _modules() if ">>>" in _source(name)]


def test_some_modules_have_examples() -> None:
    assert len(WITH_EXAMPLES) >= 5


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
