"""The referee's commands: ``new``, ``process``, ``extend``, ``rollback``, ``ingest``,
``send``, ``tick``, ``serve``, ``outbox``, ``games``, ``player``, ``game set``."""

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
import typer.core
import typer.main
import typer.models

if TYPE_CHECKING:
    from pbem.referee.resolve import ProcessOutcome

from pbem.cli.application import _Pbem, _state, app
from pbem.cli.common import _host_port, _log_line, _pairs, _read, _with_progress, database, example, fail, refusals
from pbem.cli.options import (
    _BACKOFF,
    _DIR,
    _IMAP,
    _IMAP_PW,
    _MAILDIR,
    _MAIL_DEADLINE,
    _MBOX,
    _SENDER,
    _SMTP,
    _SMTP_PW,
    _SMTP_USER,
    _SSL,
    _STARTTLS,
    _referee_options,
    _smtp_server,
)


@app.command(epilog=example("pbem new g1 --rules farrapos --player republic=alice.pub --player empire=bob.pub"))
def new(
    game: Annotated[
        str,
        typer.Argument(
            metavar="GAME", help="Game id: 1-64 letters, digits, '-', '_' or '.', not starting with '.' or '-'."
        ),
    ],
    rules: Annotated[str, typer.Option("--rules", metavar="RULES", help="Ruleset: farrapos or furor-barbarus.")],
    player: Annotated[
        list[str], typer.Option("--player", metavar="SIDE=PUBKEY_FILE", help="A side's public key file, once per side.")
    ],
    scenario: Annotated[
        Optional[str], typer.Option("--scenario", metavar="SCENARIO", help="Scenario id (see docs/rules/).")
    ] = None,
    option: Annotated[
        Optional[list[str]], typer.Option("--option", metavar="NAME", help="Optional rule to switch on (repeatable).")
    ] = None,
    email: Annotated[
        Optional[list[str]], typer.Option("--email", metavar="SIDE=ADDRESS", help="A side's mail address (repeatable).")
    ] = None,
    chain_length: Annotated[
        int, typer.Option("--chain-length", metavar="N", help="Length N of the dice hash chain.")
    ] = 4096,
    deadline: Annotated[
        Optional[str],
        typer.Option(
            "--deadline", metavar="DUR", help="Time from the last resolution to the next deadline: 90s, 45m, 72h, 3d."
        ),
    ] = None,
    grace: Annotated[
        Optional[str],
        typer.Option(
            "--grace", metavar="DUR", help="After the deadline, how long a missing side may still send (then NMR)."
        ),
    ] = None,
    remind: Annotated[
        Optional[str],
        typer.Option("--remind", metavar="DUR", help="How long before the deadline a late side is reminded."),
    ] = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Hold the turn until the deadline even when every file is in.")
    ] = False,
    table: Annotated[
        Optional[list[str]],
        typer.Option(
            "--table",
            metavar="NAME=FILE",
            help="Play a house table instead of the shipped one (repeatable; see 'pbem tables').",
        ),
    ] = None,
) -> None:
    """Create a game and commit its dice; prints the commitment (anchor)."""
    from pbem import store
    from pbem.referee import deadlines, lifecycle

    keyfiles = _pairs(player, "--player")
    tables = _pairs(table or [], "--table")
    if len(tables) != len(table or []):
        typer.echo("pbem: --table names each table once", err=True)
        raise typer.Exit(2)
    with refusals():
        clock = deadlines.clock_from_options(deadline, grace, remind, wait)
        keylines = {side: _read(Path(path)).decode("utf-8", "replace").strip() for side, path in keyfiles.items()}
        created = lifecycle.new_game(
            store.create_database(_state["db"]),
            game,
            rules,
            scenario,
            option or [],
            keylines,
            _pairs(email or [], "--email"),
            chain_length,
            tables,
            clock=clock,
        )
    for warning in lifecycle.shared_keys(keylines):
        typer.echo(f"pbem: {warning}", err=True)
    typer.echo(f"game {created.id} created: {created.rules}/{created.scenario}")
    typer.echo(f"dice commitment (anchor, N={created.chain_length}): {created.anchor}")
    typer.echo(f"position: {created.state_hash}")
    if clock is not None:
        typer.echo(f"clock: {clock.describe()}")
    from pbem.store import house_tables

    played = house_tables.of_position(created.position)
    for name in tables:
        if name in played:
            typer.echo(f"house table: {name} (sha256 {house_tables.digest(played[name])})")
        else:
            typer.echo(f"table {name}: the same as the shipped table (not a house table)")


