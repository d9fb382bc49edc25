"""Section 9.4: baggage.

Baggage never attacks, defends at 1 (never changed by terrain), has no ZOC, is
attacked only hand to hand, and ignores R and T.  A combat unit stacked with
baggage is attacked only hand to hand, adds its strength to the baggage's 1 and
ignores R (after a combat or a morale check); its steps are lost normally, and
the baggage is pillaged (eliminated, +2 army morale points) if the unit is
eliminated.
"""

from __future__ import annotations

from pbem.rules.furor_barbarus.battlefield import Battlefield

BAGGAGE_DEFENCE = 1


def defends_alone(field: Battlefield, h: str) -> bool:
    b = field.baggage_in(h)
    return b is not None and field.combat_unit_in(h) is None


def baggage_bonus(field: Battlefield, h: str) -> int:
    return BAGGAGE_DEFENCE if field.baggage_in(h) is not None else 0
