"""The working state of one resolution: a mutable copy of the position plus the
scenario, its map and special rules.  Every rule module reads and changes the game
through it; ``position`` (a plain JSON dict) is what comes out.

This is the engine's pure core: it knows the units, their hexes, step losses and
eliminations (what every rule changes), and imports no rule step.  The steps
(movement, combat, retreat, morale...) import it, never the reverse; a test
(``tests/test_rules_import_cycles.py``) fails on any import cycle in ``rules/``.

Position layout (JSON)::

    {"rules": "furor-barbarus", "scenario": id, "options": [...],
     "phase": "setup" | "play" | "over", "turn": 1, "player": 1 | 2,
     "setup_step": 1 | 2,                          # only during the set-up (3)
     "players": [player-1 side, player-2 side],     # [] until set-up decides
     "units": {uid: {"hex": "0907" | None, "side": side, "reduced": bool,
                     "status": "active" | "eliminated" | "removed"}},
     "losses": {side: army morale points lost},
     "eliminated": [uid, ...],                     # in order of elimination
     "standing": {side: {"advance": bool, "losses": [uid, ...]}},
     "special": {...},                             # the scenario rules' memo
     "outcome": None | Outcome.to_json()}
"""

from __future__ import annotations

from typing import Any

from pbem.rules.base import Dice, Event
from pbem.rules.furor_barbarus.counters import Counter
from pbem.rules.furor_barbarus.maps import GameMap
from pbem.rules.furor_barbarus.scenario_rules import ScenarioRules
from pbem.rules.furor_barbarus.scenarios import Scenario

NEUTRAL = "neutral"
ACTIVE = "active"
COMMANDER_LOSS_BONUS = 4  # section 10
BAGGAGE_LOSS_BONUS = 2


class NoDice:
    """Dice for validation and bots: any roll is a refusal to guess."""

    def roll(self, sides: int, purpose: str) -> int:
        raise RuntimeError(f"no dice while checking orders ({purpose})")


