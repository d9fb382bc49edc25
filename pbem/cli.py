"""The ``pbem`` command line: thin.  Each command parses its arguments, calls one
library function, prints, and turns domain errors into one line per problem on
stderr with exit status 1 (usage errors exit 2, from Typer)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer
from sqlalchemy import Engine

from pbem import dice_chains, pipeline, store

app = typer.Typer(
    name="pbem",
    help="A play-by-email referee for board wargames: signed turn files, auditable dice, reports.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_state: dict[str, Any] = {"db": None}


@app.callback()
def _main(
    db: Annotated[Optional[str], typer.Option("--db", help="Database path or SQLAlchemy URL (default $PBEM_DB or ./pbem.db).", envvar="PBEM_DB")] = None,
) -> None:
    _state["db"] = db


def fail(problems: list[str] | str) -> NoReturn:
    for line in [problems] if isinstance(problems, str) else problems:
        typer.echo(f"pbem: {line}", err=True)
    raise typer.Exit(1)


@contextmanager
def refusals() -> Iterator[None]:
    """Domain errors become one line per problem and exit 1."""
    from pbem.keys import KeyFileError
    from pbem.paths import UnsafePath
    from pbem.sshsig import SignatureError

    try:
        yield
    except pipeline.Refused as exc:
        fail(exc.problems)
    except (store.StoreError, LookupError, KeyFileError, SignatureError, UnsafePath) as exc:
        fail(str(exc).strip("'\""))
    except OSError as exc:
        fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))


def engine(create: bool = False) -> Engine:
    return store.open_engine(_state["db"], create=create)


def _read(path: Path, limit: int | None = None) -> bytes:
    if not path.is_file():
        fail(f"{path}: no such file")
    if limit is not None and path.stat().st_size > limit:
        fail(f"{path}: {path.stat().st_size} bytes is over the {limit // 1024} KiB limit for a turn file")
    return path.read_bytes()


def _pairs(values: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        side, sep, rest = value.partition("=")
        if not sep or not side or not rest:
            typer.echo(f"pbem: {what} must be SIDE=VALUE, got {value!r}", err=True)
            raise typer.Exit(2)
        out[side] = rest
    return out


# ------------------------------------------------------------------ commands


@app.command()
def keygen(
    name: Annotated[str, typer.Argument(help="Key name: writes NAME (private, mode 0600) and NAME.pub.")],
    dir: Annotated[Path, typer.Option("--dir", help="Folder for the key files.")] = Path("."),
) -> None:
    """Make a new Ed25519 key pair in OpenSSH format."""
    from pbem import keys

    with refusals():
        private, public = keys.generate_ed25519(name, dir)
        pub = keys.PublicKey.from_file(public)
    typer.echo(f"private key: {private}\npublic key:  {public}\nfingerprint: {pub.fingerprint()}")


@app.command()
def new(
    game: Annotated[str, typer.Argument(help="Game id: 1-64 letters, digits, '-', '_' or '.', not starting with '.' or '-'.")],
    rules: Annotated[str, typer.Option("--rules", help="Ruleset: farrapos or furor-barbarus.")],
    player: Annotated[list[str], typer.Option("--player", help="SIDE=PUBKEY_FILE, once per side.")],
    scenario: Annotated[Optional[str], typer.Option("--scenario", help="Scenario id.")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", help="Optional rule to switch on (repeatable).")] = None,
    email: Annotated[Optional[list[str]], typer.Option("--email", help="SIDE=ADDRESS (repeatable).")] = None,
    chain_length: Annotated[int, typer.Option("--chain-length", help="Length N of the dice hash chain.")] = 4096,
    deadline: Annotated[Optional[str], typer.Option("--deadline", help="Time from the last resolution to the next deadline: 90s, 45m, 72h, 3d.")] = None,
    grace: Annotated[Optional[str], typer.Option("--grace", help="After the deadline, how long a missing side may still send (then NMR).")] = None,
    remind: Annotated[Optional[str], typer.Option("--remind", help="How long before the deadline a late side is reminded.")] = None,
    wait: Annotated[bool, typer.Option("--wait", help="Hold the turn until the deadline even when every file is in.")] = False,
    table: Annotated[Optional[list[str]], typer.Option("--table", help="NAME=FILE: play a house table instead of the shipped one (repeatable; see 'pbem tables').")] = None,
) -> None:
    """Create a game and commit its dice; prints the commitment (anchor)."""
    from pbem import deadlines

    keyfiles = _pairs(player, "--player")
    tables = _pairs(table or [], "--table")
    if len(tables) != len(table or []):
        typer.echo("pbem: --table names each table once", err=True)
        raise typer.Exit(2)
    with refusals():
        clock = deadlines.clock_from_options(deadline, grace, remind, wait)
        keylines = {side: _read(Path(path)).decode("utf-8", "replace").strip() for side, path in keyfiles.items()}
        created = pipeline.new_game(
            engine(create=True), game, rules, scenario, option or [], keylines, _pairs(email or [], "--email"), chain_length, tables, clock=clock
        )
    for warning in pipeline.shared_keys(keylines):
        typer.echo(f"pbem: {warning}", err=True)
    typer.echo(f"game {created.id} created: {created.rules}/{created.scenario}")
    typer.echo(f"dice commitment (anchor, N={created.chain_length}): {created.anchor}")
    typer.echo(f"position: {created.initial_state_hash}")
    if clock is not None:
        typer.echo(f"clock: {clock.describe()}")
    from pbem import house_tables

    played = house_tables.of_position(json.loads(created.initial_position))
    for name in tables:
        if name in played:
            typer.echo(f"house table: {name} (sha256 {house_tables.digest(played[name])})")
        else:
            typer.echo(f"table {name}: the same as the shipped table (not a house table)")


@app.command()
def status(
    game: Annotated[str, typer.Argument()],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """The resolution awaited and the game's own time, sides awaited, score, and the result once over."""
    with refusals():
        st = pipeline.status(engine(), game)
    exposed = store.readable_by_others(store.database_url(_state["db"]))
    if exposed:
        typer.echo(f"pbem: warning: others can read {', '.join(exposed)}, which hold the dice seed: chmod 600 them", err=True)
    if as_json:
        typer.echo(json.dumps(st.to_json(), indent=2, ensure_ascii=False))
        return
    typer.echo(f"{st.game} ({st.rules}/{st.scenario}): resolution {st.turn} - {st.label}")
    for line in st.score:
        typer.echo(f"  {line['side']}: {line['detail']}")
    if st.over:
        r = st.result or {}
        typer.echo(f"  game over: {r.get('kind')} for {r.get('winner') or 'nobody'} ({r.get('reason')})")
    else:
        typer.echo(f"  awaiting: {', '.join(st.awaiting) or 'nobody (ready to process)'}")
        if st.queued:
            typer.echo(f"  queued: {', '.join(st.queued)}")
        if st.dice_left <= dice_chains.NEAR_THE_END:
            left = "used up" if st.dice_left == 0 else f"serve only {st.dice_left} more resolution(s)"
            typer.echo(f"  dice: the committed chains {left}; extend them with 'pbem extend {st.game}'")


