"""Steps of a game through the real CLI on a ``Table``: write a bot's orders, sign them,
read the status, expect a refusal."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.conftest import Table


def write_orders(t: Table, game: str, side: str, name: str, bot: str | None = "random", seed: int = 0) -> Path:
    path = t.tmp / name
    args = ["orders", game, "--side", side, "-o", str(path)]
    if bot:
        args += ["--bot", bot, "--seed", str(seed)]
    r = t.run(*args)
    assert r.exit_code == 0, r.stderr
    return path


def sign(t: Table, path: Path, side: str, inline: bool = False) -> None:
    private, _ = t.key(side)
    r = t.run("sign", str(path), "--key", str(private), *(["--inline"] if inline else []))
    assert r.exit_code == 0, r.stderr


def status(t: Table, game: str) -> dict:
    r = t.run("status", game, "--json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def assert_refused(t: Table, path: Path, expected: str, *extra: str) -> None:
    before = t.dump()
    refusals = t.count("refusal")
    r = t.run("submit", str(path), *extra)
    assert r.exit_code == 1, (r.stdout, r.stderr)
    assert expected in r.stderr, r.stderr
    assert r.stderr.startswith("pbem: ")
    assert t.dump() == before, "a refused file changed the database"
    assert t.count("refusal") == refusals + 1, "the refusal was not recorded"
    con = sqlite3.connect(t.db)
    data, reason = con.execute("SELECT data, reason FROM refusal ORDER BY id DESC LIMIT 1").fetchone()
    con.close()
    assert data == path.read_bytes(), "the refused bytes were not kept exactly"
    assert expected in reason


def play(t: Table, game: str, resolutions: int) -> list[str]:
    """Play ``resolutions`` turns with signed files of the greedy bot; returns every
    CLI output."""
    outputs = []
    for _ in range(resolutions):
        st = status(t, game)
        if st["over"]:
            break
        for side in st["awaiting"]:
            path = write_orders(t, game, side, f"{game}-{st['turn']}-{side}.txt", bot="greedy", seed=st["turn"])
            sign(t, path, side)
            r = t.run("submit", str(path))
            assert r.exit_code == 0, r.stderr
            outputs.append(r.stdout + r.stderr)
        r = t.run("process", game)
        outputs.append(r.stdout + r.stderr)
    return outputs