@app.command(epilog=example("pbem process --all --jobs 2", "pbem process g1 g2 --reports reports"))
def process(
    games: Annotated[
        Optional[list[str]], typer.Argument(metavar="GAME", help="Games to process (default with --all: every game).")
    ] = None,
    all_games: Annotated[bool, typer.Option("--all", help="Every game not over.")] = False,
    force_nmr: Annotated[
        bool, typer.Option("--force-nmr", help="Resolve with missing sides taking no action.")
    ] = False,
    reports: Annotated[
        Optional[Path],
        typer.Option("--reports", metavar="DIR", help="Also write each side's HTML and text report here."),
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            min=1,
            max=256,
            help="Worker processes that claim ready games (default 1); on SQLite one of them writes at a time.",
        ),
    ] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or table.")] = False,
) -> None:
    """Resolve every game whose due sides have all submitted."""
    from pbem.referee import resolve

    if not games and not all_games:
        typer.echo("pbem: name the games to process, or give --all", err=True)
        raise typer.Exit(2)
    with refusals():
        db = database()
        targets = games if games else resolve.pending_games(db)
        if jobs > 1:
            from pbem.referee import workers

            outcomes = _with_progress(
                "processing",
                targets,
                lambda tick: workers.process(_state["db"], targets, jobs, force_nmr, on_resolved=lambda _o: tick()),
                quiet,
            )
        else:
            outcomes = _with_progress(
                "processing",
                targets,
                lambda tick: resolve.process(db, targets, force_nmr, on_resolved=lambda _o: tick()),
                quiet,
            )
        if reports is not None:
            from pbem import paths
            from pbem.reports import assemble as reporting

            for o in outcomes:
                if o.resolved is not None:
                    reporting.write_resolution_reports(db, o.game_id, o.resolved, paths.inside(reports, o.game_id))
    _print_outcomes(outcomes, quiet)
    failed = [p for o in outcomes for p in o.problems]
    if failed:
        fail(failed)


def _print_outcomes(outcomes: "list[ProcessOutcome]", quiet: bool) -> None:
    if not quiet and len(outcomes) > 1 and sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table("game", "resolution", "game time", "note")
        for o in outcomes:
            table.add_row(o.game_id, str(o.resolved or "-"), o.label, _note(o))
        Console().print(table)
    else:
        for o in outcomes:
            if o.resolved is not None:
                typer.echo(f"{o.game_id}: resolution {o.resolved} - {o.label}{'; ' + _note(o) if _note(o) else ''}")
            elif not quiet:
                typer.echo(f"{o.game_id}: {_note(o)}")
    typer.echo(process_summary(outcomes))


def process_summary(outcomes: "list[ProcessOutcome]") -> str:
    """``2 resolution(s) made, 1 game(s) waiting, 1 game(s) over``: a game that is
    over, or could not be resolved, is not waiting."""
    made = sum(o.resolved is not None for o in outcomes)
    over = sum(o.resolved is None and o.over for o in outcomes)
    failed = sum(o.resolved is None and bool(o.problems) for o in outcomes)
    waiting = len(outcomes) - made - over - failed
    parts = [f"{made} resolution(s) made", f"{waiting} game(s) waiting"]
    if over:
        parts.append(f"{over} game(s) over")
    if failed:
        parts.append(f"{failed} game(s) not resolved")
    return ", ".join(parts)


def _note(o: "ProcessOutcome") -> str:
    parts = []
    if o.nmr:
        parts.append(f"no moves received from {', '.join(o.nmr)}")
    if o.awaiting:
        parts.append(f"awaiting {', '.join(o.awaiting)}")
    if o.over and o.resolved is not None:
        parts.append("game over")
    if o.note:
        parts.append(o.note)
    return "; ".join(parts)


@app.command(epilog=example("pbem extend g1 --chain-length 4096"))
def extend(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    chain_length: Annotated[
        int,
        typer.Option("--chain-length", metavar="N", help="Length N of the new chain (it serves N-1 more resolutions)."),
    ] = 4096,
) -> None:
    """Commit a new dice chain that takes over where the game's chain ends; prints its anchor."""
    from pbem.referee import lifecycle

    with refusals():
        chain = lifecycle.extend_dice(database(), game, chain_length)
    last = chain.first_k + chain.chain_length - 2
    typer.echo(f"{game}: dice extended for resolutions {chain.first_k}-{last}")
    typer.echo(f"dice commitment (anchor, N={chain.chain_length}, from resolution {chain.first_k}): {chain.anchor}")


