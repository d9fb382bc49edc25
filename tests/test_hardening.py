"""Integrity and security hardening.  One test (or a few) per item,
named after it; each failed on the code before its fix."""

from __future__ import annotations

import base64
import json
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pbem import dice, paths
from pbem.turnfiles import sshsig
from pbem.turnfiles.keys import wire_string
from tests.conftest import ROOT, Table
from tests.support.cli_steps import assert_refused, sign, status, write_orders


def _variant(t: Table, path: Path, name: str, note: str) -> Path:
    """The same orders with a comment added: other bytes, same meaning."""
    other = t.tmp / name
    other.write_text(path.read_text() + f"# {note}\n")
    return other


def _queued(t: Table, game: str) -> list[tuple[str, str]]:
    con = sqlite3.connect(t.db)
    try:
        return con.execute(
            "SELECT side, digest FROM submission WHERE game_id = ? AND status = 'QUEUED'", (game,)
        ).fetchall()
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
    assert_refused(t, a, "superseded on ")
    assert_refused(t, a, "sign a new file to change your orders")
    assert _queued(t, "g1") == queued_before, "the replayed file replaced the newer one"
    assert t.run("process", "g1").exit_code == 0
    con = sqlite3.connect(t.db)
    resolved = con.execute("SELECT message FROM submission WHERE status = 'RESOLVED'").fetchall()
    con.close()
    assert [bytes(m) for (m,) in resolved] == [b.read_bytes()]
    assert_refused(t, a, "superseded on ")  # still refused once the turn is resolved


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
    assert_refused(t, second, "set aside by a rollback")


# --- 2. game ids can be paths


@pytest.mark.parametrize(
    "game_id", ["../x", "a/b", ".", "..", "/tmp/abs", ".hidden", "", "a" * 65, "a b", "g\\h", "ünï"]
)
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


# --- 5. an exhausted dice chain


def _play(t: Table, game: str, name: str) -> dict:
    """Write, sign and submit every awaited side's file; return the status before."""
    st = status(t, game)
    for side in st["awaiting"]:
        path = write_orders(t, game, side, f"{name}-{st['turn']}-{side}.txt", seed=st["turn"])
        sign(t, path, side)
        r = t.run("submit", str(path))
        assert r.exit_code == 0, r.stderr
    return st


def test_5_chain_length_1_is_refused_cleanly(table: Table) -> None:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    r = table.run(
        "new",
        "g1",
        "--rules",
        "farrapos",
        "--player",
        f"republic={rep}",
        "--player",
        f"empire={emp}",
        "--chain-length",
        "1",
    )
    assert r.exit_code == 1
    assert (
        r.stderr == "pbem: dice chain length 1 refused: it must be between 2 and 1,000,000 (a chain of N serves N-1 "
        "resolutions)\n"
    )


def test_5_an_exhausted_chain_is_refused_at_submit_named_in_status_and_stops_no_other_game(new_farrapos) -> None:
    t = new_farrapos("short", "--chain-length", "3")  # serves resolutions 1 and 2
    new_farrapos("other")
    for _ in range(2):
        _play(t, "short", "s")
        assert t.run("process", "short").exit_code == 0
    st = status(t, "short")
    assert st["turn"] == 3 and st["dice_left"] == 0
    plain = t.run("status", "short").stdout
    assert "dice: the committed chains used up; extend them with 'pbem extend short'" in plain
    side = st["awaiting"][0]
    late = write_orders(t, "short", side, "late.txt")
    sign(t, late, side)
    assert_refused(
        t, late, "game short's dice chain is used up: it serves resolutions up to 2, so resolution 3 cannot be rolled"
    )
    # the other game resolves in the same batch; the used-up game is named, no traceback
    _play(t, "other", "o")
    r = t.run("process", "--all", "--force-nmr")
    assert "other: resolution 1" in r.stdout
    assert r.exit_code == 1 and "short: game short's dice chain is used up" in r.stderr
    assert status(t, "other")["turn"] == 2


