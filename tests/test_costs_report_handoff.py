"""What a resolution's reports read back of what the resolution had just stored (the
``process --all --reports`` budget of ``bench/budgets.py``): each test counts
statements or encoder calls, never time, and fails on the referee before this work.

- ``pbem process --reports`` hands each resolution, as it stored it, to its
  reports (``ProcessOutcome.made``: the row inserted, its dice's rows, the reveal
  before): they no longer read back the resolution's row nor its dice, and the
  files are the very bytes ``pbem report`` and the reports written from the store
  alone give, in a Farrapos game and a Furor Barbarus one.  A resolution no longer
  the game's latest is read from the store (so refused as before), and an
  outcome sent from a worker process leaves the hand-off behind;
- the reports read a game's dice chains, refused files, players, rollbacks, sides
  in civil disorder, observers (and, since, its pauses and vacations: tests/test_costs_report_views.py)
  in one statement (``reads.view_rows``), where
  each was a statement of its own (some 15 k instructions each, however small);
- the position file attached to every report was written by the JSON encoder
  from the parsed position (a third of a million instructions a Farrapos report);
  its position is now the stored text with a space after each comma and colon
  between values (``pbem.reports.position_text``), the same text.
"""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem import store
from pbem.referee import intake, lifecycle, resolve
from pbem.reports import assemble, position_text
from pbem.reports import render as report
from pbem.turnfiles import keys, sshsig
from pbem.turnfiles.canonical import canonical_json, sorted_json
from pbem.turnfiles.position_file import PositionFile


def _game_due(tmp: Path, rules: str, scenario: str | None, sides: tuple[str, str], played: int) -> tuple[Any, str]:
    """A database opened as ``pbem`` opens it, holding one game of ``rules`` played by
    the seeded bot to resolution ``played``, the next one's files queued."""
    signers, public = {}, {}
    for side in sides:
        private, pub = keys.generate_ed25519(side, tmp / "keys")
        signers[side], public[side] = keys.load_private_key(private), pub.read_text(encoding="utf-8").strip()
    engine = store.create_database(tmp / "referee.db")
    lifecycle.new_game(engine, "g1", rules, scenario, [], public)
    for k in range(1, played + 2):
        for side in lifecycle.status(engine, "g1").awaiting:
            message = lifecycle.next_turn_file(engine, "g1", side, bot="random", seed=k).encode("utf-8")
            intake.submit(engine, message, sshsig.sign(message, signers[side]))
        if k <= played:
            assert resolve.resolve_next(engine, "g1").resolved == k
    engine.dispose()
    return store.open_database(tmp / "referee.db"), "g1"


def _statements(db: Any, work: Callable[[], Any]) -> list[str]:
    """The SQL statements ``work()`` runs on ``db`` (an SQLite file)."""
    ran: list[str] = []
    db.connection().set_trace_callback(ran.append)
    try:
        work()
    finally:
        db.connection().set_trace_callback(None)
    return ran


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


GAMES = [("farrapos", None, ("empire", "republic"), 3), ("furor-barbarus", "vouille", ("franks", "visigoths"), 2)]


@pytest.mark.parametrize(("rules", "scenario", "sides", "played"), GAMES)
def test_the_reports_handed_a_resolution_read_none_of_it_back_and_are_the_same_bytes(
    tmp_path: Path, rules: str, scenario: str | None, sides: tuple[str, str], played: int
) -> None:
    db, game = _game_due(tmp_path, rules, scenario, sides, played)
    [outcome] = resolve.process(db, [game])
    k = outcome.resolved
    assert k == played + 1 and outcome.made is not None and outcome.made.row.k == k
    ran = _statements(db, lambda: assemble.write_resolution_reports(db, game, k, tmp_path / "handed", outcome.made))
    assert not [s for s in ran if "FROM resolution WHERE game_id" in s and " k IN " in s]  # before: the row read back
    assert not [s for s in ran if "FROM roll " in s]  # before: its dice
    # the game, its list of earlier resolutions, its small rows and pauses in one statement: before, ten
    assert len([s for s in ran if s.startswith(("SELECT", "WITH"))]) == 3, ran
    # the same files from the store alone (its list of earlier resolutions now kept), and as ``pbem report`` gives them
    stored = _statements(db, lambda: assemble.write_resolution_reports(db, game, k, tmp_path / "stored"))
    assert [s for s in stored if "FROM roll " in s]
    handed, from_store = _files(tmp_path / "handed"), _files(tmp_path / "stored")
    assert handed == from_store and len(handed) >= 5
    for side in sides:
        for fmt, ext in (("html", "html"), ("text", "txt")):
            text = assemble.render(db, game, k, side, fmt)
            assert isinstance(text, str) and text.encode("utf-8") == handed[report.report_filename(k, side, ext)]
    db.dispose()


