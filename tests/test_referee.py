"""The referee as a service.  The outbox, intake that answers only
players, deadlines, tick and serve, on a real SQLite file, through the real CLI,
with a real SMTP server (aiosmtpd) on loopback."""

from __future__ import annotations

import json
import mailbox
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from pbem import store
from pbem.referee import deadlines
from tests.conftest import Table
from tests.support.mailkit import SmtpServer, plain_mail, signed_reply
from tests.support.referee_game import EMP, REFEREE, REP, game, outbox, rows, turn_file

pytestmark = pytest.mark.usefixtures("maps_drawn_once")


def inbox(table: Table) -> mailbox.Maildir:
    return mailbox.Maildir(table.tmp / "inbox", create=True)


# ------------------------------------------------------------------ the outbox


def test_new_game_queues_each_side_its_report_and_tick_delivers_it_once(table: Table, smtp: SmtpServer) -> None:
    game(table)
    owed = outbox(table)
    assert sorted((o["kind"], o["to"], o["state"]) for o in owed) == [
        ("ledger", EMP, "pending"),  # the ledger's 'new' entry (pbem/referee/ledger.py)
        ("ledger", REP, "pending"),
        ("report", EMP, "pending"),
        ("report", REP, "pending"),
    ]
    r = table.run("tick", "--smtp", smtp.address, "--sender", REFEREE)
    assert r.exit_code == 0, r.stderr
    assert "4 sent" in r.stdout
    got = smtp.handler.parsed()
    assert sorted(m["To"] for m in got) == [EMP, EMP, REP, REP]
    assert {m["From"] for m in got} == {REFEREE}
    assert sorted(m["Message-ID"] for m in got) == sorted(o["message_id"] for o in owed)
    assert all(o["state"] == "sent" and o["attempts"] == 1 for o in outbox(table))
    assert table.run("tick", "--smtp", smtp.address, "--sender", REFEREE).exit_code == 0
    assert len(smtp.handler.messages) == 4, "a sent row is never sent again"


def test_smtp_down_then_up_queues_then_delivers_once(table: Table, smtp: SmtpServer) -> None:
    game(table)
    smtp.stop()
    r = table.run("tick", "--smtp", smtp.address, "--sender", REFEREE, "--backoff", "600")
    assert r.exit_code == 0, "a pass whose deliveries failed still succeeds"
    owed = outbox(table)
    assert all(o["state"] == "pending" and o["attempts"] == 1 and "cannot connect" in o["last_error"] for o in owed)
    smtp.start()
    assert table.run("tick", "--smtp", smtp.address, "--sender", REFEREE, "--backoff", "600").exit_code == 0
    assert smtp.handler.messages == [], "the backoff holds the retry"
    r = table.run("outbox", "retry")
    assert r.exit_code == 0 and "4 message(s) re-armed" in r.stdout  # two reports, two ledger entries
    assert table.run("tick", "--smtp", smtp.address, "--sender", REFEREE).exit_code == 0
    assert len(smtp.handler.messages) == 4
    assert [(o["state"], o["attempts"]) for o in outbox(table)] == [("sent", 2)] * 4
    assert sorted(m["Message-ID"] for m in smtp.handler.parsed()) == sorted(o["message_id"] for o in owed), (
        "the retry reuses each row's Message-ID"
    )


def test_a_permanent_refusal_fails_the_row_and_retry_re_arms_it(table: Table, smtp: SmtpServer) -> None:
    class Refusing:
        def __init__(self) -> None:
            self.refuse = True
            self.messages: list[bytes] = []

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if self.refuse and address == EMP:
                return "550 no such user"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            self.messages.append(envelope.content)
            return "250 OK"

    smtp.stop()
    handler = Refusing()
    server = SmtpServer(handler, smtp.port)  # type: ignore[arg-type]
    server.start()
    try:
        game(table)
        assert table.run("tick", "--smtp", server.address, "--sender", REFEREE).exit_code == 0
        by_to = {o["to"]: o for o in outbox(table) if o["kind"] == "report"}
        assert by_to[REP]["state"] == "sent"
        assert by_to[EMP]["state"] == "failed" and "550" in by_to[EMP]["last_error"]
        r = table.run("outbox")
        assert "failed" in r.stdout and "550" in r.stdout
        handler.refuse = False
        r = table.run("outbox", "retry", str(by_to[EMP]["id"]))
        assert r.exit_code == 0 and "1 message(s) re-armed" in r.stdout
        assert table.run("tick", "--smtp", server.address, "--sender", REFEREE).exit_code == 0
        assert {o["state"] for o in outbox(table) if o["kind"] == "report"} == {"sent"}
        assert len(handler.messages) == 3  # both reports and the republic's ledger entry
    finally:
        server.stop()
    r = table.run("outbox", "retry", "999")
    assert r.exit_code == 1 and "no outbox row 999" in r.stderr
    r = table.run("outbox", "retry", str(by_to[REP]["id"]))
    assert r.exit_code == 1 and "was sent already; nothing to retry" in r.stderr


