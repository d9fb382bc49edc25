"""The order template a side is sent (with every report) or writes itself
(``pbem orders``, on the referee's database or offline from a position file):
one function, so the three are the same bytes.

Every line is within 72 columns (:data:`pbem.rules.template_text.TEMPLATE_WIDTH`):
the header comment naming the game and the resolution, and the deadline lines,
are wrapped like the ruleset's own comments."""

from __future__ import annotations

from datetime import datetime

from pbem.rules.base import Position, Ruleset
from pbem.rules.template_text import fit_comments
from pbem.turnfiles.deadline import deadline_lines
from pbem.turnfiles.envelope import render_turn_file


def turn_template(
    ruleset: Ruleset,
    game_id: str,
    rules_id: str,
    side: str,
    k: int,
    state_hash: str,
    position: Position,
    deadline: datetime | None = None,
    grace: int = 0,
    zone: str | None = None,
) -> str:
    """The commented template of ``side``'s orders for resolution ``k``."""
    head = [f"# {ruleset.title}: {game_id}, resolution {k} - {ruleset.turn_label(position)}"]
    if deadline is not None:
        head.extend(f"# {line}" for line in deadline_lines(deadline, grace, zone))
    body = fit_comments("\n".join(head) + "\n") + ruleset.order_template(position, side)
    return render_turn_file(game_id, rules_id, side, k, state_hash, body)
