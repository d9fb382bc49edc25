"""Rulesets: pure game engines, found by id through the ``pbem.rulesets``
entry-point group (``rules/registry.py``; docs/rulesets.md shows how to write one).

>>> from pbem.rules import find_ruleset
>>> find_ruleset("farrapos").id
'farrapos'
"""

from __future__ import annotations

from pbem.rules.base import Ruleset
from pbem.rules.registry import GROUP, RulesetInfo, RulesetLoadError, find_ruleset, installed_rulesets, ruleset_ids

__all__ = ["GROUP", "Ruleset", "RulesetInfo", "RulesetLoadError", "find_ruleset", "installed_rulesets", "ruleset_ids"]
