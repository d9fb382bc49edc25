"""The ``pbem`` command line: thin.  Each command parses its arguments, calls one
library function, prints, and turns domain errors into one line per problem on
stderr with exit status 1 (usage errors exit 2, from Typer).

Start-up is part of every command's cost (a player runs ``orders``, ``check`` and
``sign`` several times a turn; a referee's cron runs a command a minute), so this
module imports only Typer: each command imports what it uses when it runs.  A
command that needs no database never imports SQLAlchemy, SQLModel or the report
stack, and the hot commands open an SQLite file without SQLAlchemy
(``store.open_database``).  tests/test_startup.py checks the imports of every
registered command.  (No ``from __future__ import annotations`` here: Typer would
``eval`` every parameter's annotation string each time it builds the commands.)
"""

import copy
import json
import sys
from collections.abc import Callable, Container, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer
import typer.core
import typer.main
import typer.models

from pbem import __version__
from pbem.cli_values import conventional_help, convert_plainly

if TYPE_CHECKING:
    import click

    from pbem import pipeline
    from pbem.store import Database

GLOBAL_OPTIONS = ("--db",)
"""Options of ``pbem`` itself that take a value and may also come after the
command (``pbem status g1 --db referee.db``), as in git, ssh-keygen and sqlite-utils."""


def hoist_global_options(args: list[str], commands: Container[str]) -> list[str]:
    """The command line with every global option given after the command moved in
    front of it, so Click reads it as the program's own.

    >>> hoist_global_options(["status", "g1", "--db", "x.db"], {"status"})
    ['--db', 'x.db', 'status', 'g1']
    >>> hoist_global_options(["check", "t.txt", "--db=x.db", "--", "--db"], {"check"})
    ['--db=x.db', 'check', 't.txt', '--', '--db']
    """
    at = command_index(args, commands)
    if at is None:
        return args
    before, after, hoisted = args[: at + 1], [], []
    rest = args[at + 1 :]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == "--":
            after.extend(rest[i:])
            break
        if arg in GLOBAL_OPTIONS and i + 1 < len(rest):
            hoisted.extend(rest[i : i + 2])
            i += 2
            continue
        if arg.split("=", 1)[0] in GLOBAL_OPTIONS and "=" in arg:
            hoisted.append(arg)
        else:
            after.append(arg)
        i += 1
    return before[:-1] + hoisted + before[-1:] + after


def command_index(args: list[str], commands: Container[str]) -> int | None:
    """Where the command is in the command line (after the program's own
    options); None when there is none.

    >>> command_index(["--db", "new", "new", "g1"], {"new"})
    2
    >>> command_index(["--version"], {"new"}) is None
    True
    """
    at = 0
    while at < len(args):
        arg = args[at]
        if arg == "--":
            return None
        if arg in commands:
            return at
        at += 2 if arg in GLOBAL_OPTIONS else 1
    return None


class _Pbem(typer.core.TyperGroup):
    """``pbem``'s group: global options are accepted before or after the command,
    and every parameter's value is converted without pydantic (pbem.cli_values)."""

    def parse_args(self, ctx: "click.Context", args: list[str]) -> list[str]:
        convert_plainly(self.get_params(ctx))
        return super().parse_args(ctx, hoist_global_options(args, self.commands))

    def get_command(self, ctx: "click.Context", cmd_name: str) -> "click.Command | None":
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            convert_plainly(command.get_params(ctx))
            conventional_help(command.params)
        return command


app = typer.Typer(
    name="pbem",
    cls=_Pbem,
    help="A play-by-email referee for board wargames: signed turn files, auditable dice, reports.",
    epilog="Global options (--db) may come before or after the command.  Each command's --help shows an example.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_state: dict[str, Any] = {"db": None}


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"pbem {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    db: Annotated[Optional[str], typer.Option("--db", metavar="PATH|URL", help="Database: a file path or an SQLAlchemy URL (default $PBEM_DB, else ./pbem.db).", envvar="PBEM_DB")] = None,
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print pbem's version and exit.")] = False,
) -> None:
    _state["db"] = db


def example(*lines: str) -> str:
    """A command's epilog: its examples, kept as written (Click's ``\\b``)."""
    return "\b\nExample" + ("s" if len(lines) > 1 else "") + ":\n" + "\n".join(f"  {line}" for line in lines)


def fail(problems: list[str] | str) -> NoReturn:
    for line in [problems] if isinstance(problems, str) else problems:
        typer.echo(f"pbem: {line}", err=True)
    raise typer.Exit(1)


