"""Costs of a Farrapos submit from a folder and of its resolution, counted, never timed:

- the folder is scanned once: no ``Path.stat`` per file (a ``glob``, an
  ``is_file`` and a ``stat`` of each file, and an ``is_file`` of its signature,
  each through ``pathlib``), with the same files in the same order, a detached
  signature found under either of its names;
- the seen-file's line is appended without a buffered file object;
- a submit hashes the file once (the verdict's query for earlier copies and
  the queued row used two SHA-256 of the same bytes);
- a resolution reads the sides in civil disorder, the webhooks, the players and
  the observers in one statement, not four;
- canonical JSON is written by one C encoder made at import, not one per call.
"""

from __future__ import annotations

import hashlib
import pathlib
from pathlib import Path
from typing import Any

import pytest

from pbem import paths
from pbem.mail import folder
from pbem.mail.readers import SubmitOutcome, Verdict
from pbem.referee import intake
from pbem.referee import resolve as resolving
from tests.support.desk import new_games, open_desk, signed_next_turns, write_next_turns


def _folder(tmp_path: Path) -> Path:
    """Turn files, a hidden one, signatures under both names, a folder and other files."""
    for name in ["b.txt", "a.txt", ".h.txt", "c.txt", "x.sig", "note.md"]:
        (tmp_path / name).write_text("game: g\n")
    (tmp_path / "dir.txt").mkdir()
    (tmp_path / "a.txt.sig").write_text("sig a\r\n")
    (tmp_path / "b.sig").write_text("sig b")
    return tmp_path


def _checked(seen: list[tuple[str, str | None]]) -> Any:
    def check(data: bytes, signature: str | None, source: str) -> SubmitOutcome:
        seen.append((source, signature))
        return SubmitOutcome(True, ("checked",))

    return check


