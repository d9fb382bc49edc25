"""Mail servers that misbehave: the referee's passes stay up, lose nothing and
send nothing twice (tests/support/fault_servers.py scripts the faults).

Each fault of the IMAP or SMTP conversation (a drop, a stall, a trickle, lines
without end, NO/BAD/BYE, 4xx/5xx, a malformed or oversized answer) is that
pass's logged failure; the pass goes on with resolution and delivery, and once
the fault clears every message is read and every owed message delivered once.

The tests bound what pbem does, not how fast the machine is: a conversation
that never ends is ended by pbem's deadline (its log names --mail-deadline and
the server never had to give up, GAVE_UP), with no clock read here.
"""

from __future__ import annotations

import dataclasses
import itertools
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import store
from pbem.mail.imap import ImapSource
from pbem.mail.smtp import SmtpServer
from pbem.referee import mail_room
from pbem.referee import service as referee
from tests.conftest import Table
from tests.support.fault_servers import (
    GAVE_UP,
    IMAP_KINDS,
    IMAP_STEPS,
    SMTP_KINDS,
    SMTP_STEPS,
    Fault,
    ImapFaultServer,
    SmtpFaultServer,
)
from tests.support.mailkit import plain_mail, signed_reply
from tests.support.referee_game import EMP, REFEREE, REP, game, turn_file

# Every test plays the same game from the same copy, so its reports carry the same maps: drawn once.
pytestmark = pytest.mark.usefixtures("maps_drawn_once")

PER_READ = 2.0
"""A per-read timeout a loaded machine keeps to: a reply that timed out after the
server took the message would have it sent again (the one repeat the outbox
allows) and counted here as twice."""
DEADLINE = 6.0
_copies = itertools.count()


@dataclass
class Desk:
    """A game whose republic is due, and the mail that reaches the referee:
    a chat from each side and the republic's signed turn file."""

    table: Table
    template: Path
    mail: list[bytes]

    def fresh(self, name: str) -> Path:
        """A copy of the game's database under a name never used before (a
        file of an earlier example may still have its WAL beside it)."""
        db = self.table.tmp / f"{name}-{next(_copies)}.db"
        source, target = sqlite3.connect(self.template), sqlite3.connect(db)
        source.backup(target)
        source.close()
        target.close()
        return db

    def fresh_table(self, name: str) -> Table:
        """The CLI on a fresh copy of the game (the keys are the desk's)."""
        return Table(self.table.tmp, self.fresh(name))


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Desk:
    """Made once for the module: every test plays on its own copy (:meth:`Desk.fresh`)."""
    tmp = tmp_path_factory.mktemp("desk")
    table = game(Table(tmp, tmp / "referee.db"))
    private, _ = table.key("republic")
    mail = [
        plain_mail(REP, REFEREE, "hello", "are we playing?", "<chat-rep@example.org>"),
        signed_reply(turn_file(table, "g1", "republic"), private, REP, REFEREE, "orders", "<orders@example.org>"),
        plain_mail(EMP, REFEREE, "hi", "soon", "<chat-emp@example.org>"),
    ]
    return Desk(table, table.db, mail)


def options(imap: ImapFaultServer, smtp: SmtpFaultServer, deadline: float = DEADLINE) -> referee.Options:
    return referee.Options(
        imap=ImapSource("127.0.0.1", imap.port, "referee", "INBOX", "starttls", "pw", PER_READ, deadline=deadline),
        smtp=SmtpServer("127.0.0.1", smtp.port, "plain", timeout=PER_READ, deadline=deadline),
        sender=REFEREE,
        backoff=0.0,
    )