DOMAIN_ERRORS = (("pbem.store", "StoreError"), ("pbem.keys", "KeyFileError"), ("pbem.sshsig", "SignatureError"), ("pbem.paths", "UnsafePath"))
"""Errors whose message is the whole story (module, class): printed as one line.
Looked up only in modules already imported: an error of a module the command
never imported cannot have been raised, and importing it to check would cost
the start-up this module saves."""


@contextmanager
def refusals() -> Iterator[None]:
    """Domain errors become one line per problem and exit 1."""
    try:
        yield
    except typer.Exit:
        raise
    except Exception as exc:
        problems = domain_problems(exc)
        if problems is None:
            raise
        fail(problems)


def domain_problems(exc: BaseException) -> list[str] | None:
    """The lines to print for a domain error; ``None`` for anything else."""
    pipeline = sys.modules.get("pbem.pipeline")
    if pipeline is not None and isinstance(exc, pipeline.Refused):
        return list(exc.problems)
    known = tuple(getattr(sys.modules[module], name) for module, name in DOMAIN_ERRORS if module in sys.modules)
    if isinstance(exc, (LookupError, *known)):
        return [str(exc).strip("'\"")]
    if isinstance(exc, OSError):
        return [f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")]
    return None


def database() -> "Database":
    """The store for the commands that need only plain SQL: an SQLite file is
    opened without SQLAlchemy."""
    from pbem import store

    return store.open_database(_state["db"])


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


@app.command(epilog=example("pbem keygen alice --dir keys"))
def keygen(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Key name: writes NAME (private, mode 0600) and NAME.pub.")],
    dir: Annotated[Path, typer.Option("--dir", metavar="DIR", help="Folder for the key files (default: here).")] = Path("."),
) -> None:
    """Make a new Ed25519 key pair in OpenSSH format."""
    from pbem import keys

    with refusals():
        private, public = keys.generate_ed25519(name, dir)
        pub = keys.PublicKey.from_file(public)
    typer.echo(f"private key: {private}\npublic key:  {public}\nfingerprint: {pub.fingerprint()}")


@app.command(epilog=example("pbem new g1 --rules farrapos --player republic=alice.pub --player empire=bob.pub"))
def new(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id: 1-64 letters, digits, '-', '_' or '.', not starting with '.' or '-'.")],
    rules: Annotated[str, typer.Option("--rules", metavar="RULES", help="Ruleset: farrapos or furor-barbarus.")],
    player: Annotated[list[str], typer.Option("--player", metavar="SIDE=PUBKEY_FILE", help="A side's public key file, once per side.")],
    scenario: Annotated[Optional[str], typer.Option("--scenario", metavar="SCENARIO", help="Scenario id (see docs/rules/).")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", metavar="NAME", help="Optional rule to switch on (repeatable).")] = None,
    email: Annotated[Optional[list[str]], typer.Option("--email", metavar="SIDE=ADDRESS", help="A side's mail address (repeatable).")] = None,
    chain_length: Annotated[int, typer.Option("--chain-length", metavar="N", help="Length N of the dice hash chain.")] = 4096,
    deadline: Annotated[Optional[str], typer.Option("--deadline", metavar="DUR", help="Time from the last resolution to the next deadline: 90s, 45m, 72h, 3d.")] = None,
    grace: Annotated[Optional[str], typer.Option("--grace", metavar="DUR", help="After the deadline, how long a missing side may still send (then NMR).")] = None,
    remind: Annotated[Optional[str], typer.Option("--remind", metavar="DUR", help="How long before the deadline a late side is reminded.")] = None,
    wait: Annotated[bool, typer.Option("--wait", help="Hold the turn until the deadline even when every file is in.")] = False,
    table: Annotated[Optional[list[str]], typer.Option("--table", metavar="NAME=FILE", help="Play a house table instead of the shipped one (repeatable; see 'pbem tables').")] = None,
) -> None:
    """Create a game and commit its dice; prints the commitment (anchor)."""
    from pbem import deadlines, pipeline, store

    keyfiles = _pairs(player, "--player")
    tables = _pairs(table or [], "--table")
    if len(tables) != len(table or []):
        typer.echo("pbem: --table names each table once", err=True)
        raise typer.Exit(2)
    with refusals():
        clock = deadlines.clock_from_options(deadline, grace, remind, wait)
        keylines = {side: _read(Path(path)).decode("utf-8", "replace").strip() for side, path in keyfiles.items()}
        created = pipeline.new_game(
            store.create_database(_state["db"]), game, rules, scenario, option or [], keylines, _pairs(email or [], "--email"), chain_length, tables, clock=clock
        )
    for warning in pipeline.shared_keys(keylines):
        typer.echo(f"pbem: {warning}", err=True)
    typer.echo(f"game {created.id} created: {created.rules}/{created.scenario}")
    typer.echo(f"dice commitment (anchor, N={created.chain_length}): {created.anchor}")
    typer.echo(f"position: {created.state_hash}")
    if clock is not None:
        typer.echo(f"clock: {clock.describe()}")
    from pbem import house_tables

    played = house_tables.of_position(created.position)
    for name in tables:
        if name in played:
            typer.echo(f"house table: {name} (sha256 {house_tables.digest(played[name])})")
        else:
            typer.echo(f"table {name}: the same as the shipped table (not a house table)")


@app.command(epilog=example("pbem status g1 --json"))
def status(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """The resolution awaited and the game's own time, sides awaited, score, and the result once over."""
    from pbem import dice_chains, pipeline, store

    with refusals():
        st = pipeline.status(database(), game)
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
        typer.echo(f"  game over: {st.result_text}")
    else:
        typer.echo(f"  awaiting: {', '.join(st.awaiting) or 'nobody (ready to process)'}")
        if st.queued:
            typer.echo(f"  queued: {', '.join(st.queued)}")
        if st.dice_left <= dice_chains.NEAR_THE_END:
            left = "used up" if st.dice_left == 0 else f"serve only {st.dice_left} more resolution(s)"
            typer.echo(f"  dice: the committed chains {left}; extend them with 'pbem extend {st.game}'")


@app.command(epilog=example("pbem orders g1 --side republic -o turn.txt"))
def orders(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    side: Annotated[str, typer.Option("--side", metavar="SIDE", help="The side to write orders for.")],
    bot: Annotated[Optional[str], typer.Option("--bot", metavar="NAME", help="Fill with a bot's legal orders (random, greedy).")] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Bot seed.")] = 0,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", metavar="FILE", help="Write here instead of stdout.")] = None,
) -> None:
    """Write the next turn file for a side (template, or a bot's orders)."""
    from pbem import pipeline

    with refusals():
        text = pipeline.next_turn_file(database(), game, side, bot, seed)
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


@app.command(epilog=example("pbem check turn.txt"))
def check(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Turn file.")],
    sig: Annotated[Optional[Path], typer.Option("--sig", metavar="SIGFILE", help="Detached signature (default FILE.sig if present).")] = None,
    position: Annotated[Optional[Path], typer.Option("--position", metavar="POSFILE", help="Check offline against this position file (G-rK.position.json, attached to every report); no database.")] = None,
) -> None:
    """Parse and validate a turn file against the game's current position; stores nothing."""
    from pbem import pipeline, store
    from pbem.turnfile import MAX_TURN_FILE_BYTES

    with refusals():
        data = _read(file, MAX_TURN_FILE_BYTES + 16 * 1024)
        if position is not None:
            from pbem import position_file

            try:
                kept = position_file.load(_read(position), str(position))
            except position_file.PositionFileError as exc:
                fail(str(exc))
            checked = pipeline.check_offline(data, _signature_for(file, sig), kept)
        else:
            try:
                db = database()
            except store.NoDatabase:
                fail(f"no referee's database here: a player checks offline with 'pbem check {file} --position G-rK.position.json' (the position file attached to the latest report)")
            checked = pipeline.check(db, data, _signature_for(file, sig))
    signed = "signature verified" if checked.signature else "not signed (signature not checked)"
    typer.echo(f"{file}: OK: {checked.game_id}, {checked.side}, resolution {checked.turn} - {checked.label}; {len(checked.orders)} order(s); {signed}")


@app.command(epilog=example("pbem sign turn.txt --key ~/.ssh/id_ed25519"))
def sign(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Turn file.")],
    key: Annotated[Path, typer.Option("--key", metavar="KEYFILE", help="OpenSSH private key.")],
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


@app.command(epilog=example("pbem submit turn.txt"))
def submit(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Signed turn file.")],
    sig: Annotated[Optional[Path], typer.Option("--sig", metavar="SIGFILE", help="Detached signature (default FILE.sig).")] = None,
) -> None:
    """Verify and queue a turn file."""
    from pbem import pipeline
    from pbem.turnfile import MAX_TURN_FILE_BYTES

    with refusals():
        db = database()
        data = _read(file, MAX_TURN_FILE_BYTES + 16 * 1024)
        result = pipeline.submit(db, data, _signature_for(file, sig), source=str(file))
    c = result.checked
    extra = f", superseding {result.superseded} earlier file(s)" if result.superseded else ""
    typer.echo(f"queued: {c.game_id}, {c.side}, resolution {c.turn} - {c.label}{extra}")


@app.command(epilog=example("pbem process --all --jobs 2", "pbem process g1 g2 --reports reports"))
def process(
    games: Annotated[Optional[list[str]], typer.Argument(metavar="GAME", help="Games to process (default with --all: every game).")] = None,
    all_games: Annotated[bool, typer.Option("--all", help="Every game not over.")] = False,
    force_nmr: Annotated[bool, typer.Option("--force-nmr", help="Resolve with missing sides taking no action.")] = False,
    reports: Annotated[Optional[Path], typer.Option("--reports", metavar="DIR", help="Also write each side's HTML and text report here.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", metavar="N", min=1, max=256, help="Worker processes that claim ready games (default 1); on SQLite one of them writes at a time.")] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or table.")] = False,
) -> None:
    """Resolve every game whose due sides have all submitted."""
    from pbem import pipeline

    if not games and not all_games:
        typer.echo("pbem: name the games to process, or give --all", err=True)
        raise typer.Exit(2)
    with refusals():
        db = database()
        targets = games if games else pipeline.pending_games(db)
        if jobs > 1:
            from pbem import workers

            outcomes = _with_progress("processing", targets, lambda tick: workers.process(_state["db"], targets, jobs, force_nmr, on_resolved=lambda _o: tick()), quiet)
        else:
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


def _print_outcomes(outcomes: "list[pipeline.ProcessOutcome]", quiet: bool) -> None:
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


def process_summary(outcomes: "list[pipeline.ProcessOutcome]") -> str:
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


def _note(o: "pipeline.ProcessOutcome") -> str:
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


@app.command(epilog=example("pbem dice g1 --stats", "pbem dice --archive g1.json --json"))
def dice(
    game: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Game in the database.")] = None,
    archive_file: Annotated[Optional[Path], typer.Option("--archive", metavar="FILE", help="Read the dice from an exported archive (no database).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output: the anchor and every roll (and --stats).")] = False,
    stats: Annotated[bool, typer.Option("--stats", help="Counts per face and a chi-square figure per die size.")] = False,
) -> None:
    """The dice history: resolution, index, die, value, purpose."""
    from pbem import dice_history, dice_stats

    if (game is None) == (archive_file is None):
        typer.echo("pbem: give a GAME or --archive FILE", err=True)
        raise typer.Exit(2)
    with refusals():
        if archive_file is not None:
            from pbem import archive

            try:
                found = dice_history.from_archive(archive.load(archive_file))
            except ValueError as exc:
                fail(str(exc))
        else:
            found = dice_history.from_store(database(), game or "")
    game = found.game
    history = found.rolls
    rows = history
    summary = None
    if stats:
        summary = {
            str(sides): {"faces": {str(f): c for f, c in sorted(counts.items())}, "chi_square": dice_stats.chi_square(rows)[sides]}
            for sides, counts in sorted(dice_stats.face_counts(rows).items())
        }
    if as_json:
        typer.echo(json.dumps({"game": game, "anchor": found.anchor, "rolls": history, **({"stats": summary} if stats else {})}, indent=1, ensure_ascii=False))
        return
    typer.echo(f"dice of {game} (anchor {found.anchor}): {len(history)} roll(s)")
    for h in history:
        mark = "  [set aside]" if h["set_aside"] else ""
        typer.echo(f"  k={h['resolution']:<4} #{h['index']:<3} d{h['sides']:<3} = {h['value']:<3}  {h['purpose']}{mark}")
    if summary:
        for sides, s in summary.items():
            stat, dof, p = s["chi_square"]
            faces = " ".join(f"{f}:{c}" for f, c in s["faces"].items())
            typer.echo(f"  d{sides}: {faces}   chi-square {stat:.2f} (df {dof}, p = {p:.3f})")


@app.command(epilog=example("pbem export g1 -o g1.json"))
def export(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    output: Annotated[Path, typer.Option("-o", "--output", metavar="FILE", help="Archive file to write.")],
) -> None:
    """Write the game archive (pbem-archive/1 JSON)."""
    from pbem import archive

    with refusals():
        data = archive.export(database(), game, output)
    typer.echo(f"wrote {output}: {len(data['resolutions'])} resolution(s), anchor {data['dice']['anchor']}")


@app.command(epilog=example("pbem audit --archive g1.json", "pbem audit g1"))
def audit(
    game: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Game in the database.")] = None,
    archive_file: Annotated[Optional[Path], typer.Option("--archive", metavar="FILE", help="Audit an exported archive (no database).")] = None,
) -> None:
    """Re-verify signatures, headers, the dice chain, every roll and every position."""
    from pbem import archive, audit as auditing

    if (game is None) == (archive_file is None):
        typer.echo("pbem: give a GAME or --archive FILE", err=True)
        raise typer.Exit(2)
    with refusals():
        try:
            data = archive.load(archive_file) if archive_file else archive.build_archive(database(), game or "")
            summary = auditing.audit_archive(data)
        except (auditing.AuditFailure, ValueError) as exc:
            fail(f"audit failed: {exc}")
    for line in summary.lines():
        typer.echo(line)


@app.command(epilog=example("pbem extend g1 --chain-length 4096"))
def extend(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    chain_length: Annotated[int, typer.Option("--chain-length", metavar="N", help="Length N of the new chain (it serves N-1 more resolutions).")] = 4096,
) -> None:
    """Commit a new dice chain that takes over where the game's chain ends; prints its anchor."""
    from pbem import pipeline

    with refusals():
        chain = pipeline.extend_dice(database(), game, chain_length)
    last = chain.first_k + chain.chain_length - 2
    typer.echo(f"{game}: dice extended for resolutions {chain.first_k}-{last}")
    typer.echo(f"dice commitment (anchor, N={chain.chain_length}, from resolution {chain.first_k}): {chain.anchor}")


@app.command(epilog=example("pbem rollback g1 --to 3"))
def rollback(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    to: Annotated[int, typer.Option("--to", metavar="K", help="Keep resolutions up to K; set aside the rest.")],
) -> None:
    """Set aside the resolutions after K (kept, and shown by export and audit)."""
    from pbem import pipeline

    with refusals():
        db = database()
        record = pipeline.rollback(db, game, to)
        st = pipeline.status(db, game)
    typer.echo(f"{game}: rolled back to resolution {to}; set aside {', '.join(map(str, record.discarded))}")
    typer.echo(f"{game}: now awaits resolution {st.turn} - {st.label}; `pbem send {game} ...` tells both sides (the report of resolution {to}, announcing the rollback)")


@app.command(epilog=example("pbem case tests/cases/farrapos"))
def case(files: Annotated[list[Path], typer.Argument(metavar="FILE", help="Rule case TOML files or folders.")]) -> None:
    """Run rule cases; exit 0 only if all pass."""
    from pbem.cases import run_cases

    results = run_cases(files)
    for r in results:
        typer.echo(r.summary())
    failed = sum(not r.passed for r in results)
    typer.echo(f"{len(results) - failed} passed, {failed} failed")
    if failed or not results:
        raise typer.Exit(1)


@app.command(epilog=example("pbem report g1 --side republic --format html -o report.html"))
def report(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    output: Annotated[Path, typer.Option("-o", "--output", metavar="FILE", help="File to write.")],
    turn: Annotated[Optional[int], typer.Option("--turn", metavar="K", help="Resolution k (default: the latest; 0: the game as created).")] = None,
    side: Annotated[Optional[str], typer.Option("--side", metavar="SIDE", help="The side's view (default: the referee's).")] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="html, text, eml, or audit (the whole game's audit page).")] = "html",
) -> None:
    """Write one report (or the game's audit page)."""
    from pbem import reporting

    if fmt not in ("html", "text", "eml", "audit"):
        typer.echo(f"pbem: --format must be html, text, eml or audit, not {fmt!r}", err=True)
        raise typer.Exit(2)
    with refusals():
        content = reporting.render(database(), game, turn, side, fmt)
        if isinstance(content, bytes):
            output.write_bytes(content)
        else:
            output.write_text(content, encoding="utf-8")
    typer.echo(f"wrote {output}")