# ------------------------------------------------------------------ intake


def test_receipt_goes_to_sender_and_registered_address_spam_is_not_answered_poison_is_passed_by(
    table: Table, smtp: SmtpServer
) -> None:
    game(table)
    box = inbox(table)
    private, _ = table.key("republic")
    poison = (
        b"From: rep.other@example.net\r\nTo: referee@example.org\r\nSubject: =?utf-8?b?/w==?=\r\n"
        b"Message-ID: <poison@example.net>\r\nDate: Tue, 01 Dec 2026 10:00:00 +0000\r\n\r\ngame: g1\r\nside: "
        b"republic\r\n\xff\xfe\r\n"
    )
    box.add(poison)
    box.add(plain_mail("buy@spam.example", REFEREE, "Buy now", "cheap watches", "<spam@spam.example>"))
    box.add(
        signed_reply(
            turn_file(table, "g1", "republic"),
            private,
            "Alice <alice.home@example.net>",
            REFEREE,
            "my orders",
            "<orders-1@example.net>",
            time.time() + 5,
        )
    )
    r = table.run("tick", "--maildir", str(table.tmp / "inbox"), "--smtp", smtp.address, "--sender", REFEREE)
    assert r.exit_code == 0, r.stderr
    verdicts = dict(rows(table, "SELECT message_id, verdict FROM intake"))
    assert verdicts == {
        "<poison@example.net>": "refused",
        "<spam@spam.example>": "refused",
        "<orders-1@example.net>": "accepted",
    }
    assert len(rows(table, "SELECT id FROM refusal")) == 2, "spam and poison are kept as refusals with their bytes"
    assert any(b"Buy now" in bytes(d) for (d,) in rows(table, "SELECT data FROM refusal"))
    mails = smtp.handler.parsed()
    replies = [m for m in mails if m["In-Reply-To"]]
    receipt = next(m for m in replies if m["In-Reply-To"] == "<orders-1@example.net>")
    assert sorted(a.strip() for a in receipt["To"].split(",")) == ["alice.home@example.net", REP]
    assert receipt["Subject"] == "[pbem g1] turn file accepted"
    refusal = next(m for m in replies if m["In-Reply-To"] == "<poison@example.net>")
    assert refusal["To"] == REP, "a message naming a game is answered at the address the game knows"
    assert not any(m["In-Reply-To"] == "<spam@spam.example>" for m in mails), "no backscatter"
    # Nothing is judged twice.
    before = rows(table, "SELECT COUNT(*) FROM intake")[0][0]
    r = table.run("tick", "--maildir", str(table.tmp / "inbox"), "--smtp", smtp.address, "--sender", REFEREE)
    assert r.exit_code == 0 and rows(table, "SELECT COUNT(*) FROM intake")[0][0] == before
    assert rows(table, "SELECT COUNT(*) FROM submission")[0][0] == 1


def test_a_registered_player_without_a_turn_file_is_answered(table: Table) -> None:
    game(table)
    inbox(table).add(plain_mail(REP, REFEREE, "hello", "are we playing?", "<chat@example.org>"))
    assert table.run("ingest", "--maildir", str(table.tmp / "inbox"), "-q").exit_code == 1
    assert [(o["kind"], o["to"]) for o in outbox(table) if o["kind"] not in ("report", "ledger")] == [("refusal", REP)]


# ------------------------------------------------------------------ deadlines