@app.command()
def orders(
    game: Annotated[str, typer.Argument()],
    side: Annotated[str, typer.Option("--side", help="The side to write orders for.")],
    bot: Annotated[Optional[str], typer.Option("--bot", help="Fill with a bot's legal orders (random, greedy).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Bot seed.")] = 0,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Write here instead of stdout.")] = None,
) -> None:
    """Write the next turn file for a side (template, or a bot's orders)."""
    with refusals():
        text = pipeline.next_turn_file(engine(), game, side, bot, seed)
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
            typer.echo(f"wrote {output}")


def _signature_for(path: Path, sig: Optional[Path]) -> str | None:
    sig_path = sig or path.with_name(path.name + ".sig")
    if sig is not None and not sig_path.is_file():
        fail(f"{sig_path}: no such signature file")
    return sig_path.read_text(encoding="utf-8", errors="replace") if sig_path.is_file() else None


@app.command()
def check(
    file: Annotated[Path, typer.Argument(help="Turn file.")],
    sig: Annotated[Optional[Path], typer.Option("--sig", help="Detached signature (default FILE.sig if present).")] = None,
) -> None:
    """Parse and validate a turn file against the game's current position; stores nothing."""
    from pbem.turnfile import MAX_TURN_FILE_BYTES

    with refusals():
        checked = pipeline.check(engine(), _read(file, MAX_TURN_FILE_BYTES + 16 * 1024), _signature_for(file, sig))
    signed = "signature verified" if checked.signature else "not signed (signature not checked)"
    typer.echo(f"{file}: OK: {checked.game_id}, {checked.side}, resolution {checked.turn} - {checked.label}; {len(checked.orders)} order(s); {signed}")


