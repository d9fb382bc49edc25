"""The conformance suite as a pytest plug-in (installed with pbem through the
``pytest11`` entry point, so any project that has pbem installed has it).

A ruleset's author writes one test::

    def test_conformance(ruleset_conformance):
        ruleset_conformance("hill-112")

The fixture takes a ruleset id (an installed ruleset) or a ruleset object, and
the keyword arguments of :func:`pbem.rules.conformance.check` (``scenario``,
``games``, ``seed``, ``max_resolutions``, ``cases``, ``checks``); it fails the
test listing every failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def ruleset_conformance() -> Callable[..., None]:
    def run(ruleset: Any, **options: Any) -> None:
        from pbem.rules import find_ruleset
        from pbem.rules.conformance import check, failures_text

        target = find_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        failures = check(target, **options)
        if failures:
            pytest.fail(
                f"{target.id} fails {len(failures)} conformance check(s):\n{failures_text(failures)}", pytrace=False
            )

    return run