def test_a_resolution_no_longer_the_latest_is_read_from_the_store(tmp_path: Path) -> None:
    db, game = _game_due(tmp_path, "farrapos", None, ("empire", "republic"), 2)
    [outcome] = resolve.process(db, [game])
    assert outcome.resolved == 3 and outcome.made is not None
    lifecycle.rollback(db, game, 2)
    with pytest.raises(LookupError, match="no active resolution 3"):
        assemble.write_resolution_reports(db, game, 3, tmp_path / "out", outcome.made)
    db.dispose()


def test_an_outcome_pickled_leaves_the_hand_off_behind_and_is_compared_without_it(tmp_path: Path) -> None:
    db, game = _game_due(tmp_path, "farrapos", None, ("empire", "republic"), 1)
    [outcome] = resolve.process(db, [game])
    db.dispose()
    assert outcome.made is not None
    sent = pickle.loads(pickle.dumps(outcome))
    assert sent.made is None and sent == outcome and hash(sent) == hash(outcome)
    assert "made" not in repr(outcome)
    assert outcome == resolve.ProcessOutcome(game, 2, outcome.label, nmr=outcome.nmr, over=outcome.over)


def _json_string(rng: random.Random) -> str:
    """A short string, holding now and then a comma, a colon, a quote, a backslash, a
    brace or a letter outside ASCII."""
    letters = ["a", "b", " ", "é", "ü", "9", "-", "{", "]", *([",", ":", '"', "\\"] * (rng.random() < 0.1))]
    return "".join(rng.choice(letters) for _ in range(rng.randrange(6)))


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    """Random JSON data (keys strings, as a position's)."""
    pick = rng.randrange(6 if depth < 4 else 3)
    if pick == 0:
        return rng.choice([None, True, False, 0, -7, 123456789012, 1.5, -0.25, 1e-7])
    if pick <= 2:
        return _json_string(rng)
    if pick == 3:
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {_json_string(rng): _json_value(rng, depth + 1) for _ in range(rng.randrange(5))}


def test_the_spaced_text_of_a_canonical_text_is_the_encoder_s() -> None:
    rng = random.Random(7)
    made = refused = 0
    for _ in range(4000):
        value = _json_value(rng, 1)
        value = value if isinstance(value, dict) else {"v": value}
        text = canonical_json(value)
        spaced = position_text.spaced(text)
        if spaced is None:
            refused += 1
            assert "\\" in text or any("," in s or ":" in s for s in _strings(value))
        else:
            made += 1
            assert spaced == sorted_json(json.loads(text))
    assert made > 2000 and refused > 300


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    return []


def _position_file(position: dict[str, Any], key: str = "ssh-ed25519 AAAA", result: str | None = None) -> PositionFile:
    return PositionFile(
        "g1", "farrapos", "campaign", ("fog",), 3, 4, "1836, turn 1", "ab" * 32, result is not None, result,
        {"empire": key, "republic": "ssh-ed25519 BBBB"}, position, "1", "2026-01-02T03:04:05Z", 60, {"empire": "UTC"},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("position", "key", "result"),
    [
        ({"cities": {"bagé": {"owner": None, "units": [1, 2]}}, "vp": {"a": 1}}, "ssh-ed25519 AAAA", None),
        ({"a": [], "b": {}, "c": "x, y: z"}, "ssh-ed25519 AAAA", '{"winner": "empire"}'),  # a comma in a string
        ({"a": 1}, 'x "position": null', None),  # the key's text elsewhere in the file
        ({"a": "back\\slash"}, "ssh-ed25519 AAAA", None),
    ],
)
def test_the_position_file_s_text_is_to_text_s(position: dict[str, Any], key: str, result: str | None) -> None:
    text = canonical_json(position)
    kept = _position_file(json.loads(text), key, result)
    assert position_text.file_text(kept, text) == kept.to_text()


def test_the_position_file_is_written_without_encoding_the_position(monkeypatch: pytest.MonkeyPatch) -> None:
    position = {"cities": {f"c{n}": {"owner": "empire", "units": [n]} for n in range(30)}, "turn": 3}
    text = canonical_json(position)
    kept = _position_file(json.loads(text))
    encoded: list[Any] = []
    monkeypatch.setattr(position_text, "sorted_json", lambda value: encoded.append(value) or sorted_json(value))
    written = position_text.file_text(kept, text)
    assert written == kept.to_text()
    assert [value["position"] for value in encoded] == [None]  # before: the whole file, its position with it


