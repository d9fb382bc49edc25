"""The referee as a service, the long runs: a whole Farrapos game played by mail between two
accounts on a real IMAP server with ``pbem serve`` as the referee, and
``pbem serve`` killed (SIGKILL) at random moments over a game's mail."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pbem import store
from pbem.referee import lifecycle
from tests.conftest import Table
from tests.support.imap_server import Dovecot, free_port, password
from tests.support.mailkit import Collector, SmtpServer, plain_mail, signed_reply

REFEREE = "referee@example.org"
SIDES = ("republic", "empire")


def address(side: str) -> str:
    return f"{side}@example.org"


def serve_command(table: Table, *args: str) -> list[str]:
    return [sys.executable, "-m", "pbem", "--db", str(table.db), "serve", *args]


def new_game(table: Table, name: str, *extra: str) -> None:
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
        f"republic={address('republic')}",
        "--email",
        f"empire={address('empire')}",
        *extra,
    )
    assert r.exit_code == 0, r.stderr


def db_rows(db: Path, sql: str, *params: object) -> list[tuple]:
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


# ------------------------------------------------------------------ a whole game by mail


class Player(threading.Thread):
    """A player at a mail client: reads the side's IMAP inbox, answers each
    "your move" report with signed orders (a bot's), except the turn it skips."""

    def __init__(self, side: str, dovecot: Dovecot, smtp_port: int, table: Table, skip_turn: int | None) -> None:
        super().__init__(daemon=True)
        self.side, self.dovecot, self.smtp_port, self.table = side, dovecot, smtp_port, table
        self.skip_turn = skip_turn
        self.stop = threading.Event()
        self.seen: set[int] = set()
        self.sent: list[str] = []
        self.errors: list[str] = []

    def run(self) -> None:
        import smtplib

        engine = store.open_engine(self.table.db, create=False)
        private, _ = self.table.key(self.side)
        while not self.stop.is_set():
            try:
                for uid, raw, _seen in self.dovecot.fetch_all(self.side):
                    if uid in self.seen:
                        continue
                    self.seen.add(uid)
                    msg = email.message_from_bytes(raw, policy=email.policy.default)
                    if ": your move" not in str(msg["Subject"] or ""):  # "...: your move, due <time>" with a deadline
                        continue
                    template = next(
                        p for p in msg.iter_attachments() if (p.get_filename() or "").endswith(".txt")
                    ).get_content()
                    turn = int(
                        next(line.split(":", 1)[1] for line in template.splitlines() if line.startswith("turn:"))
                    )
                    if turn == self.skip_turn:
                        continue
                    orders = lifecycle.next_turn_file(engine, "mail-game", self.side, bot="random", seed=turn).encode()
                    assert (
                        f"\nturn: {turn}\n".encode() in orders
                        and template.split("state:")[1].split()[0].encode() in orders
                    )
                    mid = f"<{self.side}-{turn}@example.org>"
                    mail = signed_reply(orders, private, address(self.side), REFEREE, "Re: " + str(msg["Subject"]), mid)
                    with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=10) as client:
                        client.sendmail(address(self.side), [REFEREE], mail)
                    self.sent.append(mid)
            except Exception as exc:  # reported by the test
                self.errors.append(f"{type(exc).__name__}: {exc}")
            time.sleep(0.2)