@app.command(epilog=example("pbem demo --rules farrapos --out demo"))
def demo(
    rules: Annotated[Optional[str], typer.Option("--rules", metavar="RULES", help="Only this ruleset.")] = None,
    scenario: Annotated[Optional[str], typer.Option("--scenario", metavar="SCENARIO", help="Only this scenario.")] = None,
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Output folder.")] = Path("demo"),
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Bot seed.")] = 1,
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
    from pbem.rules import find_ruleset

    for r in results:
        outcome = find_ruleset(r.rules).outcome_text(r.result) if r.result else "not over"
        typer.echo(f"{r.game_id}: {outcome}; {r.resolutions} resolutions, {r.files} signed turn files, {r.rolls} rolls verified by audit")
    typer.echo(f"open {out / 'index.html'}")


@app.command(epilog=example("pbem ingest --maildir ~/Maildir --outbox outbox"))
def ingest(
    dir: Annotated[Optional[Path], typer.Option("--dir", metavar="DIR", help="A folder of turn files (FILE.txt with FILE.txt.sig or inline signatures).")] = None,
    maildir: Annotated[Optional[Path], typer.Option("--maildir", metavar="MAILDIR", help="A Maildir of player mail.")] = None,
    mbox: Annotated[Optional[Path], typer.Option("--mbox", metavar="FILE", help="An mbox file of player mail.")] = None,
    outbox: Annotated[Optional[Path], typer.Option("--outbox", metavar="MAILDIR", help="Maildir to write a copy of each receipt and refusal to.")] = None,
    sender: Annotated[str, typer.Option("--sender", metavar="ADDRESS", help="The referee's address (From of receipts).")] = "referee@pbem.invalid",
    smtp: Annotated[Optional[str], typer.Option("--smtp", metavar="HOST:PORT", help="Deliver the outbox (receipts, refusals, reports) through this SMTP server.")] = None,
    starttls: Annotated[bool, typer.Option("--starttls", help="Upgrade the SMTP connection with STARTTLS.")] = False,
    ssl_on: Annotated[bool, typer.Option("--ssl", help="SMTP over TLS from the start (SMTPS, port 465).")] = False,
    smtp_user: Annotated[Optional[str], typer.Option("--smtp-user", metavar="USER", help="SMTP login user (password from --smtp-password-file or $PBEM_SMTP_PASSWORD).")] = None,
    smtp_password_file: Annotated[Optional[Path], typer.Option("--smtp-password-file", metavar="FILE", help="File whose first line is the SMTP password.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no table; one line per message.")] = False,
) -> None:
    """Batch submit every turn file or message found; each refusal recorded with its reason, each reply queued in the outbox."""
    from pbem import referee, store
    from pbem.mail import room as mailroom
    from pbem.mail.readers import IngestError
    from pbem.progress import BatchProgress, ingest_table, stderr_console

    if sum(x is not None for x in (dir, maildir, mbox)) != 1:
        typer.echo("pbem: give exactly one of --dir, --maildir, --mbox", err=True)
        raise typer.Exit(2)
    server = _smtp_server(smtp, starttls, ssl_on, smtp_user, smtp_password_file)
    with refusals():
        try:
            db = database()
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


@app.command(epilog=example("pbem send g1 --smtp mail.example.org:587 --starttls --sender referee@example.org"))
def send(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    smtp: Annotated[str, typer.Option("--smtp", metavar="HOST:PORT", help="The SMTP server.")],
    sender: Annotated[str, typer.Option("--sender", metavar="ADDRESS", help="The referee's address.")],
    turn: Annotated[Optional[int], typer.Option("--turn", metavar="K", help="Resolution k (default: the latest).")] = None,
    starttls: Annotated[bool, typer.Option("--starttls", help="Upgrade the connection with STARTTLS.")] = False,
    user: Annotated[Optional[str], typer.Option("--user", metavar="USER", help="SMTP AUTH user (password from $PBEM_SMTP_PASSWORD).", envvar="PBEM_SMTP_USER")] = None,
) -> None:
    """Email each side its report."""
    import os

    from pbem.mail import room as mailroom

    host, port = _host_port(smtp)
    with refusals():
        sent = mailroom.send_reports(database(), game, turn, host, port, sender, starttls, user, os.environ.get("PBEM_SMTP_PASSWORD"))
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


_DIR = typer.Option("--dir", metavar="DIR", help="A folder of turn files.")
_MAILDIR = typer.Option("--maildir", metavar="MAILDIR", help="A Maildir of player mail.")
_MBOX = typer.Option("--mbox", metavar="FILE", help="An mbox file of player mail.")
_IMAP = typer.Option("--imap", metavar="URL", help="imaps://USER@HOST[:PORT]/MAILBOX (or imap:// with STARTTLS); never with a password.")
_IMAP_PW = typer.Option("--imap-password-file", metavar="FILE", help="File whose first line is the IMAP password (else $PBEM_IMAP_PASSWORD).")
_SMTP = typer.Option("--smtp", metavar="HOST:PORT", help="The SMTP server to deliver the outbox through.")
_SENDER = typer.Option("--sender", metavar="ADDRESS", help="The referee's address (From of every message).")
_STARTTLS = typer.Option("--starttls", help="Upgrade the SMTP connection with STARTTLS.")
_SSL = typer.Option("--ssl", help="SMTP over TLS from the start (SMTPS, port 465).")
_SMTP_USER = typer.Option("--smtp-user", metavar="USER", help="SMTP login user (password from --smtp-password-file or $PBEM_SMTP_PASSWORD).")
_SMTP_PW = typer.Option("--smtp-password-file", metavar="FILE", help="File whose first line is the SMTP password.")
_BACKOFF = typer.Option("--backoff", metavar="SECONDS", help="Seconds before the first retry of a deferred message (doubling, at most an hour).")


def _log_line(line: str) -> None:
    from pbem import store

    typer.echo(f"{store.utcnow():%Y-%m-%d %H:%M:%S} {line}")


@app.command(epilog=example("pbem tick --maildir ~/Maildir --smtp mail.example.org:587 --starttls --sender referee@example.org"))
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
) -> None:
    """One pass: intake, deadlines and reminders, resolution, delivery of the outbox (exit 0 even when deliveries stay queued)."""
    from pbem import referee

    options = _referee_options(dir, maildir, mbox, imap, imap_password_file, smtp, sender, starttls, ssl_on, smtp_user, smtp_password_file, backoff, jobs)
    with refusals():
        try:
            report = referee.tick(database(), options, _log_line)
        except referee.PassError as exc:
            fail(str(exc))
    made = sum(1 for o in report.resolutions if o.resolved is not None)
    d = report.delivery
    sent = f", {len(d.sent)} sent, {len(d.deferred)} deferred, {len(d.failed)} failed" if d else ""
    typer.echo(f"pass done: {report.messages} message(s) judged, {report.notices} notice(s), {made} resolution(s){sent}")


