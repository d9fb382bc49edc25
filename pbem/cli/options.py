"""Option sets written once: the mail sources and the SMTP delivery of ``ingest``,
``send``, ``tick`` and ``serve``.  Each option has one name and one meaning in all
of them, and each falls back on the configuration file's setting
(pbem/cli/settings.py) when it is not given."""

from pathlib import Path
from typing import Any, Optional

import typer
import typer.core
import typer.main
import typer.models

from pbem.cli.common import _host_port, db_option, fail, referee_key, settings


def _smtp_server(smtp: str | None, starttls: bool, ssl_on: bool, user: str | None, password_file: Path | None) -> Any:
    """The SMTP server of ``--smtp HOST:PORT`` (password from a file or $PBEM_SMTP_PASSWORD);
    each option not given is taken from the configuration file's ``[smtp]``."""
    conf = settings()
    if not starttls and not ssl_on:
        starttls, ssl_on = conf.starttls, conf.ssl
    smtp, user = smtp or conf.smtp, user or conf.smtp_user
    password_file = password_file or conf.smtp_password_file
    if smtp is None:
        if user or password_file:
            typer.echo("pbem: --smtp-user and --smtp-password-file need --smtp HOST:PORT", err=True)
            raise typer.Exit(2)
        return None
    if starttls and ssl_on:
        typer.echo("pbem: give --starttls or --ssl, not both", err=True)
        raise typer.Exit(2)
    host, port = _host_port(smtp)
    security = "ssl" if ssl_on else "starttls" if starttls else "plain"
    from pbem.mail import smtp as smtp_mail

    try:
        return smtp_server(host, port, security, user, password_file)
    except smtp_mail.SendError as exc:
        fail(str(exc))


def smtp_server(host: str, port: int, security: str, user: str | None, password_file: Path | None) -> Any:
    """An SMTP server with its password read (from the file, else $PBEM_SMTP_PASSWORD);
    ``SendError`` names a password file that cannot be read, or a user without one."""
    from pbem.mail import smtp as smtp_mail

    password = None
    if user is not None:
        password = smtp_mail.read_password(password_file, smtp_mail.PASSWORD_ENV)
        if password is None:
            raise smtp_mail.SendError(
                f"no SMTP password for {user!r}: give --smtp-password-file FILE or set ${smtp_mail.PASSWORD_ENV}"
            )
    loopback = host in ("127.0.0.1", "::1", "localhost")
    return smtp_mail.SmtpServer(host, port, security, user, password, allow_plain_auth=loopback)


def _sender(sender: str | None) -> str:
    """``--sender``, else the configuration's ``[smtp] sender``, else the placeholder."""
    return sender or settings().sender or DEFAULT_SENDER


DEFAULT_SENDER = "referee@pbem.invalid"


def _referee_options(
    dir: Optional[Path],
    maildir: Optional[Path],
    mbox: Optional[Path],
    imap: Optional[str],
    imap_password_file: Optional[Path],
    smtp: Optional[str],
    sender: Optional[str],
    starttls: bool,
    ssl_on: bool,
    smtp_user: Optional[str],
    smtp_password_file: Optional[Path],
    backoff: float,
    jobs: int,
    mail_deadline: float = 300.0,
) -> Any:
    import dataclasses

    from pbem.referee import service as referee

    if jobs < 1:
        typer.echo("pbem: --jobs must be 1 or more", err=True)
        raise typer.Exit(2)
    if not mail_deadline > 0:
        typer.echo("pbem: --mail-deadline must be more than 0 seconds", err=True)
        raise typer.Exit(2)
    conf = settings()
    imap = imap or conf.imap_url
    imap_password_file = imap_password_file or conf.imap_password_file
    source = None
    if imap is not None:
        from pbem.mail import imap as imap_mail

        try:
            source = imap_mail.parse_url(imap, imap_mail.read_password(imap_password_file))
        except imap_mail.ImapError as exc:
            fail(str(exc))
    elif imap_password_file is not None:
        typer.echo("pbem: --imap-password-file needs --imap URL", err=True)
        raise typer.Exit(2)
    server = _smtp_server(smtp, starttls, ssl_on, smtp_user, smtp_password_file)
    if source is not None:
        source = dataclasses.replace(source, deadline=mail_deadline)
    if server is not None:
        server = dataclasses.replace(server, deadline=mail_deadline)
    for path, what in ((dir, "--dir"), (maildir, "--maildir"), (mbox, "--mbox")):
        if path is not None and not path.exists():
            fail(f"{what} {path}: no such file or folder")
    return referee.Options(dir, maildir, mbox, source, server, _sender(sender), backoff, jobs, db_option())


_DIR = typer.Option("--dir", metavar="DIR", help="A folder of turn files.")


_MAILDIR = typer.Option("--maildir", metavar="MAILDIR", help="A Maildir of player mail.")


_MBOX = typer.Option("--mbox", metavar="FILE", help="An mbox file of player mail.")


_IMAP = typer.Option(
    "--imap",
    metavar="URL",
    help="imaps://USER@HOST[:PORT]/MAILBOX (or imap:// with STARTTLS); never with a password."
    " Default: the configuration's [imap] url.",
)


_IMAP_PW = typer.Option(
    "--imap-password-file",
    metavar="FILE",
    help="File whose first line is the IMAP password (else $PBEM_IMAP_PASSWORD).",
)


_SMTP = typer.Option(
    "--smtp", metavar="HOST:PORT", help="The SMTP server to deliver through (default: the configuration's [smtp])."
)


_SENDER = typer.Option(
    "--sender", metavar="ADDRESS", help="The referee's address (From of every message; default [smtp] sender)."
)


_STARTTLS = typer.Option("--starttls", help="Upgrade the SMTP connection with STARTTLS.")


_SSL = typer.Option("--ssl", help="SMTP over TLS from the start (SMTPS, port 465).")


_SMTP_USER = typer.Option(
    "--smtp-user", metavar="USER", help="SMTP login user (password from --smtp-password-file or $PBEM_SMTP_PASSWORD)."
)


_SMTP_PW = typer.Option("--smtp-password-file", metavar="FILE", help="File whose first line is the SMTP password.")


_SMTP_USER_ALIAS = typer.Option("--user", hidden=True, envvar="PBEM_SMTP_USER", help="Old name of --smtp-user.")


_BACKOFF = typer.Option(
    "--backoff",
    metavar="SECONDS",
    help="Seconds before the first retry of a deferred message (doubling, at most an hour).",
)


_MAIL_DEADLINE = typer.Option(
    "--mail-deadline",
    metavar="SECONDS",
    help="Longest an IMAP intake, or an SMTP session's opening or one message's sending, may take (default 300).",
)


def _with_key(options: Any, path: Optional[Path]) -> Any:
    """``tick``/``serve``'s options with the referee's key (deadline NMRs and vacations are acts of the ledger)."""
    signer = referee_key(path)
    return options._replace(referee_key=signer, referee_key_path=str(path) if signer else None)