@pytest.mark.slow
def test_serve_runs_a_whole_farrapos_game_by_mail(table: Table, dovecot: Dovecot) -> None:
    def forward(rcpts: list[str], raw: bytes) -> None:
        for rcpt in rcpts:
            dovecot.deliver(rcpt.split("@")[0], raw)

    smtp = SmtpServer(Collector(forward), free_port())
    smtp.start()
    new_game(table, "mail-game", "--deadline", "25s", "--grace", "2s", "--remind", "20s")
    players = [
        Player("republic", dovecot, smtp.port, table, None),
        Player("empire", dovecot, smtp.port, table, skip_turn=2),
    ]
    env = {**os.environ, "PBEM_IMAP_PASSWORD": password("referee"), "SSL_CERT_FILE": str(dovecot.ca_file)}
    proc = subprocess.Popen(
        serve_command(
            table,
            "--imap",
            dovecot.url("referee"),
            "--smtp",
            f"127.0.0.1:{smtp.port}",
            "--sender",
            REFEREE,
            "--every",
            "0.3",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    for p in players:
        p.start()
    try:
        deadline = time.monotonic() + 900
        engine = store.open_engine(table.db, create=False)
        while time.monotonic() < deadline and not lifecycle.status(engine, "mail-game").over:
            time.sleep(0.5)
        assert lifecycle.status(engine, "mail-game").over, "the game did not end in time"
        while time.monotonic() < deadline and any(o.state != "sent" for o in _outbox(table)):
            time.sleep(0.3)
    finally:
        for p in players:
            p.stop.set()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        smtp.stop()
    assert proc.returncode == 0, err
    assert not any(p.errors for p in players), [p.errors for p in players]
    owed = _outbox(table)
    assert owed and all(o.state == "sent" for o in owed)
    referee_mail = [m for m in smtp.handler.parsed() if m["From"] == REFEREE]
    ids = [m["Message-ID"] for m in referee_mail]
    assert len(ids) == len(set(ids)), "every message delivered exactly once"
    assert sorted(ids) == sorted(o.message_id for o in owed)
    receipts = [m for m in referee_mail if m["X-Pbem-Verdict"] == "accepted"]
    sent = [mid for p in players for mid in p.sent]
    assert sorted(m["In-Reply-To"] for m in receipts) == sorted(sent), "one receipt per turn file"
    kinds = [(m["X-Pbem-Kind"], m["To"]) for m in referee_mail if m["X-Pbem-Kind"]]
    assert ("reminder", address("empire")) in kinds
    assert ("late", address("empire")) in kinds and ("late", address("republic")) in kinds
    assert sum(1 for m in referee_mail if str(m["Subject"]).endswith("game over")) == 2
    archive_path = table.tmp / "archive.json"
    assert table.run("export", "mail-game", "-o", str(archive_path)).exit_code == 0
    data = json.loads(archive_path.read_text())
    late = [r for r in data["resolutions"] if "deadline" in r]
    assert [(r["k"], r["nmr"]) for r in late] == [(2, ["empire"])]
    r = table.run("audit", "mail-game")
    assert r.exit_code == 0, r.stderr
    assert "no moves received:    resolution 2: empire (deadline" in r.stdout
    assert "sent outbox" in out and "accepted: imap referee@" in out


def _outbox(table: Table):  # type: ignore[no-untyped-def]
    from pbem.mail import outbox

    return outbox.rows(store.open_engine(table.db, create=False))


# ------------------------------------------------------------------ SIGKILL


def _drop_next_turns(
    table: Table, engine, box: mailbox.Maildir, dropped: dict[tuple[int, str], str], rng: random.Random
) -> None:  # type: ignore[no-untyped-def]
    st = lifecycle.status(engine, "crash")
    for side in st.awaiting:
        if (st.turn, side) in dropped:
            continue
        private, _ = table.key(side)
        orders = lifecycle.next_turn_file(engine, "crash", side, bot="random", seed=st.turn).encode()
        mid = f"<crash-{side}-{st.turn}@example.org>"
        raw = signed_reply(orders, private, address(side), REFEREE, f"turn {st.turn}", mid)
        box.add(raw)
        if rng.random() < 0.3:
            box.add(raw)  # delivered twice
        if rng.random() < 0.3:
            box.add(
                plain_mail(
                    f"spam{st.turn}@spam.example", REFEREE, "Buy now", "cheap", f"<spam-{st.turn}-{side}@spam.example>"
                )
            )
        dropped[(st.turn, side)] = mid


def _assert_nothing_judged_twice_and_no_reply_lost(db: Path, dropped: dict[tuple[int, str], str]) -> None:
    digests = db_rows(db, "SELECT digest, COUNT(*) FROM intake GROUP BY digest HAVING COUNT(*) > 1")
    assert not digests, f"a message judged twice: {digests}"
    mids = db_rows(
        db,
        "SELECT message_id, COUNT(*) FROM intake WHERE message_id IS NOT NULL GROUP BY message_id HAVING COUNT(*) > 1",
    )
    assert not mids, f"a Message-ID judged twice: {mids}"
    player_mail = db_rows(db, "SELECT digest, message_id FROM intake WHERE message_id LIKE '<crash-%'")
    owed = {d for (d,) in db_rows(db, "SELECT dedupe FROM outbox")}
    for digest, mid in player_mail:
        assert f"reply:{digest}" in owed, f"the reply to {mid} is lost"
    for (k,) in db_rows(db, "SELECT k FROM resolution"):
        for side in SIDES:
            assert f"report:crash:{k}:{side}" in owed, f"the {side} report of resolution {k} is lost"
    subs = db_rows(
        db,
        "SELECT turn, side, COUNT(*) FROM submission WHERE status IN ('QUEUED', 'RESOLVED') GROUP BY turn, side "
        "HAVING COUNT(*) > 1",
    )
    assert not subs, f"a turn file queued twice: {subs}"


@pytest.mark.slow
def test_serve_killed_thirty_times_over_a_games_mail_loses_nothing(table: Table) -> None:
    rng = random.Random(int(os.environ.get("PBEM_SOAK_SEED", "12")))
    smtp = SmtpServer(Collector(), free_port())
    smtp.start()
    new_game(table, "crash")
    engine = store.open_engine(table.db, create=False)
    box = mailbox.Maildir(table.tmp / "inbox", create=True)
    dropped: dict[tuple[int, str], str] = {}
    args = (
        "--maildir",
        str(table.tmp / "inbox"),
        "--smtp",
        f"127.0.0.1:{smtp.port}",
        "--sender",
        REFEREE,
        "--every",
        "0.2",
        "--backoff",
        "0",
    )
    kills = 0
    busy = 0  # kills of a serve that had already done something (not one still starting up)

    def progress() -> tuple:
        return tuple(
            db_rows(
                table.db,
                "SELECT (SELECT COUNT(*) FROM intake), (SELECT COUNT(*) FROM intake_part), (SELECT COUNT(*) FROM "
                "resolution), (SELECT COUNT(*) FROM outbox WHERE state = 'sent')",
            )[0]
        )

    try:
        while kills < 30:
            if not lifecycle.status(engine, "crash").over:
                _drop_next_turns(table, engine, box, dropped, rng)
            before = progress()
            proc = subprocess.Popen(
                serve_command(table, *args),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
            ready, _w, _x = select.select([proc.stdout], [], [], 60)  # its first line, once started
            assert ready and "serving:" in proc.stdout.readline()  # type: ignore[union-attr]
            time.sleep(rng.uniform(0.0, 1.5))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
                busy += progress() != before
            proc.wait(timeout=30)
            _assert_nothing_judged_twice_and_no_reply_lost(table.db, dropped)
        assert busy >= 10, f"only {busy} of {kills} kills hit a serve at work"
        # Then a clean referee finishes the game.
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not lifecycle.status(engine, "crash").over:
            _drop_next_turns(table, engine, box, dropped, rng)
            r = table.run("tick", *args[:-4], "--backoff", "0")
            assert r.exit_code == 0, r.stderr
        assert table.run("tick", *args[:-4], "--backoff", "0").exit_code == 0
    finally:
        smtp.stop()
    _assert_nothing_judged_twice_and_no_reply_lost(table.db, dropped)
    assert lifecycle.status(engine, "crash").over
    assert {o.state for o in _outbox(table)} == {"sent"}
    received = {m["Message-ID"] for m in smtp.handler.parsed()}
    assert {o.message_id for o in _outbox(table)} <= received, "every reply and report delivered at least once"
    accepted = db_rows(table.db, "SELECT message_id FROM intake WHERE verdict = 'accepted'")
    assert sorted(m for (m,) in accepted) == sorted(dropped.values()), "each player's mail accepted exactly once"
    r = table.run("audit", "crash")
    assert r.exit_code == 0, r.stderr
