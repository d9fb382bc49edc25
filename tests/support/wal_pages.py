"""The pages an SQLite write wrote, read off its write-ahead log: for the counting
tests of what a resolution writes (tests/test_costs_game_row.py,
tests/test_costs_resolution_indexes.py)."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

_WAL_HEADER = 32
_FRAME_HEADER = 24


def emptied_wal(db: Path) -> None:
    """The write-ahead log folded into the database and emptied: the frames
    found in it afterwards are the pages written since."""
    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        con.close()


def pages_written(db: Path) -> list[str]:
    """The table or index of each page in the write-ahead log (a page number for
    a page no table holds yet), one entry per frame."""
    data = Path(f"{db}-wal").read_bytes()
    con = sqlite3.connect(db)
    try:
        owner = {page: name for name, page in con.execute("SELECT name, pageno FROM dbstat")}
        size = con.execute("PRAGMA page_size").fetchone()[0]
    finally:
        con.close()
    frames = range(_WAL_HEADER, len(data) - _FRAME_HEADER - size + 1, _FRAME_HEADER + size)
    return [owner.get(page, str(page)) for (page,) in (struct.unpack_from(">I", data, at) for at in frames)]