def test_a_folder_is_scanned_once_with_no_stat_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sorted(path.glob("*.txt"))``, an ``is_file`` of each, a ``stat`` of each and
    an ``is_file`` of its signature: four ``Path.stat`` a file, now none."""
    _folder(tmp_path)
    stats = [0]
    real = pathlib.Path.stat

    def counting(self: pathlib.Path, **kwargs: Any) -> Any:
        stats[0] += 1
        return real(self, **kwargs)

    monkeypatch.setattr(pathlib.Path, "stat", counting)
    check = _checked([])
    summary = folder.ingest_dir(tmp_path, check, check, check_only=True)
    assert len(summary.outcomes) == 4
    assert stats[0] == 1, stats  # the folder's own is_dir


def test_the_files_and_signatures_found_are_those_of_glob(tmp_path: Path) -> None:
    _folder(tmp_path)
    found = [str(p) for p in sorted(q for q in tmp_path.glob("*.txt") if q.is_file())]
    seen: list[tuple[str, str | None]] = []
    check = _checked(seen)
    summary = folder.ingest_dir(tmp_path, check, check, check_only=True)
    assert [o.source for o in summary.outcomes] == [f"file {p}" for p in found]
    assert [o.verdict for o in summary.outcomes] == [Verdict.CHECKED] * 4
    signatures = {source.rsplit(" (", 1)[1].rstrip(")"): signature for source, signature in seen}
    assert signatures == {
        "file .h.txt": None,
        "file a.txt": "sig a\n",
        "file b.txt": "sig b",
        "file c.txt": None,
    }


def test_a_seen_line_is_appended_without_a_file_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []
    monkeypatch.setattr(paths, "open", lambda *a, **k: opened.append(a) or open(*a, **k), raising=False)
    target = tmp_path / "seen"
    paths.append_file(target, "one\n")
    paths.append_file(target, "two é\n")
    assert target.read_bytes() == "one\ntwo é\n".encode()
    assert opened == []
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(paths.UnsafePath):
        paths.append_file(tmp_path / "link", "no\n")
    assert (tmp_path / "real").read_text() == "x"


def test_a_submit_hashes_its_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    [(_, message, signature)] = signed_next_turns(desk, [game], seed=1)
    hashed: list[bytes] = []
    real = hashlib.sha256

    def counting(data: bytes = b"", **kwargs: Any) -> Any:
        hashed.append(bytes(data))
        return real(data, **kwargs)

    monkeypatch.setattr(hashlib, "sha256", counting)
    submitted = intake.submit(desk.engine, message, signature)
    monkeypatch.setattr(hashlib, "sha256", real)
    assert hashed.count(message) == 1, len(hashed)
    assert submitted.checked.game_id == game
    assert resolving.process(desk.engine, [game])[0].resolved == 1


def test_a_folder_ingest_accepts_as_before(tmp_path: Path) -> None:
    desk = open_desk(tmp_path)
    [game] = new_games(desk, 1)
    write_next_turns(desk, [game], tmp_path / "inbox", seed=3)
    from pbem.referee import mail_room

    summary = mail_room.run_ingest(desk.engine, directory=tmp_path / "inbox")
    assert [o.verdict for o in summary.outcomes] == [Verdict.ACCEPTED]
    again = mail_room.run_ingest(desk.engine, directory=tmp_path / "inbox")
    assert [o.verdict for o in again.outcomes] == [Verdict.SKIPPED]


def test_a_resolution_s_small_reads_are_one_statement_with_the_same_rows(tmp_path: Path) -> None:
    """The sides in civil disorder, the webhooks, the players' and the observers'
    addresses were four statements of every resolution; one now, whose rows are
    what the four functions read, in their order."""
    from pbem import store
    from pbem.referee import disorder, hooks, notices
    from pbem.store.transaction import transaction

    desk = open_desk(tmp_path)
    [game, other] = new_games(desk, 2)
    db = store.open_database(desk.db)
    now = "2026-01-01 00:00:00.000000"
    with transaction(db) as tx:
        for g in (game, other):
            for n, url in enumerate(["https://b.example/x", "https://a.example/y"]):
                tx.run(
                    "INSERT INTO hook (game_id, url, format, created) VALUES (:g, :u, :f, :c)",
                    {"g": g, "u": url, "f": ["json", "discord"][n], "c": now},
                )
            for email, removed in [("z@example.org", None), ("gone@example.org", now), ("a@example.org", None)]:
                tx.run(
                    "INSERT INTO observer (game_id, email, added, added_k, removed) VALUES (:g, :e, :c, 0, :r)",
                    {"g": g, "e": email, "c": now, "r": removed},
                )
            for side, from_k, until_k in [("republic", 3, None), ("empire", 1, 2), ("empire", 4, None)]:
                tx.run(
                    "INSERT INTO civil_disorder (game_id, side, from_k, started, until_k) VALUES (:g, :s, :f, :c, :u)",
                    {"g": g, "s": side, "f": from_k, "c": now, "u": until_k},
                )
        tx.run("UPDATE player SET email = 'e@example.org' WHERE game_id = :g AND side = 'empire'", {"g": game})
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    with transaction(db, write=False) as tx:
        rows = notices.game_rows(tx, game)
    db.connection().set_trace_callback(None)
    with transaction(db, write=False) as tx:
        assert rows.disorder == disorder.current(tx, game) == {"empire": 4, "republic": 3}
        assert list(rows.disorder) == list(disorder.current(tx, game))
        assert rows.hooks == hooks.of_game(tx, game) and len(rows.hooks) == 2
        assert rows.players == notices.player_addresses(tx, game) == {"empire": "e@example.org"}
        assert rows.observers == [tuple(r) for r in tx.all(notices.OBSERVERS, {"game": game})]
        assert [email for _, email in rows.observers] == ["z@example.org", "a@example.org"]
    assert len([s for s in statements if s.startswith("SELECT")]) == 1
    db.dispose()


def test_canonical_json_makes_no_encoder_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """``JSONEncoder.encode`` built the C encoder (and a function for floats) at
    every call; the one made at import writes the same text."""
    import json
    from json import encoder

    from pbem.turnfiles import canonical

    values = [
        {"b": [1, 2.5, -0.0, 1e100, None, True], "a": {"é": 'ü\u2028"\\\n', "x": []}},
        "text",
        [float("inf")],
        {},
    ]
    made = [0]
    real = encoder.JSONEncoder.iterencode

    def counting(self: Any, o: Any, _one_shot: bool = False) -> Any:
        made[0] += 1
        return real(self, o, _one_shot)

    monkeypatch.setattr(encoder.JSONEncoder, "iterencode", counting)
    texts = [canonical.canonical_json(v) for v in values]
    assert made[0] == 0
    assert texts == [json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for v in values]