@app.command()
def sign(
    file: Annotated[Path, typer.Argument(help="Turn file.")],
    key: Annotated[Path, typer.Option("--key", help="OpenSSH private key.")],
    inline: Annotated[bool, typer.Option("--inline", help="Append the armored signature to FILE.")] = False,
) -> None:
    """Sign a turn file (SSHSIG, namespace pbem): writes FILE.sig, or appends inline."""
    from pbem import keys, sshsig

    with refusals():
        try:
            written = sshsig.sign_file(file, key, inline=inline)
        except keys.KeyFileError as exc:
            if "passphrase" not in str(exc) or not sys.stdin.isatty():
                raise
            secret = typer.prompt(f"passphrase for {key}", hide_input=True)
            written = sshsig.sign_file(file, key, inline=inline, passphrase=secret.encode("utf-8"))
    typer.echo(f"signed: {written}")


@app.command()
def submit(
    file: Annotated[Path, typer.Argument(help="Signed turn file.")],
    sig: Annotated[Optional[Path], typer.Option("--sig", help="Detached signature (default FILE.sig).")] = None,
) -> None:
    """Verify and queue a turn file."""
    from pbem.turnfile import MAX_TURN_FILE_BYTES

    with refusals():
        db = engine()
        data = _read(file, MAX_TURN_FILE_BYTES + 16 * 1024)
        result = pipeline.submit(db, data, _signature_for(file, sig), source=str(file))
    c = result.checked
    extra = f", superseding {result.superseded} earlier file(s)" if result.superseded else ""
    typer.echo(f"queued: {c.game_id}, {c.side}, resolution {c.turn} - {c.label}{extra}")


@app.command()
def process(
    games: Annotated[Optional[list[str]], typer.Argument(help="Games to process (default with --all: every game).")] = None,
    all_games: Annotated[bool, typer.Option("--all", help="Every game not over.")] = False,
    force_nmr: Annotated[bool, typer.Option("--force-nmr", help="Resolve with missing sides taking no action.")] = False,
    reports: Annotated[Optional[Path], typer.Option("--reports", help="Also write each side's HTML and text report here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or table.")] = False,
) -> None:
    """Resolve every game whose due sides have all submitted."""
    if not games and not all_games:
        typer.echo("pbem: name the games to process, or give --all", err=True)
        raise typer.Exit(2)
    with refusals():
        db = engine()
        targets = games if games else pipeline.pending_games(db)
        outcomes = _with_progress("processing", targets, lambda tick: pipeline.process(db, targets, force_nmr, on_resolved=lambda _o: tick()), quiet)
        if reports is not None:
            from pbem import paths, reporting

            for o in outcomes:
                if o.resolved is not None:
                    reporting.write_resolution_reports(db, o.game_id, o.resolved, paths.inside(reports, o.game_id))
    _print_outcomes(outcomes, quiet)
    failed = [p for o in outcomes for p in o.problems]
    if failed:
        fail(failed)


