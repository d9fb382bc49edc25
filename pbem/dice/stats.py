"""Statistics over a dice history, for ``pbem dice --stats`` (docs/dice.md, "Statistics").

Rolls may be :class:`rules.dice.Roll` values, stored rows, or archive dicts: anything
with ``sides`` and ``value`` as attributes or keys.  For each die size the counts
cover every face ``1..sides`` (zeros included) and the chi-square test is the
goodness of fit to a fair die: ``sum((observed - expected)**2 / expected)`` with
``sides - 1`` degrees of freedom and its upper-tail p-value.

>>> from pbem.rules.dice import Roll
>>> rolls = [Roll(i, 6, v, "demo") for i, v in enumerate([1, 2, 3, 4, 5, 6])]
>>> face_counts(rolls)[6][3]
1
>>> chi_square(rolls)[6]
ChiSquare(statistic=0.0, degrees_of_freedom=5, p_value=1.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple


class ChiSquare(NamedTuple):
    statistic: float
    degrees_of_freedom: int
    p_value: float


def _sides_and_value(roll: Any) -> tuple[int, int]:
    if isinstance(roll, Mapping):
        sides, value = roll["sides"], roll["value"]
    else:
        sides, value = roll.sides, roll.value
    if not 2 <= sides <= 256 or not 1 <= value <= sides:
        raise ValueError(f"roll value {value!r} is not on a d{sides} (dice are d2 to d256)")
    return sides, value


def face_counts(rolls: Iterable[Any]) -> dict[int, dict[int, int]]:
    """``{sides: {face: count}}`` with every face of each die size rolled at least once."""
    counts: dict[int, dict[int, int]] = {}
    for roll in rolls:
        sides, value = _sides_and_value(roll)
        faces = counts.get(sides)
        if faces is None:  # a die size's table made at its first roll, not at every roll
            faces = counts[sides] = dict.fromkeys(range(1, sides + 1), 0)
        faces[value] += 1
    return dict(sorted(counts.items()))


def chi_square(rolls: Iterable[Any]) -> dict[int, ChiSquare]:
    """``{sides: (statistic, degrees_of_freedom, p_value)}`` against a fair die.

    A small p-value (say below 0.001) means the faces are further from even than a
    fair die would plausibly give; with few rolls per face (fewer than about 5) the
    chi-square approximation is rough."""
    return fit(face_counts(rolls))


def fit(counts: Mapping[int, Mapping[int, int]]) -> dict[int, ChiSquare]:
    """:func:`chi_square` of counts :func:`face_counts` made."""
    result: dict[int, ChiSquare] = {}
    for sides, faces in counts.items():
        total = sum(faces.values())
        expected = total / sides
        statistic = sum((observed - expected) ** 2 for observed in faces.values()) / expected
        df = sides - 1
        result[sides] = ChiSquare(statistic, df, chi_square_p_value(statistic, df))
    return result


def chi_square_p_value(statistic: float, degrees_of_freedom: int) -> float:
    """``P(X >= statistic)`` for ``X`` chi-square distributed: ``Q(df/2, statistic/2)``."""
    if degrees_of_freedom < 1:
        raise ValueError(f"degrees of freedom {degrees_of_freedom!r} must be at least 1")
    if statistic <= 0:
        return 1.0
    return regularized_upper_gamma(degrees_of_freedom / 2, statistic / 2)


def regularized_upper_gamma(a: float, x: float) -> float:
    """``Q(a, x) = Gamma(a, x) / Gamma(a)``: the series for ``P`` below ``x < a + 1``,
    Lentz's continued fraction for ``Q`` above (Numerical Recipes, 6.2)."""
    if a <= 0 or x < 0:
        raise ValueError(f"incomplete gamma needs a > 0 and x >= 0, got a={a!r}, x={x!r}")
    if x == 0:
        return 1.0
    log_prefactor = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-16:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1.0 - total * math.exp(log_prefactor))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    i = 0
    while True:
        i += 1
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16 or i > 10_000:
            break
    return math.exp(log_prefactor) * h
