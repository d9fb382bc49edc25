"""The referee pipeline through the real CLI, on a real SQLite file, with real
SSH signatures (ours and OpenSSH's ssh-keygen)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from pbem import store
from tests.conftest import Table
from tests.support.cli_steps import assert_refused, sign, status, write_orders

SSH_KEYGEN = shutil.which("ssh-keygen")


def test_whole_farrapos_game_through_signed_files(new_farrapos) -> None:
    """A whole Farrapos game from `pbem new` to its end, every turn file
    written by the legal-order generator, signed, submitted and processed."""
    t = new_farrapos("campaign")
    turns = 0
    while True:
        st = status(t, "campaign")
        if st["over"]:
            break
        assert st["awaiting"], st
        for side in st["awaiting"]:
            path = write_orders(t, "campaign", side, f"t{st['turn']}-{side}.txt", seed=st["turn"])
            sign(t, path, side, inline=st["turn"] % 2 == 0)
            r = t.run("submit", str(path))
            assert r.exit_code == 0, r.stderr
            assert "queued" in r.stdout
        r = t.run("process", "campaign")
        assert r.exit_code == 0, r.stderr
        assert f"resolution {st['turn']}" in r.stdout
        turns += 1
        assert turns <= 44, "Farrapos lasts at most 11 phases of 4 turns"
    final = status(t, "campaign")
    assert final["result"]["reason"]
    assert t.count("resolution") == turns
    r = t.run("audit", "campaign")
    assert r.exit_code == 0, r.stderr + r.stdout
    assert "all checks hold" in r.stdout


def test_status_json_contract(new_farrapos) -> None:
    t = new_farrapos("g1")
    st = status(t, "g1")
    for key in ("game", "rules", "turn", "awaiting", "over", "result"):
        assert key in st
    assert st == {
        **st,
        "game": "g1",
        "rules": "farrapos",
        "turn": 1,
        "awaiting": ["republic"],
        "over": False,
        "result": None,
    }


def test_new_prints_the_commitment_and_keeps_the_seed_secret(table: Table) -> None:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    r = table.run("new", "g1", "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={emp}")
    assert r.exit_code == 0, r.stderr
    con = sqlite3.connect(table.db)
    seed, anchor = con.execute("SELECT seed, anchor FROM game").fetchone()
    con.close()
    assert anchor in r.stdout
    assert seed not in r.stdout


@pytest.mark.skipif(SSH_KEYGEN is None, reason="needs OpenSSH ssh-keygen")
def test_ssh_keygen_signed_file_is_accepted(new_farrapos) -> None:
    t = new_farrapos("g1")
    private, _ = t.key("republic")
    path = write_orders(t, "g1", "republic", "turn.txt")
    subprocess.run(
        [SSH_KEYGEN, "-Y", "sign", "-q", "-f", str(private), "-n", "pbem", str(path)], check=True, capture_output=True
    )
    r = t.run("submit", str(path))
    assert r.exit_code == 0, r.stderr


@pytest.mark.skipif(SSH_KEYGEN is None, reason="needs OpenSSH ssh-keygen")
def test_pbem_signed_file_verifies_with_ssh_keygen(new_farrapos) -> None:
    t = new_farrapos("g1")
    _, public = t.key("republic")
    path = write_orders(t, "g1", "republic", "turn.txt")
    sign(t, path, "republic")
    allowed = t.tmp / "allowed_signers"
    allowed.write_text("republic " + public.read_text())
    with path.open("rb") as fh:
        out = subprocess.run(
            [SSH_KEYGEN, "-Y", "verify", "-f", str(allowed), "-I", "republic", "-n", "pbem", "-s", str(path) + ".sig"],
            stdin=fh,
            capture_output=True,
            text=True,
        )
    assert out.returncode == 0, out.stderr
    assert "Good" in out.stdout


# --- refusals: exit 1, one line per problem, nothing changed, refusal recorded


def test_refused_one_byte_changed(new_farrapos) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "turn.txt")
    sign(t, path, "republic")
    data = bytearray(path.read_bytes())
    data[-2] = ord("x") if data[-2] != ord("x") else ord("y")
    path.write_bytes(bytes(data))
    assert_refused(t, path, "does not match")


def test_refused_signed_by_the_other_side(new_farrapos) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "turn.txt")
    sign(t, path, "empire")
    assert_refused(t, path, "the empire side's key")


def test_refused_unknown_key(new_farrapos) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "turn.txt")
    sign(t, path, "stranger")
    assert_refused(t, path, "an unknown key")


@pytest.mark.skipif(SSH_KEYGEN is None, reason="needs OpenSSH ssh-keygen")
def test_refused_wrong_namespace(new_farrapos) -> None:
    t = new_farrapos("g1")
    private, _ = t.key("republic")
    path = write_orders(t, "g1", "republic", "turn.txt")
    subprocess.run(
        [SSH_KEYGEN, "-Y", "sign", "-q", "-f", str(private), "-n", "git", str(path)], check=True, capture_output=True
    )
    assert_refused(t, path, "namespace")


def test_refused_for_another_game(new_farrapos) -> None:
    t = new_farrapos("g1")
    new_farrapos("g2")
    path = write_orders(t, "g2", "republic", "turn.txt")
    text = path.read_text().replace("game: g2", "game: g3")
    path.write_text(text)
    sign(t, path, "republic")
    assert_refused(t, path, "no game 'g3'")


def test_refused_stale_turn_and_replay(new_farrapos) -> None:
    t = new_farrapos("g1")
    first = write_orders(t, "g1", "republic", "t1.txt")
    sign(t, first, "republic")
    assert t.run("submit", str(first)).exit_code == 0
    assert t.run("process", "g1").exit_code == 0
    # the very same file again: a replay of a resolved file
    assert_refused(t, first, "already resolved in resolution 1")
    # a new file for turn 1, written against the old position: stale
    stale = t.tmp / "stale.txt"
    stale.write_text(first.read_text().replace("# ", "#  ", 1) + "\n")
    sign(t, stale, "republic")
    assert_refused(
        t,
        stale,
        "the turn file is for resolution 1, which is already resolved: game g1 now awaits resolution 2 (1835, "
        "turn 2 (Empire))",
    )


def test_refused_wrong_state_and_not_your_turn(new_farrapos) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "turn.txt")
    text = path.read_text()
    state = next(line for line in text.splitlines() if line.startswith("state: "))
    path.write_text(text.replace(state, "state: " + "0" * 64))
    sign(t, path, "republic")
    assert_refused(t, path, "is not the current position")
    emp = t.tmp / "emp.txt"
    emp.write_text(text.replace("side: republic", "side: empire"))
    sign(t, emp, "empire")
    assert_refused(t, emp, "not the empire side's turn")


def test_refused_illegal_order_names_the_line(new_farrapos) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "turn.txt", bot=None)
    path.write_text(path.read_text() + "fly to the moon\n")
    sign(t, path, "republic")
    lines = path.read_text().splitlines()
    assert_refused(t, path, f"line {len(lines)}:")


def test_unsigned_file_refused_on_submit_but_checked(new_farrapos) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "turn.txt")
    r = t.run("check", str(path))
    assert r.exit_code == 0, r.stderr
    assert "not signed" in r.stdout
    assert_refused(t, path, "not signed")


def test_new_submission_supersedes_the_queued_one(new_farrapos) -> None:
    t = new_farrapos("g1")
    a = write_orders(t, "g1", "republic", "a.txt", seed=1)
    b = write_orders(t, "g1", "republic", "b.txt", seed=2)
    b.write_text(b.read_text() + "# second thoughts\n")
    sign(t, a, "republic")
    sign(t, b, "republic")
    assert t.run("submit", str(a)).exit_code == 0
    r = t.run("submit", str(b))
    assert r.exit_code == 0 and "superseding 1" in r.stdout
    con = sqlite3.connect(t.db)
    statuses = [row[0] for row in con.execute("SELECT status FROM submission ORDER BY id")]
    con.close()
    assert statuses == ["SUPERSEDED", "QUEUED"] or statuses == ["superseded", "queued"]
    assert t.run("process", "g1").exit_code == 0
    archive = t.tmp / "a.json"
    assert t.run("export", "g1", "-o", str(archive)).exit_code == 0
    files = json.loads(archive.read_text())["resolutions"][0]["submissions"]
    assert [f["turn_file"] for f in files] == [b.read_text()]


def test_force_nmr_is_recorded(new_farrapos) -> None:
    t = new_farrapos("g1")
    r = t.run("process", "g1")
    assert "awaiting republic" in r.stdout
    assert t.count("resolution") == 0
    r = t.run("process", "g1", "--force-nmr")
    assert r.exit_code == 0 and "no moves received from republic" in r.stdout
    con = sqlite3.connect(t.db)
    assert json.loads(con.execute("SELECT nmr FROM resolution").fetchone()[0]) == ["republic"]
    con.close()


def test_process_twice_changes_nothing(new_farrapos) -> None:
    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "t.txt")
    sign(t, path, "republic")
    t.run("submit", str(path))
    assert t.run("process", "--all").exit_code == 0
    before = t.dump(skip=())
    r = t.run("process", "--all")
    assert r.exit_code == 0 and "0 resolution(s) made" in r.stdout
    assert t.dump(skip=()) == before


def test_database_of_another_schema_version_is_refused(new_farrapos) -> None:
    t = new_farrapos("g1")
    con = sqlite3.connect(t.db)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    before = t.dump(skip=())
    r = t.run("status", "g1")
    assert r.exit_code == 1
    assert "schema version is 99" in r.stderr and "Traceback" not in r.stderr
    assert t.dump(skip=()) == before


def test_not_a_pbem_database(table: Table) -> None:
    con = sqlite3.connect(table.db)
    con.execute("CREATE TABLE other (x)")
    con.commit()
    con.close()
    r = table.run("status", "g1")
    assert r.exit_code == 1 and "not a pbem database" in r.stderr


def test_usage_error_exits_2(table: Table) -> None:
    assert table.run("process").exit_code == 2
    assert table.run("new", "g1", "--rules", "farrapos", "--player", "nonsense").exit_code == 2


def test_rollback_sets_aside_and_audit_shows_it(new_farrapos) -> None:
    t = new_farrapos("g1")
    for _ in range(3):
        st = status(t, "g1")
        side = st["awaiting"][0]
        path = write_orders(t, "g1", side, f"t{st['turn']}.txt")
        sign(t, path, side)
        assert t.run("submit", str(path)).exit_code == 0
        assert t.run("process", "g1").exit_code == 0
    r = t.run("rollback", "g1", "--to", "1")
    assert r.exit_code == 0 and "set aside 2, 3" in r.stdout
    st = status(t, "g1")
    assert st["turn"] == 4, "resolution numbers are never reused after a rollback"
    path = write_orders(t, "g1", st["awaiting"][0], "t4.txt")
    sign(t, path, st["awaiting"][0])
    assert t.run("submit", str(path)).exit_code == 0
    assert t.run("process", "g1").exit_code == 0
    archive = t.tmp / "g1.json"
    assert t.run("export", "g1", "-o", str(archive)).exit_code == 0
    data = json.loads(archive.read_text())
    assert [r["k"] for r in data["resolutions"]] == [1, 4]
    assert data["set_aside"][0]["to"] == 1
    assert [r["k"] for r in data["set_aside"][0]["resolutions"]] == [2, 3]
    r = t.run("audit", "--archive", str(archive))
    assert r.exit_code == 0, r.stderr
    assert "2 set aside by 1 rollback" in r.stdout
    assert (
        "rollback:             to resolution 1 at" in r.stdout
        and "set aside 2 (1835, turn 2 (Empire)), 3 (1835, turn 3 (Republic))" in r.stdout
    )


def test_store_opens_by_url(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'x.db'}")
    engine.dispose()
    assert (tmp_path / "x.db").exists()


def test_new_takes_game_and_scenario_options_and_refuses_unknown_ones(table: Table) -> None:
    _, a = table.key("a")
    _, b = table.key("b")
    r = table.run(
        "new",
        "f1",
        "--rules",
        "farrapos",
        "--option",
        "siege",
        "--option",
        "port-transport",
        "--player",
        f"republic={a}",
        "--player",
        f"empire={b}",
    )
    assert r.exit_code == 0, r.stderr
    r = table.run(
        "new",
        "v1",
        "--rules",
        "furor-barbarus",
        "--scenario",
        "vouille",
        "--option",
        "elite",
        "--option",
        "zoc-to-zoc",
        "--player",
        f"franks={a}",
        "--player",
        f"visigoths={b}",
    )
    assert r.exit_code == 0, r.stderr
    r = table.run(
        "new",
        "v2",
        "--rules",
        "furor-barbarus",
        "--scenario",
        "soissons",
        "--option",
        "elite",
        "--player",
        f"franks={a}",
        "--player",
        f"gallo-romans={b}",
    )
    assert r.exit_code == 1 and "unknown option 'elite'" in r.stderr and "free-placement" in r.stderr
    r = table.run("new", "v3", "--rules", "furor-barbarus", "--scenario", "nowhere", "--player", f"franks={a}")
    assert r.exit_code == 1 and "unknown scenario 'nowhere'" in r.stderr
    r = table.run("new", "v4", "--rules", "chess", "--player", f"white={a}")
    assert r.exit_code == 1 and "unknown rules 'chess'" in r.stderr
