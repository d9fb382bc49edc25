"""Hooks for a scenario's special rules.

The engine calls a :class:`ScenarioRules` object at fixed moments of a
resolution; every method's default does nothing (or returns the engine's own
answer), so a scenario without special rules needs no class at all.  A
scenario's class is registered by scenario id in
``rules.furor_barbarus.special_rules.REGISTRY``.

Every hook receives ``field``: the :class:`~rules.furor_barbarus.battlefield.Battlefield`
being resolved (a mutable working copy of the position).  Hooks change the game
only through it:

- read: ``field.scenario`` (the loaded :class:`~rules.furor_barbarus.scenarios.Scenario`,
  ``field.scenario.raw`` is the whole TOML table), ``field.game_map``,
  ``field.options`` (frozenset of option ids), ``field.turn``, ``field.active``
  (side moving now), ``field.player_order`` (player 1, player 2),
  ``field.counter(uid)`` (the unit's :class:`~rules.furor_barbarus.counters.Counter`),
  ``field.hex_of(uid)`` (hex id or None), ``field.side_of(uid)``,
  ``field.strength(uid)`` (printed strength, full or reduced),
  ``field.is_reduced(uid)``, ``field.on_map(side=None)`` (unit ids on the map),
  ``field.units_in(hex)``, ``field.adjacent_enemies(uid)``,
  ``field.losses(side)`` (army morale total so far), ``field.dice``;
- write: ``field.set_side(uid, side)`` (a side id, or ``"neutral"``: a neutral
  unit blocks its hex, has no ZOC and cannot move), ``field.lose_step(uid, cause)``,
  ``field.eliminate(uid, cause)`` (counts for army morale),
  ``field.remove(uid, cause)`` (leaves the map without counting, e.g. the Alans'
  defection), ``field.place(uid, hex)``, ``field.add_event(type, text, **data)``;
  the rule steps are functions of the field: ``morale.retreat(field, uid,
  attackers=())`` (9.8, with the displaced units' morale checks) and
  ``morale.morale_check(field, uid, purpose)`` (9.10);
- keep the scenario's own JSON-serialisable data in ``field.memo`` (a dict kept
  in the position under ``"special"``; e.g. ``field.memo["divine_help_turn"] = 4``).

Dice: roll only through ``field.dice.roll(6, purpose)`` with a purpose naming
the rule ("Defection of the Alans").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from rules.base import Outcome
    from rules.furor_barbarus.battlefield import Battlefield
    from rules.furor_barbarus.combat import Combat


class ScenarioRules:
    """Special rules of one scenario.  Subclass and override what you need."""

    scenario_id: str = ""

    # --- the set-up -------------------------------------------------------------
    def setup_problems(self, field: Battlefield, side: str) -> list[tuple[str, str]]:
        """Placements of ``side`` that a special rule forbids, once all of that
        side's units of the set-up step are placed: ``(unit id, reason)`` pairs.  The
        checker refuses the unit's ``place`` line with the reason; a unit placed
        without a line is moved to another hex of its deployment.  Must not change
        the field.  E.g. Campus Mauriacus: Ardaric "with a Gepid unit"."""
        return []

    # --- the turn ---------------------------------------------------------------
    def start_of_turn(self, field: Battlefield) -> None:
        """Phase 1 is about to begin for turn ``field.turn`` (called once per
        turn, before player 1's orders are applied; not during set-up).
        E.g. Soissons rolls for Chararic from turn 3; Tolbiac ends divine help."""

    def start_of_phase(self, field: Battlefield, side: str) -> None:
        """``side`` is about to move (its movement phase begins)."""

    def end_of_turn(self, field: Battlefield) -> None:
        """Phase 5 is about to check victory for ``field.turn``."""

    # --- orders ----------------------------------------------------------------
    def check_special(self, field: Battlefield, side: str, words: tuple[str, ...]) -> str | None:
        """Validate a ``special WORD ARG ...`` order line (e.g. ``special
        feigned-flight huns-1 ostrogoths-2``): return ``None`` if legal, else the
        reason.  The default refuses every special order."""
        return f"this scenario has no special order {' '.join(words)!r}"

    def apply_special(self, field: Battlefield, side: str, words: tuple[str, ...]) -> None:
        """Carry out a validated special order, when its line is reached in the
        movement part of the turn file (special lines run in file order among
        the moves)."""

    def before_move(self, field: Battlefield, uid: str, path: tuple[str, ...]) -> tuple[str, ...]:
        """A unit is about to move along ``path`` (hex ids after its start hex).
        Return the path to actually follow (the default: ``path``); a rule may
        shorten it or act first (e.g. impetuousness).  The engine checks the path
        returned with ``check_move`` (ZOC stops, 10.1 tests and overruns are those
        of the path actually followed); an illegal one leaves the unit in place.
        An empty path: the unit stays where it is."""
        return path

    # --- combat ----------------------------------------------------------------
    def on_attacked(self, field: Battlefield, combat: Combat) -> bool:
        """The defender of ``combat`` is about to be attacked (after the attack
        was found legal, before strengths are added).  Return ``True`` if the
        combat is cancelled (e.g. the Breton cavalry evades: move it with
        ``field.place`` and add an event); the attackers then count as having
        attacked and no advance follows.  Also the moment to make a neutral
        defender join the other camp (Soissons)."""
        return False

    def before_combat(self, field: Battlefield, combat: Combat) -> None:
        """Strengths, odds and modifiers are known (``combat.attack_strength``,
        ``combat.defence_strength``, ``combat.column``, ``combat.die_modifier``);
        a rule may still change them before the die is rolled."""

    def after_combat(self, field: Battlefield, combat: Combat) -> None:
        """The result (``combat.result``) has been applied, retreats and advance done."""

    def on_step_loss(self, field: Battlefield, uid: str, eliminated: bool, cause: str) -> None:
        """``uid`` has just lost a step (``eliminated`` if that removed it).
        E.g. the Alans' defection roll."""

    def on_elimination(self, field: Battlefield, uid: str, cause: str) -> None:
        """``uid`` has just been eliminated (by combat, morale, retreat off the map,
        or with its unit for a commander).  E.g. the commander's death roll."""

    # --- values the engine asks for ------------------------------------------------
    def can_charge(self, field: Battlefield, uid: str, default: bool) -> bool:
        """May ``uid`` charge at all?  ``default`` is the core answer (cavalry, or
        a unit with the ``charge`` mark).  Campus Mauriacus: only marked units."""
        return default

    def melee_penalty(self, field: Battlefield, uid: str, default: bool) -> bool:
        """Does missile unit ``uid`` take the -1 hand-to-hand penalty?  ``default``
        already honours the ``no_melee_penalty`` mark and the sniper exception."""
        return default

    def strength_modifier(self, field: Battlefield, uid: str, role: str) -> int:
        """Added to ``uid``'s strength in combat; ``role`` is ``"attack"`` or
        ``"defence"``.  E.g. Tolbiac's divine help, a commander's death roll."""
        return 0

    def morale_modifier(self, field: Battlefield, uid: str) -> int:
        """Added to ``uid``'s morale in every morale check (after the commander bonus)."""
        return 0

    def commander_affects(self, field: Battlefield, commander: str, uid: str) -> bool:
        """Does ``commander`` affect ``uid``: give it his +1 morale (6, 9.10) and,
        stacked with it, add his strength to it in hand-to-hand combat (6)?
        Default: any friendly unit (optional rule 5 of Campus Mauriacus: same
        band only)."""
        return True

    def counts_for_morale(self, field: Battlefield, uid: str) -> bool:
        """Does the loss of ``uid`` count towards its army's morale threshold?
        (``field.remove`` never counts; this is for eliminations.)"""
        return True

    # --- victory -----------------------------------------------------------------
    def victory(self, field: Battlefield, core: Outcome | None, last_turn: bool) -> Outcome | None:
        """Phase 5.  ``core`` is the engine's answer (thresholds of section 10;
        at the end of the last turn with no threshold passed: lesser eliminated
        strength wins a minor victory, else a draw).  Return the outcome to use
        (``None``: the game goes on).  E.g. Soissons gives the Gallo-Romans a
        minor victory at the end."""
        return core


NO_SPECIAL_RULES = ScenarioRules()


def describe_hooks() -> dict[str, Any]:
    """Hook name -> first docstring line (for docs and tests)."""
    out: dict[str, Any] = {}
    for name, value in vars(ScenarioRules).items():
        if callable(value) and not name.startswith("_"):
            out[name] = (value.__doc__ or "").strip().splitlines()[0]
    return out
