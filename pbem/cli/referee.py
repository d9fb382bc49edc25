"""The referee's commands for the games themselves: ``new``, ``process``, ``extend``,
``rollback``, ``games``, ``player``, ``game set`` (the mail service's are in
:mod:`pbem.cli.service`)."""

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
import typer.core
import typer.main
import typer.models

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pbem.referee.deadlines import Clock
    from pbem.referee.resolve import ProcessOutcome
    from pbem.store import GameState

from pbem.cli.application import _Pbem, _state, app
from pbem.cli.common import _pairs, _read, _with_progress, database, example, fail, refusals

GAME_ZONE_HELP = "The game's time zone for deadlines (IANA name; default UTC)."
PLAYER_ZONE_HELP = "The player's own time zone for deadlines (IANA name)."


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
    tz: Annotated[Optional[str], typer.Option("--tz", metavar="ZONE", help=GAME_ZONE_HELP)] = None,
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
            tz=tz,
        )
    for warning in lifecycle.shared_keys(keylines):
        typer.echo(f"pbem: {warning}", err=True)
    _print_created(created, clock, tables)


def _print_created(created: "GameState", clock: "Clock | None", tables: "Mapping[str, str]") -> None:
    """What ``pbem new`` prints of the game it made."""
    from pbem.store import house_tables

    typer.echo(f"game {created.id} created: {created.rules}/{created.scenario}")
    typer.echo(f"dice commitment (anchor, N={created.chain_length}): {created.anchor}")
    typer.echo(f"position: {created.state_hash}")
    if clock is not None:
        typer.echo(f"clock: {clock.describe()}")
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
        awaiting = f"awaiting {', '.join(g.awaiting)}" if g.awaiting else ("ready" if not g.over else "")
        typer.echo(
            f"{g.game}: {g.rules}/{g.scenario}, {g.heading()}; {awaiting or '-'}; {g.deadline_text()}; "
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
    tz: Annotated[Optional[str], typer.Option("--tz", metavar="ZONE", help=PLAYER_ZONE_HELP)] = None,
) -> None:
    """Change a player's address, key or time zone; address and key changes are archived, both sides told."""
    from pbem.referee import players

    with refusals():
        line = _read(key).decode("utf-8", "replace").strip() if key is not None else None
        change = players.change_player(database(), game, side, email, line, tz)
    if email is None and key is None:
        typer.echo(f"{game} {side}: {'; '.join(change.what)}")
        return
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
