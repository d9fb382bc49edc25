"""A game's life outside its resolutions: ``pbem new``, ``extend``, ``rollback``,
``status`` and the next turn file for a side."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pbem import dice as dicev1
from pbem import paths, store
from pbem.dice import chains as dice_chains
from pbem.mail.address import checked_address
from pbem.referee import disorder, ledger, new_game_acts, notices
from pbem.referee.absences import Limits
from pbem.rules import find_ruleset
from pbem.rules.base import Ruleset, ScenarioInfo
from pbem.rules.suggest import did_you_mean
from pbem.store.clock import current_deadline, zones
from pbem.store.sql import Conflict, Tx
from pbem.store.transaction import transaction
from pbem.turnfiles import keys, weak_keys
from pbem.turnfiles.canonical import canonical_json, position_hash
from pbem.turnfiles.deadline import check_zone, deadline_lines, iso, parse_iso
from pbem.turnfiles.envelope import render_turn_file
from pbem.turnfiles.position_file import PositionFile
from pbem.turnfiles.template import turn_template

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine
from pbem.referee.verdict import Refused, result_text


class ClockSettings(Protocol):
    """A game's deadline settings (``pbem.referee.service.deadlines.Clock``), in seconds."""

    # read-only members, so that the frozen Clock qualifies
    @property
    def deadline(self) -> int | None: ...
    @property
    def grace(self) -> int: ...
    @property
    def remind(self) -> int: ...
    @property
    def wait(self) -> bool: ...


def new_game(
    engine: Engine,
    game_id: str,
    rules_id: str,
    scenario: str | None,
    options: Sequence[str],
    player_keys: Mapping[str, str],
    emails: Mapping[str, str] | None = None,
    chain_length: int = dicev1.DEFAULT_CHAIN_LENGTH,
    table_files: Mapping[str, os.PathLike[str] | str] | None = None,
    clock: ClockSettings | None = None,
    civil_disorder: int | None = None,
    limits: Limits | None = None,
    referee_key: ledger.RefereeKey | None = None,
    tz: str | None = None,
) -> store.GameState:
    """Create a game: set up the position, register each side's public key, and
    commit the dice (only the anchor is shown).  ``table_files`` are house tables
    (``--table NAME=FILE``): checked, carried in the opening position and stored.
    ``clock`` sets its deadlines (pbem/referee/deadlines.py); each side with an address is
    sent the game as created.  ``civil_disorder`` N: a side missing N deadlines in
    a row is played by the greedy bot (pbem/referee/disorder.py).  ``limits``: its
    allowances; ``referee_key`` signs its ledger.  ``tz``: the IANA zone its
    deadlines are shown in (default UTC)."""
    ruleset, info = _ruleset_and_scenario(rules_id, scenario)
    problems, parsed_keys = _setting_problems(
        game_id, rules_id, ruleset, info, options, player_keys, emails or {}, chain_length
    )
    from pbem.store import house_tables

    tables, table_problems = house_tables.read_files(
        ruleset, {n: Path(f) for n, f in (table_files or {}).items()}, info.id
    )
    problems.extend(table_problems)
    if tz is not None:
        try:
            check_zone(tz)
        except ValueError as exc:
            problems.append(f"--tz: {exc}")
    if problems:
        raise Refused(problems)
    game, initial, commitment = _opening(game_id, rules_id, ruleset, info.id, options, tables, chain_length)
    position = game.position
    with transaction(engine) as tx:
        if tx.one("SELECT id FROM game WHERE id = :game", {"game": game_id}) is not None:
            raise Refused([f"game {game_id!r} already exists"])
        try:
            _insert_game(tx, game, commitment, list(options), initial, limits or Limits(), referee_key)
        except Conflict:  # another process created it since
            raise Refused([f"game {game_id!r} already exists"]) from None
        _insert_players(tx, game_id, info.sides, parsed_keys, emails or {})
        if tz is not None:
            tx.run("UPDATE game SET tz = :tz WHERE id = :game", {"tz": tz, "game": game_id})
        house_tables.store_tables(tx, game_id, played := house_tables.of_position(position))
        if clock is not None:
            _insert_clock(tx, game_id, clock)
        if civil_disorder is not None:
            disorder.set_threshold(tx, game_id, civil_disorder)
        new_game_acts.record_new(
            tx, game, list(options), parsed_keys, emails or {}, clock, limits or Limits(), referee_key
        )
        new_game_acts.record_tables(tx, game_id, played, referee_key)
        notices.queue_reports(
            tx, game_id, 0, ruleset.turn_label(position), ruleset.turn_label(position), ruleset.due(position), False
        )
    return game


