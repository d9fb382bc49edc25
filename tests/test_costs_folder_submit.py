"""Costs of a submit from a folder (``pbem ingest --dir``), counted, never timed:

- the folder is scanned once: no ``Path.stat`` per file (a ``glob``, an
  ``is_file`` and a ``stat`` of each file, and an ``is_file`` of its signature,
  each through ``pathlib``), with the same files in the same order, a detached
  signature found under either of its names;
- the seen-file's line is appended without a buffered file object;
- a submit hashes the file once (the verdict's query for earlier copies and
  the queued row used two SHA-256 of the same bytes).
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
