"""A Farrapos game with both players' addresses, for the referee service tests, a
bot's turn file for it, and reads of the referee's rows and outbox."""

from __future__ import annotations

import json
import sqlite3

from tests.conftest import Table

REFEREE = "referee@example.org"


REP, EMP = "rep@example.org", "emp@example.org"


def game(table: Table, name: str = "g1", *extra: str) -> Table:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    r = table.run(
        "new",
        name,
        "--rules",
        "farrapos",
        "--player",
        f"republic={rep}",
        "--player",
        f"empire={emp}",
        "--email",
        f"republic={REP}",
        "--email",
        f"empire={EMP}",
        *extra,
    )
    assert r.exit_code == 0, r.stderr
    return table


def turn_file(table: Table, name: str, side: str, seed: int = 0) -> bytes:
    path = table.tmp / f"{name}-{side}.txt"
    assert (
        table.run("orders", name, "--side", side, "--bot", "random", "--seed", str(seed), "-o", str(path)).exit_code
        == 0
    )
    return path.read_bytes()


def rows(table: Table, sql: str, *params: object) -> list[tuple]:
    con = sqlite3.connect(table.db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def outbox(table: Table) -> list[dict]:
    r = table.run("outbox", "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)
