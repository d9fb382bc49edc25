"""Issue 13: integrity and security hardening.  One test (or a few) per item,
named after it; each failed on the code before its fix."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

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
