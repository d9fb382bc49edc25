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
    from collections.abc import Callable

    from pbem.referee.ledger import RefereeKey
    from pbem.referee.resolve import ProcessOutcome
    from pbem.store.sql import Tx

from pbem.cli.application import _Pbem
from pbem.cli.application import registry as app
from pbem.cli.common import (
    REFEREE_KEY,
    _read,
    _with_progress,
    civil_disorder_words,
    database,
    db_option,
    example,
    fail,
    referee_key,
    refusals,
)

PLAYER_ZONE_HELP = "The player's own time zone for deadlines (IANA name)."


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
            help="Worker processes that claim ready games (default 1); SQLite runs one,"
            " PostgreSQL at most one per core.",
        ),
    ] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or table.")] = False,
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Resolve every game whose due sides have all submitted."""
    from pbem.referee import resolve

    if not games and not all_games:
        typer.echo("pbem: name the games to process, or give --all", err=True)
        raise typer.Exit(2)
    with refusals():
        db = database()
        targets = games if games else resolve.pending_games(db)
        within = _forced_nmr(referee_key(key)) if force_nmr else None
        runs = _planned_workers(jobs) if within is None else 1
        if runs > 1:
            from pbem.referee import workers

            outcomes = _with_progress(
                "processing",
                targets,
                lambda tick: workers.process(db_option(), targets, runs, force_nmr, on_resolved=lambda _o: tick()),
                quiet,
            )
        else:
            outcomes = _with_progress(
                "processing",
                targets,
                lambda tick: resolve.process(db, targets, force_nmr, on_resolved=lambda _o: tick(), within=within),
                quiet,
            )
        if reports is not None:
            from pbem import paths
            from pbem.reports import assemble as reporting

            for o in outcomes:
                if o.resolved is not None:
                    reporting.write_resolution_reports(
                        db, o.game_id, o.resolved, paths.inside(reports, o.game_id), o.made
                    )
    _print_outcomes(outcomes, quiet)
    failed = [p for o in outcomes for p in o.problems]
    if failed:
        fail(failed)


def _planned_workers(jobs: int) -> int:
    """How many workers ``--jobs`` runs on this store (``workers.planned``), the
    line saying why printed when it is fewer than asked."""
    if jobs <= 1:
        return jobs
    from pbem.referee import workers

    runs, why = workers.planned(db_option(), jobs)
    if why:
        typer.echo(why, err=True)
    return runs


def _forced_nmr(signer: "RefereeKey | None") -> "Callable[[Tx, ProcessOutcome], None]":
    """What ``--force-nmr`` adds to a resolution made with a side missing: its ``nmr`` act."""
    from pbem.referee import ledger

    def record(tx: "Tx", made: "ProcessOutcome") -> None:
        if made.nmr:
            ledger.record(
                tx,
                made.game_id,
                "nmr",
                {"k": made.resolved, "sides": list(made.nmr), "why": "forced"},
                signer,
                summary=f"resolution {made.resolved} forced with no moves from {', '.join(made.nmr)}",
            )

    return record


def _print_outcomes(outcomes: "list[ProcessOutcome]", quiet: bool) -> None:
    if not quiet and len(outcomes) > 1 and sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table("game", "resolution", "game time", "note")
        for o in outcomes:
            table.add_row(o.game_id, str(o.resolved or "-"), o.label, _note(o))
        Console().print(table)
        typer.echo(process_summary(outcomes))
        return
    lines = []  # written at once: an echo per line (each looks at the stream and flushes it) cost 30 k a game
    for o in outcomes:
        note = _note(o)
        if o.resolved is not None:
            lines.append(f"{o.game_id}: resolution {o.resolved} - {o.label}{'; ' + note if note else ''}")
        elif not quiet:
            lines.append(f"{o.game_id}: {note}")
    typer.echo("\n".join([*lines, process_summary(outcomes)]))


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
    if o.bot:
        parts.append(f"civil disorder: the greedy bot wrote the orders of {', '.join(o.bot)}")
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
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Commit a new dice chain that takes over where the game's chain ends; prints its anchor."""
    from pbem.referee import lifecycle

    with refusals():
        chain = lifecycle.extend_dice(database(), game, chain_length, referee_key(key))
    last = chain.first_k + chain.chain_length - 2
    typer.echo(f"{game}: dice extended for resolutions {chain.first_k}-{last}")
    typer.echo(f"dice commitment (anchor, N={chain.chain_length}, from resolution {chain.first_k}): {chain.anchor}")


