"""The ``>>>`` examples in the Furor Barbarus modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["hexgrid", "combat", "scenarios", "orders", "setup", "unit_table"])
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(f"pbem.rules.furor_barbarus.{module}"))
    assert result.attempted > 0 and result.failed == 0