def _opening(
    game_id: str,
    rules_id: str,
    ruleset: Ruleset,
    scenario_id: str,
    options: Sequence[str],
    tables: Mapping[str, Any],
    chain_length: int,
) -> tuple[store.GameState, str, dicev1.Commitment]:
    """The game as set up (its house tables in the position), its opening
    position as canonical JSON, and its dice committed."""
    position = ruleset.setup(scenario_id, list(options))
    if tables:
        position = ruleset.with_house_tables(position, dict(tables))
    commitment = dicev1.Commitment.new(chain_length)
    initial = canonical_json(position)
    game = store.GameState(
        id=game_id,
        rules=rules_id,
        next_k=1,
        state_hash=position_hash(position),
        over=False,
        result=None,
        position=json.loads(initial),
        chain_length=chain_length,
        scenario=scenario_id,
        anchor=commitment.anchor.hex(),
        current_k=0,
        rules_version=ruleset.version,
    )
    return game, initial, commitment


def _ruleset_and_scenario(rules_id: str, scenario: str | None) -> tuple[Ruleset, ScenarioInfo]:
    """The ruleset and the scenario named (one must be named where there are several)."""
    try:
        ruleset = find_ruleset(rules_id)
        if scenario is None and len(ruleset.scenarios()) > 1:
            known = ", ".join(s.id for s in ruleset.scenarios())
            raise ValueError(
                f"{rules_id} has {len(ruleset.scenarios())} scenarios: choose one with --scenario ({known})"
            )
        return ruleset, ruleset.scenario(scenario)
    except ValueError as exc:
        raise Refused([str(exc)]) from None


def _setting_problems(
    game_id: str,
    rules_id: str,
    ruleset: Ruleset,
    info: ScenarioInfo,
    options: Sequence[str],
    player_keys: Mapping[str, str],
    emails: Mapping[str, str],
    chain_length: int,
) -> tuple[list[str], dict[str, keys.PublicKey]]:
    """What is wrong with a new game's id, options, players, addresses and dice
    chain; and each side's public key read."""
    problems: list[str] = []
    if (problem := paths.game_id_problem(game_id)) is not None:
        problems.append(problem)
    known_options = {o.id for o in (*ruleset.options(), *ruleset.scenario_options(info.id))}
    for option in options:
        if option not in known_options:
            problems.append(
                f"unknown option {option!r} for {rules_id} (options: "
                f"{', '.join(sorted(known_options)) or 'none'}){did_you_mean(option, sorted(known_options))}"
            )
    for side in player_keys:
        if side not in info.sides:
            problems.append(
                f"unknown side {side!r} in {rules_id}/{info.id} (sides: "
                f"{', '.join(info.sides)}){did_you_mean(side, info.sides)}"
            )
    for side in info.sides:
        if side not in player_keys:
            problems.append(f"no --player {side}=PUBKEY_FILE given")
    parsed_keys: dict[str, keys.PublicKey] = {}
    for side, line in player_keys.items():
        try:
            parsed_keys[side] = weak_keys.registrable(line)
        except ValueError as exc:
            problems.append(f"public key for {side}: {exc}")
    for side, addr in emails.items():
        if side not in info.sides:
            problems.append(f"--email for unknown side {side!r}")
        try:
            checked_address(addr)
        except ValueError as exc:
            problems.append(f"--email {side}: {exc}")
    if not 2 <= chain_length <= 1_000_000:
        problems.append(
            f"dice chain length {chain_length} refused: it must be between 2 and 1,000,000 (a chain of N serves "
            "N-1 resolutions)"
        )
    return problems, parsed_keys


def _insert_players(
    tx: Tx, game_id: str, sides: Sequence[str], parsed_keys: Mapping[str, keys.PublicKey], emails: Mapping[str, str]
) -> None:
    for side in sides:
        tx.run(
            "INSERT INTO player (game_id, side, public_key, email) VALUES (:game, :side, :key, :email)",
            {"game": game_id, "side": side, "key": parsed_keys[side].openssh(), "email": emails.get(side)},
        )


def _insert_clock(tx: Tx, game_id: str, clock: ClockSettings) -> None:
    tx.run(
        "INSERT INTO game_clock (game_id, deadline, grace, remind, wait) VALUES (:game, :deadline, :grace, "
        ":remind, :wait)",
        {"game": game_id, "deadline": clock.deadline, "grace": clock.grace, "remind": clock.remind, "wait": clock.wait},
    )


