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
Finding one ruleset (every command that plays one) reads the group itself, as
``importlib.metadata`` finds it on a path of folders (:func:`_scanned`), without
importing ``importlib.metadata`` (and ``email``, ``zipfile``, ``csv`` with it: a
sixth of ``pbem check``'s start-up); the listing, a conflict and any path this
scan does not cover (a zip, an ``.egg``, a finder of distributions of its own) go
through ``importlib.metadata``.

>>> "farrapos" in ruleset_ids()
True
>>> find_ruleset("farrapos").title
'Farrapos (Julio Trois, 2011)'
"""

from __future__ import annotations

import functools
import os
import re
import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

from pbem.rules.base import Ruleset
from pbem.rules.frozen import Frozen, setter

GROUP = "pbem.rulesets"
"""The entry-point group rulesets register in."""


class RulesetLoadError(ValueError):
    """An entry point in the group that does not give a usable ruleset (its module
    fails to import, it returns something else, or its id differs)."""


class RulesetInfo(Frozen):
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

    def __init__(
        self,
        id: str,
        title: str,
        version: str,
        scenarios: tuple[str, ...],
        sides: dict[str, tuple[str, ...]],
        distribution: str,
        distribution_version: str,
        entry_point: str,
    ) -> None:
        setter(self, "id", id)
        setter(self, "title", title)
        setter(self, "version", version)
        setter(self, "scenarios", scenarios)
        setter(self, "sides", sides)
        setter(self, "distribution", distribution)
        setter(self, "distribution_version", distribution_version)
        setter(self, "entry_point", entry_point)

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
    from importlib.metadata import entry_points

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


_DIST_INFO = (".dist-info", ".egg-info")
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*:\s*(?P<attr>[\w.]+)\s*")
"""An entry point's value in the plain form ``module:attribute`` (importlib.metadata's
pattern, without extras)."""


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _scannable() -> bool:
    """Whether :func:`_scanned` finds what ``importlib.metadata`` would: only the
    standard path finder finds distributions, and no path entry is a zip or an egg."""
    from importlib.machinery import PathFinder

    if any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path):
        return False
    return not any(os.path.basename(entry).lower().endswith(".egg") or os.path.isfile(entry) for entry in sys.path)


def _group_of(text: str) -> list[tuple[str, str]]:
    """The (name, value) pairs of ``GROUP``'s section of an ``entry_points.txt``, as
    ``importlib.metadata`` reads the file."""
    pairs, section = [], None
    for line in filter(None, map(str.strip, text.splitlines())):
        if line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == GROUP:
            name, _, value = line.partition("=")
            pairs.append((name.strip(), value.strip()))
    return pairs


def _scanned() -> dict[str, tuple[str, ...]] | None:
    """Ruleset id -> the values of the entry points registering it, found the way
    ``importlib.metadata.entry_points`` finds them on a path of folders (each
    ``*.dist-info``/``*.egg-info`` of each ``sys.path`` entry in order, a
    distribution's first copy only); None when the path holds what only
    ``importlib.metadata`` reads."""
    if not _scannable():
        return None
    found: dict[str, dict[str, None]] = {}
    seen: set[str] = set()
    for entry in sys.path:
        try:
            children = os.listdir(entry or ".")
        except OSError:
            continue
        infos: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith(_DIST_INFO):
                infos.setdefault(_normalized(low.rpartition(".")[0].partition("-")[0]), []).append(child)
        for name, dists in infos.items():
            for child in dists:
                if name in seen:
                    continue
                seen.add(name)
                try:
                    with open(os.path.join(entry, child, "entry_points.txt"), encoding="utf-8") as f:
                        text = f.read()
                except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
                    continue
                if GROUP in text:
                    for ep_name, value in _group_of(text):
                        found.setdefault(ep_name, {}).setdefault(value, None)
    return {name: tuple(values) for name, values in sorted(found.items())}


@functools.cache
def _scanned_once() -> dict[str, tuple[str, ...]] | None:
    return _scanned()


def _loaded_plainly(ruleset_id: str) -> Any:
    """The factory of ``ruleset_id`` when the scan finds it registered once, in the
    plain form, and it imports; None otherwise (``importlib.metadata`` then says
    what is wrong, as it always did)."""
    scanned = _scanned_once()
    values = scanned.get(ruleset_id) if scanned is not None else None
    match = _VALUE.fullmatch(values[0]) if values and len(values) == 1 else None
    if match is None:
        return None
    try:
        return functools.reduce(getattr, match["attr"].split("."), import_module(match["module"]))
    except (ImportError, AttributeError):
        return None


@functools.cache
def _factory(ruleset_id: str) -> Any:
    plain = _loaded_plainly(ruleset_id)
    if plain is not None:
        return plain
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
    _scanned_once.cache_clear()
    _factory.cache_clear()
