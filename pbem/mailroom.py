"""The referee's mail room: ``pbem ingest`` and ``pbem send`` on the real store.

``pbem.ingest`` reads mailboxes and knows nothing of the database; here its
``submit`` and ``check`` callables are the pipeline's, and every message that
never reached the pipeline (no turn file in it, broken, oversized) is recorded
as a refusal with its bytes, so nothing a player sent is lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import Engine

from pbem import email_build, ingest, pipeline, reporting, smtp_send, store
from rules import find_ruleset


@dataclass
class _Pipe:
    """The pipeline as ``pbem.ingest`` callables; remembers which sources reached it."""

    engine: Engine
    reached: set[str]

    def _outcome(self, fn, data: bytes, signature: str | None, source: str) -> ingest.SubmitOutcome:  # type: ignore[no-untyped-def]
        self.reached.add(source)
        try:
            checked = fn(data, signature, source)
        except pipeline.Refused as refusal:
            return ingest.SubmitOutcome(False, tuple(refusal.problems))
        return ingest.SubmitOutcome(True, _understood(checked))

    def submit(self, data: bytes, signature: str | None, source: str) -> ingest.SubmitOutcome:
        return self._outcome(lambda d, s, src: pipeline.submit(self.engine, d, s, src).checked, data, signature, source)

    def check(self, data: bytes, signature: str | None, source: str) -> ingest.SubmitOutcome:
        return self._outcome(lambda d, s, _src: pipeline.check(self.engine, d, s), data, signature, source)


def _understood(checked: pipeline.Checked) -> tuple[str, ...]:
    head = f"{checked.game_id}, {checked.side}, resolution {checked.turn} - {checked.label}: {len(checked.orders)} order(s) as understood:"
    return (head, *(f"line {o.line + checked.turn_file.body_offset}: {o.order}" for o in checked.orders))


def run_ingest(
    engine: Engine,
    *,
    directory: Path | None = None,
    maildir: Path | None = None,
    mbox: Path | None = None,
    outbox: Path | None = None,
    sender: str = "referee@pbem.invalid",
    progress: ingest.ProgressSink | None = None,
) -> ingest.IngestSummary:
    pipe = _Pipe(engine, set())
    if directory is not None:
        summary = ingest.ingest_dir(directory, pipe.submit, pipe.check, progress=progress)
    elif maildir is not None:
        summary = ingest.ingest_maildir(maildir, pipe.submit, pipe.check, outbox, sender, progress=progress)
    elif mbox is not None:
        summary = ingest.ingest_mbox(mbox, pipe.submit, pipe.check, outbox, sender, progress=progress)
    else:
        raise ValueError("give a directory, a Maildir or an mbox")
    for outcome in summary.outcomes:
        if outcome.verdict is ingest.Verdict.REFUSED and not any(src.startswith(outcome.source) for src in pipe.reached):
            pipeline.record_refusal(engine, outcome.raw, None, outcome.lines or ("refused",), outcome.source)
    return summary


def report_messages(engine: Engine, game_id: str, k: int | None, sender: str) -> list[EmailMessage]:
    """Each side's report of resolution ``k`` (default the latest) as an email, to
    the side's registered address; sides without one are skipped."""
    with store.reading(engine) as session:
        game = store.get_game(session, game_id)
        roster = {p.side: p.email for p in store.players(session, game_id)}
        sides = [side for side in find_ruleset(game.rules).sides(game.scenario) if roster.get(side)]
        views = reporting.report_views(session, game_id, k, sides) if sides else []
    return [email_build.report_email(data, sender, roster[data.side], None) for data in views if data.side]


def send_reports(
    engine: Engine,
    game_id: str,
    k: int | None,
    host: str,
    port: int,
    sender: str,
    starttls: bool = False,
    username: str | None = None,
    password: str | None = None,
) -> Sequence[EmailMessage]:
    messages = report_messages(engine, game_id, k, sender)
    if not messages:
        raise pipeline.Refused([f"no side of game {game_id} has an email address (give --email SIDE=ADDR at pbem new)"])
    try:
        smtp_send.send(messages, host, port, starttls=starttls, username=username, password=password)
    except smtp_send.SendError as exc:
        raise pipeline.Refused([str(exc)]) from None
    return messages

