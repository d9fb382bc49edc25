"""A game records its ruleset's version; the referee and the audit refuse a ruleset
installed in another version, by name (docs/rulesets.md, "Versions")."""

from __future__ import annotations

import email
import email.policy
import json
import sqlite3
from collections.abc import Callable

import pytest

from pbem import store
from pbem.rules.farrapos.ruleset import Farrapos
from tests.conftest import Table
from tests.support.cli_steps import sign, write_orders
from tests.support.schema_v3 import downgrade_to_3


def test_a_game_records_its_rulesets_version(new_farrapos: Callable[..., Table]) -> None:
    t = new_farrapos("g1")
    [(version,)] = sqlite3.connect(t.db).execute("SELECT rules_version FROM game").fetchall()
    assert version == Farrapos.version == "1"
    assert t.run("export", "g1", "-o", str(t.tmp / "g1.json")).exit_code == 0
    assert json.loads((t.tmp / "g1.json").read_text(encoding="utf-8"))["game"]["rules_version"] == "1"
    eml = t.tmp / "r.eml"
    assert t.run("report", "g1", "--side", "republic", "--format", "eml", "-o", str(eml)).exit_code == 0
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    [attached] = [p for p in message.iter_attachments() if p.get_filename().endswith(".position.json")]
    assert json.loads(attached.get_content())["rules_version"] == "1"


def test_the_referee_refuses_a_game_of_another_version(
    new_farrapos: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "t1.txt")
    sign(t, path, "republic")
    monkeypatch.setattr(Farrapos, "version", "2")
    before = t.dump()
    r = t.run("check", str(path))
    assert r.exit_code == 1
    assert "game g1 began with farrapos version 1, and the farrapos installed here is version 2" in r.stderr
    assert t.dump() == before
    r = t.run("submit", str(path))
    assert r.exit_code == 1 and "version 2" in r.stderr
    monkeypatch.setattr(Farrapos, "version", "1")
    assert t.run("submit", str(path)).exit_code == 0
    monkeypatch.setattr(Farrapos, "version", "2")
    r = t.run("process", "--all", "-q")
    assert r.exit_code == 1
    assert "g1" in r.stderr and "version 1" in r.stderr and "version 2" in r.stderr


def test_the_audit_refuses_an_archive_of_another_version(
    new_farrapos: Callable[..., Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    t = new_farrapos("g1")
    assert t.run("export", "g1", "-o", str(t.tmp / "g1.json")).exit_code == 0
    assert t.run("audit", "--archive", str(t.tmp / "g1.json")).exit_code == 0
    monkeypatch.setattr(Farrapos, "version", "2")
    r = t.run("audit", "--archive", str(t.tmp / "g1.json"))
    assert r.exit_code == 1
    assert "game.rules_version: the game was played with farrapos version 1" in r.stderr


def test_a_database_made_before_games_recorded_their_version_is_upgraded(new_farrapos: Callable[..., Table]) -> None:
    t = new_farrapos("g1")
    downgrade_to_3(t.db)
    r = t.run("status", "g1", "--json")
    assert r.exit_code == 0, r.stderr
    con = sqlite3.connect(t.db)
    assert con.execute("SELECT rules_version FROM game").fetchall() == [("1",)]
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() == [
        (str(store.SCHEMA_VERSION),)
    ]