@app.command(epilog=example("pbem serve --imap imaps://referee@mail.example.org/INBOX --smtp mail.example.org:465 --ssl --every 60 --jobs 2"))
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
    every: Annotated[float, typer.Option("--every", metavar="SECONDS", help="Seconds from the start of one pass to the next.")] = 60.0,
    jobs: Annotated[int, typer.Option("--jobs", metavar="N", help="Worker processes for the resolution step.")] = 1,
) -> None:
    """Passes (as pbem tick) every --every seconds until SIGTERM or SIGINT, finishing the current step."""
    from pbem import referee

    if every <= 0:
        typer.echo("pbem: --every must be more than 0 seconds", err=True)
        raise typer.Exit(2)
    options = _referee_options(dir, maildir, mbox, imap, imap_password_file, smtp, sender, starttls, ssl_on, smtp_user, smtp_password_file, backoff, jobs)
    with refusals():
        try:
            referee.serve(database(), options, every, _log_line)
        except referee.PassError as exc:
            fail(str(exc))


outbox_app = typer.Typer(cls=_Pbem, help="What the referee owes and has sent.", no_args_is_help=False, epilog=example("pbem outbox --json", "pbem outbox retry 12"))
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
    typer.echo(f"{len(rows)} message(s): {counts[owed.PENDING]} pending, {counts[owed.SENT]} sent, {counts[owed.FAILED]} failed")


