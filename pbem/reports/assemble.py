"""From the store to reports: fills :class:`pbem.reports.render.ReportData` for one side
(or the referee) after one resolution, and writes report files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import paths, store
from pbem.dice import chains as dice_chains
from pbem.reports import history as history_list
from pbem.reports import position_text
from pbem.reports import reads as report_reads
from pbem.reports import render as report
from pbem.reports.audit_page import render_audit_page
from pbem.reports.history import Listed
from pbem.reports.reads import ReportGame, Resolved
from pbem.rules import find_ruleset
from pbem.rules.base import Outcome, Position, Ruleset
from pbem.store import absences, house_tables
from pbem.store.clock import current_deadline
from pbem.store.sql import Tx
from pbem.store.transaction import transaction
from pbem.turnfiles import position_file
from pbem.turnfiles.canonical import canonical_json
from pbem.turnfiles.deadline import iso
from pbem.turnfiles.template import turn_template

if TYPE_CHECKING:
    from pbem.store.database import Database


def report_data(
    tx: Tx, game_id: str, k: int | None = None, side: str | None = None, links: str | None = None
) -> report.ReportData:
    """The report of resolution ``k`` (default: the latest active; 0 = the game as
    created) for ``side`` (``None``: the referee's view)."""
    return report_views(tx, game_id, k, (side,), links)[0]


def report_views(
    tx: Tx, game_id: str, k: int | None, sides: Sequence[str | None], links: str | None = None
) -> list[report.ReportData]:
    """The reports of resolution ``k`` for several sides: what they share (the
    position, events, rolls, dice proof, history) is read once, in plain SQL
    (:mod:`pbem.reports.reads`).  ``links``: where the other pages are
    (``report.LINK_MODES``); default ``url`` when the game has a published site,
    else ``none``."""
    return _views(tx, report_reads.game(tx, game_id), k, sides, links)


def _views(
    tx: Tx,
    game: ReportGame,
    k: int | None,
    sides: Sequence[str | None] | None,
    links: str | None,
    made: list[Listed] | None = None,
    resolved: Resolved | None = None,
) -> list[report.ReportData]:
    """:func:`report_views`; ``made``, ``resolved``: as :func:`views_keeping_history` (via :func:`_history`)."""
    game_id, ruleset = game.id, find_ruleset(game.rules)
    scenario = ruleset.scenario(game.scenario)  # title and sides (``sides`` None: all) looked up once
    sides, k = scenario.sides if sides is None else sides, game.current_k if k is None else k
    links = _link_mode(game, links)
    row, before, handed = _resolution(tx, game, k, resolved)
    _check_sides(scenario.sides, game, sides)
    position = json.loads(row.position) if row else json.loads(game.initial_position)
    next_turn = game.next_k if k == game.current_k else k + 1
    rows = report_reads.view_rows(tx, game_id, k, next_turn)
    chain, players = _chain(game, rows.chains, k), rows.players
    before = before if row and k > chain.first_k else None  # its chain's reveal before (set aside or not)
    outcome = ruleset.outcome(position)
    due = () if outcome else ruleset.due(position)
    state_hash, events = (row.state_hash, tuple(json.loads(row.events))) if row else (game.initial_state_hash, ())
    turn_label = ruleset.turn_label(position)
    due_at, game_zone, side_zones = _clock(tx, game, k, outcome, players)
    kept = _position_file(game, k, next_turn, turn_label, state_hash, outcome, players, position, due_at, side_zones)
    shared = report.ReportData(
        game_id=game.id,
        rules_id=game.rules,
        rules_title=ruleset.title,
        scenario_id=game.scenario,
        scenario_title=scenario.title,
        options=game.options,
        k=k,
        label=row.label if row else "set-up",
        next_label=turn_label,
        awaiting=tuple(due),
        side=None,
        sides=tuple((p.side, p.email) for p in players),
        score=tuple(ruleset.score(position)),
        over=outcome is not None,
        result=outcome.to_json() if outcome else None,
        result_text=ruleset.outcome_text(outcome) if outcome else "",
        events=events,
        rolls=(_rolls(tx, game_id, k) if handed is None else _handed_rolls(handed)) if row else (),
        reveal=row.reveal if row else None,
        anchor=chain.anchor,
        chain_length=chain.chain_length,
        previous_reveal=(before or chain.anchor) if row else None,
        state_hash=state_hash,
        previous_state_hash=row.previous_state_hash if row else None,
        map_svg="",
        problems=(),
        next_turn_file=None,
        **_history(tx, game_id, k, links, handed, rows.kept, made),
        position_file=position_text.file_text(kept, row.position if row else game.initial_position),
        site_url=game.site_url,
        next_k=next_turn,
        links=links,
        rollbacks=_rollback_notes(rows.rollbacks, game, k),
        absences=tuple(absences.lines_of(rows.absences, store.utcnow())) if k == game.current_k else (),
        chain_first_k=chain.first_k,
        keys=_fingerprints(players),
        deadline=due_at[0] if due_at else None,
        grace=due_at[1] if due_at else 0,
        zone=game_zone,
        zones=tuple(sorted(side_zones.items())),
        civil_disorder=tuple(sorted((side, at) for side, at, until in rows.disorder if until is None or until > k)),
        observers=rows.observers,
    )
    # a game that hides nothing from any side (map_depends_on_side False) has one map and one board in words
    # for every reader: drawn and worded once, the same objects in each side's report
    alike = not ruleset.map_depends_on_side
    shared_map = ruleset.map_svg(position, list(events), None) if alike else None
    shared_board = tuple(ruleset.board_lines(position, None)) if alike else None
    return [
        _side_view(shared, ruleset, game, position, due, side, rows.refusals, (shared_map, shared_board), turn_label)
        for side in sides
    ]


def _chain(game: ReportGame, extensions: Sequence[store.ChainAnchor], k: int) -> dice_chains.PublicChain:
    """The dice chain that serves resolution ``k`` (the first, for the set-up)."""
    chains = dice_chains.public_chains(game, extensions)
    return dice_chains.chain_for(chains, k) or chains[0]


def _rollback_notes(
    rollbacks: Sequence[report_reads.RollbackLine], game: ReportGame, k: int
) -> tuple[report.RollbackNote, ...]:
    """The rollbacks back to resolution ``k`` (the latest one announces the resolution awaited)."""
    return tuple(
        report.RollbackNote(
            f"{rb.at:%Y-%m-%d %H:%M} UTC",
            rb.to_k,
            tuple(rb.discarded),
            game.next_k if k == game.current_k and rb is rollbacks[-1] else None,
        )
        for rb in rollbacks
        if rb.to_k == k
    )


def _resolution(
    tx: Tx, game: ReportGame, k: int, resolved: Resolved | None
) -> tuple[report_reads.ResolutionRow | None, str | None, Resolved | None]:
    """Resolution ``k``'s row (``None``: the set-up), the reveal before it, and the
    resolution as handed over by the process that stored it (``resolved``), taken
    instead of read back while it is the game's latest (else ``None``: read)."""
    if resolved is not None and _handed_latest(resolved, game, k):
        return report_reads.handed_row(resolved), resolved.before, resolved
    row, before = _resolution_read(tx, game.id, k)
    return row, before, None


def _handed_latest(resolved: Resolved, game: ReportGame, k: int) -> bool:
    """Whether the resolution handed over is ``k`` of ``game`` and still its latest
    (its row read in the report's transaction): else the report reads the store."""
    return resolved.row.game_id == game.id and resolved.row.k == k == game.current_k


def public_view(tx: Tx, game_id: str, k: int | None = None, links: str | None = None) -> report.ReportData:
    """The report an observer is sent: what every side sees alike, and nothing
    that only one side knows.  It is the referee's view without the problems
    with the sides' files (refused files, whose reasons quote a side's own
    orders), with no turn file, and drawn from the ruleset's
    :meth:`~pbem.rules.base.Ruleset.public_position`; where that differs from
    the position, the position file (whose hash is of the whole position) is
    left out."""
    game = report_reads.game(tx, game_id)
    ruleset = find_ruleset(game.rules)
    data = _views(tx, game, k, (None,), links)[0]
    position = position_file.load(data.position_file.encode("utf-8")).position
    shown = ruleset.public_position(position)
    whole = canonical_json(shown) == canonical_json(position)
    return replace(
        data,
        observer=True,
        problems=(),
        next_turn_file=None,
        map_svg=data.map_svg
        if whole and not ruleset.map_depends_on_side
        else ruleset.map_svg(shown, list(data.events), None),
        score=tuple(ruleset.score(shown)),
        position_file=data.position_file if whole else "",
    )


def _fingerprints(players: Sequence[Any]) -> tuple[tuple[str, str], ...]:
    """Each side's key as ``ssh-keygen -l`` names it (:func:`_fingerprint`)."""
    return tuple((p.side, _fingerprint(p.public_key)) for p in players)


FINGERPRINTS_KEPT = 64
"""How many stored key lines :func:`_fingerprint` keeps the name of (the oldest goes first)."""

_fingerprints_kept: dict[str, str] = {}


def _fingerprint(line: str) -> str:
    """The name ``ssh-keygen -l`` gives the key of a stored OpenSSH line: the hash of
    its blob, read off the line (checked when the player joined: no key object is
    made to name it).  Worked out once per line and process (the same players' keys
    are met in every report of a game, and in each game they play): kept by the
    whole line, which is all the name depends on."""
    found = _fingerprints_kept.get(line)
    if found is None:
        import base64

        from pbem.turnfiles.keys import PublicKey

        key_type, b64 = line.split(None, 2)[:2]
        found = PublicKey(key_type, base64.b64decode(b64)).fingerprint()
        if len(_fingerprints_kept) >= FINGERPRINTS_KEPT:
            del _fingerprints_kept[next(iter(_fingerprints_kept))]  # the oldest
        _fingerprints_kept[line] = found
    return found


def _link_mode(game: ReportGame, links: str | None) -> str:
    """``links``, else the game's default: ``url`` when it has a published site, else ``none``."""
    return links or ("url" if game.site_url else "none")


def _rolls(tx: Tx, game_id: str, k: int) -> tuple[report.RollLine, ...]:
    return tuple(report.RollLine(r.idx, r.sides, r.value, r.purpose) for r in report_reads.rolls(tx, game_id, k))


def _handed_rolls(made: Resolved) -> tuple[report.RollLine, ...]:
    """The dice's rows as the resolution inserted them, as :func:`_rolls` reads them back."""
    return tuple(report.RollLine(r["idx"], r["sides"], r["value"], r["purpose"]) for r in made.rolls)


def _history(
    tx: Tx,
    game_id: str,
    k: int,
    links: str,
    handed: Resolved | None,
    kept: report_reads.KeptLines | None,
    made: list[Listed] | None,
) -> dict[str, Any]:
    """The list of earlier resolutions up to ``k``: without links, the lines the
    store keeps (pbem/reports/history.py: the kept row, ``kept``, and the rows it
    lacks, or the line of the resolution ``handed`` over), also handed to ``made``
    (when given) for the caller to keep; with links (``pbem site``, which writes
    every report anyway), each active resolution's number, label and hash, its
    line linking its report."""
    if links == "none":
        listed = history_list.listed(tx, game_id, k, handed.row if handed is not None else None, kept)
        if made is not None:
            made.append(listed)
        return {"history": (), "history_lines": listed.lines}
    actives = report_reads.active_history(tx, game_id)
    return {"history": tuple((r.k, r.label, r.state_hash) for r in actives if r.k <= k), "history_lines": ""}


def _resolution_read(tx: Tx, game_id: str, k: int) -> tuple[Any, str | None]:
    """Resolution ``k``'s row (``None`` for the set-up) and the reveal before it."""
    row, before = report_reads.resolution_and_reveal_before(tx, game_id, k) if k else (None, None)
    if k and (row is None or not row.active):
        actives = report_reads.active_history(tx, game_id)
        raise LookupError(
            f"game {game_id} has no active resolution {k} (active: {', '.join(str(r.k) for r in actives) or 'none'})"
        )
    return row, before


def _check_sides(known: Sequence[str], game: ReportGame, sides: Sequence[str | None]) -> None:
    for side in sides:
        if side is not None and side not in known:
            raise LookupError(f"no side {side!r} in game {game.id} (sides: {', '.join(known)})")


def _clock(
    tx: Tx, game: ReportGame, k: int, outcome: Outcome | None, players: Sequence[Any]
) -> tuple[tuple[datetime, int] | None, str, dict[str, str]]:
    """The deadline the report of ``k`` announces (only the latest report, in
    play, of a game with a deadline: as ``pbem status`` gives it, pauses and
    vacations counted), the game's zone and each side's."""
    due_at = None
    if game.deadline is not None and k == game.current_k and outcome is None:
        due_at = current_deadline(tx, game.id)
    return due_at, game.tz, {p.side: p.tz or game.tz for p in players}


def _position_file(
    game: ReportGame,
    k: int,
    next_turn: int,
    turn_label: str,
    state_hash: str,
    outcome: Outcome | None,
    players: Sequence[Any],
    position: Position,
    due_at: tuple[datetime, int] | None,
    side_zones: dict[str, str],
) -> position_file.PositionFile:
    """The position file the report is written from (attached to it), with the
    deadline it was written for."""
    return position_file.PositionFile(
        id=game.id,
        rules=game.rules,
        scenario=game.scenario,
        options=game.options,
        resolution=k,
        next_k=next_turn,
        label=turn_label,
        state_hash=state_hash,
        over=outcome is not None,
        result=json.dumps(outcome.to_json()) if outcome else None,
        public_keys={p.side: p.public_key for p in players},
        position=position,
        rules_version=game.rules_version,
        deadline=iso(due_at[0]) if due_at else None,
        grace=due_at[1] if due_at else 0,
        zones=side_zones if due_at else {},
    )


def _side_view(
    shared: report.ReportData,
    ruleset: Ruleset,
    game: ReportGame,
    position: Position,
    due: Sequence[str],
    side: str | None,
    refusals: Sequence[Any],
    alike: tuple[str | None, tuple[str, ...] | None],
    turn_label: str,
) -> report.ReportData:
    """One side's report (``None``: the referee's) from what every side sees alike:
    its map and board in words (``alike``: the map and board every side sees, or
    ``None`` where they depend on the side), its next turn file, the problems with its files."""
    shared_map, shared_board = alike
    next_file = None
    zone = dict(shared.zones).get(side or "", shared.zone)
    if side is not None and side in due:
        next_file = turn_template(
            ruleset,
            game.id,
            game.rules,
            side,
            shared.next_k,
            shared.state_hash,
            position,
            shared.deadline,
            shared.grace,
            zone,
        )
    problems = tuple(
        report.ProblemLine(r.side or "?", f"{r.source or 'turn file'} at {r.received:%Y-%m-%d %H:%M} UTC", r.reason)
        for r in refusals
        if side is None or r.side == side
    )
    return _with(
        shared,
        side=side,
        map_svg=shared_map if shared_map is not None else ruleset.map_svg(position, list(shared.events), side),
        board=shared_board if shared_board is not None else tuple(ruleset.board_lines(position, side)),
        problems=problems,
        next_turn_file=next_file,
        zone=zone,
    )


def _with(data: report.ReportData, **changes: Any) -> report.ReportData:
    """``dataclasses.replace(data, **changes)`` without its walk through the
    constructor over each of the report's forty-odd fields (it has no
    ``__post_init__`` and every field is an argument of it): twice per side."""
    unknown = changes.keys() - data.__dict__.keys()
    if unknown:
        raise TypeError(f"ReportData has no field {', '.join(sorted(unknown))}")
    new = object.__new__(report.ReportData)
    new.__dict__.update(data.__dict__)
    new.__dict__.update(changes)
    return new


def audit_page(db: Database, game_id: str, home: str | None = None, verdict: str | None = None) -> str:
    """The whole game's audit page: every resolution, the dice history with a
    histogram per die size, and the score over time.  With ``home`` (in the game's
    site) each resolution links its reports beside it; on its own, to the published
    site when the game has one, else to nothing."""
    with transaction(db, write=False) as tx:
        game = report_reads.game(tx, game_id)
        actives = [r for r in report_reads.resolutions(tx, game_id) if r.active]
        rolls = [(r.k, report.RollLine(r.idx, r.sides, r.value, r.purpose)) for r in report_reads.rolls(tx, game_id)]
        tables = house_tables.game_tables(tx, game_id)
        players = report_reads.players(tx, game_id)
    url = game.site_url
    if home is not None:
        link = lambda filename: filename  # noqa: E731
    elif url:
        link = lambda filename: url.rstrip("/") + "/" + filename  # noqa: E731
    else:
        link = lambda filename: None  # noqa: E731
    ruleset = find_ruleset(game.rules)
    scores = [(0, ruleset.score(json.loads(game.initial_position)))] + [
        (r.k, ruleset.score(json.loads(r.position))) for r in actives
    ]
    return render_audit_page(
        game_id,
        ruleset.title,
        game.anchor,
        [(r.k, r.label, r.state_hash) for r in actives],
        rolls,
        scores,
        ruleset.sides(game.scenario),
        house_tables.summary(ruleset, game.scenario, tables),
        home=home,
        link=link,
        verdict=verdict,
        keys=_fingerprints(players),
    )


def render(db: Database, game_id: str, k: int | None, side: str | None, fmt: str) -> str | bytes:
    """One report as ``html``, ``text`` or ``eml`` (bytes), or the game's ``audit`` page."""
    if fmt == "audit":
        return audit_page(db, game_id)
    with transaction(db, write=False) as tx:
        data = report_data(tx, game_id, k, side)
    if fmt == "html":
        return report.render_html(data)
    if fmt == "text":
        return report.render_text(data)
    if fmt == "eml":
        from pbem.reports import message as message_mod

        email_to = dict(data.sides).get(side) if side is not None else None
        message = message_mod.report_email(
            data,
            sender="referee@pbem.invalid",
            recipient=email_to or f"{side or 'referee'}@pbem.invalid",
            thread_root_id=None,
        )
        return message.as_bytes()
    raise ValueError(f"unknown report format {fmt!r} (html, text, eml, audit)")


def views_keeping_history(
    db: Database, game_id: str, k: int | None, sides: Sequence[str | None] | None, resolved: Resolved | None = None
) -> list[report.ReportData]:
    """:func:`report_views` of resolution ``k`` (default the latest) for ``sides``
    (default every side), in a transaction of its own, as a report is written or
    mailed at the time of a resolution: when the report, without links, is of the
    latest resolution and its list of earlier resolutions is new to the store,
    the store keeps the list (pbem/reports/history.py), so that the next
    resolution's reports render only their own line.  ``resolved``: the resolution
    as the process that made it stored it (:class:`pbem.reports.reads.Resolved`)."""
    made: list[Listed] = []  # the list shown, without links
    with transaction(db, write=False) as tx:
        game = report_reads.game(tx, game_id)
        k = game.current_k if k is None else k
        views = _views(tx, game, k, sides, None, made, resolved)
    if made and made[0].fresh and k == game.current_k:
        with transaction(db) as tx:
            history_list.keep(tx, game_id, k, made[0])
    return views


def write_resolution_reports(
    db: Database, game_id: str, k: int, folder: Path, resolved: Resolved | None = None
) -> list[Path]:
    """Each side's HTML and text report of resolution ``k``, its next turn file and
    the position file, written to ``folder``.  ``resolved``: the resolution as the
    process that made it has just stored it (``pbem process --reports``), which the
    reports take instead of reading it back; the files are those ``pbem report``
    writes from the store alone."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    views = views_keeping_history(db, game_id, k, None, resolved)
    shared = report.Shared(views[0]) if views else None  # what both sides' reports show alike, written once
    for data in views:
        written.append(
            paths.write_inside(folder, report.report_filename(k, data.side, "html"), report.html_bytes(data, shared))
        )
        written.append(
            paths.write_inside(folder, report.report_filename(k, data.side, "txt"), report.text_bytes(data, shared))
        )
        if data.side and data.next_turn_file:
            written.append(
                paths.write_inside(folder, report.turn_file_name(game_id, k, data.side), data.next_turn_file)
            )
    if views:
        written.append(paths.write_inside(folder, views[0].position_file_name, views[0].position_file))
    return written