def test_durations_and_clock_settings_are_checked_and_nothing_is_stored(table: Table) -> None:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    base = ["new", "g1", "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={emp}"]
    for extra, message in (
        (
            ["--deadline", "3x"],
            "--deadline: bad duration '3x': write a whole number and a unit, like 90s, 45m, 72h or 3d",
        ),
        (["--deadline", "1h", "--remind", "2h"], "must come after the turn starts"),
        (["--grace", "1h"], "grace, remind and wait need a deadline"),
        (
            ["--email", "republic=alice@example.org\nBcc: x@y.org"],
            "--email republic: 'alice@example.org\\nBcc: x@y.org' is not an email address: it contains a line break",
        ),
        (["--email", "republic=a@b.org, c@d.org"], "is not one email address"),
        (["--email", "republic=not an address"], "is not a valid email address"),
    ):
        r = table.run(*base, *extra)
        assert r.exit_code == 1, extra
        assert message in r.stderr, r.stderr
        assert not table.db.exists() or rows(table, "SELECT COUNT(*) FROM game")[0][0] == 0
    game(table)
    before = table.dump()
    for args, message in (
        (("game", "set", "g1", "deadline=soon"), "deadline: bad duration 'soon'"),
        (("game", "set", "g1", "colour=red"), "unknown setting 'colour'"),
        (("game", "set", "nope", "deadline=1h"), "no game 'nope'"),
    ):
        r = table.run(*args)
        assert r.exit_code == 1 and message in r.stderr, r.stderr
    assert table.dump() == before
    r = table.run("game", "set", "g1", "deadline=48h", "grace=12h", "remind=6h", "wait=yes")
    assert r.exit_code == 0 and "deadline 2d, grace 12h, remind 6h before, wait" in r.stdout
    assert rows(table, "SELECT deadline, grace, remind, wait FROM game_clock") == [(172800, 43200, 21600, 1)]
    assert table.run("game", "set", "g1", "deadline=none").exit_code == 0
    assert rows(table, "SELECT deadline, grace, remind, wait FROM game_clock") == [(None, 0, 0, 0)]


def test_reminder_late_notice_then_nmr_recorded_in_archive_and_audit(table: Table) -> None:
    game(table, "g1", "--deadline", "1h", "--grace", "30m", "--remind", "20m")
    engine = store.open_engine(table.db)
    with store.reading(engine) as session:
        start = store.get_game(session, "g1").created.replace(tzinfo=store.utcnow().tzinfo)
    assert deadlines.notice_step(engine, start + timedelta(minutes=30)) == 0, "too early for a reminder"
    assert deadlines.notice_step(engine, start + timedelta(minutes=45)) == 1
    assert deadlines.notice_step(engine, start + timedelta(minutes=50)) == 0, "one reminder per side and turn"
    assert deadlines.resolution_step(engine, start + timedelta(minutes=61)) == []
    assert deadlines.notice_step(engine, start + timedelta(minutes=61)) == 1
    assert deadlines.resolution_step(engine, start + timedelta(minutes=89)) == []
    (made,) = deadlines.resolution_step(engine, start + timedelta(minutes=91))
    assert made.resolved == 1 and made.nmr == ("republic",)
    kinds = [(o["kind"], o["to"]) for o in outbox(table)]
    assert ("reminder", REP) in kinds and ("reminder", EMP) not in kinds
    assert ("late", REP) in kinds and ("late", EMP) in kinds
    late = next(o for o in outbox(table) if o["kind"] == "late" and o["to"] == EMP)
    assert "orders late from republic" in late["subject"]
    archive_path = table.tmp / "g1.json"
    assert table.run("export", "g1", "-o", str(archive_path)).exit_code == 0
    data = json.loads(archive_path.read_text())
    record = data["resolutions"][0]["deadline"]
    assert data["resolutions"][0]["nmr"] == ["republic"] and record["sides"] == ["republic"]
    assert record["deadline"] < record["grace_until"] <= record["resolved_at"]
    r = table.run("audit", "g1")
    assert r.exit_code == 0, r.stderr
    assert f"no moves received:    resolution 1: republic (deadline {record['deadline']}" in r.stdout
    # An archive whose record disagrees with the resolution fails the audit.
    data["resolutions"][0]["deadline"]["resolved_at"] = "2000-01-01T00:00:00Z"
    archive_path.write_text(json.dumps(data))
    r = table.run("audit", "--archive", str(archive_path))
    assert r.exit_code == 1 and "before the end of grace" in r.stderr