def _with_progress(what: str, items: list[str], run: Callable[[Callable[[], None]], Any], quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty() or len(items) < 2:
        return run(lambda: None)
    from rich.progress import Progress

    with Progress(transient=True) as progress:
        task = progress.add_task(what, total=len(items))
        return run(lambda: progress.advance(task))


def _print_outcomes(outcomes: list[pipeline.ProcessOutcome], quiet: bool) -> None:
    made = [o for o in outcomes if o.resolved is not None]
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
    typer.echo(f"{len(made)} resolution(s) made, {len(outcomes) - len(made)} game(s) waiting")


def _note(o: pipeline.ProcessOutcome) -> str:
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


@app.command()
def dice(
    game: Annotated[str, typer.Argument()],
    as_json: Annotated[bool, typer.Option("--json")] = False,
    stats: Annotated[bool, typer.Option("--stats", help="Counts per face and a chi-square figure per die size.")] = False,
) -> None:
    """The dice history: resolution, index, die, value, purpose."""
    from pbem import dice_stats

    with refusals():
        with store.reading(engine()) as session:
            g = store.get_game(session, game)
            rows = store.rolls_for(session, g.id)
            active = {r.k: r.active for r in store.all_resolutions(session, g.id)}
    history = [{"resolution": r.k, "index": r.idx, "sides": r.sides, "value": r.value, "purpose": r.purpose, "set_aside": not active.get(r.k, True)} for r in rows]
    summary = None
    if stats:
        summary = {
            str(sides): {"faces": {str(f): c for f, c in sorted(counts.items())}, "chi_square": dice_stats.chi_square(rows)[sides]}
            for sides, counts in sorted(dice_stats.face_counts(rows).items())
        }
    if as_json:
        typer.echo(json.dumps({"game": game, "anchor": g.anchor, "rolls": history, **({"stats": summary} if stats else {})}, indent=1, ensure_ascii=False))
        return
    typer.echo(f"dice of {game} (anchor {g.anchor}): {len(history)} roll(s)")
    for h in history:
        mark = "  [set aside]" if h["set_aside"] else ""
        typer.echo(f"  k={h['resolution']:<4} #{h['index']:<3} d{h['sides']:<3} = {h['value']:<3}  {h['purpose']}{mark}")
    if summary:
        for sides, s in summary.items():
            stat, dof, p = s["chi_square"]
            faces = " ".join(f"{f}:{c}" for f, c in s["faces"].items())
            typer.echo(f"  d{sides}: {faces}   chi-square {stat:.2f} (df {dof}, p = {p:.3f})")


@app.command()
def export(
    game: Annotated[str, typer.Argument()],
    output: Annotated[Path, typer.Option("-o", "--output", help="Archive file to write.")],
) -> None:
    """Write the game archive (pbem-archive/1 JSON)."""
    from pbem import archive

    with refusals():
        data = archive.export(engine(), game, output)
    typer.echo(f"wrote {output}: {len(data['resolutions'])} resolution(s), anchor {data['dice']['anchor']}")


@app.command()
def audit(
    game: Annotated[Optional[str], typer.Argument(help="Game in the database.")] = None,
    archive_file: Annotated[Optional[Path], typer.Option("--archive", help="Audit an exported archive (no database).")] = None,
) -> None:
    """Re-verify signatures, headers, the dice chain, every roll and every position."""
    from pbem import archive, audit as auditing

    if (game is None) == (archive_file is None):
        typer.echo("pbem: give a GAME or --archive FILE", err=True)
        raise typer.Exit(2)
    with refusals():
        try:
            data = archive.load(archive_file) if archive_file else archive.build_archive(engine(), game or "")
            summary = auditing.audit_archive(data)
        except (auditing.AuditFailure, ValueError) as exc:
            fail(f"audit failed: {exc}")
    for line in summary.lines():
        typer.echo(line)


@app.command()
def extend(
    game: Annotated[str, typer.Argument(help="Game id.")],
    chain_length: Annotated[int, typer.Option("--chain-length", help="Length N of the new chain (it serves N-1 more resolutions).")] = 4096,
) -> None:
    """Commit a new dice chain that takes over where the game's chain ends; prints its anchor."""
    with refusals():
        chain = pipeline.extend_dice(engine(), game, chain_length)
    last = chain.first_k + chain.chain_length - 2
    typer.echo(f"{game}: dice extended for resolutions {chain.first_k}-{last}")
    typer.echo(f"dice commitment (anchor, N={chain.chain_length}, from resolution {chain.first_k}): {chain.anchor}")


@app.command()
def rollback(
    game: Annotated[str, typer.Argument()],
    to: Annotated[int, typer.Option("--to", help="Keep resolutions up to K; set aside the rest.")],
) -> None:
    """Set aside the resolutions after K (kept, and shown by export and audit)."""
    with refusals():
        record = pipeline.rollback(engine(), game, to)
        st = pipeline.status(engine(), game)
    typer.echo(f"{game}: rolled back to resolution {to}; set aside {', '.join(map(str, json.loads(record.discarded)))}")
    typer.echo(f"{game}: now awaits resolution {st.turn} - {st.label}; `pbem send {game} ...` tells both sides (the report of resolution {to}, announcing the rollback)")


@app.command()
def case(files: Annotated[list[Path], typer.Argument(help="Rule case TOML files or folders.")]) -> None:
    """Run rule cases; exit 0 only if all pass."""
    from pbem.cases import run_cases

    results = run_cases(files)
    for r in results:
        typer.echo(r.summary())
    failed = sum(not r.passed for r in results)
    typer.echo(f"{len(results) - failed} passed, {failed} failed")
    if failed or not results:
        raise typer.Exit(1)


@app.command()
def report(
    game: Annotated[str, typer.Argument()],
    output: Annotated[Path, typer.Option("-o", "--output", help="File to write.")],
    turn: Annotated[Optional[int], typer.Option("--turn", help="Resolution k (default: the latest; 0: the game as created).")] = None,
    side: Annotated[Optional[str], typer.Option("--side", help="The side's view (default: the referee's).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="html, text, eml, or audit (the whole game's audit page).")] = "html",
) -> None:
    """Write one report (or the game's audit page)."""
    from pbem import reporting

    if fmt not in ("html", "text", "eml", "audit"):
        typer.echo(f"pbem: --format must be html, text, eml or audit, not {fmt!r}", err=True)
        raise typer.Exit(2)
    with refusals():
        content = reporting.render(engine(), game, turn, side, fmt)
        if isinstance(content, bytes):
            output.write_bytes(content)
        else:
            output.write_text(content, encoding="utf-8")
    typer.echo(f"wrote {output}")


@app.command()
def demo(
    rules: Annotated[Optional[str], typer.Option("--rules", help="Only this ruleset.")] = None,
    scenario: Annotated[Optional[str], typer.Option("--scenario", help="Only this scenario.")] = None,
    out: Annotated[Path, typer.Option("--out", help="Output folder.")] = Path("demo"),
    seed: Annotated[int, typer.Option("--seed", help="Bot seed.")] = 1,
) -> None:
    """Whole bot-vs-bot games through signed files, the database and reports."""
    from pbem import demo as demos

    games = [g for g in demos.DEMO_GAMES if (rules is None or g[0] == rules) and (scenario is None or g[1] == scenario)]
    if rules and not games:
        games = [(rules, scenario)]
    with refusals():
        if sys.stderr.isatty():
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            with Progress(SpinnerColumn(), TextColumn("{task.description}"), TextColumn("{task.completed} resolutions"), TimeElapsedColumn()) as bar:
                def progress(name: str) -> Callable[[], None]:
                    task = bar.add_task(name, total=None)
                    return lambda: bar.advance(task)

                results = demos.run_demo(out, games, seed, progress)
        else:
            results = demos.run_demo(out, games, seed)
    for r in results:
        res = r.result or {}
        typer.echo(f"{r.game_id}: {res.get('kind')} for {res.get('winner') or 'nobody'} ({res.get('reason')}); "
                   f"{r.resolutions} resolutions, {r.files} signed turn files, {r.rolls} rolls verified by audit")
    typer.echo(f"open {out / 'index.html'}")


@app.command()
def ingest(
    dir: Annotated[Optional[Path], typer.Option("--dir", help="A folder of turn files (FILE.txt with FILE.txt.sig or inline signatures).")] = None,
    maildir: Annotated[Optional[Path], typer.Option("--maildir", help="A Maildir of player mail.")] = None,
    mbox: Annotated[Optional[Path], typer.Option("--mbox", help="An mbox file of player mail.")] = None,
    outbox: Annotated[Optional[Path], typer.Option("--outbox", help="Maildir to write a copy of each receipt and refusal to.")] = None,
    sender: Annotated[str, typer.Option("--sender", help="The referee's address (From of receipts).")] = "referee@pbem.invalid",
    smtp: Annotated[Optional[str], typer.Option("--smtp", help="HOST:PORT: deliver the outbox (receipts, refusals, reports) through it.")] = None,
    starttls: Annotated[bool, typer.Option("--starttls", help="Upgrade the SMTP connection with STARTTLS.")] = False,
    ssl_on: Annotated[bool, typer.Option("--ssl", help="SMTP over TLS from the start (SMTPS, port 465).")] = False,
    smtp_user: Annotated[Optional[str], typer.Option("--smtp-user", help="SMTP login user (password from --smtp-password-file or $PBEM_SMTP_PASSWORD).")] = None,
    smtp_password_file: Annotated[Optional[Path], typer.Option("--smtp-password-file", help="File whose first line is the SMTP password.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
) -> None:
    """Batch submit every turn file or message found; each refusal recorded with its reason, each reply queued in the outbox."""
    from pbem import referee
    from pbem.mail import room as mailroom
    from pbem.mail.readers import IngestError
    from pbem.progress import BatchProgress, ingest_table, stderr_console

    if sum(x is not None for x in (dir, maildir, mbox)) != 1:
        typer.echo("pbem: give exactly one of --dir, --maildir, --mbox", err=True)
        raise typer.Exit(2)
    server = _smtp_server(smtp, starttls, ssl_on, smtp_user, smtp_password_file)
    with refusals():
        try:
            db = engine()
            with BatchProgress("ingest") as bar:
                summary = mailroom.run_ingest(db, directory=dir, maildir=maildir, mbox=mbox, outbox=outbox, sender=sender, progress=bar if not quiet else None)
        except IngestError as exc:
            fail(str(exc))
        if server is not None:
            try:
                referee.deliver(db, referee.Options(smtp=server, sender=sender), store.utcnow(), lambda line: typer.echo(line, err=True))
            except referee.PassError as exc:
                fail(str(exc))
    if not quiet:
        stderr_console().print(ingest_table(summary))
    for o in summary.outcomes:
        first = o.lines[0].splitlines()[0] if o.lines else ""
        typer.echo(f"{o.verdict.value}: {o.source}: {first}")
    typer.echo(f"{summary.accepted} accepted, {summary.refused} refused, {summary.checked} checked, {summary.skipped} skipped")
    if summary.refused and not summary.accepted and not summary.checked:
        raise typer.Exit(1)  # everything that came in was refused (each refusal is recorded and listed above)


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        typer.echo(f"pbem: --smtp must be HOST:PORT, got {value!r}", err=True)
        raise typer.Exit(2)
    return host, int(port)


@app.command()
def send(
    game: Annotated[str, typer.Argument()],
    smtp: Annotated[str, typer.Option("--smtp", help="HOST:PORT of the SMTP server.")],
    sender: Annotated[str, typer.Option("--sender", help="The referee's address.")],
    turn: Annotated[Optional[int], typer.Option("--turn", help="Resolution k (default: the latest).")] = None,
    starttls: Annotated[bool, typer.Option("--starttls", help="Upgrade the connection with STARTTLS.")] = False,
    user: Annotated[Optional[str], typer.Option("--user", help="SMTP AUTH user (password from $PBEM_SMTP_PASSWORD).", envvar="PBEM_SMTP_USER")] = None,
) -> None:
    """Email each side its report."""
    import os

    from pbem.mail import room as mailroom

    host, port = _host_port(smtp)
    with refusals():
        sent = mailroom.send_reports(engine(), game, turn, host, port, sender, starttls, user, os.environ.get("PBEM_SMTP_PASSWORD"))
    for message in sent:
        typer.echo(f"sent to {message['To']}: {message['Subject']}")


# --- issue 12: the referee as a service (tick, serve, outbox, games, player, game set) ---


def _smtp_server(smtp: str | None, starttls: bool, ssl_on: bool, user: str | None, password_file: Path | None) -> Any:
    """The SMTP server of ``--smtp HOST:PORT`` (password from a file or $PBEM_SMTP_PASSWORD)."""
    from pbem.mail import smtp as smtp_mail

    if smtp is None:
        if user or password_file:
            typer.echo("pbem: --smtp-user and --smtp-password-file need --smtp HOST:PORT", err=True)
            raise typer.Exit(2)
        return None
    if starttls and ssl_on:
        typer.echo("pbem: give --starttls or --ssl, not both", err=True)
        raise typer.Exit(2)
    host, port = _host_port(smtp)
    password = None
    if user is not None:
        try:
            password = smtp_mail.read_password(password_file, smtp_mail.PASSWORD_ENV)
        except smtp_mail.SendError as exc:
            fail(str(exc))
        if password is None:
            fail(f"no SMTP password for {user!r}: give --smtp-password-file FILE or set ${smtp_mail.PASSWORD_ENV}")
    security = "ssl" if ssl_on else "starttls" if starttls else "plain"
    loopback = host in ("127.0.0.1", "::1", "localhost")
    return smtp_mail.SmtpServer(host, port, security, user, password, allow_plain_auth=loopback)


def _referee_options(
    dir: Optional[Path], maildir: Optional[Path], mbox: Optional[Path], imap: Optional[str], imap_password_file: Optional[Path],
    smtp: Optional[str], sender: str, starttls: bool, ssl_on: bool, smtp_user: Optional[str], smtp_password_file: Optional[Path],
    backoff: float, jobs: int,
) -> Any:
    from pbem import referee
    from pbem.mail import imap as imap_mail

    if jobs < 1:
        typer.echo("pbem: --jobs must be 1 or more", err=True)
        raise typer.Exit(2)
    source = None
    if imap is not None:
        try:
            source = imap_mail.parse_url(imap, imap_mail.read_password(imap_password_file))
        except imap_mail.ImapError as exc:
            fail(str(exc))
    elif imap_password_file is not None:
        typer.echo("pbem: --imap-password-file needs --imap URL", err=True)
        raise typer.Exit(2)
    server = _smtp_server(smtp, starttls, ssl_on, smtp_user, smtp_password_file)
    for path, what in ((dir, "--dir"), (maildir, "--maildir"), (mbox, "--mbox")):
        if path is not None and not path.exists():
            fail(f"{what} {path}: no such file or folder")
    return referee.Options(dir, maildir, mbox, source, server, sender, backoff, jobs, _state["db"])


_DIR = typer.Option("--dir", help="A folder of turn files.")
_MAILDIR = typer.Option("--maildir", help="A Maildir of player mail.")
_MBOX = typer.Option("--mbox", help="An mbox file of player mail.")
_IMAP = typer.Option("--imap", help="imaps://USER@HOST[:PORT]/MAILBOX (or imap:// with STARTTLS); never with a password.")
_IMAP_PW = typer.Option("--imap-password-file", help="File whose first line is the IMAP password (else $PBEM_IMAP_PASSWORD).")
_SMTP = typer.Option("--smtp", help="HOST:PORT to deliver the outbox through.")
_SENDER = typer.Option("--sender", help="The referee's address (From of every message).")
_STARTTLS = typer.Option("--starttls", help="Upgrade the SMTP connection with STARTTLS.")
_SSL = typer.Option("--ssl", help="SMTP over TLS from the start (SMTPS, port 465).")
_SMTP_USER = typer.Option("--smtp-user", help="SMTP login user (password from --smtp-password-file or $PBEM_SMTP_PASSWORD).")
_SMTP_PW = typer.Option("--smtp-password-file", help="File whose first line is the SMTP password.")
_BACKOFF = typer.Option("--backoff", help="Seconds before the first retry of a deferred message (doubling, at most an hour).")


def _log_line(line: str) -> None:
    typer.echo(f"{store.utcnow():%Y-%m-%d %H:%M:%S} {line}")


@app.command()
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
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes for the resolution step.")] = 1,
) -> None:
    """One pass: intake, deadlines and reminders, resolution, delivery of the outbox (exit 0 even when deliveries stay queued)."""
    from pbem import referee

    options = _referee_options(dir, maildir, mbox, imap, imap_password_file, smtp, sender, starttls, ssl_on, smtp_user, smtp_password_file, backoff, jobs)
    with refusals():
        try:
            report = referee.tick(engine(), options, _log_line)
        except referee.PassError as exc:
            fail(str(exc))
    made = sum(1 for o in report.resolutions if o.resolved is not None)
    d = report.delivery
    sent = f", {len(d.sent)} sent, {len(d.deferred)} deferred, {len(d.failed)} failed" if d else ""
    typer.echo(f"pass done: {report.messages} message(s) judged, {report.notices} notice(s), {made} resolution(s){sent}")


@app.command()
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
    every: Annotated[float, typer.Option("--every", help="Seconds from the start of one pass to the next.")] = 60.0,
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes for the resolution step.")] = 1,
) -> None:
    """Passes (as pbem tick) every --every seconds until SIGTERM or SIGINT, finishing the current step."""
    from pbem import referee

    if every <= 0:
        typer.echo("pbem: --every must be more than 0 seconds", err=True)
        raise typer.Exit(2)
    options = _referee_options(dir, maildir, mbox, imap, imap_password_file, smtp, sender, starttls, ssl_on, smtp_user, smtp_password_file, backoff, jobs)
    with refusals():
        try:
            referee.serve(engine(), options, every, _log_line)
        except referee.PassError as exc:
            fail(str(exc))


outbox_app = typer.Typer(help="What the referee owes and has sent.", no_args_is_help=False)
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
        rows = owed.rows(engine())
    if as_json:
        typer.echo(json.dumps([r.to_json() for r in rows], indent=1, ensure_ascii=False))
        return
    for r in rows:
        error = f"  [{r.last_error}]" if r.last_error else ""
        typer.echo(f"{r.id:>5} {r.state:<7} {r.attempts:>2}x {r.kind:<9} {r.to:<30} {r.subject}{error}")
    counts = {state: sum(1 for r in rows if r.state == state) for state in (owed.PENDING, owed.SENT, owed.FAILED)}
    typer.echo(f"{len(rows)} message(s): {counts[owed.PENDING]} pending, {counts[owed.SENT]} sent, {counts[owed.FAILED]} failed")


@outbox_app.command("retry")
def outbox_retry(row: Annotated[Optional[int], typer.Argument(help="The row to re-arm (default: every failed row).")] = None) -> None:
    """Re-arm failed rows (pending again, due now); pending rows are made due now too."""
    from pbem.mail import outbox as owed

    with refusals():
        changed = owed.retry(engine(), row)
    typer.echo(f"{changed} message(s) re-armed")


@app.command()
def games(as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """Every game: ruleset, resolution, whose file is awaited, deadline, last activity, outcome."""
    from pbem import games as listing

    with refusals():
        lines = listing.list_games(engine())
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


@app.command()
def player(
    game: Annotated[str, typer.Argument()],
    side: Annotated[str, typer.Argument()],
    email: Annotated[Optional[str], typer.Option("--email", help="The side's new address.")] = None,
    key: Annotated[Optional[Path], typer.Option("--key", help="The side's new public key file.")] = None,
) -> None:
    """Change a player's address or key; recorded in the archive, both sides told."""
    from pbem import players

    with refusals():
        line = _read(key).decode("utf-8", "replace").strip() if key is not None else None
        change = players.change_player(engine(), game, side, email, line)
    typer.echo(f"{game} {side}: {'; '.join(change.what)} (from resolution {change.from_k}); both sides notified")


game_app = typer.Typer(help="Change a game's settings.", no_args_is_help=True)
app.add_typer(game_app, name="game")


@game_app.command("set")
def game_set(
    game: Annotated[str, typer.Argument()],
    settings: Annotated[list[str], typer.Argument(help="KEY=VALUE: deadline=48h, grace=12h, remind=6h, wait=yes (deadline=none removes it).")],
) -> None:
    """Change a game's deadline, grace, reminder or wait."""
    from pbem import deadlines

    pairs: dict[str, str] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            typer.echo(f"pbem: a setting is KEY=VALUE, got {item!r}", err=True)
            raise typer.Exit(2)
        pairs[key.strip()] = value.strip()
    with refusals():
        clock = deadlines.set_clock(engine(), game, pairs)
    typer.echo(f"{game}: {clock.describe()}")


# --- issue 15: the game's site ---------------------------------------------------------


@app.command()
def site(
    game: Annotated[str, typer.Argument()],
    output: Annotated[Path, typer.Option("-o", "--output", help="The folder to write (created if needed).")],
    site_url: Annotated[Optional[str], typer.Option("--site-url", help="Where the folder is published (http/https); recorded with the game, mailed reports link to it.")] = None,
) -> None:
    """Write the game's site: index, every report, audit page, dice, archive; every link resolves."""
    from pbem import site as game_site

    try:
        with refusals():
            written = game_site.write_site(engine(), game, output, site_url)
    except game_site.SiteError as exc:
        fail(str(exc))
    typer.echo(f"wrote {len(written.files)} files to {written.folder}" + (f"; reports now link to {written.site_url}" if written.site_url else ""))


def main() -> None:
    app()


if __name__ == "__main__":
    main()


# --- issue 17: house tables ----------------------------------------------------


def _ruleset_or_usage(rules: str, scenario: str | None) -> Any:
    from rules import find_ruleset

    try:
        ruleset = find_ruleset(rules)
        ruleset.scenario(scenario)
    except ValueError as exc:
        typer.echo(f"pbem: {exc}", err=True)
        raise typer.Exit(2) from None
    return ruleset


@app.command("tables")
def tables_command(
    rules: Annotated[str, typer.Argument(help="Ruleset: farrapos or furor-barbarus.")],
    scenario: Annotated[Optional[str], typer.Option("--scenario", help="Scenario id (tables may differ by scenario).")] = None,
) -> None:
    """List the tables a game may replace: name, printed or designed, where documented."""
    ruleset = _ruleset_or_usage(rules, scenario)
    infos = ruleset.tables(scenario)
    if not infos:
        typer.echo(f"{rules}: no replaceable tables")
        return
    for info in infos:
        typer.echo(f"{info.name}\t{info.status}\t{info.documented}")


@app.command("table")
def table_command(
    rules: Annotated[str, typer.Argument(help="Ruleset: farrapos or furor-barbarus.")],
    name: Annotated[str, typer.Argument(help="Table name (see 'pbem tables RULES').")],
    scenario: Annotated[Optional[str], typer.Option("--scenario", help="Scenario id (tables may differ by scenario).")] = None,
) -> None:
    """Print one shipped table as TOML, in the form 'pbem new ... --table NAME=FILE' takes."""
    from pbem import house_tables
    from rules.base import TableError

    ruleset = _ruleset_or_usage(rules, scenario)
    try:
        scenario_id = ruleset.scenario(scenario).id
        sys.stdout.write(house_tables.to_toml(ruleset, name, ruleset.shipped_table(name, scenario_id), scenario_id))
    except TableError as exc:
        fail(str(exc))