@app.command(epilog=example("pbem rollback g1 --to 3"))
def rollback(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    to: Annotated[int, typer.Option("--to", metavar="K", help="Keep resolutions up to K; set aside the rest.")],
) -> None:
    """Set aside the resolutions after K (kept, and shown by export and audit)."""
    from pbem.referee import lifecycle

    with refusals():
        db = database()
        record = lifecycle.rollback(db, game, to)
        st = lifecycle.status(db, game)
    typer.echo(f"{game}: rolled back to resolution {to}; set aside {', '.join(map(str, record.discarded))}")
    typer.echo(
        f"{game}: now awaits resolution {st.turn} - {st.label}; `pbem send {game} ...` tells both sides (the report of resolution {to}, announcing the rollback)"
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
    sender: Annotated[
        str, typer.Option("--sender", metavar="ADDRESS", help="The referee's address (From of receipts).")
    ] = "referee@pbem.invalid",
    smtp: Annotated[
        Optional[str],
        typer.Option(
            "--smtp",
            metavar="HOST:PORT",
            help="Deliver the outbox (receipts, refusals, reports) through this SMTP server.",
        ),
    ] = None,
    starttls: Annotated[bool, typer.Option("--starttls", help="Upgrade the SMTP connection with STARTTLS.")] = False,
    ssl_on: Annotated[bool, typer.Option("--ssl", help="SMTP over TLS from the start (SMTPS, port 465).")] = False,
    smtp_user: Annotated[
        Optional[str],
        typer.Option(
            "--smtp-user",
            metavar="USER",
            help="SMTP login user (password from --smtp-password-file or $PBEM_SMTP_PASSWORD).",
        ),
    ] = None,
    smtp_password_file: Annotated[
        Optional[Path],
        typer.Option("--smtp-password-file", metavar="FILE", help="File whose first line is the SMTP password."),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar and no table; one line per message.")
    ] = False,
) -> None:
    """Batch submit every turn file or message found; each refusal recorded with its reason, each reply queued in the outbox."""
    from pbem import store
    from pbem.cli.progress import BatchProgress, ingest_table, stderr_console
    from pbem.mail.readers import IngestError
    from pbem.referee import mail_room as mailroom
    from pbem.referee import service as referee

    if sum(x is not None for x in (dir, maildir, mbox)) != 1:
        typer.echo("pbem: give exactly one of --dir, --maildir, --mbox", err=True)
        raise typer.Exit(2)
    server = _smtp_server(smtp, starttls, ssl_on, smtp_user, smtp_password_file)
    with refusals():
        try:
            db = database()
            with BatchProgress("ingest") as bar:
                summary = mailroom.run_ingest(
                    db,
                    directory=dir,
                    maildir=maildir,
                    mbox=mbox,
                    outbox=outbox,
                    sender=sender,
                    progress=bar if not quiet else None,
                )
        except IngestError as exc:
            fail(str(exc))
        if server is not None:
            try:
                referee.deliver(
                    db,
                    referee.Options(smtp=server, sender=sender),
                    store.utcnow(),
                    lambda line: typer.echo(line, err=True),
                )
            except referee.PassError as exc:
                fail(str(exc))
    if not quiet:
        stderr_console().print(ingest_table(summary))
    for o in summary.outcomes:
        first = o.lines[0].splitlines()[0] if o.lines else ""
        typer.echo(f"{o.verdict.value}: {o.source}: {first}")
    typer.echo(
        f"{summary.accepted} accepted, {summary.refused} refused, {summary.checked} checked, {summary.skipped} skipped"
    )
    if summary.refused and not summary.accepted and not summary.checked:
        raise typer.Exit(1)  # everything that came in was refused (each refusal is recorded and listed above)


