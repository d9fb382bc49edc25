"""What writing a resolution's report files no longer costs (the instruction budget
of ``process --all --reports``, ``bench/budgets.py``): each test counts what is done,
never time, and fails on the files before this work; each refusal is checked too.

- ``paths.inside`` (the folder of a game's reports) resolved the folder and the path
  in it, each of their folders looked up through Python (some 300,000 instructions a
  resolution): a plain name that is no symbolic link stays inside whatever the folder
  resolves to, so a path is resolved only when one of the names is a link;
- a report file is new (its name holds the resolution): made with ``O_EXCL``, it is
  the plain empty file just made, with no ``fstat`` (a ``stat_result`` of some 10,000
  instructions), ``set_blocking`` nor ``ftruncate``; a name already taken goes the
  old way (checked, truncated), a link in its place still refused;
- a file's pieces go to one ``writev`` as they are: views of them are made only if a
  call wrote less than all;
- a file is opened by its text (the folder's and the name's), not through a joined
  path turned into text again.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from pbem import paths


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: dict[str, int]) -> None:
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] = calls.get(name, 0) + 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_a_folder_of_plain_names_is_not_resolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: dict[str, int] = {}
    _counting(monkeypatch, Path, "resolve", calls)
    _counting(monkeypatch, os.path, "realpath", calls)
    (tmp_path / "there").mkdir()
    assert paths.inside(tmp_path, "there", "g1") == tmp_path / "there" / "g1"
    assert paths.inside(tmp_path, "missing", "g1") == tmp_path / "missing" / "g1"
    assert calls == {}


def test_a_linked_name_is_resolved_and_refused_when_it_leads_outside(tmp_path: Path) -> None:
    folder, outside = tmp_path / "reports", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "within").mkdir()
    (folder / "away").symlink_to(outside)
    (folder / "near").symlink_to(folder / "within")
    (folder / "within" / "up").symlink_to(tmp_path)
    assert paths.inside(folder, "near", "g1") == folder / "near" / "g1"  # a link that stays inside is kept
    for parts in (("away",), ("away", "g1"), ("within", "up"), ("within", "up", "g1")):
        with pytest.raises(paths.UnsafePath):
            paths.inside(folder, *parts)
    for bad in ("..", ".", "", "../x", "a/b", "/etc", "a\0b"):
        with pytest.raises(paths.UnsafePath):
            paths.inside(folder, "within", bad)


def test_inside_agrees_with_resolving_every_path(tmp_path: Path) -> None:
    """On a tree of folders and links (inside and out, dangling, chained), every path
    of one to three names is refused exactly when resolving it leaves the folder."""
    rng = random.Random(3)
    folder = tmp_path / "top"
    names = ["a", "b", "c", "d", "e"]
    for place in (folder, folder / "a", folder / "a" / "b", tmp_path / "out"):
        place.mkdir(parents=True, exist_ok=True)
    targets = [tmp_path, tmp_path / "out", folder, folder / "a", folder / "a" / "b", folder / "nowhere"]
    for place in (folder, folder / "a", folder / "a" / "b"):
        for name in names[2:]:
            (place / name).symlink_to(rng.choice(targets))
    checked = 0
    for n in (1, 2, 3):
        for _ in range(150):
            parts = [rng.choice(names) for _ in range(n)]
            path = folder.joinpath(*parts)
            expected = path.resolve().is_relative_to(folder.resolve())
            try:
                assert paths.inside(folder, *parts) == path
                assert expected, parts
            except paths.UnsafePath:
                assert not expected, parts
            checked += 1
    assert checked == 450


def test_a_new_report_file_is_written_with_no_check_of_what_it_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: dict[str, int] = {}
    for name in ("fstat", "set_blocking", "ftruncate", "writev", "write"):
        _counting(monkeypatch, os, name, calls)
    made: list[Any] = []
    monkeypatch.setattr(paths, "memoryview", lambda b: made.append(b) or memoryview(b), raising=False)
    pieces = [b"<html>", "é".encode(), b"", b"</html>\n"]
    written = paths.write_inside(tmp_path, "report-k1-republic.html", pieces)
    assert written == tmp_path / "report-k1-republic.html"
    assert written.read_bytes() == b"".join(pieces)
    assert calls == {"writev": 1} and made == []


def test_a_taken_name_is_checked_truncated_or_refused(tmp_path: Path) -> None:
    target = tmp_path / "report-k1-republic.txt"
    target.write_bytes(b"a longer text written before\n")
    assert paths.write_inside(tmp_path, target.name, "short\n").read_bytes() == b"short\n"
    (tmp_path / "elsewhere.txt").write_text("kept", encoding="utf-8")
    (tmp_path / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "nothing.txt")
    for name in ("link.txt", "dangling.txt"):
        with pytest.raises(paths.UnsafePath, match="symbolic link"):
            paths.write_inside(tmp_path, name, "overwritten")
    assert (tmp_path / "elsewhere.txt").read_text(encoding="utf-8") == "kept"
    assert not (tmp_path / "nothing.txt").exists()
    os.mkfifo(tmp_path / "fifo.txt")
    with pytest.raises(paths.UnsafePath, match="not a plain file"):
        paths.write_inside(tmp_path, "fifo.txt", "never")
    (tmp_path / "folder.txt").mkdir()
    with pytest.raises(OSError):
        paths.write_inside(tmp_path, "folder.txt", "never")
    with pytest.raises(FileExistsError):
        paths.write_file(target, "again", new=True)


def test_a_short_write_goes_on_where_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call writes at most a few bytes: the file still holds every piece in order."""
    rng = random.Random(5)
    real_write = os.write

    def short_writev(fd: int, buffers: Any) -> int:
        return real_write(fd, b"".join(bytes(b) for b in buffers)[: rng.randrange(1, 6)])

    monkeypatch.setattr(os, "writev", short_writev)
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[: rng.randrange(1, 6)]))
    for n in range(20):
        pieces = [bytes(rng.randrange(256) for _ in range(rng.randrange(0, 9))) for _ in range(rng.randrange(0, 6))]
        path = paths.write_inside(tmp_path, f"f{n}.bin", pieces)
        assert path.read_bytes() == b"".join(pieces)
