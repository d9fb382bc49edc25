"""The player's kit: what a player reads (the deadline, in their own zone) and
runs on their own machine (``pbem orders --position``), mail that says nothing
stale, and mail whose form survives clients.  Through the real CLI on a real
SQLite file, and a real SMTP server (aiosmtpd) on loopback."""

from __future__ import annotations

import email
import email.policy
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest

from tests.conftest import Table
from tests.support.mailkit import SmtpServer

pytestmark = pytest.mark.usefixtures("maps_drawn_once")

REFEREE = "referee@example.org"
REP, EMP = "rep@example.org", "emp@example.org"


def farrapos(table: Table, name: str = "g1", *extra: str) -> Table:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    args = ["new", name, "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={emp}"]
    args += ["--email", f"republic={REP}", "--email", f"empire={EMP}", *extra]
    r = table.run(*args)
    assert r.exit_code == 0, r.stderr
    return table


def furor(table: Table, name: str = "fb1", *extra: str) -> Table:
    _, a = table.key("franks")
    _, b = table.key("visigoths")
    args = ["new", name, "--rules", "furor-barbarus", "--scenario", "vouille"]
    args += ["--player", f"franks={a}", "--player", f"visigoths={b}", *extra]
    r = table.run(*args)
    assert r.exit_code == 0, r.stderr
    return table


