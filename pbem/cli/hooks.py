"""``pbem hook add/remove/list``: a game's webhooks (pbem/referee/hooks.py)."""

from typing import Annotated

import typer
import typer.core
import typer.main
import typer.models

from pbem.cli.application import _Pbem
from pbem.cli.application import registry as app
from pbem.cli.common import database, example, fail, refusals

hook_app = typer.Typer(
    cls=_Pbem,
    help="A game's webhooks: your move, reminders, late notices and results posted to a chat or an HTTP endpoint.",
    no_args_is_help=True,
    epilog=example("pbem hook add g1 https://discord.com/api/webhooks/ID/TOKEN --format discord", "pbem hook list g1"),
)


app.add_typer(hook_app, name="hook")


@hook_app.command("add", epilog=example("pbem hook add g1 https://hooks.slack.com/services/T/B/X --format slack"))
def hook_add(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    url: Annotated[str, typer.Argument(metavar="URL", help="The http:// or https:// address to POST to.")],
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="discord, slack or json.")] = "json",
) -> None:
    """Post the game's news to URL (through the outbox, retried until it is accepted)."""
    from pbem.mail.webhook import HookError
    from pbem.referee import hooks

    with refusals():
        try:
            added = hooks.add(database(), game, url, fmt)
        except HookError as exc:
            fail(str(exc))
    typer.echo(f"{game}: hook {url} ({fmt}) {'added' if added else 'already there; format set'}")


@hook_app.command("remove", epilog=example("pbem hook remove g1 https://example.org/hook"))
def hook_remove(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    url: Annotated[str, typer.Argument(metavar="URL", help="The hook's address, as added.")],
) -> None:
    """Stop posting to URL (posts already queued stay in the outbox)."""
    from pbem.referee import hooks

    with refusals():
        hooks.remove(database(), game, url)
    typer.echo(f"{game}: hook {url} removed")


@hook_app.command("list", epilog=example("pbem hook list g1"))
def hook_list(game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")]) -> None:
    """The game's hooks: format and URL, one a line."""
    from pbem.referee import hooks

    with refusals():
        found = hooks.listed(database(), game)
    for hook in found:
        typer.echo(f"{hook.format}\t{hook.url}")
