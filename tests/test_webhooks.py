"""Webhooks (``pbem hook``): posts through the durable outbox to a real HTTP server
on loopback: each format's payload, a hook that fails first retried and posted
exactly once, mail delivered while the hook is down, URLs and redirects refused."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pbem import store
from pbem.mail import outbox, webhook
from tests.conftest import Table
from tests.support.mailkit import SmtpServer

pytestmark = pytest.mark.usefixtures("maps_drawn_once")


class Hook:
    """An HTTP server that answers ``plan``'s statuses in turn (then 204) and keeps each body."""

    def __init__(self) -> None:
        self.plan: list[int] = []
        self.posts: list[tuple[str, dict[str, str], bytes]] = []
        self.redirect_to: str | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if owner.redirect_to is not None:
                    self.send_response(307)
                    self.send_header("Location", owner.redirect_to)
                    self.end_headers()
                    return
                status = owner.plan.pop(0) if owner.plan else 204
                if status < 300:
                    owner.posts.append((self.path, dict(self.headers), body))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"


@pytest.fixture
def hook() -> Iterator[Hook]:
    h = Hook()
    h.thread.start()
    try:
        yield h
    finally:
        h.server.shutdown()
        h.server.server_close()


def _hooked(new_farrapos: Callable[..., Table], url: str, fmt: str) -> Table:
    table = new_farrapos("g1", "--email", "republic=rep@example.org", "--deadline", "3d")
    r = table.run("hook", "add", "g1", url, "--format", fmt)
    assert r.exit_code == 0, r.stderr
    return table


def _turn(table: Table) -> None:
    """The republic's turn, by its bot, signed and submitted; then a tick resolves it."""
    private, _pub = table.key("republic")
    turn = table.tmp / "turn.txt"
    assert table.run("orders", "g1", "--side", "republic", "--bot", "random", "-o", str(turn)).exit_code == 0
    assert table.run("sign", str(turn), "--key", str(private)).exit_code == 0
    r = table.run("submit", str(turn))
    assert r.exit_code == 0, r.stderr


def test_each_format_posts_its_payload(new_farrapos: Callable[..., Table], hook: Hook) -> None:
    table = new_farrapos("g1")
    for fmt in ("discord", "slack", "json"):
        assert table.run("hook", "add", "g1", f"{hook.url}/{fmt}", "--format", fmt).exit_code == 0
    listed = table.run("hook", "list", "g1").stdout.splitlines()
    assert listed == [f"discord\t{hook.url}/discord", f"slack\t{hook.url}/slack", f"json\t{hook.url}/json"]
    _turn(table)
    r = table.run("tick")
    assert r.exit_code == 0, r.stderr
    assert "3 posted" in r.stdout
    bodies = {path.rsplit("/", 1)[1]: json.loads(body) for path, _h, body in hook.posts}
    assert set(bodies["discord"]) == {"content"} and "g1: resolution 1" in bodies["discord"]["content"]
    assert set(bodies["slack"]) == {"text"} and bodies["slack"]["text"] == bodies["discord"]["content"]
    event = bodies["json"]
    assert set(event) == {"game", "k", "kind", "text", "deadline", "awaiting", "url"}
    assert event["game"] == "g1" and event["k"] == 1 and event["kind"] == "your-move"
    assert event["awaiting"] == ["empire"] and "Your move: empire" in event["text"] and "Score:" in event["text"]
    assert all(h["Content-Type"] == "application/json" and h["X-Pbem-Delivery"] for _p, h, _b in hook.posts)
    assert table.run("tick").stdout.count("posted") == 0  # each row once


def test_a_failing_hook_is_retried_posted_once_and_never_holds_up_mail(
    new_farrapos: Callable[..., Table],
    hook: Hook,
    smtp: SmtpServer,
) -> None:
    table = _hooked(new_farrapos, hook.url, "json")
    _turn(table)
    hook.plan = [503]
    r = table.run("tick", "--smtp", smtp.address, "--sender", "ref@example.org", "--backoff", "0")
    assert r.exit_code == 0, r.stderr
    # the republic's reports of k 0 and 1, and the referee's ledger entry of the game's creation
    assert "3 sent" in r.stdout and "1 hook(s) deferred" in r.stdout
    assert len(smtp.handler.messages) == 3 and hook.posts == []
    rows = [row for row in outbox.rows(store.open_database(table.db)) if row.kind == webhook.KIND]
    assert [(row.state, row.attempts) for row in rows] == [("pending", 1)] and "503" in (rows[0].last_error or "")
    r = table.run("tick", "--smtp", smtp.address, "--backoff", "0")
    assert "1 posted" in r.stdout
    r = table.run("tick", "--smtp", smtp.address, "--backoff", "0")
    assert "posted" not in r.stdout
    assert len(hook.posts) == 1 and json.loads(hook.posts[0][2])["kind"] == "your-move"
    assert len(smtp.handler.messages) == 3


def test_a_4xx_answer_fails_the_row_and_a_redirect_elsewhere_is_not_followed(
    new_farrapos: Callable[..., Table], hook: Hook
) -> None:
    table = _hooked(new_farrapos, hook.url, "slack")
    _turn(table)
    hook.plan = [404]
    assert table.run("tick").exit_code == 0
    assert [r.state for r in outbox.rows(store.open_database(table.db)) if r.kind == webhook.KIND] == ["failed"]
    with pytest.raises(webhook.HookError, match="redirected to another host"):
        hook.redirect_to = "http://localhost:9/elsewhere"
        webhook.post(hook.url, b"{}", "<x@pbem.invalid>")


@pytest.mark.parametrize(
    "url, problem",
    [
        ("ftp://example.org/hook", "is not an http:// or https:// address"),
        ("https://user:pw@example.org/hook", "carries no user or password"),
        ("hook", "is not an http:// or https:// address"),
    ],
)
def test_a_hook_that_cannot_be_is_refused(new_farrapos: Callable[..., Table], url: str, problem: str) -> None:
    table = new_farrapos("g1")
    before = table.dump()
    r = table.run("hook", "add", "g1", url)
    assert r.exit_code == 1 and problem in r.stderr
    assert table.dump() == before
    r = table.run("hook", "add", "g1", "https://example.org/h", "--format", "teams")
    assert r.exit_code == 1 and "hook format 'teams' is not one of discord, slack, json" in r.stderr
    r = table.run("hook", "remove", "g1", "https://example.org/none")
    assert r.exit_code == 1 and "g1 has no hook https://example.org/none" in r.stderr


def test_reminders_and_late_notices_are_posted(new_farrapos: Callable[..., Table], hook: Hook) -> None:
    from datetime import timedelta

    from pbem.referee import deadlines

    table = new_farrapos("g1", "--deadline", "2h", "--remind", "1h", "--grace", "1h")
    assert table.run("hook", "add", "g1", hook.url).exit_code == 0
    db = store.open_database(table.db)
    later = store.utcnow() + timedelta(hours=1, minutes=30)
    deadlines.notice_step(db, later)
    deadlines.notice_step(db, later + timedelta(hours=1))
    webhook.deliver(db, later + timedelta(hours=1))
    kinds = [json.loads(body)["kind"] for _p, _h, body in hook.posts]
    assert kinds == ["reminder", "late"]
    reminder = json.loads(hook.posts[0][2])
    assert reminder["awaiting"] == ["republic"] and reminder["deadline"].endswith("Z")
