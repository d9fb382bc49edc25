"""The referee's commands for absences: ``pause``, ``resume``, ``vacation``
(pbem/referee/absences.py); each is an act of the game's ledger."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Optional

import typer

from pbem.cli.application import registry as app
from pbem.cli.common import REFEREE_KEY, database, example, referee_key, refusals


def _until(text: str, now: datetime) -> datetime:
    """``--until``: an ISO 8601 date or time (UTC unless it names a zone), or a duration from now (``3d``)."""
    from datetime import timedelta

    from pbem.referee import deadlines
    from pbem.referee.verdict import Refused

    try:
        return now + timedelta(seconds=deadlines.parse_duration(text))
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise Refused(
            [f"--until {text!r}: give a date or time (2026-06-01, 2026-06-01T18:00Z) or a duration (3d)"]
        ) from None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)


@app.command(epilog=example("pbem pause g1 --until 2026-06-01T18:00Z", "pbem pause g1 --until 3d"))
def pause(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    until: Annotated[
        Optional[str],
        typer.Option("--until", metavar="WHEN", help="When the pause ends: a date or time (UTC), or a duration (3d)."),
    ] = None,
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Pause the game's clock: no deadline, reminder or NMR until it is resumed; announced."""
    from pbem import store
    from pbem.referee import absences

    with refusals():
        now = store.utcnow()
        entry = absences.pause(database(), game, _until(until, now) if until else None, referee_key(key), now)
    ends = entry.details["until"] or "'pbem resume'"
    typer.echo(f"{game}: paused from {entry.time} until {ends}; every player told (ledger entry {entry.seq})")


@app.command(epilog=example("pbem resume g1"))
def resume(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """End the game's pause; its deadline moves on by the pause's length; announced."""
    from pbem import store
    from pbem.referee import absences
    from pbem.referee.deadlines import format_duration

    with refusals():
        entry = absences.resume(database(), game, referee_key(key), store.utcnow())
    length = format_duration(entry.details["paused_for"])
    typer.echo(f"{game}: resumed after {length} of pause; every player told (ledger entry {entry.seq})")


@app.command(epilog=example("pbem vacation g1 republic 3"))
def vacation(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    side: Annotated[str, typer.Argument(metavar="SIDE", help="The side going on vacation.")],
    days: Annotated[int, typer.Argument(metavar="DAYS", help="Days of vacation (within --vacation-days).")],
    key: Annotated[Optional[Path], REFEREE_KEY] = None,
) -> None:
    """Grant a side a vacation: the current deadline moves by its days; announced."""
    from pbem import store
    from pbem.referee import absences

    with refusals():
        entry = absences.vacation(database(), game, side, days, referee_key(key), store.utcnow())
    typer.echo(
        f"{game}: {side} on vacation until {entry.details['until']};"
        f" the deadline moves by {days}d (ledger entry {entry.seq})"
    )
