"""``FurorBarbarus``: the ruleset interface over the engine modules."""

from __future__ import annotations

import marshal
import random
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pbem.rules.base import (
    NO_ORDERS,
    Dice,
    Event,
    OptionInfo,
    Orders,
    Outcome,
    Position,
    Problem,
    Resolution,
    Ruleset,
    ScenarioInfo,
    ScoreLine,
    TableError,
    TableInfo,
)
from pbem.rules.furor_barbarus import bots as fb_bots
from pbem.rules.furor_barbarus import svg
from pbem.rules.furor_barbarus import tables as house
from pbem.rules.furor_barbarus.battlefield import ACTIVE, Battlefield
from pbem.rules.furor_barbarus.combat import CombatResultsTable, standard_crt
from pbem.rules.furor_barbarus.counters import Counter
from pbem.rules.furor_barbarus.maps import GameMap
from pbem.rules.furor_barbarus.orders import PlaceOrder, StandingOrder, know_ids, parse_lines
from pbem.rules.furor_barbarus.scenarios import DataLibrary, Scenario
from pbem.rules.furor_barbarus.sequence import apply_standing, play_phase_pair, walk_orders
from pbem.rules.furor_barbarus.setup import (
    SetupPart,
    current_setup_step,
    initial_position,
    place_side,
    play_setup_step,
    setup_part,
    setup_steps,
)
from pbem.rules.furor_barbarus.special_rules import rules_for
from pbem.rules.furor_barbarus.standing import standing_problems
from pbem.rules.furor_barbarus.svg_shapes import short_ids
from pbem.rules.furor_barbarus.unit_names import settle_orders
from pbem.rules.furor_barbarus.unit_table import unit_index
from pbem.rules.kept import PerObject
from pbem.rules.names import NameTable
from pbem.rules.suggest import did_you_mean

CORE_OPTIONS = (
    OptionInfo("zoc-to-zoc", "Moving from an enemy ZOC to another enemy ZOC, with a morale test", "11 (10.1)"),
    OptionInfo("counter-charge", "Counter charge: no charge bonus against units that can charge", "11 (10.2)"),
)


_UNIT_NAMES: dict[tuple[Path, ...], NameTable] = {}
_SHIPPED = DataLibrary()
_WITH_OPTIONS: dict[tuple[int, tuple[str, ...]], tuple[Scenario, Scenario]] = {}  # (scenario, options): both kept
_OVERLAID: dict[tuple[int, int], tuple[GameMap, Mapping[str, Any], GameMap]] = {}


def copied_position(position: Position) -> Position:
    """A deep copy of a Furor Barbarus position (the same keys in the same order):
    each unit's entry is flat (hex, side, reduced, status: battlefield.py), so it is
    copied as a dict (``dict.copy``, called by ``map`` without a Python step a unit);
    the rest (losses, standing, the scenario's memo, house tables) goes through
    ``marshal`` as ``Ruleset.copy_position`` does.  The units are most of a
    position: a whole ``marshal`` round trip cost about four times as much."""
    units = position.get("units")
    if not isinstance(units, dict):
        return Ruleset.copy_position(position)
    out = dict(position)
    nested = {k: v for k, v in position.items() if k != "units" and isinstance(v, (dict, list))}
    out.update(marshal.loads(marshal.dumps(nested)))
    out["units"] = dict(zip(units, map(_dict_copy, units.values())))
    return out


_dict_copy = dict.copy


def checked_position(position: Position) -> Position:
    """The copy of a position that a turn file's check walks its orders on (the play
    phase's dry walk, ``walk_orders(..., dry=True)``): the position's dict and its
    dict of units are its own, and the rest as :func:`copied_position` copies it, but
    each unit's entry is the position's own, shared, until the dry walk changes it:
    the walk copies the entry of a unit it moves or takes off first (a dozen-odd of
    the 44 entries of a Campus Mauriacus file, where the check copied all 44)."""
    units = position.get("units")
    if not isinstance(units, dict):
        return Ruleset.copy_position(position)
    rest = dict(position)
    rest["units"] = None  # the rest through ``marshal`` whole (in the same order): no Python step a key
    out: Position = marshal.loads(marshal.dumps(rest))
    out["units"] = dict(units)
    return out


