"""``pbem new``: a game created, its dice committed, its allowances and limits set."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
import typer.core
import typer.main
import typer.models

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pbem.referee.deadlines import Clock
    from pbem.store import GameState

from pbem.cli.application import registry as app
from pbem.cli.common import (
    REFEREE_KEY,
    _pairs,
    _read,
    civil_disorder_words,
    db_option,
    example,
    referee_key,
    refusals,
)
from pbem.cli.common import settings as configured

_CIVIL_DISORDER = typer.Option(
    "--civil-disorder",
    metavar="N",
    help="After N missed deadlines in a row a side is played by the greedy bot until a player takes it over.",
)

_VACATION_DAYS = typer.Option(
    "--vacation-days", metavar="N", min=0, help="Days of vacation each player may take in the game."
)
_MAX_PAUSE = typer.Option(
    "--max-pause", metavar="DUR", help="The most pause the referee may take in all: 90s, 45m, 72h, 3d."
)
_MAX_EXTENSIONS = typer.Option(
    "--max-extensions", metavar="N", min=0, help="The most deadline extensions the referee may make."
)


_GAME = typer.Argument(
    metavar="GAME", help="Game id: 1-64 letters, digits, '-', '_' or '.', not starting with '.' or '-'."
)
_RULES = typer.Option("--rules", metavar="RULES", help="Ruleset: farrapos or furor-barbarus.")
_PLAYER = typer.Option("--player", metavar="SIDE=PUBKEY_FILE", help="A side's public key file, once per side.")
_SCENARIO = typer.Option("--scenario", metavar="SCENARIO", help="Scenario id (see docs/rules/).")
_OPTION = typer.Option("--option", metavar="NAME", help="Optional rule to switch on (repeatable).")
_EMAIL = typer.Option("--email", metavar="SIDE=ADDRESS", help="A side's mail address (repeatable).")
_CHAIN_LENGTH = typer.Option("--chain-length", metavar="N", help="Length N of the dice hash chain.")
_DEADLINE = typer.Option(
    "--deadline", metavar="DUR", help="Time from the last resolution to the next deadline: 90s, 45m, 72h, 3d."
)
_GRACE = typer.Option(
    "--grace", metavar="DUR", help="After the deadline, how long a missing side may still send (then NMR)."
)
_REMIND = typer.Option("--remind", metavar="DUR", help="How long before the deadline a late side is reminded.")
_WAIT = typer.Option("--wait", help="Hold the turn until the deadline even when every file is in.")
_TZ = typer.Option("--tz", metavar="ZONE", help="The game's time zone for deadlines (IANA name; default UTC).")
_TABLE = typer.Option(
    "--table",
    metavar="NAME=FILE",
    help="Play a house table instead of the shipped one (repeatable; see 'pbem tables').",
)


@app.command(epilog=example("pbem new g1 --rules farrapos --player republic=alice.pub --player empire=bob.pub"))
def new(
    game: Annotated[str, _GAME],
    rules: Annotated[str, _RULES],
    player: Annotated[list[str], _PLAYER],
    scenario: Annotated[Optional[str], _SCENARIO] = None,
    option: Annotated[Optional[list[str]], _OPTION] = None,
    email: Annotated[Optional[list[str]], _EMAIL] = None,
    chain_length: Annotated[int, _CHAIN_LENGTH] = 4096,
    deadline: Annotated[Optional[str], _DEADLINE] = None,
    grace: Annotated[Optional[str], _GRACE] = None,
    remind: Annotated[Optional[str], _REMIND] = None,
    wait: Annotated[bool, _WAIT] = False,
    table: Annotated[Optional[list[str]], _TABLE] = None,
    civil_disorder: Annotated[Optional[str], _CIVIL_DISORDER] = None,
    vacation_days: Annotated[Optional[int], _VACATION_DAYS] = None,
    max_pause: Annotated[Optional[str], _MAX_PAUSE] = None,
    max_extensions: Annotated[Optional[int], _MAX_EXTENSIONS] = None,
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
    tz: Annotated[Optional[str], _TZ] = None,
) -> None:
    """Create a game and commit its dice; prints the commitment (anchor)."""
    from pbem import store
    from pbem.referee import lifecycle
    from pbem.referee.absences import Limits

    keyfiles = _pairs(player, "--player")
    tables = _tables_once(table or [])
    with refusals():
        clock = _clock(deadline, grace, remind, wait)
        limit = _civil_disorder_option(civil_disorder)
        limits = Limits(vacation_days, limit, _duration("--max-pause", max_pause), max_extensions)
        signer = referee_key(key)
        keylines = {side: _read(Path(path)).decode("utf-8", "replace").strip() for side, path in keyfiles.items()}
        created = lifecycle.new_game(
            store.create_database(db_option()),
            game,
            rules,
            scenario,
            option or [],
            keylines,
            _pairs(email or [], "--email"),
            chain_length,
            tables,
            clock=clock,
            civil_disorder=limit,
            limits=limits,
            referee_key=signer,
            tz=tz or configured().defaults.get("tz"),
        )
    for warning in lifecycle.shared_keys(keylines):
        typer.echo(f"pbem: {warning}", err=True)
    _print_created(created, clock, tables)
    if civil_disorder is not None:
        typer.echo(civil_disorder_words(civil_disorder))
    if signer is not None:
        typer.echo(f"referee key: {signer.public.fingerprint()} (every act of the referee is signed with it)")


def _clock(deadline: str | None, grace: str | None, remind: str | None, wait: bool) -> "Clock | None":
    """A new game's clock: the options, else the configuration file's ``[defaults]``."""
    from pbem.referee import deadlines

    defaults = configured().defaults
    deadline, grace, remind = (
        v or defaults.get(k) for k, v in (("deadline", deadline), ("grace", grace), ("remind", remind))
    )
    return deadlines.clock_from_options(deadline, grace, remind, wait)


def _tables_once(table: list[str]) -> dict[str, str]:
    tables = _pairs(table, "--table")
    if len(tables) != len(table):
        typer.echo("pbem: --table names each table once", err=True)
        raise typer.Exit(2)
    return tables


def _civil_disorder_option(value: str | None) -> int | None:
    """``--civil-disorder N``: :class:`Refused` naming a bad value."""
    from pbem.referee import disorder
    from pbem.referee.verdict import Refused

    if value is None:
        return None
    try:
        return disorder.parse_threshold(value)
    except ValueError as exc:
        raise Refused([f"--civil-disorder: {exc}"]) from None


def _duration(option: str, text: "str | None") -> "int | None":
    from pbem.referee import deadlines
    from pbem.referee.verdict import Refused

    try:
        return deadlines.parse_duration(text) if text is not None else None
    except ValueError as exc:
        raise Refused([f"{option}: {exc}"]) from None


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
