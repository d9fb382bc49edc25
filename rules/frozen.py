"""Frozen value classes that cost nothing to define: what ``@dataclass(frozen=True)``
gives (equality and hash over the fields in order, ``Name(field=value, ...)`` as
repr, :class:`dataclasses.FrozenInstanceError` on assignment, ``__match_args__``)
without writing and compiling the source of six methods per class when its module
is imported (about 3 M instructions a class, a fifth of ``pbem check``'s start-up
over some thirty classes).

A subclass's fields are the names its body annotates, in order (its
``__match_args__``, unless it sets that itself); it writes its ``__init__``,
setting each field with :func:`setter` (``object.__setattr__``, as a frozen
dataclass's ``__init__`` does):

>>> class Point(Frozen):
...     x: int
...     y: int
...
...     def __init__(self, x: int, y: int = 0) -> None:
...         setter(self, "x", x)
...         setter(self, "y", y)
>>> p = Point(1, 2); p, p == Point(1, 2), hash(p) == hash((1, 2)), p == (1, 2)
(Point(x=1, y=2), True, True, False)
>>> p.x = 3
Traceback (most recent call last):
dataclasses.FrozenInstanceError: cannot assign to field 'x'

A field named in ``_unshown`` is left out of the repr (a dataclass's
``field(repr=False)``).

(``dataclasses.replace``, ``fields`` and ``asdict`` do not apply: a class they are
used on stays a dataclass.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any, ClassVar

setter = object.__setattr__
"""Sets a field in ``__init__`` (the class's own ``__setattr__`` refuses)."""


def set_fields(instance: Frozen, **values: Any) -> None:
    """Sets every field of ``instance`` in its ``__init__`` at once, in its own
    ``__dict__`` (a class with no ``__slots__`` of its own): ``setter`` checks the
    class's bases at each call, about 2 k instructions a field, which made the
    objects a turn file's verdict makes (its envelope, the verdict, its orders) a
    noticeable part of a submit."""
    instance.__dict__.update(values)


def _no_values(instance: object) -> tuple[Any, ...]:
    return ()


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields' values as a tuple, the tuple a dataclass compares and hashes."""
    if not names:
        return _no_values
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda instance: (one(instance),)
    return attrgetter(*names)


def _fields(cls: type) -> tuple[str, ...]:
    """A class's fields: the names its own body annotates, in order, less its
    ``ClassVar`` names (annotations are read as text: ``from __future__ import
    annotations``)."""
    annotations = cls.__dict__.get("__annotations__", {})
    return tuple(name for name, kind in annotations.items() if not str(kind).startswith(_CLASS_VARS))


_CLASS_VARS = ("ClassVar", "typing.ClassVar")


class Frozen:
    """Base of frozen value classes: see the module's documentation."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _values: ClassVar[Callable[[Any], tuple[Any, ...]]] = staticmethod(_no_values)
    _unshown: ClassVar[tuple[str, ...]] = ()
    _shown: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__match_args__" not in cls.__dict__:  # the fields: the class's own annotations, in order
            setattr(cls, "__match_args__", _fields(cls))  # noqa: B010 (mypy refuses the plain assignment)
        cls._values = staticmethod(_values_of(cls.__match_args__))
        cls._shown = tuple(name for name in cls.__match_args__ if name not in cls._unshown)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return type(self)._values(self) == type(self)._values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(type(self)._values(self))

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{self.__class__.__qualname__}({values})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