def test_5_an_extended_game_plays_on_and_audits(new_farrapos) -> None:
    t = new_farrapos("g1", "--chain-length", "3")
    for _ in range(2):
        _play(t, "g1", "a")
        assert t.run("process", "g1").exit_code == 0
    r = t.run("extend", "g1", "--chain-length", "4")
    assert r.exit_code == 0, r.stderr
    assert "dice extended for resolutions 3-5" in r.stdout
    anchor = r.stdout.strip().rsplit(" ", 1)[1]
    assert status(t, "g1")["dice_extensions"] == [{"first_k": 3, "chain_length": 4, "anchor": anchor}]
    for _ in range(3):
        _play(t, "g1", "b")
        assert t.run("process", "g1").exit_code == 0
    assert status(t, "g1")["dice_left"] == 0
    archive_path = t.tmp / "g1.json"
    assert t.run("export", "g1", "-o", str(archive_path)).exit_code == 0
    archive = json.loads(archive_path.read_text())
    assert archive["dice"]["extensions"] == [{"first_k": 3, "chain_length": 4, "anchor": anchor}]
    r = t.run("audit", "--archive", str(archive_path))
    assert r.exit_code == 0, r.stderr
    verifier = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "verify_dice.py"), str(archive_path)], capture_output=True, text=True
    )
    assert verifier.returncode == 0 and "dice verified: 5 resolutions" in verifier.stdout, verifier.stderr
    # a forged extension anchor is caught
    archive["dice"]["extensions"][0]["anchor"] = "00" * 32
    archive_path.write_text(json.dumps(archive))
    r = t.run("audit", "--archive", str(archive_path))
    assert (
        r.exit_code == 1
        and "resolution 3: reveal" in r.stderr
        and "the anchor of the chain extending from 3" in r.stderr
    )


# --- 3. the database is world-readable


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_3_database_wal_shm_and_private_keys_are_0600_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    """A real pbem process under a permissive umask: the database, its WAL and shm
    files (which hold the seed while the game runs) and the private key are 0600."""
    t = Table(tmp_path, tmp_path / "referee.db")
    script = (
        f"import os, sys; os.umask({umask:d}); from pbem.cli import main; sys.argv = ['pbem'] + sys.argv[1:]; main()"
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", script, "--db", str(t.db), *args], capture_output=True, text=True, cwd=tmp_path
        )

    assert run("keygen", "republic", "--dir", str(tmp_path / "k")).returncode == 0
    assert run("keygen", "empire", "--dir", str(tmp_path / "k")).returncode == 0
    assert _mode(tmp_path / "k" / "republic") == 0o600
    r = run(
        "new",
        "g1",
        "--rules",
        "farrapos",
        "--player",
        f"republic={tmp_path / 'k' / 'republic.pub'}",
        "--player",
        f"empire={tmp_path / 'k' / 'empire.pub'}",
    )
    assert r.returncode == 0, r.stderr
    holder = sqlite3.connect(t.db)  # keeps the WAL and shm files in place
    holder.execute("SELECT COUNT(*) FROM game").fetchone()
    for name in ("referee.db", "referee.db-wal", "referee.db-shm"):
        assert _mode(tmp_path / name) == 0o600, name
    status_run = run("status", "g1")
    holder.close()
    assert status_run.returncode == 0 and "warning" not in status_run.stderr


def test_3_status_warns_about_a_database_others_can_read(new_farrapos) -> None:
    t = new_farrapos("g1")
    t.db.chmod(0o644)
    r = t.run("status", "g1")
    assert r.exit_code == 0
    assert f"pbem: warning: others can read {t.db} (mode 0644)" in r.stderr
    assert "hold the dice seed: chmod 600 them" in r.stderr


# --- 4. weak keys


NASTY = ROOT / "tests" / "data" / "nasty"


def _weak_rsa_key() -> rsa.RSAPrivateKey:
    """The corpus's 768-bit RSA key (tests/data/nasty/make_corpus.py, ``keys``)."""
    key = serialization.load_ssh_private_key((NASTY / "keys" / "rsa-768").read_bytes(), None)
    assert isinstance(key, rsa.RSAPrivateKey)
    return key


def _weak_line(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
        + " weak"
    )


def _weak_signature(key: rsa.RSAPrivateKey, message: bytes) -> str:
    """What `pbem sign` wrote with such a key before the fix."""
    blob = base64.b64decode(_weak_line(key).split()[1])
    algorithm, raw = sshsig._raw_sign(key, "ssh-rsa", sshsig._signed_data(message, sshsig.NAMESPACE, "sha512"))
    return sshsig.armor(
        sshsig.MAGIC
        + struct.pack(">I", sshsig.VERSION)
        + wire_string(blob)
        + wire_string(sshsig.NAMESPACE)
        + wire_string(b"")
        + wire_string("sha512")
        + wire_string(wire_string(algorithm) + wire_string(raw))
    )