def overlaid(game_map: GameMap, overlay: Mapping[str, Any]) -> GameMap:
    """``game_map.with_overlay(overlay)``, made once per map and overlay in a process
    (both immutable data, loaded once): the same map, with the hex tables it keeps
    (``zoc_reach``), for every battlefield of a scenario, instead of a fresh copy of
    its terrain and hexsides per battlefield."""
    key = (id(game_map), id(overlay))
    found = _OVERLAID.get(key)
    if found is None or found[0] is not game_map or found[1] is not overlay:
        if len(_OVERLAID) >= 64:
            _OVERLAID.clear()
        found = _OVERLAID[key] = (game_map, overlay, game_map.with_overlay(overlay).prepared())
    return found[2]


@lru_cache(maxsize=16)
def _short_ids(ids: tuple[str, ...]) -> dict[str, str]:
    """``short_ids(ids)``, once per set of unit ids (every game of a scenario has the same): read only."""
    return short_ids(ids)


_WORDS: PerObject[Mapping[str, Counter], dict[tuple[str, str, str, bool], str]] = PerObject(size=16)
"""Each unit in the board in words, by its id, short id, side and face, once per
scenario's counters in a process (units keep them from one resolution to the next);
the counters are kept beside their words, so an id is never worded from other counters."""


def _new_words(_counters: Mapping[str, Counter]) -> dict[tuple[str, str, str, bool], str]:
    return {}


def _unit_words(c: Counter, uid: str, short: str, side: str, reduced: bool) -> str:
    """A unit in the board in words: its id (and the short id its counter prints), name,
    side, type and strength-MP(-range)."""
    shown = f"{uid} ({short})" if short != uid else uid
    factors = f"{c.value(reduced)}-{c.mp}" + (f"-{c.range}" if c.range else "")
    kind = c.type.value.replace("_", " ")
    return f"{shown} {c.name}, {side} {kind} {factors}{' reduced' if reduced else ''}"