@app.command(epilog=example("pbem rollback g1 --to 3"))
def rollback(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    to: Annotated[int, typer.Option("--to", metavar="K", help="Keep resolutions up to K; set aside the rest.")],
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Set aside the resolutions after K (kept, and shown by export and audit)."""
    from pbem.referee import lifecycle

    with refusals():
        db = database()
        record = lifecycle.rollback(db, game, to, referee_key(key))
        st = lifecycle.status(db, game)
    typer.echo(f"{game}: rolled back to resolution {to}; set aside {', '.join(map(str, record.discarded))}")
    typer.echo(
        f"{game}: now awaits resolution {st.turn} - {st.label}; `pbem send {game} ...` tells both sides (the "
        f"report of resolution {to}, announcing the rollback)"
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
    signer: Annotated[Optional[Path], REFEREE_KEY] = None,
    tz: Annotated[Optional[str], typer.Option("--tz", metavar="ZONE", help=PLAYER_ZONE_HELP)] = None,
) -> None:
    """Change a player's address, key or time zone; address and key changes are archived, both sides told."""
    from pbem.referee import players

    with refusals():
        line = _read(key).decode("utf-8", "replace").strip() if key is not None else None
        change = players.change_player(database(), game, side, email, line, referee_key(signer), tz)
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
            help="KEY=VALUE: deadline=48h, grace=12h, remind=6h, wait=yes (deadline=none removes it), "
            "civil-disorder=3 (none: never).",
        ),
    ],
    signer: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Change a game's deadline, grace, reminder, wait or civil disorder."""
    from pbem.referee import deadlines

    pairs: dict[str, str] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            typer.echo(f"pbem: a setting is KEY=VALUE, got {item!r}", err=True)
            raise typer.Exit(2)
        pairs[key.strip()] = value.strip()
    with refusals():
        clock = deadlines.set_clock(database(), game, pairs, referee_key(signer))
    typer.echo(f"{game}: {clock.describe()}")
    if "civil-disorder" in pairs:
        typer.echo(f"{game}: {civil_disorder_words(pairs['civil-disorder'])}")


observer_app = typer.Typer(
    cls=_Pbem,
    help="People who follow a game: each is mailed every resolution's public report; never a player.",
    no_args_is_help=True,
    epilog=example("pbem observer add g1 carol@example.org"),
)


app.add_typer(observer_app, name="observer")


@observer_app.command("add", epilog=example("pbem observer add g1 carol@example.org"))
def observer_add(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    address: Annotated[str, typer.Argument(metavar="EMAIL", help="The observer's address.")],
    signer: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Mail EMAIL every resolution's public report from the next one on (what both sides see)."""
    from pbem.referee import observers

    with refusals():
        k = observers.add(database(), game, address, referee_key(signer))
    typer.echo(f"{game}: {address} observes the game from resolution {k} (public reports only; it never submits)")


@observer_app.command("remove", epilog=example("pbem observer remove g1 carol@example.org"))
def observer_remove(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    address: Annotated[str, typer.Argument(metavar="EMAIL", help="The observer's address.")],
    signer: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Stop mailing EMAIL the game's reports."""
    from pbem.referee import observers

    with refusals():
        k = observers.remove(database(), game, address, referee_key(signer))
    typer.echo(f"{game}: {address} no longer observes the game (from resolution {k})")


@observer_app.command("list", epilog=example("pbem observer list g1"))
def observer_list(game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")]) -> None:
    """The game's observers: address, when added, the first resolution they were sent."""
    from pbem.referee import observers

    with refusals():
        found = observers.listing(database(), game)
    for w in found:
        typer.echo(f"{w.email}  added {w.added}, from resolution {w.from_k}")
    typer.echo(f"{game}: {len(found)} observer(s)")