def test_4_a_weak_rsa_key_is_refused_at_new(table: Table) -> None:
    weak = NASTY / "keys" / "rsa-768.pub"
    _, emp = table.key("empire")
    r = table.run("new", "g1", "--rules", "farrapos", "--player", f"republic={weak}", "--player", f"empire={emp}")
    assert r.exit_code == 1
    assert "public key for republic: RSA key of 768 bits refused: OpenSSH refuses RSA keys under 1024 bits" in r.stderr
    assert not table.db.exists() or table.count("game") == 0


def test_4_a_signature_by_a_weak_key_is_refused_at_submit(new_farrapos) -> None:
    """A game registered before the rule with a weak key: its files are refused."""
    t = new_farrapos("g1")
    key = _weak_rsa_key()
    con = sqlite3.connect(t.db)
    with con:
        con.execute("UPDATE player SET public_key = ? WHERE side = 'republic'", (_weak_line(key),))
    con.close()
    path = write_orders(t, "g1", "republic", "t1.txt")
    path.with_name(path.name + ".sig").write_text(_weak_signature(key, path.read_bytes()))
    assert_refused(t, path, "RSA key of 768 bits refused")


def test_4_signing_with_a_weak_key_is_refused(table: Table) -> None:
    private = NASTY / "keys" / "rsa-768"
    turn = table.tmp / "t.txt"
    turn.write_text("game: g\n")
    r = table.run("sign", str(turn), "--key", str(private))
    assert r.exit_code == 1 and "RSA key of 768 bits refused" in r.stderr
    assert not turn.with_name("t.txt.sig").exists()


def test_4_two_sides_with_one_key_get_a_warning(table: Table) -> None:
    _, rep = table.key("republic")
    r = table.run("new", "g1", "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={rep}")
    assert r.exit_code == 0
    assert (
        "pbem: warning: sides empire and republic registered the same key: its holder can sign for both" in r.stderr
        or "pbem: warning: sides republic and empire registered the same key: its holder can sign for both" in r.stderr
    )


# --- 6. the audit trusts the archive's silence


def _exported_game(new_farrapos, resolutions: int = 3) -> tuple[Table, dict, bytes, int]:
    t = new_farrapos("g1", "--chain-length", "300")
    for _ in range(resolutions):
        _play(t, "g1", "x")
        assert t.run("process", "g1").exit_code == 0
    path = t.tmp / "g1.json"
    assert t.run("export", "g1", "-o", str(path)).exit_code == 0
    con = sqlite3.connect(t.db)
    seed = bytes.fromhex(con.execute("SELECT seed FROM game").fetchone()[0])
    con.close()
    return t, json.loads(path.read_text()), seed, 300


def _audit_of(t: Table, archive: dict) -> tuple[int, str]:
    path = t.tmp / "doctored.json"
    path.write_text(json.dumps(archive))
    r = t.run("audit", "--archive", str(path))
    return r.exit_code, r.stderr + r.stdout


def test_6_the_audit_flags_an_archive_that_carries_the_seed_or_an_unrevealed_link(new_farrapos) -> None:
    t, archive, seed, n = _exported_game(new_farrapos)
    assert _audit_of(t, archive)[0] == 0
    kmax = max(r["k"] for r in archive["resolutions"])
    leaks = {
        "a field named seed": lambda a: a["game"].__setitem__("seed", seed.hex()),
        "the seed in a note": lambda a: a.__setitem__("notes", f"seed is {seed.hex()}"),
        "the checkpoints": lambda a: a["dice"].__setitem__("kept", dice.checkpoints(seed, n).hex()),
        "the next reveal": lambda a: a["final"].__setitem__("next", dice.chain_value(seed, n - kmax - 1).hex().upper()),
    }
    for what, doctor in leaks.items():
        doctored = json.loads(json.dumps(archive))
        doctor(doctored)
        code, out = _audit_of(t, doctored)
        assert code == 1, what
        assert "archive leaks a secret: " in out, (what, out)
    code, out = _audit_of(t, {**archive, "notes": "a player quoted " + "ab" * 32})  # not a chain value: no leak
    assert code == 0, out


