"""Finding rulesets: the ``pbem.rulesets`` entry-point group.

Every ruleset, the two shipped with pbem included, is an entry point in that
group: its name is the ruleset id and its value names a :class:`Ruleset`
subclass, or any callable that returns a ruleset, e.g. in a ``pyproject.toml``::

    [project.entry-points."pbem.rulesets"]
    hill-112 = "hill112.ruleset:Hill112"

Reading the installed distributions' metadata costs start-up time, so nothing is
read at import: the group is read the first time a ruleset is asked for, and a
ruleset's module is imported only when that ruleset is.  Both are cached for the
life of the process (installing a ruleset takes effect in the next process).

>>> "farrapos" in ruleset_ids()
True
>>> find_ruleset("farrapos").title
'Farrapos (Julio Trois, 2011)'
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pbem.rules.base import Ruleset

GROUP = "pbem.rulesets"
"""The entry-point group rulesets register in."""


class RulesetLoadError(ValueError):
    """An entry point in the group that does not give a usable ruleset (its module
    fails to import, it returns something else, or its id differs)."""


@dataclass(frozen=True)
class RulesetInfo:
    """One installed ruleset, as ``pbem rules`` lists it."""

    id: str
    title: str
    version: str
    scenarios: tuple[str, ...]
    sides: dict[str, tuple[str, ...]]
    """Scenario id -> its sides, in the order :meth:`Ruleset.sides` gives them."""
    distribution: str
    """The name of the installed distribution that provides it ("pbem")."""
    distribution_version: str
    entry_point: str
    """The entry point's value, ``module:attribute``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "version": self.version,
            "scenarios": list(self.scenarios),
            "sides": {scenario: list(sides) for scenario, sides in self.sides.items()},
            "from": {
                "distribution": self.distribution,
                "version": self.distribution_version,
                "entry_point": self.entry_point,
            },
        }


@functools.cache
def _entry_points() -> dict[str, tuple[EntryPoint, ...]]:
    """Ruleset id -> the entry points registering it (more than one is a conflict),
    read once.  The same distribution found twice on the path counts once."""
    found: dict[str, dict[str, EntryPoint]] = {}
    for ep in entry_points(group=GROUP):
        found.setdefault(ep.name, {}).setdefault(ep.value, ep)
    return {name: tuple(eps.values()) for name, eps in sorted(found.items())}


def _where(ep: EntryPoint) -> tuple[str, str]:
    dist = ep.dist
    return (dist.name, dist.version) if dist is not None else ("", "")


def ruleset_ids() -> tuple[str, ...]:
    """The ids of every installed ruleset, sorted; imports none of them."""
    return tuple(_entry_points())


@functools.cache
def _factory(ruleset_id: str) -> Any:
    eps = _entry_points().get(ruleset_id)
    if not eps:
        from pbem.rules.suggest import did_you_mean

        known = ruleset_ids()
        hint = (
            ""
            if known
            else f" (no ruleset is registered in the {GROUP!r} entry-point group: is pbem installed, e.g. `pip "
            "install -e .`?)"
        )
        raise ValueError(
            f"unknown rules {ruleset_id!r} (rules: {', '.join(known)}){did_you_mean(ruleset_id, known)}{hint}"
        )
    if len(eps) > 1:
        where = "; ".join(f"{ep.value} from {' '.join(_where(ep))}".strip() for ep in eps)
        raise RulesetLoadError(f"rules {ruleset_id!r} are registered more than once: {where}")
    try:
        return eps[0].load()
    except (ImportError, AttributeError) as exc:
        raise RulesetLoadError(
            f"rules {ruleset_id!r}: cannot load entry point {eps[0].value!r}: {type(exc).__name__}: {exc}"
        ) from exc


def find_ruleset(ruleset_id: str) -> Ruleset:
    """The ruleset registered under ``ruleset_id``; ``ValueError`` naming the
    installed ids otherwise."""
    ruleset = _factory(ruleset_id)()
    if not isinstance(ruleset, Ruleset):
        raise RulesetLoadError(
            f"rules {ruleset_id!r}: entry point {_entry_points()[ruleset_id][0].value!r} gave "
            f"{type(ruleset).__name__}, not a Ruleset"
        )
    if ruleset.id != ruleset_id:
        raise RulesetLoadError(
            f"rules {ruleset_id!r}: entry point {_entry_points()[ruleset_id][0].value!r} gave a ruleset whose id "
            f"is {ruleset.id!r}"
        )
    return ruleset


def describe(
    ruleset: Ruleset, distribution: str = "", distribution_version: str = "", entry_point: str = ""
) -> RulesetInfo:
    """A ruleset's listing entry (where it comes from is the caller's to say)."""
    scenarios = tuple(s.id for s in ruleset.scenarios())
    return RulesetInfo(
        id=ruleset.id,
        title=ruleset.title,
        version=str(ruleset.version),
        scenarios=scenarios,
        sides={s: tuple(ruleset.sides(s)) for s in scenarios},
        distribution=distribution,
        distribution_version=distribution_version,
        entry_point=entry_point,
    )


def installed_rulesets() -> list[RulesetInfo]:
    """Every installed ruleset, by id: what ``pbem rules [--json]`` lists.  Loads
    each one (a ruleset that fails to load raises :class:`RulesetLoadError`)."""
    out = []
    for ruleset_id, eps in _entry_points().items():
        dist, version = _where(eps[0])
        out.append(describe(find_ruleset(ruleset_id), dist, version, eps[0].value))
    return out


def forget() -> None:
    """Drop the cached entry points and factories (a test that installs a ruleset
    into the running process calls this)."""
    _entry_points.cache_clear()
    _factory.cache_clear()