def test_wait_holds_a_ready_game_until_the_deadline(table: Table) -> None:
    game(table, "g1", "--deadline", "1h", "--wait")
    private, _ = table.key("republic")
    path = table.tmp / "t.txt"
    path.write_bytes(turn_file(table, "g1", "republic"))
    assert table.run("sign", str(path), "--key", str(private)).exit_code == 0
    assert table.run("submit", str(path)).exit_code == 0
    engine = store.open_engine(table.db)
    with store.reading(engine) as session:
        start = store.get_game(session, "g1").created.replace(tzinfo=store.utcnow().tzinfo)
    assert deadlines.resolution_step(engine, start + timedelta(minutes=59)) == []
    (made,) = deadlines.resolution_step(engine, start + timedelta(minutes=61))
    assert made.resolved == 1 and made.nmr == ()
    assert rows(table, "SELECT COUNT(*) FROM late_turn") == [(0,)]


def test_a_game_without_deadline_is_resolved_when_ready_and_otherwise_waits_forever(table: Table) -> None:
    game(table)
    engine = store.open_engine(table.db)
    assert deadlines.resolution_step(engine, store.utcnow() + timedelta(days=3650)) == []


def test_tick_with_a_real_short_deadline_resolves_nmr(table: Table) -> None:
    game(table, "g1", "--deadline", "1s", "--grace", "1s")
    time.sleep(2.2)
    r = table.run("tick")
    assert r.exit_code == 0, r.stderr
    assert "late notice, republic missed the deadline" in r.stdout
    assert "resolution 1 - 1835, turn 1 (Republic), no moves received from republic (deadline passed)" in r.stdout
    g = json.loads(table.run("games", "--json").stdout)[0]
    assert g["resolution"] == 1 and g["awaiting"] == ["empire"] and g["clock"] == "deadline 1s, grace 1s"


# ------------------------------------------------------------------ games, player, rollback


def test_games_lists_every_game(table: Table) -> None:
    game(table, "a1", "--deadline", "3d")
    game(table, "b2")
    listed = json.loads(table.run("games", "--json").stdout)
    assert [g["game"] for g in listed] == ["a1", "b2"]
    a1 = listed[0]
    assert (
        a1["rules"] == "farrapos" and a1["resolution"] == 0 and a1["awaiting"] == ["republic"] and a1["outcome"] is None
    )
    assert a1["deadline"] and listed[1]["deadline"] is None
    r = table.run("games")
    assert (
        r.exit_code == 0
        and "a1: farrapos/campaign, resolution 1 - 1835, turn 1 (Republic)" in r.stdout
        and "2 game(s)" in r.stdout
    )


def test_player_change_of_address_and_key_is_archived_told_and_audited(table: Table) -> None:
    game(table)
    r = table.run("player", "g1", "republic", "--email", "alice@new.example")
    assert r.exit_code == 0, r.stderr
    told = [o for o in outbox(table) if o["kind"] == "player"]
    assert sorted(o["to"] for o in told) == sorted([EMP, f"alice@new.example, {REP}"])
    # The republic plays turn 1 with its first key; then gets a new key.
    private, _ = table.key("republic")
    path = table.tmp / "t1.txt"
    path.write_bytes(turn_file(table, "g1", "republic"))
    assert table.run("sign", str(path), "--key", str(private)).exit_code == 0
    assert table.run("submit", str(path)).exit_code == 0
    assert table.run("process", "g1").exit_code == 0
    empire_private, _ = table.key("empire")
    queued = table.tmp / "t2.txt"
    queued.write_bytes(turn_file(table, "g1", "empire"))
    assert table.run("sign", str(queued), "--key", str(empire_private)).exit_code == 0
    assert table.run("submit", str(queued)).exit_code == 0
    _, new_pub = table.key("empire2")
    r = table.run("player", "g1", "empire", "--key", str(new_pub))
    assert r.exit_code == 0 and "set aside" in r.stdout
    assert table.run("submit", str(queued)).exit_code == 1, "the old key no longer speaks for the empire"
    new_private, _ = table.key("empire2")
    fresh = table.tmp / "t3.txt"
    fresh.write_bytes(turn_file(table, "g1", "empire", seed=1) + b"# signed with the new key\n")
    assert table.run("sign", str(fresh), "--key", str(new_private)).exit_code == 0
    assert table.run("submit", str(fresh)).exit_code == 0
    assert table.run("process", "g1").exit_code == 0
    archive_path = table.tmp / "a.json"
    assert table.run("export", "g1", "-o", str(archive_path)).exit_code == 0
    changes = json.loads(archive_path.read_text())["player_changes"]
    assert [(c["side"], c["from_k"]) for c in changes] == [("republic", 1), ("empire", 2)]
    r = table.run("audit", "--archive", str(archive_path))
    assert r.exit_code == 0, r.stderr
    assert "player change:        empire from resolution 2" in r.stdout
    for args, message in (
        (("player", "g1", "republic", "--email", "x@y"), "is not a valid email address"),
        (("player", "g1", "navy", "--email", "x@y.org"), "no side 'navy'"),
        (("player", "g1", "republic"), "give --email ADDR, --key FILE or --tz ZONE"),
    ):
        before = table.dump()
        r = table.run(*args)
        assert r.exit_code == 1 and message in r.stderr, r.stderr
        assert table.dump() == before


