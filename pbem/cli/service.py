"""The referee's mail service commands: ``ingest``, ``send``, ``tick``, ``serve``
and ``outbox``."""

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
import typer.core
import typer.main
import typer.models

if TYPE_CHECKING:
    from pbem.mail.readers import IngestSummary

from pbem.cli.application import _Pbem
from pbem.cli.application import registry as app
from pbem.cli.common import REFEREE_KEY, _log_line, database, example, fail, referee_key, refusals, settings
from pbem.cli.options import (
    _BACKOFF,
    _DIR,
    _IMAP,
    _IMAP_PW,
    _MAIL_DEADLINE,
    _MAILDIR,
    _MBOX,
    _SENDER,
    _SMTP,
    _SMTP_PW,
    _SMTP_USER,
    _SMTP_USER_ALIAS,
    _SSL,
    _STARTTLS,
    _referee_options,
    _sender,
    _smtp_server,
    _with_key,
)


@app.command(epilog=example("pbem ingest --maildir ~/Maildir --outbox outbox"))
def ingest(
    dir: Annotated[
        Optional[Path],
        typer.Option(
            "--dir", metavar="DIR", help="A folder of turn files (FILE.txt with FILE.txt.sig or inline signatures)."
        ),
    ] = None,
    maildir: Annotated[
        Optional[Path], typer.Option("--maildir", metavar="MAILDIR", help="A Maildir of player mail.")
    ] = None,
    mbox: Annotated[Optional[Path], typer.Option("--mbox", metavar="FILE", help="An mbox file of player mail.")] = None,
    outbox: Annotated[
        Optional[Path],
        typer.Option("--outbox", metavar="MAILDIR", help="Maildir to write a copy of each receipt and refusal to."),
    ] = None,
    sender: Annotated[Optional[str], _SENDER] = None,
    smtp: Annotated[Optional[str], _SMTP] = None,
    starttls: Annotated[bool, _STARTTLS] = False,
    ssl_on: Annotated[bool, _SSL] = False,
    smtp_user: Annotated[Optional[str], _SMTP_USER] = None,
    smtp_password_file: Annotated[Optional[Path], _SMTP_PW] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar and no table; one line per message.")
    ] = False,
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Batch submit every turn file or message found; each refusal recorded with its reason, \
each reply queued in the outbox."""
    from pbem import store
    from pbem.cli.progress import BatchProgress
    from pbem.mail.readers import IngestError
    from pbem.referee import mail_room as mailroom
    from pbem.referee import service as referee

    if sum(x is not None for x in (dir, maildir, mbox)) != 1:
        typer.echo("pbem: give exactly one of --dir, --maildir, --mbox", err=True)
        raise typer.Exit(2)
    server = _smtp_server(smtp, starttls, ssl_on, smtp_user, smtp_password_file)
    sender = _sender(sender)
    with refusals():
        try:
            db = database()
            # quiet: no bar at all (rich's bar redraws from a thread of its own, ten times a second)
            with contextlib.nullcontext(None) if quiet else BatchProgress("ingest") as bar:
                summary = mailroom.run_ingest(
                    db,
                    directory=dir,
                    maildir=maildir,
                    mbox=mbox,
                    outbox=outbox,
                    sender=sender,
                    progress=bar,
                    referee_key=referee_key(key),
                )
        except IngestError as exc:
            fail(str(exc))
        if server is not None:
            try:
                to_stderr = lambda line: typer.echo(line, err=True)  # noqa: E731
                referee.deliver(db, referee.Options(smtp=server, sender=sender), store.utcnow(), to_stderr)
            except referee.PassError as exc:
                fail(str(exc))
    _print_ingested(summary, quiet)


def _print_ingested(summary: "IngestSummary", quiet: bool) -> None:
    """Each message's verdict and the totals; exit 1 when everything that came in
    was refused (each refusal is recorded and listed)."""
    from pbem.cli.progress import ingest_table, stderr_console

    if not quiet:
        stderr_console().print(ingest_table(summary))
    for o in summary.outcomes:
        first = o.lines[0].splitlines()[0] if o.lines else ""
        typer.echo(f"{o.verdict.value}: {o.source}: {first}")
    typer.echo(
        f"{summary.accepted} accepted, {summary.refused} refused, {summary.checked} checked, {summary.skipped} skipped"
    )
    if summary.refused and not summary.accepted and not summary.checked:
        raise typer.Exit(1)


@app.command(epilog=example("pbem send g1 --smtp mail.example.org:587 --starttls --sender referee@example.org"))
def send(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    turn: Annotated[
        Optional[int], typer.Option("--turn", metavar="K", help="Resolution k (default: the latest).")
    ] = None,
    smtp: Annotated[Optional[str], _SMTP] = None,
    sender: Annotated[Optional[str], _SENDER] = None,
    starttls: Annotated[bool, _STARTTLS] = False,
    ssl_on: Annotated[bool, _SSL] = False,
    smtp_user: Annotated[Optional[str], _SMTP_USER] = None,
    smtp_password_file: Annotated[Optional[Path], _SMTP_PW] = None,
    user: Annotated[Optional[str], _SMTP_USER_ALIAS] = None,
) -> None:
    """Email each side its report (now, not through the outbox)."""
    from pbem.referee import mail_room as mailroom

    server = _smtp_server(smtp, starttls, ssl_on, smtp_user or user, smtp_password_file)
    if server is None:
        typer.echo("pbem: send needs --smtp HOST:PORT (or [smtp] host in the configuration file)", err=True)
        raise typer.Exit(2)
    if sender is None and settings().sender is None:
        typer.echo("pbem: send needs --sender ADDRESS (or [smtp] sender in the configuration file)", err=True)
        raise typer.Exit(2)
    with refusals():
        sent = mailroom.send_reports(database(), game, turn, server, _sender(sender))
    for message in sent:
        typer.echo(f"sent to {message['To']}: {message['Subject']}")


@app.command(
    epilog=example("pbem tick --maildir ~/Maildir --smtp mail.example.org:587 --starttls --sender referee@example.org")
)
def tick(
    dir: Annotated[Optional[Path], _DIR] = None,
    maildir: Annotated[Optional[Path], _MAILDIR] = None,
    mbox: Annotated[Optional[Path], _MBOX] = None,
    imap: Annotated[Optional[str], _IMAP] = None,
    imap_password_file: Annotated[Optional[Path], _IMAP_PW] = None,
    smtp: Annotated[Optional[str], _SMTP] = None,
    sender: Annotated[Optional[str], _SENDER] = None,
    starttls: Annotated[bool, _STARTTLS] = False,
    ssl_on: Annotated[bool, _SSL] = False,
    smtp_user: Annotated[Optional[str], _SMTP_USER] = None,
    smtp_password_file: Annotated[Optional[Path], _SMTP_PW] = None,
    backoff: Annotated[float, _BACKOFF] = 60.0,
    jobs: Annotated[int, typer.Option("--jobs", metavar="N", help="Worker processes for the resolution step.")] = 1,
    mail_deadline: Annotated[float, _MAIL_DEADLINE] = 300.0,
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """One pass: intake, deadlines and reminders, resolution, delivery of the outbox \
(exit 0 even when deliveries stay queued)."""
    from pbem.referee import service as referee

    options = _referee_options(
        dir,
        maildir,
        mbox,
        imap,
        imap_password_file,
        smtp,
        sender,
        starttls,
        ssl_on,
        smtp_user,
        smtp_password_file,
        backoff,
        jobs,
        mail_deadline,
    )
    with refusals():
        options = _with_key(options, key)
        report = referee.tick(database(), options, _log_line)
    made = sum(1 for o in report.resolutions if o.resolved is not None)
    d = report.delivery
    sent = f", {len(d.sent)} sent, {len(d.deferred)} deferred, {len(d.failed)} failed" if d else ""
    h = report.posted
    if h and (h.sent or h.deferred or h.failed):
        sent += f", {len(h.sent)} posted, {len(h.deferred)} hook(s) deferred, {len(h.failed)} hook(s) failed"
    typer.echo(
        f"pass done: {report.messages} message(s) judged, {report.notices} notice(s), {made} resolution(s){sent}"
    )
    if report.failures:  # logged already; the exit status says the pass was not whole
        fail([f.text for f in report.failures])


@app.command(
    epilog=example(
        "pbem serve --imap imaps://referee@mail.example.org/INBOX --smtp mail.example.org:465 --ssl --every 60 --jobs 2"
    )
)
def serve(
    dir: Annotated[Optional[Path], _DIR] = None,
    maildir: Annotated[Optional[Path], _MAILDIR] = None,
    mbox: Annotated[Optional[Path], _MBOX] = None,
    imap: Annotated[Optional[str], _IMAP] = None,
    imap_password_file: Annotated[Optional[Path], _IMAP_PW] = None,
    smtp: Annotated[Optional[str], _SMTP] = None,
    sender: Annotated[Optional[str], _SENDER] = None,
    starttls: Annotated[bool, _STARTTLS] = False,
    ssl_on: Annotated[bool, _SSL] = False,
    smtp_user: Annotated[Optional[str], _SMTP_USER] = None,
    smtp_password_file: Annotated[Optional[Path], _SMTP_PW] = None,
    backoff: Annotated[float, _BACKOFF] = 60.0,
    every: Annotated[
        float, typer.Option("--every", metavar="SECONDS", help="Seconds from the start of one pass to the next.")
    ] = 60.0,
    jobs: Annotated[int, typer.Option("--jobs", metavar="N", help="Worker processes for the resolution step.")] = 1,
    mail_deadline: Annotated[float, _MAIL_DEADLINE] = 300.0,
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Passes (as pbem tick) every --every seconds until SIGTERM or SIGINT, finishing the current step."""
    from pbem.referee import service as referee

    if every <= 0:
        typer.echo("pbem: --every must be more than 0 seconds", err=True)
        raise typer.Exit(2)
    options = _referee_options(
        dir,
        maildir,
        mbox,
        imap,
        imap_password_file,
        smtp,
        sender,
        starttls,
        ssl_on,
        smtp_user,
        smtp_password_file,
        backoff,
        jobs,
        mail_deadline,
    )
    with refusals():
        options = _with_key(options, key)
        try:
            referee.serve(database(), options, every, _log_line)
        except referee.PassError as exc:
            fail(str(exc))