def _insert_game(
    tx: Tx,
    game: store.GameState,
    commitment: dicev1.Commitment,
    options: list[str],
    initial: str,
    limits: Limits,
    referee_key: ledger.RefereeKey | None,
) -> None:
    """The game's row, every column as the ORM's ``Game`` writes it."""
    tx.run(
        "INSERT INTO game (id, rules, rules_version, scenario, options, created, seed, seed_checkpoints, chain_length,"
        " anchor, initial_position, initial_state_hash, current_k, next_k, state_hash, over, result,"
        " vacation_days, max_pause, max_extensions, referee_key)"
        " VALUES (:id, :rules, :rules_version, :scenario, :options, :created, :seed, :checkpoints, :chain_length,"
        " :anchor, :initial, :initial_hash, :current_k, :next_k, :state_hash, :over, :result,"
        " :vacation_days, :max_pause, :max_extensions, :referee_key)",
        {
            **{k: v for k, v in limits.to_json().items() if k != "civil_disorder"},  # that one: disorder.py
            "referee_key": referee_key.public.openssh() if referee_key else None,
            "id": game.id,
            "rules": game.rules,
            "rules_version": game.rules_version,
            "scenario": game.scenario,
            "options": json.dumps(options),
            "created": store.utcnow(),
            "seed": commitment.seed.hex(),
            "checkpoints": commitment.kept.hex(),
            "chain_length": game.chain_length,
            "anchor": game.anchor,
            "initial": initial,
            "initial_hash": game.state_hash,
            "current_k": game.current_k,
            "next_k": game.next_k,
            "state_hash": game.state_hash,
            "over": game.over,
            "result": game.result,
        },
    )


def shared_keys(player_keys: Mapping[str, str]) -> list[str]:
    """A warning for each key registered by more than one side: whoever holds it can
    sign for both, which a referee should know (it is allowed, e.g. a solo test)."""
    by_blob: dict[bytes, list[str]] = {}
    for side, line in player_keys.items():
        try:
            by_blob.setdefault(keys.PublicKey.from_openssh(line).blob, []).append(side)
        except keys.KeyFileError:
            continue
    return [
        f"warning: sides {' and '.join(sides)} registered the same key: its holder can sign for both"
        for sides in by_blob.values()
        if len(sides) > 1
    ]


def extend_dice(
    engine: Engine,
    game_id: str,
    chain_length: int = dicev1.DEFAULT_CHAIN_LENGTH,
    referee_key: ledger.RefereeKey | None = None,
) -> store.ChainAnchor:
    """Commit a new dice chain that takes over where the game's last one ends
    (docs/dice.md, "Extending a game's dice").  Its anchor is published like the
    first one: in the archive (``dice.extensions``), reports and ``pbem status``."""
    if not 2 <= chain_length <= 1_000_000:
        raise Refused(
            [
                f"dice chain length {chain_length} refused: it must be between 2 and 1,000,000 (a chain of N "
                "serves N-1 resolutions)"
            ]
        )
    with transaction(engine) as tx:
        game = store.known_game(tx, game_id)
        if game.over:
            raise Refused(
                [f"game {game_id} is over ({result_text(game.result, game.rules)}); its dice need no extension"]
            )
        chains = dice_chains.public_chains(game, store.chain_anchors(tx, game_id))
        commitment = dicev1.Commitment.new(chain_length)
        chain = store.ChainAnchor(dice_chains.last_served(chains) + 1, chain_length, commitment.anchor.hex())
        tx.run(
            "INSERT INTO dice_chain (game_id, first_k, chain_length, anchor, seed, seed_checkpoints, created)"
            " VALUES (:game, :first_k, :chain_length, :anchor, :seed, :checkpoints, :created)",
            {
                "game": game_id,
                "first_k": chain.first_k,
                "chain_length": chain_length,
                "anchor": chain.anchor,
                "seed": commitment.seed.hex(),
                "checkpoints": commitment.kept.hex(),
                "created": store.utcnow(),
            },
        )
        ledger.record(
            tx,
            game_id,
            "extend",
            chain._asdict(),
            referee_key,
            summary=f"a new dice chain from resolution {chain.first_k} (N={chain_length}), anchor {chain.anchor}",
        )
    return chain