def test_rollback_queues_a_notice_naming_the_resolution_awaited(table: Table) -> None:
    game(table, "g1")
    assert table.run("process", "g1", "--force-nmr").exit_code == 0
    assert table.run("rollback", "g1", "--to", "0").exit_code == 0
    notices = [o for o in outbox(table) if o["kind"] == "rollback"]
    assert sorted(o["to"] for o in notices) == [EMP, REP]
    assert all("resolution 2 awaited" in o["subject"] for o in notices)


# ------------------------------------------------------------------ bad input


def test_bad_service_options_are_named_and_change_nothing(
    table: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game(table)
    before = table.dump()
    monkeypatch.delenv("PBEM_IMAP_PASSWORD", raising=False)
    r = table.run("tick", "--imap", "imap://referee:hunter2@127.0.0.1:1/INBOX")
    assert r.exit_code == 1 and "carries a password" in r.stderr and "hunter2" not in r.stderr + r.stdout
    r = table.run("tick", "--imap", "imap://referee@127.0.0.1:1/INBOX")
    assert r.exit_code == 1 and "no IMAP password" in r.stderr
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "s3cret-pw")
    from tests.support.imap_server import free_port

    r = table.run("tick", "--imap", f"imap://referee@127.0.0.1:{free_port()}/INBOX")
    assert r.exit_code == 1 and "cannot reach IMAP server 127.0.0.1:" in r.stderr and "s3cret-pw" not in r.stderr
    r = table.run("tick", "--smtp", "nowhere")
    assert r.exit_code == 2
    r = table.run("tick", "--maildir", str(tmp_path / "missing"))
    assert r.exit_code == 1 and "no such file or folder" in r.stderr
    assert table.dump() == before


# ------------------------------------------------------------------ serve


def test_serve_stops_on_sigterm_after_finishing_its_step(table: Table, smtp: SmtpServer) -> None:
    game(table)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pbem",
            "--db",
            str(table.db),
            "serve",
            "--every",
            "0.3",
            "--smtp",
            smtp.address,
            "--sender",
            REFEREE,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=table.tmp,
    )
    deadline = time.monotonic() + 60
    while len(smtp.handler.messages) < 4 and time.monotonic() < deadline:  # two reports, two ledger entries
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "serving: a pass every 0.3s" in out and "SIGTERM: stopped after" in out
    assert out.count("sent outbox") == 4
    assert len(smtp.handler.messages) == 4


def test_the_demo_runs_farrapos_by_tick_with_a_missed_deadline(tmp_path: Path) -> None:
    from pbem import demo

    (result,) = demo.run_demo(tmp_path, [("farrapos", None)])
    log = (result.folder / "referee.log").read_text()
    assert "reminder to empire (resolution 2" in log and "late notice, empire missed the deadline" in log
    assert "resolution 2 - 1835, turn 2 (Empire), no moves received from empire (deadline passed)" in log
    assert any(line.startswith("  no moves received:    resolution 2: empire (deadline") for line in result.audit_lines)
    assert "reminder" in (result.folder / "outbox.txt").read_text()
    assert 'href="demo-farrapos/referee.log"' in (tmp_path / "index.html").read_text()


