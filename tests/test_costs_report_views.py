"""What a resolution's reports read again of what the process has just made, or work
out again of what they worked out before (the ``process --all --reports`` budget of
``bench/budgets.py``): each test counts parses, calls or statements, never time, and
fails on the referee before this work.

- the list of earlier resolutions of a resolution handed over is the kept row, read
  with the report's small rows, and that resolution's line: no resolution is read;
- each side's key fingerprint is worked out once per stored key line and process;
- the pauses and vacations are read with the report's other small rows, in one statement;
- a game without options is not parsed for them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pbem import store
from pbem.referee import resolve
from pbem.reports import assemble
from pbem.store.transaction import transaction
from pbem.turnfiles import keys


def _game_due(tmp: Path) -> tuple[Any, str]:
    from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

    desk = open_desk(tmp)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    queue_next_turns(desk, [game], seed=3)
    desk.engine.dispose()
    return store.open_database(tmp / "referee.db"), game  # as ``pbem`` opens it


def test_a_key_s_fingerprint_is_worked_out_once_per_stored_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, game = _game_due(tmp_path)
    made: list[str] = []
    fingerprint = keys.PublicKey.fingerprint
    monkeypatch.setattr(keys.PublicKey, "fingerprint", lambda key: made.append(key.key_type) or fingerprint(key))
    assemble._fingerprints_kept.clear()
    first = assemble.views_keeping_history(db, game, 2, None)
    assert len(made) == 2
    again = assemble.views_keeping_history(db, game, 2, None)
    assert len(made) == 2  # before: two more, every report
    assert first[0].keys == again[0].keys
    with transaction(db, write=False) as tx:
        players = assemble.report_reads.players(tx, game)
    for player in players:  # the name ssh-keygen gives, from a key object made of the line
        assert dict(first[0].keys)[player.side] == keys.PublicKey.from_openssh(player.public_key).fingerprint()
    db.dispose()


def test_the_fingerprints_kept_are_bounded() -> None:
    assemble._fingerprints_kept.clear()
    lines = [keys.PublicKey("ssh-ed25519", bytes([n]) * 8).openssh() for n in range(100)]
    for line in lines:
        assemble._fingerprint(line)
    assert len(assemble._fingerprints_kept) == assemble.FINGERPRINTS_KEPT
    assert list(assemble._fingerprints_kept) == lines[-assemble.FINGERPRINTS_KEPT :]


def test_the_report_reads_the_pauses_with_its_small_rows(tmp_path: Path) -> None:
    db, game = _game_due(tmp_path)
    ran: list[str] = []
    db.connection().set_trace_callback(ran.append)
    try:
        assemble.views_keeping_history(db, game, 2, None)
    finally:
        db.connection().set_trace_callback(None)
    assert [s for s in ran if "FROM ledger" in s] and not [s for s in ran if s.startswith("SELECT act, time")]
    # the game, its list of earlier resolutions, the resolution's row and its dice (nothing handed over), its
    # small rows and pauses: before, a statement more
    assert len([s for s in ran if s.startswith(("SELECT", "WITH"))]) == 5, ran
    db.dispose()


def test_a_game_without_options_is_not_parsed_for_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, game = _game_due(tmp_path)
    parsed: list[str] = []
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda text, **kw: parsed.append(text) or loads(text, **kw))
    with transaction(db, write=False) as tx:
        assert assemble.report_reads.game(tx, game).options == ()
    assert parsed == []  # before: "[]" parsed
    db.dispose()


def test_the_reports_handed_a_resolution_read_no_resolution_row_for_their_list(tmp_path: Path) -> None:
    """The list of earlier resolutions, kept for the resolution before the one handed
    over (or for that one, written again), is read alone: no resolution's row is read
    to check it still serves (each stored after its position and events)."""
    db, game = _game_due(tmp_path)
    assemble.write_resolution_reports(db, game, 2, tmp_path / "two")  # the list of 2 kept
    [outcome] = resolve.process(db, [game])
    files: dict[str, dict[str, bytes]] = {}
    for run in ("handed", "again", "stored"):
        ran: list[str] = []
        db.connection().set_trace_callback(ran.append)
        try:
            made = outcome.made if run != "stored" else None
            assemble.write_resolution_reports(db, game, 3, tmp_path / run, made)
        finally:
            db.connection().set_trace_callback(None)
        if run != "stored":  # before: the kept list joined to its resolution, and the resolutions after it read
            assert not [
                s for s in ran if s.startswith(("SELECT", "WITH")) and "resolution" in s.replace("report_history", "")
            ]
        writes = [s for s in ran if s.startswith("INSERT INTO report_history")]
        assert len(writes) == (run == "handed")  # the list of 3 kept once
        files[run] = {path.name: path.read_bytes() for path in (tmp_path / run).iterdir()}
    assert files["handed"] == files["again"] == files["stored"] and len(files["handed"]) >= 5
    db.dispose()


def test_after_a_rollback_the_reports_of_the_next_resolution_list_only_the_active_ones(tmp_path: Path) -> None:
    """The list kept for the last resolution before a rollback names resolutions set
    aside since: the next resolution's reports (its number new, the one before it not
    the game's latest, so nothing is handed over) list the active ones only, as
    ``pbem report`` does from the store alone."""
    from pbem.referee import lifecycle
    from tests.support.desk import new_games, open_desk, queue_next_turns

    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    for k in (1, 2, 3):
        queue_next_turns(desk, [game], seed=k)
        [outcome] = resolve.process(desk.engine, [game])
        assemble.write_resolution_reports(desk.engine, game, k, tmp_path / "played", outcome.made)  # each list kept
    lifecycle.rollback(desk.engine, game, 1)
    queue_next_turns(desk, [game], seed=9)
    [outcome] = resolve.process(desk.engine, [game])
    assert outcome.resolved == 4 and outcome.made is None
    assemble.write_resolution_reports(desk.engine, game, 4, tmp_path / "processed", outcome.made)
    assemble.write_resolution_reports(desk.engine, game, 4, tmp_path / "stored")
    processed = {path.name: path.read_bytes() for path in (tmp_path / "processed").iterdir()}
    assert processed == {path.name: path.read_bytes() for path in (tmp_path / "stored").iterdir()}
    for side in ("empire", "republic"):
        listed = re.findall(r"<li>resolution (\d+):", processed[f"report-k4-{side}.html"].decode())
        assert listed == ["1", "4"], side
    desk.engine.dispose()