def rollback(engine: Engine, game_id: str, to_k: int, referee_key: ledger.RefereeKey | None = None) -> store.RolledBack:
    """Set aside every active resolution after ``to_k`` (kept, shown by export and
    audit); queued files written against the discarded positions are set aside
    too.  Resolution numbers are never reused: the next one is a fresh ``k``."""
    with transaction(engine) as tx:
        game = store.known_game(tx, game_id)
        params = {"game": game_id, "to_k": to_k}
        known = [0] + [
            r[0]
            for r in tx.all(
                "SELECT k FROM resolution WHERE game_id = :game AND active = :active ORDER BY k",
                {**params, "active": True},
            )
        ]
        if to_k not in known:
            raise Refused([f"game {game_id} has no active resolution {to_k} (active: {', '.join(map(str, known))})"])
        discarded = [k for k in known if k > to_k]
        if not discarded:
            raise Refused([f"game {game_id} is already at resolution {to_k}; nothing to roll back"])
        tx.run(
            'INSERT INTO "rollback" (game_id, to_k, at, discarded) VALUES (:game, :to_k, :at, :discarded)',
            {**params, "at": store.utcnow(), "discarded": json.dumps(discarded)},
        )
        max_id = tx.one('SELECT MAX(id) FROM "rollback" WHERE game_id = :game', params)
        assert max_id is not None  # an aggregate query returns one row
        record = store.RolledBack(max_id[0], to_k, discarded)
        tx.run(
            "UPDATE resolution SET active = :inactive, rollback_id = :rollback WHERE game_id = :game AND active "
            "= :active AND k > :to_k",
            {**params, "inactive": False, "active": True, "rollback": record.id},
        )
        set_aside, resolved, queued = (
            s.name
            for s in (store.SubmissionStatus.SET_ASIDE, store.SubmissionStatus.RESOLVED, store.SubmissionStatus.QUEUED)
        )
        tx.run_many(
            "UPDATE submission SET status = :set_aside WHERE game_id = :game AND turn = :k AND status = :resolved",
            [{"set_aside": set_aside, "resolved": resolved, "game": game_id, "k": k} for k in discarded],
        )
        tx.run(
            "UPDATE submission SET status = :set_aside WHERE game_id = :game AND turn = :k AND status = :queued",
            {"set_aside": set_aside, "queued": queued, "game": game_id, "k": game.next_k},
        )
        if to_k == 0:
            kept = tx.one("SELECT initial_state_hash, initial_position FROM game WHERE id = :game", params)
        else:
            kept = tx.one("SELECT state_hash, position FROM resolution WHERE game_id = :game AND k = :to_k", params)
        state_hash, position = kept[0], json.loads(kept[1])  # type: ignore[index]
        ruleset = find_ruleset(game.rules)
        outcome = ruleset.outcome(position)
        tx.run(
            "UPDATE game SET current_k = :to_k, state_hash = :state_hash, over = :over, result = :result WHERE "
            "id = :game",
            {
                **params,
                "state_hash": state_hash,
                "over": outcome is not None,
                "result": json.dumps(outcome.to_json()) if outcome else None,
            },
        )
        notices.queue_rollback_notice(
            tx, game_id, to_k, discarded, game.next_k, ruleset.turn_label(position), state_hash, record.id
        )
        ledger.record(
            tx,
            game_id,
            "rollback",
            {"to": to_k, "set_aside": discarded, "state_hash": state_hash},
            referee_key,
            summary=f"rolled back to resolution {to_k}; resolution(s) {', '.join(map(str, discarded))} set aside",
        )
    return record


def next_turn_file(engine: Engine, game_id: str, side: str, bot: str | None = None, seed: int = 0) -> str:
    """``pbem orders``: the next turn file for ``side``: a commented template, or
    one filled with a bot's legal orders."""
    with transaction(engine, write=False) as tx:
        game = store.known_game(tx, game_id)
        due_at = current_deadline(tx, game_id)
        zone = zones(tx, game_id)[1].get(side)
    return turn_file_for(game, side, bot, seed, due_at[0] if due_at else None, due_at[1] if due_at else 0, zone)


def offline_turn_file(kept: PositionFile, side: str, bot: str | None = None, seed: int = 0) -> str:
    """``pbem orders --position``: the same file as the referee's, from the
    position file mailed with a report."""
    deadline = parse_iso(kept.deadline) if kept.deadline else None
    return turn_file_for(kept, side, bot, seed, deadline, kept.grace, kept.zones.get(side))


