"""The referee's signed ledger, absences and the limits the referee cannot pass:
every act through the real CLI on a real SQLite file, the archive's ledger
checked by ``pbem audit``, tampering named, a vacation asked for by signed mail."""

from __future__ import annotations

import json
import mailbox
import shutil
import sqlite3
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from pbem import store
from pbem.referee import absences, deadlines, ledger
from pbem.referee.verdict import Refused
from pbem.store import absences as stored
from pbem.store import house_tables
from pbem.store.transaction import transaction
from tests.conftest import Table
from tests.support.mailkit import signed_reply
from tests.support.referee_game import EMP, REFEREE, REP, game
from tests.support.schema_v3 import downgrade_to_3


def referee_key(table: Table) -> Path:
    private, _ = table.key("referee")
    return private


def rows(table: Table, sql: str, *params: object) -> list[tuple]:
    con = sqlite3.connect(table.db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def acts(table: Table, name: str = "g1") -> list[str]:
    return [r[0] for r in rows(table, "SELECT act FROM ledger WHERE game_id = ? ORDER BY seq", name)]


def signed_turn(table: Table, side: str, body: str | None = None) -> Path:
    path = table.tmp / f"{side}-{len(list(table.tmp.glob('*.txt')))}.txt"
    args = ("orders", "g1", "--side", side) + (("--bot", "random") if body is None else ())
    assert table.run(*args, "-o", str(path)).exit_code == 0
    if body is not None:
        head = path.read_text().split("\n\n", 1)[0]
        path.write_text(f"{head}\n\n{body}\n")
    private, _ = table.key(side)
    assert table.run("sign", str(path), "--key", str(private)).exit_code == 0
    return path


def export(table: Table, name: str = "g1") -> tuple[Path, dict]:
    path = table.tmp / f"{name}.json"
    r = table.run("export", name, "-o", str(path))
    assert r.exit_code == 0, r.stderr
    return path, json.loads(path.read_text())


def audit_of(table: Table, data: dict) -> tuple[int, str]:
    path = table.tmp / "tampered.json"
    path.write_text(json.dumps(data))
    r = table.run("audit", "--archive", str(path))
    return r.exit_code, r.stderr


def test_every_act_is_a_signed_entry_mailed_to_every_player_and_audited(table: Table) -> None:
    key = str(referee_key(table))
    game(table, "g1", "--referee-key", key, "--deadline", "2d", "--vacation-days", "5", "--max-pause", "7d")
    run = lambda *args: table.run(*args, "--referee-key", key)  # noqa: E731
    assert run("game", "set", "g1", "deadline=3d").exit_code == 0
    assert run("pause", "g1").exit_code == 0
    assert run("resume", "g1").exit_code == 0
    assert run("vacation", "g1", "empire", "2").exit_code == 0
    assert run("extend", "g1", "--chain-length", "16").exit_code == 0
    assert run("player", "g1", "empire", "--email", "emp2@example.org").exit_code == 0
    r = run("process", "g1", "--force-nmr")
    assert r.exit_code == 0 and "no moves received from republic" in r.stdout, r.stderr
    assert run("rollback", "g1", "--to", "0").exit_code == 0
    assert acts(table) == [
        "new",
        "deadline",
        "pause",
        "resume",
        "vacation",
        "extend",
        "player",
        "nmr",
        "rollback",
    ]
    # every entry mailed to every player as it happened
    mailed = rows(table, "SELECT dedupe FROM outbox WHERE kind = 'ledger'")
    assert len(mailed) == 2 * len(acts(table)), mailed
    path, data = export(table)
    entries = data["ledger"]
    assert [e["act"] for e in entries] == acts(table)
    assert all(e["signature"].startswith("-----BEGIN SSH SIGNATURE-----") for e in entries)
    new = entries[0]["details"]
    assert new["limits"] == {"vacation_days": 5, "civil_disorder": None, "max_pause": 604800, "max_extensions": None}
    assert new["referee_key"].startswith("ssh-ed25519 ") and new["anchor"] == data["dice"]["anchor"]
    r = table.run("audit", "--archive", str(path))
    assert r.exit_code == 0, r.stderr
    assert "referee's ledger:     9 entries chained, signed by" in r.stdout
    if shutil.which("ssh-keygen"):  # a third party checks a signature with OpenSSH alone
        allowed = table.tmp / "allowed"
        allowed.write_text(f"referee {new['referee_key']}\n")
        sig = table.tmp / "entry.sig"
        sig.write_text(entries[3]["signature"])
        check = subprocess.run(
            ["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", "referee", "-n", "pbem-referee", "-s", str(sig)],
            input=entries[3]["hash"].encode(),
            capture_output=True,
        )
        assert check.returncode == 0, check.stderr


def test_an_act_without_the_games_referee_key_or_with_another_is_refused_and_changes_nothing(table: Table) -> None:
    game(table, "g1", "--referee-key", str(referee_key(table)))
    before = table.dump()
    r = table.run("pause", "g1")
    assert r.exit_code == 1
    assert "pause refused: this game's acts are signed with the referee's key" in r.stderr
    assert "--referee-key KEY or set $PBEM_REFEREE_KEY" in r.stderr
    other, _ = table.key("intruder")
    r = table.run("game", "set", "g1", "deadline=1d", "--referee-key", str(other))
    assert r.exit_code == 1 and "not the referee's key this game was created with" in r.stderr
    r = table.run("rollback", "g1", "--to", "0")
    assert r.exit_code == 1
    assert table.dump() == before
    # the key from the environment
    assert table.run_subprocess("pause", "g1", env={"PBEM_REFEREE_KEY": str(referee_key(table))}).returncode == 0
    assert acts(table) == ["new", "pause"]


def test_a_game_without_a_referee_key_keeps_an_unsigned_chained_ledger(table: Table) -> None:
    game(table)
    assert table.run("pause", "g1").exit_code == 0
    assert table.run("resume", "g1").exit_code == 0
    _, data = export(table)
    assert [e["signature"] for e in data["ledger"]] == [None, None, None]
    assert data["ledger"][1]["previous"] == data["ledger"][0]["hash"]
    assert table.run("audit", "g1").exit_code == 0


@pytest.mark.parametrize(
    "tamper, named",
    [
        (lambda L: L[1]["details"].update(k=9), "ledger entry 2 (pause): hash"),
        (lambda L: L.pop(1), "ledger entry 2 (resume): numbered 3, expected 2"),
        (lambda L: L.__setitem__(slice(1, 3), [L[2], L[1]]), "ledger entry 2 (resume): numbered 3"),
        (lambda L: [e.update(seq=i) for i, e in enumerate(L[:1] + L[2:], 1)] and L.pop(1), "ledger entry 2 (resume)"),
        (lambda L: L[2].update(signature=L[1]["signature"]), "ledger entry 3 (resume): signature does not verify"),
        (lambda L: L[0]["details"].update(anchor="0" * 64), "ledger entry 1 (new): hash"),
    ],
)
def test_a_changed_dropped_or_reordered_entry_fails_the_audit_naming_it(table: Table, tamper, named: str) -> None:
    key = str(referee_key(table))
    game(table, "g1", "--referee-key", key)
    for act in ("pause", "resume"):
        assert table.run(act, "g1", "--referee-key", key).exit_code == 0
    _, data = export(table)
    tamper(data["ledger"])
    code, err = audit_of(table, data)
    assert code == 1 and named in err, err


def test_dropping_the_last_entry_of_an_act_the_archive_shows_fails_the_audit(table: Table) -> None:
    game(table)
    assert table.run("rollback", "g1", "--to", "0").exit_code == 1  # nothing to roll back: refused, not recorded
    assert table.run("process", "g1", "--force-nmr").exit_code == 0
    _, data = export(table)
    assert data["ledger"][-1]["act"] == "nmr"
    data["ledger"].pop()
    code, err = audit_of(table, data)
    assert code == 1 and "ledger: no nmr entry for resolution 1" in err, err


def test_limits_the_referee_cannot_pass_are_refused_naming_the_limit(table: Table) -> None:
    game(table, "g1", "--deadline", "1d", "--max-pause", "7d", "--max-extensions", "1", "--vacation-days", "3")
    assert table.run("pause", "g1", "--until", "6d").exit_code == 0
    engine = store.open_database(table.db)
    with transaction(engine, write=False) as tx:
        (pause,) = stored.pauses(tx, "g1")
    later = pause.start + timedelta(days=6, hours=1)
    with pytest.raises(Refused) as refused:
        absences.pause(engine, "g1", later + timedelta(days=2), None, later)
    assert refused.value.problems[0].startswith(
        "pause refused: the game allows at most 7d of pause in all (--max-pause), 6d used"
    )
    before = table.dump()
    r = table.run("vacation", "g1", "empire", "4")
    assert r.exit_code == 1
    assert "vacation refused: the game allows at most 3 days of vacation per player (--vacation-days)" in r.stderr
    assert table.dump() == before
    r = table.run("game", "set", "g1", "deadline=2d")
    assert r.exit_code == 0
    r = table.run("game", "set", "g1", "grace=1h")
    assert r.exit_code == 1
    assert "the game allows at most 1 deadline extension(s) (--max-extensions), 1 used" in r.stderr
    assert table.run("game", "set", "g1", "deadline=1d").exit_code == 0, "a shorter deadline is no extension"


def test_no_vacation_without_an_allowance(table: Table) -> None:
    game(table)
    r = table.run("vacation", "g1", "republic", "1")
    assert r.exit_code == 1 and "the game allows no vacation (--vacation-days), republic has used 0" in r.stderr


def test_the_settings_of_new_are_stored(table: Table) -> None:
    game(table, "g1", "--vacation-days", "4", "--civil-disorder", "2", "--max-pause", "3d", "--max-extensions", "2")
    assert rows(table, "SELECT vacation_days, max_pause, max_extensions, referee_key FROM game") == [
        (4, 259200, 2, None)
    ]
    assert rows(table, "SELECT civil_disorder FROM game_allowance") == [(2,)]
    r = table.run("new", "g2", "--rules", "farrapos", "--max-pause", "soon", "--player", "republic=x")
    assert r.exit_code == 1 and "--max-pause: bad duration 'soon'" in r.stderr


def test_a_pause_stops_the_clock_and_shifts_the_deadline(table: Table) -> None:
    game(table, "g1", "--deadline", "1h", "--grace", "30m", "--remind", "20m")
    engine = store.open_database(table.db)
    with transaction(engine, write=False) as tx:
        start = deadlines.last_activity(tx, "g1")
    absences.pause(engine, "g1", None, None, start + timedelta(minutes=10))
    # paused: nothing fires, however late
    assert deadlines.notice_step(engine, start + timedelta(hours=5)) == 0
    assert deadlines.resolution_step(engine, start + timedelta(hours=5)) == []
    absences.resume(engine, "g1", None, start + timedelta(hours=2, minutes=10))
    with transaction(engine, write=False) as tx:
        t = deadlines.timing(tx, "g1")
    assert t is not None and t.deadline == start + timedelta(hours=3)  # 1h of clock, 2h of pause
    assert t.grace_until == start + timedelta(hours=3, minutes=30)
    assert deadlines.resolution_step(engine, start + timedelta(hours=3, minutes=29)) == []
    (made,) = deadlines.resolution_step(engine, start + timedelta(hours=3, minutes=31))
    assert made.resolved == 1 and made.nmr == ("republic",)
    assert acts(table) == ["new", "pause", "resume", "nmr"]
    assert table.run("audit", "g1").exit_code == 0


def test_a_paused_game_still_takes_orders_and_resolves_when_every_file_is_in(table: Table) -> None:
    game(table, "g1", "--deadline", "1h")
    assert table.run("pause", "g1").exit_code == 0
    assert table.run("submit", str(signed_turn(table, "republic"))).exit_code == 0
    engine = store.open_database(table.db)
    (made,) = deadlines.resolution_step(engine, store.utcnow())
    assert made.resolved == 1 and not made.nmr


def test_an_until_ends_the_pause_by_itself_and_a_vacation_moves_the_deadline(table: Table) -> None:
    game(table, "g1", "--deadline", "1d", "--vacation-days", "3")
    engine = store.open_database(table.db)
    with transaction(engine, write=False) as tx:
        start = deadlines.last_activity(tx, "g1")
    absences.pause(engine, "g1", start + timedelta(hours=5), None, start + timedelta(hours=1))
    absences.vacation(engine, "g1", "republic", 2, None, start + timedelta(hours=6))
    with transaction(engine, write=False) as tx:
        t = deadlines.timing(tx, "g1")
        lines = stored.absence_lines(tx, "g1", start + timedelta(hours=7))
    assert t is not None and t.deadline == start + timedelta(days=3, hours=4)
    assert not t.paused(start + timedelta(hours=5))
    assert lines == [f"republic on vacation until {(start + timedelta(days=2, hours=6)):%Y-%m-%d %H:%M} UTC"]


def test_a_vacation_asked_for_by_signed_mail_is_granted_through_the_intake(table: Table) -> None:
    key = referee_key(table)
    game(table, "g1", "--deadline", "2d", "--vacation-days", "3", "--referee-key", str(key))
    request = signed_turn(table, "republic", "vacation 2").read_bytes()
    private, _ = table.key("republic")
    box = mailbox.Maildir(table.tmp / "inbox", create=True)
    box.add(signed_reply(request, private, REP, REFEREE, "Re: g1", "<vac-1@example.org>"))
    box.add(signed_reply(request, private, REP, REFEREE, "Re: g1 again", "<vac-2@example.org>"))
    r = table.run("tick", "--maildir", str(table.tmp / "inbox"))
    assert r.exit_code == 1 or r.exit_code == 0
    assert "game's acts are signed" in r.stdout + r.stderr  # no key: nothing granted
    assert acts(table) == ["new"]
    box.add(signed_reply(request, private, REP, REFEREE, "Re: g1 third", "<vac-3@example.org>"))
    r = table.run("tick", "--maildir", str(table.tmp / "inbox"), "--referee-key", str(key))
    assert acts(table) == ["new", "vacation"], r.stdout + r.stderr
    (details,) = [json.loads(d) for (d,) in rows(table, "SELECT details FROM ledger WHERE act = 'vacation'")]
    assert details["side"] == "republic" and details["days"] == 2 and len(details["request"]) == 64
    verdicts = [json.loads(lines) for (lines,) in rows(table, "SELECT lines FROM intake ORDER BY id")]
    assert any("vacation request: 2 day(s) granted" in " ".join(v) for v in verdicts), verdicts
    # the same signed request again counts once
    box.add(signed_reply(request, private, REP, REFEREE, "Re: g1 fourth", "<vac-4@example.org>"))
    table.run("tick", "--maildir", str(table.tmp / "inbox"), "--referee-key", str(key))
    assert acts(table) == ["new", "vacation"]
    assert rows(table, "SELECT COUNT(*) FROM refusal WHERE reason LIKE '%granted already%'") == [(1,)]
    assert table.run("audit", "g1").exit_code == 0


def test_a_vacation_request_signed_by_the_other_side_is_refused(table: Table) -> None:
    game(table, "g1", "--vacation-days", "3")
    path = signed_turn(table, "republic", "vacation 1")
    other, _ = table.key("empire")
    assert table.run("sign", str(path), "--key", str(other)).exit_code == 0
    r = table.run("submit", str(path))
    assert r.exit_code == 1 and "signature is by the empire side's key" in r.stderr
    assert acts(table) == ["new"]


def test_record_refuses_an_unknown_act(table: Table) -> None:
    game(table)
    engine = store.open_database(table.db)
    with pytest.raises(ValueError, match="unknown ledger act 'coffee'"):
        with transaction(engine) as tx:
            ledger.record(tx, "g1", "coffee", {}, None)


def test_the_reports_say_the_game_is_paused_and_who_is_on_vacation(table: Table) -> None:
    game(table, "g1", "--deadline", "1d", "--vacation-days", "2")
    assert table.run("pause", "g1", "--until", "2d").exit_code == 0
    assert table.run("vacation", "g1", "republic", "2").exit_code == 0
    for fmt in ("text", "html"):
        out = table.tmp / f"report.{fmt}"
        r = table.run("report", "g1", "--side", "empire", "--format", fmt, "-o", str(out))
        assert r.exit_code == 0, r.stderr
        text = out.read_text()
        assert "paused since " in text and ": no deadline runs." in text
        assert "republic on vacation until " in text
    subjects = [s for (s,) in rows(table, "SELECT subject FROM outbox WHERE kind = 'ledger' AND \"to\" = ?", EMP)]
    assert any("referee: the game is paused until" in s for s in subjects), subjects
    assert any("referee: republic on vacation until" in s for s in subjects), subjects


def test_a_version_3_database_is_upgraded_and_its_games_keep_an_unsigned_ledger_from_their_next_act(
    table: Table,
) -> None:
    game(table)
    downgrade_to_3(table.db)
    assert table.run("status", "g1").exit_code == 0
    assert rows(table, "SELECT value FROM meta WHERE key = 'schema_version'") == [(str(store.SCHEMA_VERSION),)]
    assert rows(table, "SELECT vacation_days, max_pause, referee_key FROM game") == [(None, None, None)]
    assert table.run("pause", "g1").exit_code == 0
    assert acts(table) == ["pause"]
    r = table.run("audit", "g1")
    assert r.exit_code == 0, r.stderr
    assert "1 entries chained, unsigned: 1 pause" in r.stdout


def test_a_house_table_is_an_entry_after_new_and_its_dropping_fails_the_audit(table: Table) -> None:
    from tests.support.house_tables import every_die_reads_the_printed_row, write_table

    house = every_die_reads_the_printed_row()
    path = write_table(table, "farrapos", "battle-table", house)
    game(table, "g1", "--table", f"battle-table={path}", "--referee-key", str(referee_key(table)))
    _, data = export(table)
    assert [e["act"] for e in data["ledger"]] == ["new", "house-table"]
    assert data["ledger"][1]["details"] == {"name": "battle-table", "sha256": house_tables.digest(house)}
    assert audit_of(table, data)[0] == 0
    data["ledger"].pop()
    code, err = audit_of(table, data)
    assert code == 1 and "ledger: no house-table entry for battle-table" in err, err


def test_an_observer_added_or_removed_is_a_signed_act_carrying_only_the_address_hash(table: Table) -> None:
    game(table, "g1", "--referee-key", str(referee_key(table)))
    before = rows(table, "SELECT COUNT(*) FROM observer")
    r = table.run("observer", "add", "g1", "dora@example.org")
    assert r.exit_code == 1 and "referee" in r.stderr
    assert rows(table, "SELECT COUNT(*) FROM observer") == before
    assert (
        table.run("observer", "add", "g1", "dora@example.org", "--referee-key", str(referee_key(table))).exit_code == 0
    )
    r = table.run("observer", "remove", "g1", "dora@example.org", "--referee-key", str(referee_key(table)))
    assert r.exit_code == 0, r.stderr
    assert acts(table) == ["new", "observer", "observer"]
    path, data = export(table)
    changes = [e["details"] for e in data["ledger"] if e["act"] == "observer"]
    assert [c["change"] for c in changes] == ["add", "remove"]
    assert all("dora" not in json.dumps(c) for c in changes) and changes[0]["address_sha256"]
    r = table.run("audit", "--archive", str(path))
    assert r.exit_code == 0, r.stderr


def test_a_report_gives_the_deadline_status_gives_a_vacation_counted(table: Table) -> None:
    """The latest report announces the deadline as ``pbem status`` does: moved by a
    vacation granted for the resolution awaited (a pause holds it too)."""
    game(table, "g1", "--deadline", "2d", "--vacation-days", "5")
    assert table.run("vacation", "g1", "republic", "3").exit_code == 0
    due = json.loads(table.run("status", "g1", "--json").stdout)["deadline"]
    out = table.tmp / "r.txt"
    assert table.run("report", "g1", "--side", "republic", "--format", "text", "-o", str(out)).exit_code == 0
    shown = due[:16].replace("T", " ") + " UTC"
    assert shown in out.read_text(encoding="utf-8")
    assert table.run("pause", "g1").exit_code == 0
    assert json.loads(table.run("status", "g1", "--json").stdout)["deadline"] is None
    assert table.run("report", "g1", "--side", "republic", "--format", "text", "-o", str(out)).exit_code == 0
    assert "Deadline:" not in out.read_text(encoding="utf-8")
