"""Webhooks: a game's news posted to a chat (Discord, Slack) or any HTTP endpoint.

Each post is a row of the durable outbox (pbem/mail/outbox.py) of kind
``webhook``: ``to`` is the URL, ``body`` the exact bytes to POST (JSON, already
in the hook's format), written in the transaction of the decision it reports.
:func:`deliver` posts the due rows one at a time and marks each ``sent`` after a
2xx answer, with the outbox's retries and backoff; it runs apart from mail
delivery, so a hook that is down never holds up a message.  A 4xx answer (but
408 and 429) is permanent (``failed``); anything else is retried.  Every POST has
a timeout; a redirect is followed only to the same scheme and host.  The row's
Message-ID travels as ``X-Pbem-Delivery`` so a receiver can drop a repeat (a
crash between the answer and the mark).  The payloads are in docs/formats.md,
"Webhooks".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pbem import store
from pbem.mail import outbox

if TYPE_CHECKING:
    from pbem.store.database import Database

KIND = "webhook"
FORMATS = ("discord", "slack", "json")
TIMEOUT = 10.0
MAX_URL = 2000


class HookError(ValueError):
    """A URL that cannot be a hook, or a POST that did not succeed (``permanent``: retrying will not help)."""

    def __init__(self, text: str, permanent: bool = False) -> None:
        super().__init__(text)
        self.permanent = permanent


def check_url(url: str) -> str:
    """An absolute http:// or https:// URL with a host, no spaces, no user or password."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url.strip()):
        raise HookError(f"hook URL {url!r} is not an http:// or https:// address")
    if parts.username or parts.password:
        raise HookError("a hook URL carries no user or password (a chat's hook URL holds its own token)")
    if len(url) > MAX_URL:
        raise HookError(f"hook URL is {len(url)} characters, over {MAX_URL}")
    return url.strip()


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise HookError(f"hook format {fmt!r} is not one of {', '.join(FORMATS)}")
    return fmt


def payload(fmt: str, event: dict[str, Any]) -> bytes:
    """The POST body: discord ``{"content": text}``, slack ``{"text": text}``, json the event itself."""
    if fmt == "discord":
        body: dict[str, Any] = {"content": event["text"][:2000]}
    elif fmt == "slack":
        body = {"text": event["text"]}
    else:
        body = event
    return json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")


def _same_host() -> type:
    """A redirect handler that follows a redirect only to the same scheme and host
    (made when a hook is posted: urllib.request, with http.client and ssl, is
    imported only then, not by every pass with no hook due)."""
    import urllib.request

    class _SameHost(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):
            old, new = urlsplit(req.full_url), urlsplit(newurl)
            if (old.scheme, old.hostname, old.port) != (new.scheme, new.hostname, new.port):
                raise HookError(f"hook {old.hostname} redirected to another host ({new.hostname}): not followed", True)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return _SameHost


def post(url: str, body: bytes, delivery_id: str, timeout: float = TIMEOUT) -> int:
    """POST ``body`` as JSON; the status on 2xx, else :class:`HookError`."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": "pbem", "X-Pbem-Delivery": delivery_id},
    )
    opener = urllib.request.build_opener(_same_host())
    host = urlsplit(url).hostname
    try:
        with opener.open(request, timeout=timeout) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        permanent = 400 <= exc.code < 500 and exc.code not in (408, 429)
        raise HookError(f"hook {host} answered {exc.code} {exc.reason}", permanent) from None
    except HookError:
        raise
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise HookError(f"hook {host} not reached: {reason}") from None


def deliver(
    engine: Database,
    now: datetime | None = None,
    backoff: float = outbox.BACKOFF,
    log: Callable[[str], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> outbox.Delivery:
    """POST every due webhook row; never raises for a hook that fails (the row
    stays queued, or fails for good on a 4xx answer)."""
    now = now or store.utcnow()
    result = outbox.Delivery([], [], [])
    for row in [r for r in outbox.due_rows(engine, now) if r.kind == KIND]:
        if stop is not None and stop():
            break
        body = outbox.stored_body(engine, row)
        try:
            post(row.to, body or b"{}", row.message_id)
        except HookError as exc:
            outbox.mark_refused(engine, row, now, str(exc), exc.permanent, backoff)
            (result.failed if exc.permanent else result.deferred).append((row, str(exc)))
            if log:
                log(f"outbox {row.id}: webhook {'failed' if exc.permanent else 'deferred'}: {exc}")
            continue
        outbox.mark_sent(engine, row, now, row.subject)
        result.sent.append(row)
        if log:
            log(f"posted outbox {row.id} to {urlsplit(row.to).hostname}: {row.subject}")
    return result