def turn_file_for(
    game: store.GameState | PositionFile,
    side: str,
    bot: str | None,
    seed: int,
    deadline: datetime | None,
    grace: int,
    zone: str | None,
) -> str:
    """The next turn file of ``side`` in ``game`` (the referee's record of it or
    a position file: the same attributes)."""
    ruleset = find_ruleset(game.rules)
    position = game.position
    sides = ruleset.sides(game.scenario)
    if side not in sides:
        raise Refused([f"no side {side!r} in game {game.id} (sides: {', '.join(sides)})"])
    if game.over:
        raise Refused([f"game {game.id} is over ({result_text(game.result, game.rules)})"])
    due = ruleset.due(position)
    if side not in due:
        raise Refused(
            [
                f"it is not the {side} side's turn in game {game.id}: awaiting {', '.join(due)} for resolution "
                f"{game.next_k}"
            ]
        )
    if bot is None:
        return turn_template(
            ruleset, game.id, game.rules, side, game.next_k, game.state_hash, position, deadline, grace, zone
        )
    if bot not in ruleset.bots():
        raise Refused([f"unknown bot {bot!r} for {game.rules} (bots: {', '.join(ruleset.bots())})"])
    body = ruleset.bot_orders(position, side, bot, random.Random(f"{game.id}/{game.next_k}/{side}/{seed}"))
    return render_turn_file(game.id, game.rules, side, game.next_k, game.state_hash, body)


@dataclass(frozen=True)
class Status:
    game: str
    rules: str
    scenario: str
    turn: int
    label: str
    awaiting: list[str]
    over: bool
    result: dict | None
    score: list[dict] = field(default_factory=list)
    anchor: str = ""
    queued: list[str] = field(default_factory=list)
    result_text: str = ""
    score_heading: str = "score"
    dice_left: int = 0  # resolutions the committed dice chains can still serve
    extensions: list[dict] = field(default_factory=list)
    civil_disorder: dict[str, int] = field(default_factory=dict)  # side -> the resolution it started at
    observers: int = 0
    deadline: datetime | None = None  # of the resolution awaited now (UTC)
    grace: int = 0  # seconds after the deadline
    zone: str = "UTC"  # the game's zone

    def deadline_lines(self) -> tuple[str, ...]:
        """When the orders are due, in UTC and the game's zone, and what follows."""
        if self.deadline is None or self.over:
            return ()
        return deadline_lines(self.deadline, self.grace, self.zone)

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "rules": self.rules,
            "scenario": self.scenario,
            "turn": self.turn,
            "resolution": self.turn,
            "label": self.label,
            "awaiting": self.awaiting,
            "queued": self.queued,
            "over": self.over,
            "result": self.result,
            "outcome": self.result_text or None,
            "score": self.score,
            "anchor": self.anchor,
            "dice_left": self.dice_left,
            "dice_extensions": self.extensions,
            "civil_disorder": self.civil_disorder,
            "observers": self.observers,
            "deadline": iso(self.deadline) if not self.over else None,
            "grace": self.grace if self.deadline is not None and not self.over else None,
            "tz": self.zone,
        }


def status(engine: Engine, game_id: str) -> Status:
    with transaction(engine, write=False) as tx:
        game = store.known_game(tx, game_id)
        ruleset = find_ruleset(game.rules)
        position = game.position
        queued = store.queued_sides(tx, game_id, game.next_k)
        chains = dice_chains.public_chains(game, store.chain_anchors(tx, game_id))
        due = [] if game.over else [s for s in ruleset.due(position) if s not in queued]
        score = ruleset.score(position)
        due_at = None if game.over else current_deadline(tx, game_id)
        return Status(
            game=game.id,
            rules=game.rules,
            scenario=game.scenario,
            turn=game.next_k,
            label=ruleset.turn_label(position),
            awaiting=due,
            over=game.over,
            result=json.loads(game.result) if game.result else None,
            score=[{"side": s.side, "value": s.value, "detail": s.detail} for s in score],
            anchor=game.anchor,
            queued=queued,
            result_text=result_text(game.result, game.rules) if game.result else "",
            score_heading=score[0].heading if score else "score",
            dice_left=max(0, dice_chains.last_served(chains) - game.next_k + 1),
            extensions=[c.to_json() for c in chains[1:]],
            civil_disorder=disorder.current(tx, game_id),
            observers=len(
                tx.all("SELECT id FROM observer WHERE game_id = :game AND removed IS NULL", {"game": game_id})
            ),
            deadline=due_at[0] if due_at else None,
            grace=due_at[1] if due_at else 0,
            zone=zones(tx, game_id)[0],
        )