@outbox_app.command("retry", epilog=example("pbem outbox retry 12"))
def outbox_retry(row: Annotated[Optional[int], typer.Argument(metavar="ID", help="The row to re-arm (default: every failed row).")] = None) -> None:
    """Re-arm failed rows (pending again, due now); pending rows are made due now too."""
    from pbem.mail import outbox as owed

    with refusals():
        changed = owed.retry(database(), row)
    typer.echo(f"{changed} message(s) re-armed")


@app.command(epilog=example("pbem games --json"))
def games(as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """Every game: ruleset, resolution, whose file is awaited, deadline, last activity, outcome."""
    from pbem import games as listing

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
    key: Annotated[Optional[Path], typer.Option("--key", metavar="PUBKEY_FILE", help="The side's new public key file.")] = None,
) -> None:
    """Change a player's address or key; recorded in the archive, both sides told."""
    from pbem import players

    with refusals():
        line = _read(key).decode("utf-8", "replace").strip() if key is not None else None
        change = players.change_player(database(), game, side, email, line)
    typer.echo(f"{game} {side}: {'; '.join(change.what)} (from resolution {change.from_k}); both sides notified")


game_app = typer.Typer(cls=_Pbem, help="Change a game's settings.", no_args_is_help=True, epilog=example("pbem game set g1 deadline=48h grace=12h"))
app.add_typer(game_app, name="game")