outbox_app = typer.Typer(
    cls=_Pbem,
    help="What the referee owes and has sent.",
    no_args_is_help=False,
    epilog=example("pbem outbox --json", "pbem outbox retry 12"),
)


app.add_typer(outbox_app, name="outbox")


@outbox_app.callback(invoke_without_command=True)
def outbox_list(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """What the referee owes and has sent: id, kind, to, subject, state (pending/sent/failed/superseded), \
attempts, last error."""
    if ctx.invoked_subcommand is not None:
        return
    from pbem.mail import outbox as owed

    with refusals():
        rows = owed.rows(database())
    if as_json:
        typer.echo(json.dumps([r.to_json() for r in rows], indent=1, ensure_ascii=False))
        return
    for r in rows:
        error = f"  [{r.last_error}]" if r.last_error else ""
        typer.echo(f"{r.id:>5} {r.state:<7} {r.attempts:>2}x {r.kind:<9} {r.to:<30} {r.subject}{error}")
    states = (owed.PENDING, owed.SENT, owed.FAILED, owed.SUPERSEDED)
    counts = {state: sum(1 for r in rows if r.state == state) for state in states}
    superseded = f", {counts[owed.SUPERSEDED]} superseded" if counts[owed.SUPERSEDED] else ""
    typer.echo(
        f"{len(rows)} message(s): {counts[owed.PENDING]} pending, {counts[owed.SENT]} sent, "
        f"{counts[owed.FAILED]} failed" + superseded
    )


@outbox_app.command("retry", epilog=example("pbem outbox retry 12"))
def outbox_retry(
    row: Annotated[
        Optional[int], typer.Argument(metavar="ID", help="The row to re-arm (default: every failed row).")
    ] = None,
) -> None:
    """Re-arm failed rows (pending again, due now); pending rows are made due now too."""
    from pbem.mail import outbox as owed

    with refusals():
        changed = owed.retry(database(), row)
    typer.echo(f"{changed} message(s) re-armed")