def rows(db: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def settled(db: Path, imap: ImapFaultServer, smtp: SmtpFaultServer, refused_5xx: bool) -> list[str]:
    """What is still wrong: unread mail, unseen mail, undelivered or twice-delivered rows."""
    wrong = []
    read = {uid for uid, verdict in rows(db, "SELECT uid, verdict FROM intake") if verdict not in ("unfetched",)}
    if read != set(imap.mail) or any(v == "refused-to-fetch" for (v,) in rows(db, "SELECT verdict FROM intake")):
        wrong.append(f"read {sorted(read)} of {sorted(imap.mail)}")
    if imap.seen != set(imap.mail):
        wrong.append(f"seen {sorted(imap.seen)}")
    counts = smtp.counts()
    for message_id, state in rows(db, "SELECT message_id, state FROM outbox"):
        if state == "sent" and counts[message_id] != 1:
            wrong.append(f"{message_id} sent but delivered {counts[message_id]} times")
        elif state == "pending" or (state == "failed" and not refused_5xx):
            wrong.append(f"{message_id} {state}")
    if not rows(db, "SELECT k FROM resolution"):
        wrong.append("turn 1 not resolved")
    return wrong


def passes_until_settled(
    db: Path, imap: ImapFaultServer, smtp: SmtpFaultServer, refused_5xx: bool, most: int = 8
) -> tuple[list[str], list[referee.PassReport]]:
    engine = store.open_engine(db)
    lines: list[str] = []
    reports = []
    for _ in range(most):
        reports.append(referee.tick(engine, options(imap, smtp), lines.append))
        if not settled(db, imap, smtp, refused_5xx):
            break
    return lines, reports


def assert_nothing_lost_nothing_twice(db: Path, imap: ImapFaultServer, smtp: SmtpFaultServer, refused_5xx=False):
    wrong = settled(db, imap, smtp, refused_5xx)
    assert not wrong, (wrong, imap.log, smtp.log)
    assert max(smtp.counts().values(), default=0) <= 1, "nothing is delivered twice"


def assert_pbem_hung_up(imap: ImapFaultServer, smtp: SmtpFaultServer) -> None:
    """No stall or endless answer ran to the servers' own limit (30 s): pbem's
    deadline or per-read timeout ended each (logged before the server hangs up,
    so it is there by the time pbem could have seen the server go)."""
    assert GAVE_UP not in imap.log + smtp.log, (imap.log, smtp.log)


# ------------------------------------------------------------------ one test per fault


def test_a_connection_dropped_during_fetch_is_a_logged_failure_and_serve_goes_on(desk: Desk) -> None:
    db = desk.fresh("drop")
    with ImapFaultServer(desk.mail, [Fault("FETCH", "drop", uid=2)]) as imap, SmtpFaultServer() as smtp:
        lines: list[str] = []
        assert referee.serve(store.open_engine(db), options(imap, smtp), 0.05, lines.append, passes=3) == 3
        assert any(line.startswith("intake failed: imap referee@") and "UID 2" in line for line in lines), lines
        assert any(line.startswith("pass failed:") for line in lines)
        passes_until_settled(db, imap, smtp, refused_5xx=False)
        assert_nothing_lost_nothing_twice(db, imap, smtp)


MALFORMED = [
    pytest.param(Fault("SELECT", "malformed"), id="uidvalidity-not-a-number"),
    pytest.param(Fault("SEARCH", "malformed"), id="search-not-numbers"),
    pytest.param(Fault("FETCH", "huge-literal"), id="literal-of-100-GB"),
    pytest.param(Fault("FETCH", "long-line"), id="line-over-1-MB"),
    pytest.param(Fault("FETCH", "BYE"), id="bye-in-fetch"),
    pytest.param(Fault("FETCH", "BAD"), id="bad-to-fetch"),
    pytest.param(Fault("FETCH", "malformed"), id="fetch-garbage"),
    pytest.param(Fault("greeting", "malformed"), id="greeting-garbage"),
]


@pytest.mark.parametrize("fault", MALFORMED)
def test_a_malformed_imap_answer_is_a_logged_failure_not_a_traceback(desk: Desk, fault: Fault) -> None:
    db = desk.fresh("malformed")
    fault = dataclasses.replace(fault, times=2)  # the first intake alone, then a whole pass
    with ImapFaultServer(desk.mail, [fault]) as imap, SmtpFaultServer() as smtp:
        engine = store.open_engine(db)
        lines: list[str] = []
        first = referee.PassReport()
        referee.intake(engine, options(imap, smtp), lines.append, report=first)
        assert_pbem_hung_up(imap, smtp)
        assert first.failures or first.problems, lines
        second = referee.tick(engine, options(imap, smtp), lines.append)
        assert second.failures or second.problems, lines
        assert second.delivery is not None, "delivery goes on after a failed intake"
        passes_until_settled(db, imap, smtp, refused_5xx=False)
        assert_nothing_lost_nothing_twice(db, imap, smtp)


def test_a_message_the_server_refuses_to_fetch_is_passed_by_and_blocks_nothing(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real CLI: each tick exits 0, reads the rest of the mailbox,
    resolves the game and delivers; after MAX_FETCH_FAILURES passes the
    refused message is recorded and no longer asked for."""
    table = desk.fresh_table("refused")
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "pw")
    with ImapFaultServer(desk.mail, [Fault("FETCH", "NO", uid=1, times=99)]) as imap, SmtpFaultServer() as smtp:
        args = ("tick", "--imap", imap.url(), "--smtp", smtp.address, "--sender", REFEREE, "--backoff", "0")
        r = table.run(*args)
        assert r.exit_code == 0, r.stderr
        assert "UID 1 left for the next pass (1 of 5 tries)" in r.stdout
        assert "accepted: imap referee@127.0.0.1" in r.stdout and "1 resolution(s)" in r.stdout
        assert rows(table.db, "SELECT COUNT(*) FROM outbox WHERE state = 'sent'")[0][0] >= 6, "reports delivered"
        for _ in range(mail_room.MAX_FETCH_FAILURES - 1):
            r = table.run(*args)
            assert r.exit_code == 0, r.stderr
        assert "recorded as refused-to-fetch and passed by" in r.stdout
        assert rows(table.db, "SELECT uid, verdict FROM intake WHERE uid = 1") == [(1, "refused-to-fetch")]
        assert imap.fetches[1] == mail_room.MAX_FETCH_FAILURES
        assert table.run(*args).exit_code == 0
        assert imap.fetches[1] == mail_room.MAX_FETCH_FAILURES, "a passed-by message is not asked for again"
        assert sorted(uid for (uid,) in rows(table.db, "SELECT uid FROM intake")) == [1, 2, 3]
        assert 1 not in imap.seen, "a message never read is not marked seen"
        assert max(smtp.counts().values()) == 1


ENDLESS = [
    pytest.param([Fault("greeting", "endless")], [], id="imap-endless-greeting"),
    pytest.param([Fault("LOGIN", "endless")], [], id="imap-untagged-lines-during-login"),
    pytest.param([Fault("greeting", "trickle"), Fault("FETCH", "endless")], [], id="imap-endless-fetch"),
    pytest.param([], [Fault("greeting", "endless")], id="smtp-endless-greeting"),
    pytest.param([], [Fault("END", "endless")], id="smtp-endless-answer-to-data"),
]


@pytest.mark.parametrize(("imap_faults", "smtp_faults"), ENDLESS)
def test_the_mail_deadline_ends_a_conversation_that_never_ends(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, imap_faults: list[Fault], smtp_faults: list[Fault]
) -> None:
    """A line every 50 ms never trips the 30 s per-read timeout; --mail-deadline
    ends the conversation all the same (pbem says so, and hangs up before the
    server's own limit of 30 s), and the pass goes on."""
    table = desk.fresh_table("endless")
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "pw")
    with ImapFaultServer(desk.mail, imap_faults) as imap, SmtpFaultServer(smtp_faults) as smtp:
        args = ("tick", "--imap", imap.url(), "--smtp", smtp.address, "--sender", REFEREE, "--backoff", "0")
        r = table.run(*args, "--mail-deadline", "1")
        assert "--mail-deadline" in r.stdout, r.stdout
        assert_pbem_hung_up(imap, smtp)
        passes_until_settled(table.db, imap, smtp, refused_5xx=False)
        assert_nothing_lost_nothing_twice(table.db, imap, smtp)


def test_mail_deadline_must_be_positive(table: Table) -> None:
    assert table.run("tick", "--mail-deadline", "0").exit_code == 2


# ------------------------------------------------------------------ any fault at any step


@st.composite
def fault_plans(draw: st.DrawFn) -> tuple[list[Fault], list[Fault]]:
    """Up to two IMAP and two SMTP faults, each striking one or two conversations
    (together under MAX_FETCH_FAILURES, so nothing is passed by)."""
    imap = [
        Fault(
            draw(st.sampled_from(IMAP_STEPS)),
            draw(st.sampled_from(IMAP_KINDS)),
            uid=draw(st.none() | st.integers(1, 3)),
            times=draw(st.integers(1, 2)),
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    smtp = [
        Fault(draw(st.sampled_from(SMTP_STEPS)), draw(st.sampled_from(SMTP_KINDS)), times=draw(st.integers(1, 2)))
        for _ in range(draw(st.integers(0, 2)))
    ]
    return imap, smtp


def _check_plan(desk: Desk, plan: tuple[list[Fault], list[Fault]], name: str) -> None:
    imap_faults, smtp_faults = plan
    db = desk.fresh(name)
    with ImapFaultServer(desk.mail, imap_faults) as imap, SmtpFaultServer(smtp_faults) as smtp:
        passes_until_settled(db, imap, smtp, refused_5xx=any(f.kind == "5xx" for f in smtp_faults))
        assert_nothing_lost_nothing_twice(db, imap, smtp, refused_5xx=any(f.kind == "5xx" for f in smtp_faults))


@settings(max_examples=3, deadline=None)
@given(plan=fault_plans())
def test_passes_survive_any_mail_fault_and_lose_nothing(desk: Desk, plan: tuple[list[Fault], list[Fault]]) -> None:
    _check_plan(desk, plan, "quick")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(plan=fault_plans())
def test_passes_survive_any_mail_fault_and_lose_nothing_at_length(
    desk: Desk, plan: tuple[list[Fault], list[Fault]]
) -> None:
    _check_plan(desk, plan, "long")