@game_app.command("set", epilog=example("pbem game set g1 deadline=48h grace=12h"))
def game_set(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    settings: Annotated[list[str], typer.Argument(metavar="KEY=VALUE", help="KEY=VALUE: deadline=48h, grace=12h, remind=6h, wait=yes (deadline=none removes it).")],
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
        clock = deadlines.set_clock(database(), game, pairs)
    typer.echo(f"{game}: {clock.describe()}")


# --- issue 15: the game's site ---------------------------------------------------------


@app.command(epilog=example("pbem site g1 -o site/g1 --site-url https://example.org/pbem/g1"))
def site(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    output: Annotated[Path, typer.Option("-o", "--output", metavar="DIR", help="The folder to write (created if needed).")],
    site_url: Annotated[Optional[str], typer.Option("--site-url", metavar="URL", help="Where the folder is published (http/https); recorded with the game, mailed reports link to it.")] = None,
) -> None:
    """Write the game's site: index, every report, audit page, dice, archive; every link resolves."""
    from pbem import site as game_site

    try:
        with refusals():
            written = game_site.write_site(database(), game, output, site_url)
    except game_site.SiteError as exc:
        fail(str(exc))
    typer.echo(f"wrote {len(written.files)} files to {written.folder}" + (f"; reports now link to {written.site_url}" if written.site_url else ""))


# --- issue 17: house tables ----------------------------------------------------


def _ruleset_or_usage(rules: str, scenario: str | None) -> Any:
    from pbem.rules import find_ruleset

    try:
        ruleset = find_ruleset(rules)
        ruleset.scenario(scenario)
    except ValueError as exc:
        typer.echo(f"pbem: {exc}", err=True)
        raise typer.Exit(2) from None
    return ruleset


@app.command("tables", epilog=example("pbem tables furor-barbarus --scenario soissons"))
def tables_command(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Ruleset: farrapos or furor-barbarus.")],
    scenario: Annotated[Optional[str], typer.Option("--scenario", metavar="SCENARIO", help="Scenario id (tables may differ by scenario).")] = None,
) -> None:
    """List the tables a game may replace: name, printed or designed, where documented."""
    ruleset = _ruleset_or_usage(rules, scenario)
    infos = ruleset.tables(scenario)
    if not infos:
        typer.echo(f"{rules}: no replaceable tables")
        return
    for info in infos:
        typer.echo(f"{info.name}\t{info.status}\t{info.documented}")


@app.command("table", epilog=example("pbem table farrapos battle-table > my-table.toml"))
def table_command(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Ruleset: farrapos or furor-barbarus.")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="Table name (see 'pbem tables RULES').")],
    scenario: Annotated[Optional[str], typer.Option("--scenario", metavar="SCENARIO", help="Scenario id (tables may differ by scenario).")] = None,
) -> None:
    """Print one shipped table as TOML, in the form 'pbem new ... --table NAME=FILE' takes."""
    from pbem import house_tables
    from pbem.rules.base import TableError

    ruleset = _ruleset_or_usage(rules, scenario)
    try:
        scenario_id = ruleset.scenario(scenario).id
        sys.stdout.write(house_tables.to_toml(ruleset, name, ruleset.shipped_table(name, scenario_id), scenario_id))
    except TableError as exc:
        fail(str(exc))


def _name(command: "typer.models.CommandInfo | typer.models.TyperInfo") -> str | None:
    if isinstance(command, typer.models.TyperInfo) or command.name:
        return command.name  # type: ignore[return-value]
    return typer.main.get_command_name(command.callback.__name__) if command.callback else None


def app_for(args: list[str]) -> typer.Typer:
    """The application that runs ``pbem ARGS``: when they name a command, one with
    that command alone.  Typer builds every registered command (its signature,
    help and parameters) before it runs one, about a fifth of ``pbem sign``'s
    start-up; ``--help`` and a command line that names no known command get the
    whole application (its list of commands, Click's "did you mean")."""
    registered = [*app.registered_commands, *app.registered_groups]
    at = command_index(args, {n for n in map(_name, registered) if n is not None})
    if at is None:
        return app
    one = copy.copy(app)
    one.registered_commands = [c for c in app.registered_commands if _name(c) == args[at]]
    one.registered_groups = [g for g in app.registered_groups if _name(g) == args[at]]
    return one


def main() -> None:
    app_for(sys.argv[1:])()


if __name__ == "__main__":
    main()
