"""Every ``>>>`` example in the docstrings of ``pbem`` and ``rules`` runs."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil

import pbem.rules
import pytest

import pbem


def _modules() -> list[str]:
    names = []
    for package in (pbem, pbem.rules):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            names.append(info.name)
    return sorted(set(names))


WITH_EXAMPLES = [name for name in _modules() if ">>>" in (importlib.util.find_spec(name).loader.get_source(name) or "")]  # type: ignore[union-attr]


def test_some_modules_have_examples() -> None:
    assert len(WITH_EXAMPLES) >= 5


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
