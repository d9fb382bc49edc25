"""``pbem config check`` and ``pbem config show``: the referee's configuration file
(pbem/cli/settings.py) tried against its servers, and printed without secrets."""

from typing import Annotated

import typer
import typer.core
import typer.main
import typer.models

from pbem.cli.application import _Pbem, _state
from pbem.cli.application import registry as app
from pbem.cli.common import db_option, example, settings

config_app = typer.Typer(
    cls=_Pbem,
    help="The referee's configuration file (--config FILE, $PBEM_CONFIG or ./pbem.toml).",
    no_args_is_help=True,
    epilog=example("pbem --config referee.toml config check", "pbem config show"),
)


app.add_typer(config_app, name="config")


@config_app.command("check", epilog=example("pbem --config referee.toml config check"))
def config_check() -> None:
    """Connect to each configured server (database, SMTP, IMAP) and say what works; exit 1 if anything fails."""
    conf = settings()
    lines = [
        (True, f"config {conf.path}: read" if conf.path else "config: no file (--config, $PBEM_CONFIG, ./pbem.toml)")
    ]
    lines.append(_database_line())
    lines.append(_smtp_line())
    lines.append(_imap_line())
    for _ok, line in lines:
        typer.echo(line)
    if not all(ok for ok, _line in lines):
        raise typer.Exit(1)


def _database_line() -> tuple[bool, str]:
    from pbem import store
    from pbem.cli.common import domain_problems
    from pbem.store.transaction import transaction

    where = db_option() or "pbem.db"
    try:
        db = store.open_database(db_option())
        with transaction(db, write=False) as tx:
            games = tx.one("SELECT COUNT(*) FROM game", {})
        db.dispose()
    except Exception as exc:
        problems = domain_problems(exc)
        if problems is None:
            raise
        return False, f"database {where}: FAILED: {problems[0]}"
    return True, f"database {where}: ok (schema {store.SCHEMA_VERSION}, {games[0] if games else 0} game(s))"


def _smtp_line() -> tuple[bool, str]:
    from pbem.cli.options import smtp_server
    from pbem.mail import smtp as smtp_mail

    conf = settings()
    if conf.smtp_host is None:
        return True, "smtp: not configured"
    host, port = conf.smtp.rsplit(":", 1)  # type: ignore[union-attr]
    security = "ssl" if conf.ssl else "starttls" if conf.starttls else "plain"
    try:
        server = smtp_server(host, int(port), security, conf.smtp_user, conf.smtp_password_file)
        return True, f"smtp {server.name}: ok: {smtp_mail.check(server)}"
    except smtp_mail.SendError as exc:
        return False, f"smtp {conf.smtp}: FAILED: {exc}"


def _imap_line() -> tuple[bool, str]:
    from pbem.mail import imap as imap_mail

    conf = settings()
    if conf.imap_url is None:
        return True, "imap: not configured"
    try:
        source = imap_mail.parse_url(conf.imap_url, imap_mail.read_password(conf.imap_password_file))
        return True, f"{source.name}: ok: {imap_mail.check(source)}"
    except imap_mail.ImapError as exc:
        return False, f"imap {conf.imap_url}: FAILED: {exc}"


@config_app.command("show", epilog=example("pbem config show"))
def config_show(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """The effective settings of the file and --db, without secrets (password files by their path only)."""
    import json

    conf = settings()
    shown = dict(conf.shown())
    if _state["db"]:
        shown["db"] = _state["db"]
    shown = {"config": str(conf.path) if conf.path else "", **shown}
    if as_json:
        typer.echo(json.dumps(shown, indent=1))
        return
    for key, value in shown.items():
        typer.echo(f"{key} = {value}")