def eml(table: Table, game: str, side: str) -> EmailMessage:
    out = table.tmp / f"{game}-{side}.eml"
    r = table.run("report", game, "--side", side, "--format", "eml", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    msg = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def attachments(msg: EmailMessage) -> dict[str, bytes]:
    return {str(p.get_filename()): p.get_payload(decode=True) for p in msg.iter_attachments()}  # type: ignore[misc]


def text_part(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    return body.get_content()


def play_bots(table: Table, game: str, resolutions: int) -> None:
    """``resolutions`` resolutions with bot orders submitted by the referee's own tools."""
    for _ in range(resolutions):
        status = json.loads(table.run("status", game, "--json").stdout)
        if status["over"]:
            return
        for side in status["awaiting"]:
            path = table.tmp / f"{game}-{status['turn']}-{side}.txt"
            assert table.run("orders", game, "--side", side, "--bot", "random", "-o", str(path)).exit_code == 0
            private, _ = table.key(side)
            assert table.run("sign", str(path), "--key", str(private)).exit_code == 0
            r = table.run("submit", str(path))
            assert r.exit_code == 0, r.stderr
        assert table.run("process", game).exit_code == 0


# ------------------------------------------------------------------ pbem orders --position


@pytest.mark.parametrize("make,game", [(farrapos, "g1"), (furor, "fb1")])
def test_orders_from_the_position_file_are_the_referees_template_byte_for_byte(table: Table, make, game) -> None:  # type: ignore[no-untyped-def]
    make(table, game, "--deadline", "3d", "--grace", "12h", "--tz", "America/Sao_Paulo")
    assert (
        table.run(
            "player",
            game,
            sorted(json.loads(table.run("status", game, "--json").stdout)["awaiting"])[0],
            "--tz",
            "Asia/Tokyo",
        ).exit_code
        == 0
    )
    compared = 0
    for _ in range(4):
        status = json.loads(table.run("status", game, "--json").stdout)
        for side in status["awaiting"]:
            ours = table.tmp / "referee.txt"
            assert table.run("orders", game, "--side", side, "-o", str(ours)).exit_code == 0
            mailed = attachments(eml(table, game, side))
            posfile = next(n for n in mailed if n.endswith(".position.json"))
            (table.tmp / posfile).write_bytes(mailed[posfile])
            theirs = table.tmp / "player.txt"
            r = table.run("orders", "--position", str(table.tmp / posfile), "--side", side, "-o", str(theirs))
            assert r.exit_code == 0, r.stderr
            assert theirs.read_bytes() == ours.read_bytes()
            turn_file = next(n for n in mailed if n.startswith("turn-"))
            assert mailed[turn_file] == ours.read_bytes(), "the report's turn file is the same template"
            assert "# Deadline: " in ours.read_text() and "(NMR)" in ours.read_text()
            compared += 1
        play_bots(table, game, 1)
    assert compared >= 4


def test_orders_offline_refuses_a_side_not_due_and_names_the_position_file_without_a_database(table: Table) -> None:
    farrapos(table)
    mailed = attachments(eml(table, "g1", "republic"))
    (table.tmp / "g1-r0.position.json").write_bytes(mailed["g1-r0.position.json"])
    r = table.run("orders", "--position", str(table.tmp / "g1-r0.position.json"), "--side", "empire")
    assert r.exit_code == 1 and "it is not the empire side's turn" in r.stderr
    elsewhere = Table(table.tmp / "player", table.tmp / "player" / "pbem.db")
    (table.tmp / "player").mkdir()
    r = elsewhere.run("orders", "g1", "--side", "republic")
    assert r.exit_code == 1 and "pbem orders --position G-rK.position.json --side republic" in r.stderr
    assert not (table.tmp / "player" / "pbem.db").exists()


# ------------------------------------------------------------------ the deadline everywhere


def test_the_deadline_is_in_every_report_the_template_status_and_games_in_the_players_zone(table: Table) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    farrapos(table, "g1", "--deadline", "4m", "--grace", "2m", "--remind", "3m", "--tz", "America/Sao_Paulo")
    assert table.run("player", "g1", "republic", "--tz", "Europe/Lisbon").exit_code == 0
    status = json.loads(table.run("status", "g1", "--json").stdout)
    due = datetime.fromisoformat(status["deadline"].replace("Z", "+00:00"))
    assert status["deadline"].endswith("Z") and before + timedelta(minutes=4) <= due <= before + timedelta(minutes=5)
    utc = f"{due:%Y-%m-%d %H:%M} UTC"
    sao = due.astimezone(__import__("zoneinfo").ZoneInfo("America/Sao_Paulo"))
    lisbon = due.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Lisbon"))
    text = table.run("status", "g1").stdout
    assert f"Deadline: {utc} ({sao:%Y-%m-%d %H:%M} America/Sao_Paulo)" in text
    assert "no orders by then: your side takes no action this resolution (NMR)" in text
    assert f"deadline {utc} (" in table.run("games").stdout and "grace 2m" in table.run("games").stdout
    msg = eml(table, "g1", "republic")
    assert msg["Subject"].endswith(f"your move, due {utc}")
    plain = text_part(msg)
    assert f"Deadline: {utc} ({lisbon:%Y-%m-%d %H:%M} Europe/Lisbon)" in plain
    assert "Grace: 2m, until" in plain and "(NMR)" in " ".join(plain.split())
    html = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert f"Deadline: {utc} ({lisbon:%Y-%m-%d %H:%M} Europe/Lisbon)" in html
    turn = attachments(msg)["turn-g1-1-republic.txt"].decode()
    assert f"# Deadline: {utc}" in turn
    empire = text_part(eml(table, "g1", "empire"))  # not their move: told when the republic's orders are due
    assert f"Deadline: {utc} ({sao:%Y-%m-%d %H:%M} America/Sao_Paulo)" in empire
    (table.tmp / "site").mkdir()
    assert table.run("site", "g1", "-o", str(table.tmp / "site")).exit_code == 0
    assert f"Deadline: {utc}" in (table.tmp / "site" / "report-k0-republic.html").read_text()


def test_a_game_without_a_deadline_says_so_and_status_json_gives_null(table: Table) -> None:
    farrapos(table)
    assert json.loads(table.run("status", "g1", "--json").stdout)["deadline"] is None
    plain = text_part(eml(table, "g1", "republic"))
    assert "Deadline" not in plain and "pipx install pbem" in plain


def test_an_unknown_zone_is_refused_naming_it_and_nothing_changes(table: Table) -> None:
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
        "--tz",
        "Mars/Olympus",
    )
    assert r.exit_code == 1 and "unknown time zone 'Mars/Olympus'" in r.stderr
    farrapos(table)
    before = table.dump()
    r = table.run("player", "g1", "empire", "--tz", "Europe/Atlantis")
    assert r.exit_code == 1 and "unknown time zone 'Europe/Atlantis'" in r.stderr
    assert table.dump() == before


# ------------------------------------------------------------------ what the player is told to run


def test_the_your_move_mail_tells_a_stranger_how_to_play_with_its_attachments(table: Table) -> None:
    farrapos(table)
    assert (
        table.run("site", "g1", "-o", str(table.tmp / "site"), "--site-url", "https://example.org/g1/").exit_code == 0
    )
    msg = eml(table, "g1", "republic")
    plain = text_part(msg)
    html = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    for words in (
        "pipx install pbem",
        "pip install pbem",
        "pbem orders --position g1-r0.position.json --side republic -o turn-g1-1-republic.txt",
        "pbem sign turn-g1-1-republic.txt --key",
        "ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n pbem turn-g1-1-republic.txt",
        "docs/rules/farrapos.md",
        "https://example.org/g1/index.html",
    ):
        assert words in plain and words in html, words
    assert set(attachments(msg)) == {"turn-g1-1-republic.txt", "g1-r0.position.json"}
    assert "pbem audit g1`" not in plain and "<code>pbem audit g1</code>" not in html
    play_bots(table, "g1", 1)
    plain = " ".join(text_part(eml(table, "g1", "empire")).split())
    assert (
        "'pbem audit --archive g1.json' re-derives every die; download it from https://example.org/g1/g1.json" in plain
    )


def test_without_a_site_the_audit_line_says_to_ask_the_referee_for_the_archive(table: Table) -> None:
    farrapos(table)
    play_bots(table, "g1", 1)
    plain = " ".join(text_part(eml(table, "g1", "empire")).split())
    assert "ask the referee for the game's archive ('pbem export g1'); 'pbem audit --archive' on it" in plain


# ------------------------------------------------------------------ mail form


def test_a_long_subject_arrives_on_one_line_and_no_attached_turn_file_line_is_over_72(table: Table) -> None:
    long_id = "the-ragamuffin-war-replayed-by-the-club-of-porto-alegre-2026"
    farrapos(table, long_id)
    out = table.tmp / "long.eml"
    assert table.run("report", long_id, "--side", "republic", "--format", "eml", "-o", str(out)).exit_code == 0
    raw = out.read_bytes()
    subject_line = next(line for line in raw.split(b"\n") if line.startswith(b"Subject:"))
    assert b"your move" in subject_line, "the subject is not folded"
    for policy in (email.policy.default, email.policy.compat32):
        subject = str(email.message_from_bytes(raw, policy=policy)["Subject"])
        assert subject == f"[pbem {long_id}] resolution 1 - 1835, turn 1 (Republic): your move", policy
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    for name, data in attachments(msg).items():  # type: ignore[arg-type]
        if name.startswith("turn-"):
            assert max(len(line) for line in data.decode().split("\n")) <= 72, name


# ------------------------------------------------------------------ nothing stale


def _tick(table: Table, smtp_server: SmtpServer) -> str:
    r = table.run("tick", "--smtp", smtp_server.address, "--sender", REFEREE)
    assert r.exit_code == 0, r.stderr
    return r.stdout


def _outbox(table: Table) -> list[dict]:
    return json.loads(table.run("outbox", "--json").stdout)


def _backdate(table: Table, minutes: int) -> None:
    """Move the game's clock start back, as if the game was made ``minutes`` ago."""
    con = sqlite3.connect(table.db)
    with con:
        con.execute("UPDATE game SET created = datetime(created, ?)", (f"-{minutes} minutes",))
    con.close()


def test_a_late_notice_for_a_resolution_made_meanwhile_is_superseded_not_sent(table: Table, smtp: SmtpServer) -> None:
    farrapos(table, "g1", "--deadline", "4m", "--grace", "2m")
    _backdate(table, 5)  # past the deadline, within grace
    smtp.stop()  # the mail server is down: the late notices stay queued
    r = table.run("tick", "--smtp", smtp.address, "--sender", REFEREE)
    assert r.exit_code == 0 and "late notice" in r.stdout
    _backdate(table, 3)  # grace over: resolved with no orders
    smtp.start()
    con = sqlite3.connect(table.db)
    with con:
        con.execute("UPDATE outbox SET next_attempt = created")
    con.close()
    out = _tick(table, smtp)
    assert "no moves received from republic" in out and "not sent: superseded" in out
    late = [o for o in _outbox(table) if o["kind"] == "late"]
    assert len(late) == 2 and {o["state"] for o in late} == {"superseded"}
    assert all("resolution 1 was made" in o["last_error"] for o in late)
    subjects = [str(m["Subject"]) for m in smtp.handler.parsed()]
    assert subjects and not any("late" in s for s in subjects)
    assert "superseded" in table.run("outbox").stdout
    assert table.run("outbox", "retry", str(late[0]["id"])).exit_code == 1


def test_a_reminder_whose_deadline_changed_is_superseded(table: Table, smtp: SmtpServer) -> None:
    farrapos(table, "g1", "--deadline", "10m", "--remind", "8m")
    _backdate(table, 3)
    smtp.stop()
    assert table.run("tick", "--smtp", smtp.address, "--sender", REFEREE).exit_code == 0
    reminder = [o for o in _outbox(table) if o["kind"] == "reminder"]
    assert len(reminder) == 1 and reminder[0]["state"] == "pending"
    assert table.run("game", "set", "g1", "deadline=20m").exit_code == 0
    smtp.start()
    con = sqlite3.connect(table.db)
    with con:
        con.execute("UPDATE outbox SET next_attempt = created")
    con.close()
    _tick(table, smtp)
    reminder = [o for o in _outbox(table) if o["kind"] == "reminder"]
    assert reminder[0]["state"] == "superseded" and "deadline" in reminder[0]["last_error"]


def test_a_reminder_gives_commands_that_work_on_the_players_machine(table: Table, smtp: SmtpServer) -> None:
    farrapos(table, "g1", "--deadline", "10m", "--remind", "8m", "--tz", "America/Sao_Paulo")
    _backdate(table, 3)
    _tick(table, smtp)
    reminder = next(m for m in smtp.handler.parsed() if m["X-Pbem-Kind"] == "reminder")
    body = text_part(reminder)  # type: ignore[arg-type]
    assert "pbem orders --position g1-r0.position.json --side republic -o turn.txt" in body
    assert "ssh-keygen -Y sign -f KEY -n pbem turn.txt" in body and "America/Sao_Paulo" in body
    assert "pbem orders g1" not in body
    assert str(reminder["Subject"]).startswith("[pbem g1] resolution 1 - 1835, turn 1 (Republic): reminder")


def test_a_resent_identical_file_is_a_note_to_its_sender_not_a_problem_in_the_reports(table: Table) -> None:
    farrapos(table)
    path = table.tmp / "turn.txt"
    assert table.run("orders", "g1", "--side", "republic", "-o", str(path)).exit_code == 0
    private, _ = table.key("republic")
    assert table.run("sign", str(path), "--key", str(private)).exit_code == 0
    assert table.run("submit", str(path)).exit_code == 0
    refusals = table.count("refusal")
    r = table.run("submit", str(path))
    assert "already queued for resolution 1" in r.stderr and "those orders stand" in r.stderr
    assert table.count("refusal") == refusals
    assert table.run("process", "g1").exit_code == 0
    for side in ("republic", "empire"):
        assert "PROBLEMS WITH THE ORDERS RECEIVED" not in text_part(eml(table, "g1", side))
