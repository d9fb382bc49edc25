"""Special rules of the scenarios, found by scenario id.

``REGISTRY`` maps a scenario id to its :class:`~rules.furor_barbarus.scenario_rules.ScenarioRules`
subclass; a scenario absent from it has no special rules.  The class is built
with no arguments.  Each scenario's module (``special_rules/<id with _>.py``)
registers itself on import; ``rules_for`` imports it on first use.
"""

from __future__ import annotations

import importlib

from pbem.rules.furor_barbarus.scenario_rules import NO_SPECIAL_RULES, ScenarioRules

REGISTRY: dict[str, type[ScenarioRules]] = {}


def rules_for(scenario_id: str) -> ScenarioRules:
    if scenario_id not in REGISTRY:
        module = f"{__name__}.{scenario_id.replace('-', '_')}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    cls = REGISTRY.get(scenario_id)
    return cls() if cls is not None else NO_SPECIAL_RULES