class FurorBarbarus(Ruleset):
    id = "furor-barbarus"
    title = "Furor Barbarus"
    map_depends_on_side = False  # nothing on the board is hidden from either side
    side_names_are_plural = True  # the Romans, the Huns, the Franks...

    def cases_folder(self) -> Traversable:
        """The rule cases shipped with this ruleset (docs/formats.md, "Rule cases")."""
        return resources.files("pbem.rules.furor_barbarus") / "cases"

    def __init__(self, data_dirs: Sequence[Path | str] = (), crt: CombatResultsTable | None = None) -> None:
        # the shipped data's library, shared (a frozen value): the referee makes a ruleset per game
        self.library = DataLibrary(tuple(map(Path, data_dirs))) if data_dirs else _SHIPPED
        self.crt = crt or standard_crt()

    # --- data -------------------------------------------------------------------
    def load(self, scenario_id: str, options: Sequence[str] = (), position: Position | None = None) -> Scenario:
        """The scenario, with the house counter values of ``position`` (if any) and
        then its chosen options; made once per process for a game without house
        counter values (a scenario is immutable data, loaded once)."""
        shipped = self.library.scenario(scenario_id)
        base = shipped if position is None else house.with_counter_values(shipped, position)
        if base is not shipped:  # house counter values: a scenario of this game alone
            return base.with_options(list(options))
        key = (id(shipped), tuple(options))
        found = _WITH_OPTIONS.get(key)
        if found is None or found[0] is not shipped:
            if len(_WITH_OPTIONS) >= 64:
                _WITH_OPTIONS.clear()
            found = _WITH_OPTIONS[key] = (shipped, shipped.with_options(list(options)))
        return found[1]

    def field(self, position: Position, dice: Dice | None = None, copy: bool = True) -> Battlefield:
        pos = copied_position(position) if copy else position
        scenario = self.load(pos["scenario"], pos.get("options", []), pos)
        game_map = overlaid(self.library.game_map(scenario.map_id), scenario.overlay)
        return Battlefield(pos, scenario, game_map, rules_for(scenario.id), dice)

    # --- house tables (rules/furor_barbarus/tables.py) ---------------------------------
    def tables(self, scenario_id: str | None = None) -> Sequence[TableInfo]:
        return house.table_infos(scenario_id or self.default_scenario())

    def shipped_table(self, name: str, scenario_id: str | None = None) -> dict[str, Any]:
        if name == house.CRT:
            return house.shipped_crt()
        if name == house.COUNTER_VALUES:
            return house.shipped_counter_values(self.library.scenario(scenario_id or self.default_scenario()))
        raise TableError(self._unknown_table(name, scenario_id))

    def read_table(self, name: str, data: Mapping[str, Any], scenario_id: str | None = None) -> dict[str, Any]:
        if name == house.CRT:
            return house.read_crt(data)
        if name == house.COUNTER_VALUES:
            return house.read_counter_values(self.library.scenario(scenario_id or self.default_scenario()), data)
        raise TableError(self._unknown_table(name, scenario_id))

    # --- metadata -------------------------------------------------------------
    def scenarios(self) -> Sequence[ScenarioInfo]:
        out = []
        for sid in self.library.scenario_ids():
            sc = self.library.scenario(sid)
            out.append(ScenarioInfo(sc.id, sc.title, sc.sides, str(sc.raw.get("description", ""))))
        return out

    def scenario(self, scenario_id: str | None) -> ScenarioInfo:
        if scenario_id:
            if not scenario_id.startswith("test-") and not self.library.knows(scenario_id):
                known = self.library.scenario_ids()
                raise ValueError(
                    f"unknown scenario {scenario_id!r} for {self.id} (scenarios: "
                    f"{', '.join(known)}){did_you_mean(scenario_id, known)}"
                )
            sc = self.library.scenario(scenario_id)
            return ScenarioInfo(sc.id, sc.title, sc.sides, str(sc.raw.get("description", "")))
        return super().scenario(scenario_id)

    def options(self) -> Sequence[OptionInfo]:
        return CORE_OPTIONS

    def scenario_options(self, scenario_id: str) -> Sequence[OptionInfo]:
        sc = self.library.scenario(scenario_id)
        return [OptionInfo(str(o["id"]), str(o.get("title", o["id"])), "scenario") for o in sc.options]

    # --- the position -----------------------------------------------------------
    def setup(self, scenario_id: str | None, options: Sequence[str]) -> Position:
        sid = scenario_id or self.default_scenario()
        sc = self.library.scenario(sid)
        known = {o.id for o in CORE_OPTIONS} | set(sc.option_ids())
        for o in options:
            if o not in known:
                raise ValueError(f"unknown option {o!r} for {sid} (known: {', '.join(sorted(known))})")
        return initial_position(sc.with_options(list(options)), list(options))

    def due(self, position: Position) -> tuple[str, ...]:
        phase = position["phase"]
        if phase == "over":
            return ()
        if phase == "setup":
            return tuple(
                sorted(side for side, _ in current_setup_step(position, self.library.scenario(position["scenario"])))
            )
        return (position["players"][position["player"] - 1],)

    def turn_label(self, position: Position) -> str:
        if position["phase"] == "setup":
            steps = len(setup_steps(self.library.scenario(position["scenario"])))
            if steps == 1 or "setup_step" not in position:
                return "set-up"
            return f"set-up, step {position['setup_step']} of {steps}"
        side = position["players"][position["player"] - 1]
        label = f"turn {position['turn']}, {side} (player {position['player']})"
        return label + ", game over" if position["phase"] == "over" else label

    def score(self, position: Position) -> list[ScoreLine]:
        sc = self.library.scenario(position["scenario"])
        return [
            ScoreLine(
                s,
                int(position["losses"].get(s, 0)),
                f"losses {position['losses'].get(s, 0)} against a threshold of {sc.side_info[s].threshold}",
                what="losses",
                higher_is_better=False,
            )
            for s in sc.sides
        ]

    def outcome(self, position: Position) -> Outcome | None:
        return Outcome.from_json(position.get("outcome"))

    # --- orders -------------------------------------------------------------------
    def prepare_parsing(self) -> None:
        """The unit-name table every parse looks names up in (every unit of every
        scenario, folded: built once per process, then kept)."""
        _ = self.unit_names

    def parse_orders(self, text: str) -> tuple[Orders, list[Problem]]:
        # parse_order_lines(text, lambda line: Order.parse(line, names)), a move line named before without a call
        return parse_lines(text, self.unit_names)

    @property
    def unit_names(self) -> NameTable:
        """Every unit of every scenario by its id, the short id its counter prints
        and its name (a name two units share is refused with both); one table per
        process and data folders (the referee makes a ruleset per game: a table
        per ruleset folded every name of every scenario again for each game)."""
        extra = self.library.extra  # the folders but the package's own: no ``Path`` hashed for the shipped data
        table = _UNIT_NAMES.get(extra)
        if table is None:
            table = _UNIT_NAMES[extra] = self._unit_names()
        return table

    def _unit_names(self) -> NameTable:
        # read from the data cache without loading a scenario or map when the scenario files and the code are
        # those it was built from (unit_table.py); a NameTable remembers what each name typed found, and knows
        # every id written as it folds from the start: a subclass of its own that remembered the names anew had
        # emptied that memory, so each unit a process met first was looked up and folded again
        table = NameTable.from_index(unit_index(self.library))
        know_ids(table)
        return table

    def validate(self, position: Position, side: str, orders: Orders) -> list[Problem]:
        if side not in self.due(position):
            return [Problem(0, f"{side} is not due to send orders now ({self.turn_label(position)})")]
        setup = position["phase"] == "setup"
        # the set-up places units through the battlefield's own calls: a whole copy; the play phase's dry walk
        # copies each entry it changes (walk_orders)
        field = self.field(position if setup else checked_position(position), copy=setup)
        orders, named = settle_orders(field.scenario.counters, orders)
        standing = named + [Problem(line, msg) for line, msg in standing_problems(field, side, list(orders))]
        if setup:
            places = [(ol.line, ol.order) for ol in orders if isinstance(ol.order, PlaceOrder)]
            others = [
                Problem(ol.line, "only 'place' and 'standing' orders in the set-up (3)")
                for ol in orders
                if not isinstance(ol.order, (PlaceOrder, StandingOrder))
            ]
            part = setup_part(position, field.scenario, side) or SetupPart.ALL  # not None: the side is due
            problems = (
                others + standing + [Problem(line, msg) for line, msg in place_side(field, side, places, part) if line]
            )
        else:
            problems = standing + [
                Problem(line, msg)
                for line, msg in walk_orders(field, side, list(orders), house.crt_of(position, self.crt), dry=True)
            ]
        return sorted(problems, key=lambda p: p.line)

    def resolve(self, position: Position, orders: Mapping[str, Orders], dice: Dice) -> Resolution:
        return self._resolve(position, orders, dice, copy=True)

    def resolve_validated(
        self, position: Position, orders: Mapping[str, Orders], dice: Dice, owned: bool = False
    ) -> Resolution:
        """:meth:`resolve` (it does not validate again); a position handed over
        (``owned``) is played on as it is, without the copy :meth:`field` makes."""
        return self._resolve(position, orders, dice, copy=not owned)

    def _resolve(self, position: Position, orders: Mapping[str, Orders], dice: Dice, copy: bool) -> Resolution:
        field = self.field(position, dice, copy)
        if position["phase"] == "over":
            return Resolution(field.position, [])
        orders = {s: settle_orders(field.scenario.counters, o)[0] for s, o in orders.items()}
        if position["phase"] == "setup":
            places = {}
            for side in self.due(position):
                given = list(orders.get(side, NO_ORDERS))
                apply_standing(field, side, given)
                places[side] = [(ol.line, ol.order) for ol in given if isinstance(ol.order, PlaceOrder)]
            play_setup_step(field, places)
            return Resolution(field.position, field.events)
        side = self.due(position)[0]
        play_phase_pair(field, side, list(orders.get(side, NO_ORDERS)), house.crt_of(position, self.crt))
        return Resolution(field.position, field.events)

    def board_lines(self, position: Position, side: str | None = None) -> list[str]:
        """Each hex with units: every unit by id, the short id its counter prints
        and name, its side, type and strength-MP(-range) (a secret set-up note is
        the referee's file, never in the position: nothing here is hidden)."""
        # read off the position's units and the scenario's counters, without a Battlefield (a copy of the
        # position and a call per question per unit were most of the cost)
        counters = self.load(position["scenario"], position.get("options", []), position).counters
        units: dict[str, dict[str, Any]] = position["units"]
        ids = sorted(units)
        short = _short_ids(tuple(ids))
        worded = _WORDS.get(counters, _new_words)
        lines: dict[str, str] = {}  # each hex's line, its units in the order of their ids
        for uid in ids:
            entry = units[uid]
            if entry["status"] == ACTIVE and entry["hex"] is not None:
                key = (uid, short[uid], entry["side"], bool(entry["reduced"]))
                words = worded.get(key)
                if words is None:
                    words = worded[key] = _unit_words(counters[uid], *key)
                h = str(entry["hex"])
                line = lines.get(h)
                lines[h] = f"{h}: {words}" if line is None else f"{line}; {words}"
        return [lines[h] for h in sorted(lines)]

    # --- help for players and bots -------------------------------------------------
    def order_template(self, position: Position, side: str) -> str:
        # written from the position as it is, without the copy a field makes first: the template changes nothing
        return fb_bots.template(self.field(position, copy=False), self.turn_label(position), side)

    def bots(self) -> tuple[str, ...]:
        return ("random", "greedy")

    def bot_orders(self, position: Position, side: str, bot: str, rng: random.Random) -> str:
        if bot not in self.bots():
            raise ValueError(f"unknown bot {bot!r} (known: {', '.join(self.bots())})")
        return fb_bots.bot_orders(self.field(position), side, bot, rng)

    def public_position(self, position: Position) -> Position:
        """Every unit on the board is seen by both sides.  Campus Mauriacus'
        secretly noted commanders are not in the position before they are
        revealed: the Huns' commanders stay off the map (``hex`` none) until the
        resolution that places and reveals them together (setup.py), so the
        position is public as it stands.  What stays secret until then is the
        Huns' queued file, and the reasons a file of theirs was refused, which
        an observer's report leaves out (pbem/reports/assemble.py, public_view)."""
        return position

    def map_svg(self, position: Position, events: Sequence[Event] = (), side: str | None = None) -> str:
        # drawn on the position as it is, without the copy a field makes first: the drawing changes nothing
        return svg.render(self.field(position, copy=False), events)

    # --- rule cases ----------------------------------------------------------------
    def position_from_case(self, data: Mapping[str, Any], scenario_id: str | None, options: Sequence[str]) -> Position:
        sid = scenario_id or data.get("scenario") or self.default_scenario()
        pos = self.setup(sid, options)
        sc = self.load(sid, options)
        if data.get("phase", "play") != "setup":  # in play, only the listed units are on the map
            for u in pos["units"].values():
                u["hex"] = None
                u["status"] = "removed"
        for uid, spec in data.get("units", {}).items():
            if uid not in pos["units"]:
                raise ValueError(f"case names unknown unit {uid!r} (scenario {sid})")
            spec = str(spec)
            reduced = spec.endswith("r")
            pos["units"][uid].update(hex=spec.rstrip("r"), reduced=reduced, status=ACTIVE)
        for uid in data.get("eliminated", []):
            pos["units"][uid].update(status="eliminated", hex=None)
            pos["eliminated"].append(uid)
        for uid, s in data.get("sides", {}).items():
            pos["units"][uid]["side"] = s
        pos["losses"].update({k: int(v) for k, v in data.get("losses", {}).items()})
        pos["turn"] = int(data.get("turn", 1))
        pos["phase"] = str(data.get("phase", "play"))
        if pos["phase"] == "setup":  # the set-up step (3): 1 unless the case says which
            pos["setup_step"] = int(data.get("setup_step", 1))
        else:
            pos.pop("setup_step", None)
        players = list(data.get("players", [])) or pos["players"]
        if not players and pos["phase"] != "setup":  # in the set-up, "roll" leaves them to the dice (3)
            players = list(sc.sides)
        pos["players"] = players
        player = data.get("player", 1)
        pos["player"] = players.index(player) + 1 if isinstance(player, str) else int(player)
        for s, st in data.get("standing", {}).items():
            pos["standing"][s].update(dict(st))
        pos["special"].update(dict(data.get("special", {})))
        return pos

    def position_to_case(self, position: Position) -> dict[str, Any]:
        sc = self.library.scenario(position["scenario"])
        units = {
            uid: u["hex"] + ("r" if u["reduced"] else "")
            for uid, u in position["units"].items()
            if u["status"] == ACTIVE and u["hex"]
        }
        out: dict[str, Any] = {
            "map": sc.map_id,
            "phase": position["phase"],
            "turn": position["turn"],
            "players": list(position["players"]),
            "player": position["players"][position["player"] - 1] if position["players"] else "",
            "units": units,
            "eliminated": list(position.get("eliminated", [])),
            "losses": dict(position["losses"]),
            "sides": {uid: u["side"] for uid, u in position["units"].items() if u["side"] != sc.counters[uid].side},
            "standing": position.get("standing", {}),
        }
        if "setup_step" in position:
            out["setup_step"] = position["setup_step"]
        if position.get("outcome"):
            out["outcome"] = dict(position["outcome"])
        return out