def test_two_ticks_at_once_judge_each_message_once(table: Table) -> None:
    for name in ("c1", "c2", "c3", "c4"):
        game(table, name)
    private, _ = table.key("republic")
    box = inbox(table)
    for name in ("c1", "c2", "c3", "c4"):
        box.add(
            signed_reply(
                turn_file(table, name, "republic"), private, REP, REFEREE, f"orders {name}", f"<{name}@example.org>"
            )
        )
        box.add(plain_mail(f"x{name}@spam.example", REFEREE, "Buy now", "cheap", f"<spam-{name}@spam.example>"))
    command = [sys.executable, "-m", "pbem", "--db", str(table.db), "tick", "--maildir", str(table.tmp / "inbox")]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert rows(table, "SELECT COUNT(*), COUNT(DISTINCT digest) FROM intake") == [(8, 8)]
    assert rows(table, "SELECT COUNT(*) FROM refusal") == [(4,)], "only the spam is refused: nothing judged twice"
    assert rows(table, "SELECT COUNT(*) FROM outbox WHERE kind = 'receipt'") == [(4,)]
    assert rows(table, "SELECT COUNT(*) FROM resolution") == [(4,)]


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_smtp_login_with_a_password_file_and_a_wrong_password_named_without_it(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    from tests.support.imap_server import free_port
    from tests.support.mailkit import Collector

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == b"referee"
            and auth_data.password == b"right horse"
        )
        return AuthResult(success=ok, handled=False)

    handler = Collector()
    port = free_port()
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=port,
        authenticator=authenticator,
        auth_require_tls=False,
        auth_required=True,
    )
    controller.start()
    try:
        game(table)
        monkeypatch.delenv("PBEM_SMTP_PASSWORD", raising=False)
        wrong = table.tmp / "wrong"
        wrong.write_text("battery staple\n")
        args = ("tick", "--smtp", f"127.0.0.1:{port}", "--sender", REFEREE, "--smtp-user", "referee")
        r = table.run(*args, "--smtp-password-file", str(wrong))
        assert r.exit_code == 1
        assert f"SMTP server 127.0.0.1:{port} refused the login of 'referee'" in r.stderr
        assert "battery" not in r.stderr + r.stdout
        assert {(o["state"], o["attempts"]) for o in outbox(table)} == {("pending", 0)}, (
            "a refused login is not a message's attempt"
        )
        r = table.run(*args)
        assert r.exit_code == 1 and "no SMTP password for 'referee'" in r.stderr
        monkeypatch.setenv("PBEM_SMTP_PASSWORD", "right horse")
        r = table.run(*args)
        assert r.exit_code == 0, r.stderr
        assert len(handler.messages) == 4 and {o["state"] for o in outbox(table)} == {"sent"}
    finally:
        controller.stop()


