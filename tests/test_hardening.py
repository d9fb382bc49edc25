"""Issue 13: integrity and security hardening.  One test (or a few) per item,
named after it; each failed on the code before its fix."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pbem import paths
from tests.conftest import Table
from tests.test_pipeline_cli import _refused, sign, status, write_orders


def _variant(t: Table, path: Path, name: str, note: str) -> Path:
    """The same orders with a comment added: other bytes, same meaning."""
    other = t.tmp / name
    other.write_text(path.read_text() + f"# {note}\n")
    return other


def _queued(t: Table, game: str) -> list[tuple[str, str]]:
    con = sqlite3.connect(t.db)
    try:
        return con.execute("SELECT side, digest FROM submission WHERE game_id = ? AND status = 'QUEUED'", (game,)).fetchall()
    finally:
        con.close()


# --- 1. an older signed file can overwrite newer orders


def test_1_a_superseded_file_cannot_come_back(new_farrapos) -> None:
    t = new_farrapos("g1")
    a = write_orders(t, "g1", "republic", "a.txt")
    sign(t, a, "republic")
    b = _variant(t, a, "b.txt", "corrected")
    sign(t, b, "republic")
    assert t.run("submit", str(a)).exit_code == 0
    assert t.run("submit", str(b)).exit_code == 0
    queued_before = _queued(t, "g1")
    _refused(t, a, "superseded on ")
    _refused(t, a, "sign a new file to change your orders")
    assert _queued(t, "g1") == queued_before, "the replayed file replaced the newer one"
    assert t.run("process", "g1").exit_code == 0
    con = sqlite3.connect(t.db)
    resolved = con.execute("SELECT message FROM submission WHERE status = 'RESOLVED'").fetchall()
    con.close()
    assert [bytes(m) for (m,) in resolved] == [b.read_bytes()]
    _refused(t, a, "superseded on ")  # still refused once the turn is resolved


def test_1_a_file_set_aside_by_a_rollback_cannot_come_back(new_farrapos) -> None:
    t = new_farrapos("g1")
    first = write_orders(t, "g1", "republic", "t1.txt")
    sign(t, first, "republic")
    assert t.run("submit", str(first)).exit_code == 0
    assert t.run("process", "g1").exit_code == 0
    st = status(t, "g1")
    second = write_orders(t, "g1", st["awaiting"][0], "t2.txt")
    sign(t, second, st["awaiting"][0])
    assert t.run("submit", str(second)).exit_code == 0
    assert t.run("process", "g1").exit_code == 0
    assert t.run("rollback", "g1", "--to", "1").exit_code == 0
    _refused(t, second, "set aside by a rollback")


# --- 2. game ids can be paths


@pytest.mark.parametrize("game_id", ["../x", "a/b", ".", "..", "/tmp/abs", ".hidden", "", "a" * 65, "a b", "g\\h", "ünï"])
def test_2_a_game_id_that_is_not_a_slug_is_refused(table: Table, game_id: str) -> None:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    r = table.run("new", game_id, "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={emp}")
    assert r.exit_code == 1
    assert r.stderr == f"pbem: game id {game_id!r} refused: {paths.GAME_ID_RULE}\n"
    assert not table.db.exists() or table.count("game") == 0


@pytest.mark.parametrize("game_id", ["g1", "Ragamuffin-1835_b", "a.b", "a" * 64, "_x"])
def test_2_a_slug_is_a_game_id(new_farrapos, game_id: str) -> None:
    t = new_farrapos(game_id)
    assert status(t, game_id)["game"] == game_id


def test_2_reports_of_a_stored_path_like_id_stay_inside_their_folder(new_farrapos) -> None:
    """A database made before the rule may hold such an id: nothing is written
    outside the --reports folder."""
    t = new_farrapos("g1")
    first = write_orders(t, "g1", "republic", "t1.txt")
    sign(t, first, "republic")
    assert t.run("submit", str(first)).exit_code == 0
    con = sqlite3.connect(t.db)
    with con:
        for table_name in ("game", "player", "submission"):
            col = "id" if table_name == "game" else "game_id"
            con.execute("PRAGMA foreign_keys = OFF")
            con.execute(f"UPDATE {table_name} SET {col} = '../escaped' WHERE {col} = 'g1'")
    con.close()
    reports = t.tmp / "site" / "reports"
    r = t.run("process", "--all", "--reports", str(reports))
    assert r.exit_code == 1
    assert "refusing to write outside" in r.stderr
    assert not (t.tmp / "site" / "escaped").exists()


def test_2_a_leading_dash_is_refused_too() -> None:
    """'-x' would read as an option on every command line (typer already stops it
    with a usage error; the library refuses it as well)."""
    assert paths.game_id_problem("-x") == f"game id '-x' refused: {paths.GAME_ID_RULE}"


def test_2_inside_refuses_every_escape(tmp_path: Path) -> None:
    assert paths.inside(tmp_path, "g1", "report.html") == tmp_path / "g1" / "report.html"
    for bad in ("..", ".", "", "../x", "a/b", "/etc"):
        with pytest.raises(paths.UnsafePath):
            paths.inside(tmp_path, bad)