@app.command(epilog=example("pbem send g1 --smtp mail.example.org:587 --starttls --sender referee@example.org"))
def send(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    smtp: Annotated[str, typer.Option("--smtp", metavar="HOST:PORT", help="The SMTP server.")],
    sender: Annotated[str, typer.Option("--sender", metavar="ADDRESS", help="The referee's address.")],
    turn: Annotated[
        Optional[int], typer.Option("--turn", metavar="K", help="Resolution k (default: the latest).")
    ] = None,
    starttls: Annotated[bool, typer.Option("--starttls", help="Upgrade the connection with STARTTLS.")] = False,
    user: Annotated[
        Optional[str],
        typer.Option(
            "--user",
            metavar="USER",
            help="SMTP AUTH user (password from $PBEM_SMTP_PASSWORD).",
            envvar="PBEM_SMTP_USER",
        ),
    ] = None,
) -> None:
    """Email each side its report."""
    import os

    from pbem.referee import mail_room as mailroom

    host, port = _host_port(smtp)
    with refusals():
        sent = mailroom.send_reports(
            database(), game, turn, host, port, sender, starttls, user, os.environ.get("PBEM_SMTP_PASSWORD")
        )
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
    sender: Annotated[str, _SENDER] = "referee@pbem.invalid",
    starttls: Annotated[bool, _STARTTLS] = False,
    ssl_on: Annotated[bool, _SSL] = False,
    smtp_user: Annotated[Optional[str], _SMTP_USER] = None,
    smtp_password_file: Annotated[Optional[Path], _SMTP_PW] = None,
    backoff: Annotated[float, _BACKOFF] = 60.0,
    jobs: Annotated[int, typer.Option("--jobs", metavar="N", help="Worker processes for the resolution step.")] = 1,
    mail_deadline: Annotated[float, _MAIL_DEADLINE] = 300.0,
) -> None:
    """One pass: intake, deadlines and reminders, resolution, delivery of the outbox (exit 0 even when deliveries stay queued)."""
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
        report = referee.tick(database(), options, _log_line)
    made = sum(1 for o in report.resolutions if o.resolved is not None)
    d = report.delivery
    sent = f", {len(d.sent)} sent, {len(d.deferred)} deferred, {len(d.failed)} failed" if d else ""
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
    sender: Annotated[str, _SENDER] = "referee@pbem.invalid",
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
    """What the referee owes and has sent: id, kind, to, subject, state (pending/sent/failed), attempts, last error."""
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
    counts = {state: sum(1 for r in rows if r.state == state) for state in (owed.PENDING, owed.SENT, owed.FAILED)}
    typer.echo(
        f"{len(rows)} message(s): {counts[owed.PENDING]} pending, {counts[owed.SENT]} sent, {counts[owed.FAILED]} failed"
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


@app.command(epilog=example("pbem games --json"))
def games(as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """Every game: ruleset, resolution, whose file is awaited, deadline, last activity, outcome."""
    from pbem.referee import roster as listing

    with refusals():
        lines = listing.list_games(database())
    if as_json:
        typer.echo(json.dumps([g.to_json() for g in lines], indent=1, ensure_ascii=False))
        return
    for g in lines:
        deadline = f"deadline {g.deadline:%Y-%m-%d %H:%M} UTC" if g.deadline else g.clock
        awaiting = f"awaiting {', '.join(g.awaiting)}" if g.awaiting else ("ready" if not g.over else "")
        typer.echo(
            f"{g.game}: {g.rules}/{g.scenario}, resolution {g.resolution} ({g.label}); {awaiting or '-'}; {deadline}; "
            f"last activity {g.last_activity:%Y-%m-%d %H:%M} UTC; {listing.outcome_text(g)}"
        )
    typer.echo(f"{len(lines)} game(s)")


@app.command(epilog=example("pbem player g1 republic --email alice@example.org"))
def player(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    side: Annotated[str, typer.Argument(metavar="SIDE", help="The side whose player changes.")],
    email: Annotated[Optional[str], typer.Option("--email", metavar="ADDRESS", help="The side's new address.")] = None,
    key: Annotated[
        Optional[Path], typer.Option("--key", metavar="PUBKEY_FILE", help="The side's new public key file.")
    ] = None,
) -> None:
    """Change a player's address or key; recorded in the archive, both sides told."""
    from pbem.referee import players

    with refusals():
        line = _read(key).decode("utf-8", "replace").strip() if key is not None else None
        change = players.change_player(database(), game, side, email, line)
    typer.echo(f"{game} {side}: {'; '.join(change.what)} (from resolution {change.from_k}); both sides notified")


game_app = typer.Typer(
    cls=_Pbem,
    help="Change a game's settings.",
    no_args_is_help=True,
    epilog=example("pbem game set g1 deadline=48h grace=12h"),
)


app.add_typer(game_app, name="game")


@game_app.command("set", epilog=example("pbem game set g1 deadline=48h grace=12h"))
def game_set(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    settings: Annotated[
        list[str],
        typer.Argument(
            metavar="KEY=VALUE",
            help="KEY=VALUE: deadline=48h, grace=12h, remind=6h, wait=yes (deadline=none removes it).",
        ),
    ],
) -> None:
    """Change a game's deadline, grace, reminder or wait."""
    from pbem.referee import deadlines

    pairs: dict[str, str] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            typer.echo(f"pbem: a setting is KEY=VALUE, got {item!r}", err=True)
            raise typer.Exit(2)
        pairs[key.strip()] = value.strip()
    with refusals():
        clock = deadlines.set_clock(database(), game, pairs)
    typer.echo(f"{game}: {clock.describe()}")