def test_tick_with_two_jobs_resolves_every_ready_game(table: Table) -> None:
    names = [f"j{n}" for n in range(4)]
    private, _ = table.key("republic")
    for name in names:
        game(table, name)
        path = table.tmp / f"{name}.txt"
        path.write_bytes(turn_file(table, name, "republic"))
        assert table.run("sign", str(path), "--key", str(private)).exit_code == 0
        assert table.run("submit", str(path)).exit_code == 0
    r = table.run_subprocess("tick", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "4 resolution(s)" in r.stdout
    assert rows(table, "SELECT COUNT(*) FROM resolution") == [(4,)]
    assert rows(table, "SELECT COUNT(*) FROM outbox WHERE kind = 'report' AND k = 1") == [(8,)]
    assert table.run("tick", "--jobs", "0").exit_code == 2


def test_serve_logs_a_failed_pass_after_the_first_and_goes_on(table: Table) -> None:
    """A mailbox that goes away while serving is one logged failure, not the end
    of the service; at start-up the same failure stops it (a configuration error)."""
    import shutil

    from pbem.referee import service as referee

    game(table)
    inbox(table).add(plain_mail(REP, REFEREE, "hello", "are we playing?", "<hello@example.org>"))
    engine = store.open_engine(table.db)
    options = referee.Options(maildir=table.tmp / "inbox")
    lines: list[str] = []

    def log(line: str) -> None:
        lines.append(line)
        if line.startswith("refused: "):
            shutil.rmtree(table.tmp / "inbox")

    assert referee.serve(engine, options, 0.05, log, passes=3) == 3
    assert sum(1 for line in lines if line.startswith("pass failed: not a Maildir")) == 2
    with pytest.raises(referee.PassError, match="not a Maildir"):
        referee.serve(engine, options, 0.05, lines.append, passes=1)


def test_the_referee_service_on_postgresql(postgres_url: str, tmp_path: Path, smtp: SmtpServer) -> None:
    """The outbox, the mail ledger, the clock and a player change in plain SQL on
    PostgreSQL (where ``to`` is a reserved word and upserts are checked strictly)."""
    t = Table(tmp_path, tmp_path / "unused.db")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        from typer.testing import CliRunner

        from pbem.cli.application import app

        result = CliRunner().invoke(app, ["--db", postgres_url, *args], catch_exceptions=False)
        return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)

    _, rep = t.key("republic")
    _, emp = t.key("empire")
    r = run(
        "new",
        "pg1",
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
        "--deadline",
        "1s",
        "--remind",
        "0s",
    )
    assert r.returncode == 0, r.stderr
    private, _ = t.key("republic")
    orders = tmp_path / "o.txt"
    assert run("orders", "pg1", "--side", "republic", "--bot", "random", "-o", str(orders)).returncode == 0
    box = mailbox.Maildir(tmp_path / "inbox", create=True)
    box.add(signed_reply(orders.read_bytes(), private, REP, REFEREE, "orders", "<pg-orders@example.org>"))
    box.add(plain_mail("x@spam.example", REFEREE, "Buy now", "cheap", "<pg-spam@spam.example>"))
    args = ("tick", "--maildir", str(tmp_path / "inbox"), "--smtp", smtp.address, "--sender", REFEREE)
    r = run(*args)
    assert r.returncode == 0, r.stderr
    assert "1 resolution(s)" in r.stdout
    time.sleep(1.2)
    r = run(*args)
    assert r.returncode == 0 and "0 message(s) judged" in r.stdout, r.stdout
    assert "late notice, empire missed the deadline" in r.stdout
    assert "resolution 2 - 1835, turn 2 (Empire), no moves received from empire (deadline passed)" in r.stdout, (
        "no grace: NMR at the deadline"
    )
    assert run("player", "pg1", "empire", "--email", "emp2@example.org").returncode == 0
    assert run("game", "set", "pg1", "deadline=none").returncode == 0
    assert run("tick", "--smtp", smtp.address, "--sender", REFEREE).returncode == 0
    owed = json.loads(run("outbox", "--json").stdout)
    kinds = sorted({o["kind"] for o in owed})
    assert kinds == ["late", "ledger", "player", "receipt", "report"]
    # no grace: the late notices were written in the pass that made the resolution, so they are not sent
    assert {o["state"] for o in owed if o["kind"] == "late"} == {"superseded"}
    games = json.loads(run("games", "--json").stdout)
    assert games[0]["resolution"] == 2 and games[0]["clock"] == "no deadline"
    r = run("audit", "pg1")
    assert r.returncode == 0 and "no moves received:    resolution 2: empire (deadline" in r.stdout, r.stderr


def test_ingest_with_smtp_delivers_the_outbox_and_a_rerun_answers_nobody_twice(table: Table, smtp: SmtpServer) -> None:
    game(table)
    private, _ = table.key("republic")
    inbox(table).add(
        signed_reply(turn_file(table, "g1", "republic"), private, REP, REFEREE, "orders", "<ingest-smtp@example.org>")
    )
    args = ("ingest", "--maildir", str(table.tmp / "inbox"), "--smtp", smtp.address, "--sender", REFEREE, "-q")
    r = table.run(*args)
    assert r.exit_code == 0, r.stderr
    receipts = [m for m in smtp.handler.parsed() if m["X-Pbem-Verdict"]]
    assert [m["In-Reply-To"] for m in receipts] == ["<ingest-smtp@example.org>"]
    assert len(smtp.handler.messages) == 5, "the receipt, the two reports of the game as created and its ledger entry"
    r = table.run(*args)
    assert r.exit_code == 0 and "1 skipped" in r.stdout
    assert len(smtp.handler.messages) == 5
