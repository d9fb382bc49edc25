"""``pbem games``: every game on this referee at a glance."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pbem import store
from pbem.referee import deadlines, verdict
from pbem.rules import find_ruleset
from pbem.store.clock import zones
from pbem.store.transaction import transaction
from pbem.turnfiles.deadline import format_duration, moment_text

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine


@dataclass(frozen=True)
class GameLine:
    game: str
    rules: str
    scenario: str
    resolution: int  # the latest active resolution (0: none yet)
    label: str
    awaiting: tuple[str, ...]
    clock: str
    deadline: datetime | None
    last_activity: datetime
    over: bool
    outcome: dict | None
    awaited: int = 0  # the resolution awaited next (the one ``label`` names while in play)
    grace: int = 0
    zone: str = "UTC"

    def heading(self) -> str:
        """``resolution K - LABEL``, as ``pbem status`` and the reports say it."""
        return f"resolution {self.resolution if self.over else self.awaited} - {self.label}"

    def deadline_text(self) -> str:
        if self.deadline is None or self.over:
            return self.clock
        grace = f", grace {format_duration(self.grace)}" if self.grace else ""
        return f"deadline {moment_text(self.deadline, self.zone)}{grace}"

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "rules": self.rules,
            "scenario": self.scenario,
            "resolution": self.resolution,
            "label": self.label,
            "awaiting": list(self.awaiting),
            "clock": self.clock,
            "deadline": _iso(self.deadline),
            "last_activity": _iso(self.last_activity),
            "over": self.over,
            "outcome": self.outcome,
            "awaited": None if self.over else self.awaited,
            "tz": self.zone,
        }


def _iso(when: datetime | None) -> str | None:
    return when.isoformat().replace("+00:00", "Z") if when else None


def list_games(engine: Engine) -> list[GameLine]:
    out = []
    with transaction(engine, write=False) as tx:
        for game_id in store.known_game_ids(tx):
            game = store.game_state(tx, game_id)
            assert game is not None
            ruleset = find_ruleset(game.rules)
            scenario = tx.one("SELECT scenario, current_k, next_k FROM game WHERE id = :g", {"g": game_id})
            t = deadlines.timing(tx, game_id)
            clock = deadlines.read_clock(tx, game_id)
            out.append(
                GameLine(
                    game=game_id,
                    rules=game.rules,
                    scenario=scenario[0] if scenario else "",
                    resolution=scenario[1] if scenario else 0,
                    label=ruleset.turn_label(game.position),
                    awaiting=t.awaiting if t else (),
                    clock=clock.describe(),
                    deadline=t.deadline if t else None,
                    last_activity=deadlines.last_activity(tx, game_id),
                    over=game.over,
                    outcome=json.loads(game.result) if game.result else None,
                    awaited=scenario[2] if scenario else 1,
                    grace=clock.grace,
                    zone=zones(tx, game_id)[0],
                )
            )
    return out


def outcome_text(line: GameLine) -> str:
    if not line.over:
        return "in play"
    return verdict.result_text(json.dumps(line.outcome), line.rules) if line.outcome else "over"
