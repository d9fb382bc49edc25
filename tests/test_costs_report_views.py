"""What a resolution's reports work out again of what the process has just made, or of
what they worked out before (the ``process --all --reports`` budget of
``bench/budgets.py``): each test counts parses, calls or statements, never time, and
fails on the referee before this work.

- the position handed over with the resolution (``Resolved.written_from``: the turn's
  new position and the parse of the one before) is not parsed again whole: the
  entries the turn left are the very objects parsed before, the rest is cut out of
  the stored text and parsed (``pbem.reports.handed_position``), the same value, keys
  in the same order, as ``json.loads`` of the stored text (compared over the turns of
  bot games and on random positions);
- each side's key fingerprint is worked out once per stored key line and process;
- the pauses and vacations are read with the report's other small rows, in one statement;
- a game without options is not parsed for them.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pbem import store
from pbem.dice import DiceStream
from pbem.referee import resolve
from pbem.reports import assemble, handed_position
from pbem.rules import find_ruleset
from pbem.store.transaction import transaction
from pbem.turnfiles import keys
from pbem.turnfiles.canonical import canonical_json, canonical_json_after


def _game_due(tmp: Path) -> tuple[Any, str]:
    from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

    desk = open_desk(tmp)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    queue_next_turns(desk, [game], seed=3)
    desk.engine.dispose()
    return store.open_database(tmp / "referee.db"), game  # as ``pbem`` opens it


def test_the_position_handed_over_is_not_parsed_again_and_the_reports_are_the_store_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, game = _game_due(tmp_path)
    [outcome] = resolve.process(db, [game])
    made = outcome.made
    assert made is not None and made.written_from is not None
    parsed: list[str] = []
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda text, **kw: parsed.append(text) or loads(text, **kw))
    handed = assemble.views_keeping_history(db, game, 3, None, made)
    assert made.row.position not in parsed  # before: the stored text parsed whole
    assert len(parsed) == 2  # the entries made anew with the other members, and the events
    monkeypatch.setattr(json, "loads", loads)
    from_store = assemble.views_keeping_history(db, game, 3, None)
    assert [view.__dict__ for view in handed] == [view.__dict__ for view in from_store]
    db.dispose()


def _turns(seed: int) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """Each turn of a seeded Farrapos bot game as the process makes it: the position
    before parsed from its stored text, the turn's new position (handed the parse,
    owned) and the text stored."""
    rules = find_ruleset("farrapos")
    rng = random.Random(seed)
    dice = DiceStream(hashlib.sha256(f"test-{seed}".encode()).digest())
    text = canonical_json(rules.setup(None, []))
    turns = []
    while True:
        before = json.loads(text)
        due = rules.due(before)
        if not due:
            return turns
        (side,) = due
        orders, problems = rules.parse_orders(rules.bot_orders(json.loads(text), side, "random", rng))
        assert not problems
        result = rules.resolve_validated(before, {side: orders}, dice, owned=True)
        written = canonical_json_after(result.position, before, text)
        assert written == canonical_json(result.position)
        turns.append((result.position, before, written))
        text = written


def _same(a: Any, b: Any) -> bool:
    """The same JSON value, with the same types (a list is no tuple) and keys in the same order."""
    return repr(a) == repr(b)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_handed_position_is_the_parse_of_the_stored_text_in_bot_games(seed: int) -> None:
    turns = _turns(seed)
    assert len(turns) > 20
    shared = 0
    for new, before, written in turns:
        parsed = handed_position.parsed_after(new, before, written)
        assert parsed is not None and _same(parsed, json.loads(written))
        shared += sum(a is b for a, b in zip(parsed["cities"].values(), before["cities"].values()))
    assert shared > 10 * len(turns)  # most entries are the very objects parsed before


def _string(rng: random.Random) -> str:
    return "".join(rng.choice(["a", "b", "é", "-", " ", "9", "[", ":", ","]) for _ in range(rng.randrange(1, 6)))


def _flat(rng: random.Random) -> dict[str, Any]:
    values = [None, True, 0, -3, 2.5, "x", [], ["a", "b"], [1, [2]], _string(rng)]
    return {_string(rng): rng.choice(values) for _ in range(rng.randrange(4))}


def test_the_handed_position_is_the_parse_of_the_stored_text_on_random_positions() -> None:
    rng = random.Random(11)
    taken = refused = 0
    for _ in range(3000):
        first = rng.choice(["a", "cities", "0"])
        position = {first: {_string(rng): _flat(rng) for _ in range(rng.randrange(6))}}
        for _ in range(rng.randrange(4)):
            position[rng.choice(["b", "vp", "x y", "z"])] = rng.choice([1, [1, "a"], {"k": {"n": 2}}, "s,t:", None])
        text = canonical_json(position)
        before = json.loads(text)
        new = dict(before)
        entries = dict(before[first])
        for name in list(entries):  # some entries made anew, equal or not, some as tuples or out of order
            pick = rng.randrange(4)
            if pick == 1:
                entries[name] = dict(reversed(list(_flat(rng).items())))
            elif pick == 2:
                entries[name] = {key: tuple(v) if type(v) is list else v for key, v in entries[name].items()}
        new[first] = entries
        if rng.random() < 0.3:
            new[rng.choice(["b", "vp", "zz"])] = (rng.randrange(9), "w")
        written = canonical_json_after(new, before, text)
        if written != canonical_json(new):  # an entry's name that begins with a colon: its text cut short
            continue
        parsed = handed_position.parsed_after(new, before, written)
        if parsed is None:
            refused += 1
            assert "\\" in written or min(new) != first or not new[first]
        else:
            taken += 1
            assert _same(parsed, json.loads(written))
    assert taken > 1500 and refused > 100


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