def test_a_resolution_s_reports_encode_no_position(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.turnfiles import canonical

    db, game = _game_due(tmp_path, "farrapos", None, ("empire", "republic"), 2)
    [outcome] = resolve.process(db, [game])
    encoded: list[Any] = []
    spaced_encoder = canonical._C_SPACED
    monkeypatch.setattr(
        canonical, "_C_SPACED", lambda value, level: encoded.append(value) or spaced_encoder(value, level)
    )
    for made in (outcome.made, None):  # handed over, and from the store alone
        encoded.clear()
        written = assemble.write_resolution_reports(db, game, 3, tmp_path / str(made is None), made)
        [kept] = [path for path in written if path.name.endswith(".position.json")]
        assert json.loads(kept.read_text(encoding="utf-8"))["position"]["cities"]
        assert [value["position"] for value in encoded] == [None]  # before: the whole file, its position in it
    db.dispose()


@pytest.mark.postgres
def test_the_reports_of_process_on_postgresql_with_workers_and_without_are_pbem_report_s(
    postgres_url: str, tmp_path: Path
) -> None:
    """``process --reports`` on PostgreSQL, by two workers (their outcomes come back
    without the hand-off: the reports read the store) and by one (handed over):
    each report file is what ``pbem report`` gives of the store."""
    from tests.support.desk import new_games, open_desk, play_resolutions, queue_next_turns

    desk = open_desk(tmp_path, postgres_url)
    games = new_games(desk, 2)
    for game in games:
        play_resolutions(desk, game, 1)
    for k, jobs in ((2, "2"), (3, "1")):
        queue_next_turns(desk, games, seed=k)
        ran = desk.pbem("process", "--all", "-q", "--jobs", jobs, "--reports", str(tmp_path / f"out{k}"))
        assert ran.returncode == 0, ran.stderr
        for game in games:
            written = _files(tmp_path / f"out{k}" / game)
            for side in ("empire", "republic"):
                page = assemble.render(desk.engine, game, k, side, "html")
                assert isinstance(page, str) and page.encode("utf-8") == written[report.report_filename(k, side)]
    desk.engine.dispose()


def _small_rows_alike(desk: Any) -> None:
    """A Farrapos game with an extension chain, a refused file, a rollback, a side in
    civil disorder once and one now, and an observer: its small rows read in one
    statement are those each read gave, in its order (``view_rows``)."""
    from pbem.referee import absences, disorder, observers
    from pbem.reports import reads
    from pbem.store import absences as stored_absences
    from pbem.store.transaction import transaction
    from tests.support.desk import new_games, play_resolutions, queue_next_turns, signed_next_turns

    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 2)
    lifecycle.rollback(desk.engine, game, 1)
    queue_next_turns(desk, [game], seed=5)
    assert resolve.process(desk.engine, [game])[0].resolved == 3  # numbers are never reused
    lifecycle.extend_dice(desk.engine, game, 16)
    observers.add(desk.engine, game, "watch@example.org")
    [(_g, message, signature)] = signed_next_turns(desk, [game], seed=9)
    intake.record_refusal(desk.engine, message, signature, ["refused for the test"], source="test")
    now = store.utcnow()
    with transaction(desk.engine) as tx:
        tx.run("UPDATE game SET vacation_days = 5 WHERE id = :game", {"game": game})
    absences.pause(desk.engine, game, now + timedelta(days=1), None, now - timedelta(hours=1))
    absences.resume(desk.engine, game, None, now - timedelta(minutes=30))
    absences.vacation(desk.engine, game, "republic", 2, None, now)
    with transaction(desk.engine) as tx:
        disorder.mark(tx, game, "empire", "start", 1)
        disorder.mark(tx, game, "empire", "end", 2, "file")
        disorder.mark(tx, game, "republic", "start", 3)
    with transaction(desk.engine, write=False) as tx:
        k = store.known_game(tx, game).current_k
        rows = reads.view_rows(tx, game, k, k + 1)
        assert rows.chains == store.chain_anchors(tx, game) and len(rows.chains) == 1
        refused = tx.all(
            "SELECT side, source, received, reason FROM refusal WHERE game_id = :game AND turn IN (:k, :next)"
            " ORDER BY id",
            {"game": game, "k": k, "next": k + 1},
        )
        assert [(r.side, r.source, r.received, r.reason) for r in rows.refusals] == [
            (side, source, store.as_datetime(received), reason) for side, source, received, reason in refused
        ]
        assert len(rows.refusals) == 1
        assert rows.players == reads.players(tx, game) and len(rows.players) == 2
        assert rows.rollbacks == reads.rollbacks(tx, game) and len(rows.rollbacks) == 1
        assert sorted(rows.disorder) == [("empire", 1, 2), ("republic", 3, None)] and rows.observers == 1
        ledger = [tuple(row) for row in stored_absences.ledger_rows(tx, game)]
        assert [tuple(row) for row in rows.absences] == ledger and [act for act, _t, _d in ledger] == [
            "pause",
            "resume",
            "vacation",
        ]
        assert stored_absences.lines_of(rows.absences, now) == stored_absences.absence_lines(tx, game, now)
        assert len(stored_absences.absence_lines(tx, game, now)) == 1  # the vacation


def test_a_report_s_small_rows_are_read_as_each_read_gave_them(tmp_path: Path) -> None:
    from tests.support.desk import open_desk

    desk = open_desk(tmp_path)
    _small_rows_alike(desk)
    desk.engine.dispose()


@pytest.mark.postgres
def test_a_report_s_small_rows_are_read_as_each_read_gave_them_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    from tests.support.desk import open_desk

    desk = open_desk(tmp_path, postgres_url)
    _small_rows_alike(desk)
    desk.engine.dispose()
