"""Rulesets: pure game engines, found by id.

>>> from pbem.rules import find_ruleset
>>> find_ruleset("farrapos").id
'farrapos'
"""

from __future__ import annotations

from importlib import import_module

from pbem.rules.base import Ruleset

# id -> "module:Class"; imported on first use so one game's data loads only when asked.
_REGISTRY: dict[str, str] = {
    "farrapos": "pbem.rules.farrapos.ruleset:Farrapos",
    "furor-barbarus": "pbem.rules.furor_barbarus.ruleset:FurorBarbarus",
}


def ruleset_ids() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def find_ruleset(ruleset_id: str) -> Ruleset:
    """The ruleset registered under ``ruleset_id``; ``ValueError`` naming the known
    ids otherwise."""
    target = _REGISTRY.get(ruleset_id)
    if target is None:
        from pbem.rules.suggest import did_you_mean

        raise ValueError(f"unknown rules {ruleset_id!r} (rules: {', '.join(_REGISTRY)}){did_you_mean(ruleset_id, _REGISTRY)}")
    module_name, class_name = target.split(":")
    cls = getattr(import_module(module_name), class_name)
    return cls()