def test_6_the_verifier_and_the_audit_say_the_same_of_the_published_links(new_farrapos) -> None:
    """Every published reveal is public: the leak check never flags the archive's own values."""
    t, archive, _, _ = _exported_game(new_farrapos, resolutions=4)
    archive["notes"] = " ".join(r["reveal"] for r in archive["resolutions"]) + " " + archive["dice"]["anchor"]
    assert _audit_of(t, archive)[0] == 0


# --- 7. run-time limits for intake


ARCHIVES = sorted((NASTY / "archives").iterdir())


def _peak_rss():
    from tests.support.peak_rss import PEAK_RSS

    return PEAK_RSS


@pytest.mark.parametrize("path", ARCHIVES, ids=[p.name for p in ARCHIVES])
def test_7_a_hostile_archive_is_refused_with_one_clear_line(new_farrapos, path: Path) -> None:
    t = new_farrapos("g1")
    before = t.dump(skip=())
    r = t.run("audit", "--archive", str(path))
    assert r.exit_code == 1, r.stdout
    assert r.stderr.startswith("pbem: audit failed: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr) < 600
    assert t.dump(skip=()) == before


def _huge_archives(folder: Path) -> dict[str, tuple[Path, str]]:
    million = folder / "million-resolutions.json"
    with million.open("w") as f:
        f.write('{"format": "pbem-archive/1", "resolutions": [')
        f.write(",".join(f'{{"k":{k:d}}}' for k in range(1, 1_000_001)))
        f.write("]}")
    flat_million = folder / "million-flat-resolutions.json"
    flat_million.write_text('{"format": "pbem-archive/1", "resolutions": [' + ",".join(["1"] * 1_000_000) + "]}")
    oversized = folder / "oversized.json"
    with oversized.open("wb") as f:
        f.write(b'{"format": "pbem-archive/1", "pad": "')
        f.truncate(40 * 1024 * 1024)  # sparse: costs no disk
    return {
        "10^6 resolutions": (million, "objects and arrays, over the limit of 500000"),
        "10^6 flat resolutions": (flat_million, "holds 1000000 resolutions, over the limit of 100000"),
        "40 MiB": (oversized, "over the limit of 33554432 bytes"),
        "deep nesting": (NASTY / "archives" / "deep-nesting.json", "nested too deeply"),
        "huge number": (NASTY / "archives" / "huge-number.json", "a number of 5001 digits"),
    }


def test_7_huge_archives_end_in_exit_1_under_the_memory_cap(tmp_path: Path) -> None:
    """A real process with its peak memory measured, as the hostile-input tests do:
    each ends with exit 1, one line naming the limit, and a peak RSS under 200 MiB."""
    for what, (path, expected) in _huge_archives(tmp_path).items():
        code, err, peak = _peak_rss().run_pbem(
            ["--db", str(tmp_path / "none.db"), "audit", "--archive", str(path)], tmp_path, tmp_path, timeout=120
        )
        assert code == 1, (what, err)
        assert err.startswith("pbem: audit failed: ") and err.count("\n") == 1 and expected in err, (what, err)
        assert peak < 200 * 1024 * 1024, f"{what}: peak RSS {peak >> 20} MiB"


def test_7_a_parse_past_its_time_limit_is_stopped(monkeypatch: pytest.MonkeyPatch, new_farrapos) -> None:
    """The time limit itself: a parse made slow on purpose is stopped and refused."""
    import time

    from pbem import limits
    from pbem.turnfiles import envelope as turnfile

    t = new_farrapos("g1")
    path = write_orders(t, "g1", "republic", "t1.txt")
    sign(t, path, "republic")
    slow_parse = turnfile.parse_turn_file

    def crawl(data: bytes):
        time.sleep(5)
        return slow_parse(data)

    monkeypatch.setattr(limits, "TURN_FILE_PARSE_SECONDS", 0.2)
    monkeypatch.setattr("pbem.referee.judging.parse_turn_file", crawl)
    assert_refused(t, path, "reading the turn file took over 0.2 s, the limit; it was not read")


def test_7_time_limits_nest_and_restore() -> None:
    import signal
    import time

    from pbem import limits

    with pytest.raises(limits.TimeLimit, match="reading inner took over 0.05 s"):
        with limits.time_limit(5, "outer"):
            with limits.time_limit(0.05, "inner"):
                time.sleep(1)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with limits.time_limit(5, "outer"):
        with limits.time_limit(1, "inner"):
            pass
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 3 < left <= 5  # the outer limit was re-armed
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