class Battlefield:
    def __init__(
        self,
        position: dict[str, Any],
        scenario: Scenario,
        game_map: GameMap,
        special: ScenarioRules,
        dice: Dice | None = None,
    ) -> None:
        self.position = position
        # the units' entries, an attribute (not a property: read thousands of times a resolution)
        self.units: dict[str, dict[str, Any]] = position["units"]
        self.scenario = scenario
        self.game_map = game_map
        self.special = special
        self.dice: Dice = dice if dice is not None else NoDice()
        self.events: list[Event] = []
        self.options: frozenset[str] = frozenset(position.get("options", []))
        self.memo: dict[str, Any] = position.setdefault("special", {})
        # per phase (not kept in the position: a phase never spans two resolutions)
        self.paths: dict[str, list[str]] = {}  # uid -> hexes from its start hex, this phase
        self.moved: set[str] = set()
        self.has_attacked: set[str] = set()
        self.was_attacked: set[str] = set()
        self._cache: dict[object, Any] = {}
        self._where: dict[str, list[str]] | None = None  # hex -> its units, kept up to date as they move
        self._rank: dict[str, int] = {}  # uid -> its place in the position's units (the index's order)
        self.index_builds = 0  # how often the hex index was built (a test counts it)

    def touched(self, uid: str | None = None, was_side: str | None = None) -> None:
        """Forget cached lookups (called by every method that moves or removes a
        unit).  Told which unit changed, it keeps what that unit cannot affect: the
        zone of control of the enemies of ``side`` (``("zoc", side)``) depends only on
        the units of ``side``'s enemies, so a unit of the side that is moving leaves
        its own side's cached enemy zone as it was (before the speed work, clearing everything
        made a movement phase work the zones out dozens of times).  ``was_side``:
        the unit's side before a change of side."""
        if uid is None:
            self._cache.clear()
            self._where = None
            return
        cache = self._cache
        if not cache:
            return
        side = str(self.units[uid]["side"])
        was = was_side or side
        for key in list(cache):
            if isinstance(key, tuple) and key[0] == "zoc":  # kept unless ``uid`` was or is an enemy of key[1]
                s = key[1]
                if (s == side or NEUTRAL == s or NEUTRAL == side) and (s == was or NEUTRAL == s or NEUTRAL == was):
                    continue
            del cache[key]

    def cached(self, key: object, compute: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # --- reading -------------------------------------------------------------
    @property
    def turn(self) -> int:
        return int(self.position["turn"])

    @property
    def player_order(self) -> tuple[str, ...]:
        return tuple(self.position.get("players", []))

    @property
    def active(self) -> str:
        players = self.player_order
        if not players:
            return ""
        return players[int(self.position.get("player", 1)) - 1]

    def counter(self, uid: str) -> Counter:
        return self.scenario.counters[uid]

    def exists(self, uid: str) -> bool:
        return uid in self.units and self.units[uid]["status"] == ACTIVE and self.units[uid]["hex"] is not None

    def hex_of(self, uid: str) -> str | None:
        u = self.units.get(uid)
        return u["hex"] if u and u["status"] == ACTIVE else None

    def side_of(self, uid: str) -> str:
        return str(self.units[uid]["side"])

    def is_reduced(self, uid: str) -> bool:
        return bool(self.units[uid]["reduced"])

    def strength(self, uid: str) -> int:
        """Printed strength (= morale) on the face showing."""
        return self.counter(uid).value(self.is_reduced(uid))

    def on_map(self, side: str | None = None) -> list[str]:
        return [
            u
            for u, s in self.units.items()
            if s["status"] == ACTIVE and s["hex"] is not None and (side is None or s["side"] == side)
        ]

    def units_in(self, h: str) -> list[str]:
        where = self._where if self._where is not None else self._index()
        found = where.get(h)
        return list(found) if found else []

    def occupied(self) -> dict[str, list[str]]:
        """The hex index itself (hex -> its units, only hexes with units): read it, never change it."""
        return self._where if self._where is not None else self._index()

    def _index(self) -> dict[str, list[str]]:
        """The units of each hex, in the order of the position's units; built once
        per battlefield, then kept up to date by :meth:`_reindex` as units move,
        leave or die (before the speed work, every move threw it away and a
        resolution built it some twenty times)."""
        out: dict[str, list[str]] = {}
        for u, s in self.units.items():
            if s["status"] == ACTIVE:
                h = s["hex"]
                if h is not None:
                    found = out.get(h)
                    if found is None:
                        out[h] = [u]
                    else:
                        found.append(u)
        self.adopt_index(out)
        return out

    def adopt_index(self, where: dict[str, list[str]]) -> None:
        """Keep ``where`` as the hex index: built by :meth:`_index`, or by a caller's own
        pass over the units in the same way (``zones_of_control.zone_and_index``)."""
        self.index_builds += 1
        self._rank = {}  # filled when a unit first joins an occupied hex (see _reindex)
        self._where = where

    def _located(self, uid: str) -> str | None:
        u = self.units[uid]
        return u["hex"] if u["status"] == ACTIVE else None

    def _reindex(self, uid: str, before: str | None) -> None:
        """Move ``uid`` in the hex index from ``before`` to where it is now."""
        where = self._where
        if where is None:
            return
        after = self._located(uid)
        if after == before:
            return
        if before is not None:
            here = where[before]
            here.remove(uid)
            if not here:
                del where[before]
        if after is not None:
            there = where.get(after)
            if there is None:  # an empty hex: no order to keep
                where[after] = [uid]
                return
            ranks = self._rank
            if not ranks:
                ranks = self._rank = {u: n for n, u in enumerate(self.units)}
            rank = ranks[uid]
            at = len(there)
            while at and ranks[there[at - 1]] > rank:
                at -= 1
            there.insert(at, uid)

    def combat_unit_in(self, h: str) -> str | None:
        for u in self.units_in(h):
            if self.counter(u).is_combat_unit:
                return u
        return None

    def commander_in(self, h: str) -> str | None:
        for u in self.units_in(h):
            if self.counter(u).is_commander:
                return u
        return None

    def baggage_in(self, h: str) -> str | None:
        for u in self.units_in(h):
            if self.counter(u).is_baggage:
                return u
        return None

    def principal(self, h: str) -> str | None:
        """The unit that fights for a hex: its combat unit, else a lone commander
        or baggage."""
        return self.combat_unit_in(h) or self.commander_in(h) or self.baggage_in(h)

    def stack_of(self, uid: str) -> list[str]:
        """``uid`` and the commander / baggage that share its hex."""
        h = self.hex_of(uid)
        return [uid] + [u for u in self.units_in(h) if u != uid] if h else [uid]

    @staticmethod
    def enemies(a: str, b: str) -> bool:
        return a != b and NEUTRAL not in (a, b)

    def hostile_in(self, h: str, side: str) -> bool:
        """Does a unit not of ``side`` (enemy or neutral) stand in ``h``?"""
        return any(self.side_of(u) != side for u in self.units_in(h))

    def friendly_in(self, h: str, side: str) -> list[str]:
        return [u for u in self.units_in(h) if self.side_of(u) == side]

    def adjacent_enemies(self, uid: str) -> list[str]:
        h = self.hex_of(uid)
        if h is None:
            return []
        side = self.side_of(uid)
        return [u for n in self.game_map.neighbours(h) for u in self.units_in(n) if self.enemies(side, self.side_of(u))]

    def losses(self, side: str) -> int:
        return int(self.position["losses"].get(side, 0))

    def standing(self, side: str) -> dict[str, Any]:
        return self.position.setdefault("standing", {}).setdefault(side, {"advance": False, "losses": []})

    # --- writing ---------------------------------------------------------------
    def add_event(self, type_: str, text: str, **data: Any) -> None:
        self.events.append({"type": type_, "text": text, **data})

    def set_side(self, uid: str, side: str) -> None:
        was = self.side_of(uid)
        self.units[uid]["side"] = side
        self.touched(uid, was)

    def place(self, uid: str, h: str) -> None:
        entry = self.units[uid]
        active = entry["status"] == ACTIVE
        before = entry["hex"] if active else None
        entry["hex"] = h
        where = self._where
        if where is not None and before != h:
            if active and before is not None and h is not None and h not in where:
                # _reindex's commonest case without its calls: from a hex to an empty one
                here = where[before]
                here.remove(uid)
                if not here:
                    del where[before]
                where[h] = [uid]
            else:
                self._reindex(uid, before)
        cache = self._cache
        # ``touched(uid)``, without the call when the only zone kept is the mover's own side's enemies'
        # (one it leaves as it is): a move of a dry walk or of a resolution, after the first
        if cache and (len(cache) != 1 or ("zoc", entry["side"]) not in cache):
            self.touched(uid)

    def take_off(self, uid: str) -> None:
        """Off the map as eliminated, with no event and no loss counted (the dry
        walk of the orders, standing for an overrun it does not roll)."""
        before = self._located(uid)
        self.units[uid].update(status="eliminated", hex=None)
        self._reindex(uid, before)
        self.touched(uid)

    def lose_step(self, uid: str, cause: str) -> bool:
        """One step loss (9.9); returns True if the unit is eliminated by it."""
        c = self.counter(uid)
        if c.steps == 2 and not self.is_reduced(uid):
            self.units[uid]["reduced"] = True
            self.add_event("step_loss", f"{c.name} ({uid}) loses a step ({cause}).", unit=uid, cause=cause)
            self.special.on_step_loss(self, uid, False, cause)
            return False
        self.eliminate(uid, cause)
        self.special.on_step_loss(self, uid, True, cause)
        return True

    def eliminate(self, uid: str, cause: str) -> None:
        """Eliminated (counts for army morale, section 10); a stacked commander
        dies with his unit (6), stacked baggage is pillaged (9.4)."""
        if not self.exists(uid):
            return
        h = self.hex_of(uid)
        c = self.counter(uid)
        side = self.side_of(uid)
        self.units[uid].update(status="eliminated", hex=None)
        self._reindex(uid, h)
        self.touched(uid)
        self.position.setdefault("eliminated", []).append(uid)
        points = 0
        if self.special.counts_for_morale(self, uid) and side != NEUTRAL:
            points = morale_points(c)
            self.position["losses"][side] = self.losses(side) + points
        word = "pillaged" if c.is_baggage else "eliminated"
        self.add_event(
            "elimination",
            f"{c.name} ({uid}) is {word} ({cause}); {side} army morale loss {points}.",
            unit=uid,
            hex=h,
            side=side,
            points=points,
            cause=cause,
        )
        self.special.on_elimination(self, uid, cause)
        if c.is_combat_unit and h is not None:
            for other in self.units_in(h):
                oc = self.counter(other)
                if oc.is_commander:
                    self.eliminate(other, f"his unit {uid} was eliminated")
                elif oc.is_baggage:
                    self.eliminate(other, f"the unit defending it, {uid}, was eliminated")

    def remove(self, uid: str, cause: str) -> None:
        """Leaves the map without counting for army morale (special rules)."""
        h = self.hex_of(uid)
        self.units[uid].update(status="removed", hex=None)
        self._reindex(uid, h)
        self.touched(uid)
        self.add_event(
            "removal", f"{self.counter(uid).name} ({uid}) leaves the battle ({cause}).", unit=uid, hex=h, cause=cause
        )


def morale_points(c: Counter) -> int:
    """What an eliminated counter adds to its army's total (10): its full
    strength, +4 for a commander, +2 for baggage."""
    bonus = COMMANDER_LOSS_BONUS if c.is_commander else BAGGAGE_LOSS_BONUS if c.is_baggage else 0
    return c.strength + bonus
