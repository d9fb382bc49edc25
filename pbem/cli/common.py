"""What every command shares: errors turned into one line per problem and exit
status 1, the database, reading an input file."""

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Optional

import typer
import typer.core
import typer.main
import typer.models

if TYPE_CHECKING:
    from pbem.cli.settings import Settings
    from pbem.store.database import Database
from pbem.cli.application import _state


def example(*lines: str) -> str:
    """A command's epilog: its examples, kept as written (Click's ``\\b``)."""
    return "\b\nExample" + ("s" if len(lines) > 1 else "") + ":\n" + "\n".join(f"  {line}" for line in lines)


def fail(problems: list[str] | str) -> NoReturn:
    for line in [problems] if isinstance(problems, str) else problems:
        typer.echo(f"pbem: {line}", err=True)
    raise typer.Exit(1)


DOMAIN_ERRORS = (
    ("pbem.store", "StoreError"),
    ("pbem.turnfiles.keys", "KeyFileError"),
    ("pbem.turnfiles.sshsig", "SignatureError"),
    ("pbem.paths", "UnsafePath"),
)
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
    verdict = sys.modules.get("pbem.referee.judging")  # where Refused is (pbem.referee.verdict imports it)
    if verdict is not None and isinstance(exc, verdict.Refused):
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

    return store.open_database(db_option())


def settings() -> "Settings":
    """The configuration file's settings (read once per command; empty without a
    file); a file that cannot be used is one line and exit 1."""
    if _state.get("settings") is None:
        from pbem.cli import settings as config

        try:
            _state["settings"] = config.load(config.find(_state.get("config")))
        except config.ConfigError as exc:
            fail(str(exc))
    return _state["settings"]


def db_option() -> str | None:
    """``--db`` (or $PBEM_DB), else the configuration file's ``db``, else None
    (``./pbem.db``)."""
    return _state["db"] or settings().db


STDOUT = "-"
"""``-o -``: standard output, wherever a command writes one file."""


def is_stdout(path: Path | str | None) -> bool:
    return path is not None and str(path) == STDOUT


def write_output(path: Path, content: str | bytes, done: str) -> None:
    """``content`` to the file ``path``, or to standard output for ``-o -``; then
    ``done`` (what was written) on stdout after a file, on stderr after stdout."""
    if is_stdout(path):
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        if done:
            typer.echo(done, err=True)
        return
    from pbem import paths

    paths.write_file(path, content)  # never through a symbolic link in its place
    if done:
        typer.echo(done)


def _read(path: Path, limit: int | None = None) -> bytes:
    if not path.is_file():
        fail(f"{path}: no such file")
    if limit is None:
        return path.read_bytes()
    from pbem import limits

    try:
        return limits.read_at_most(path, limit)
    except limits.TooLarge as exc:
        fail(f"{path}: {exc.size} bytes is over the {limit // 1024} KiB limit for a turn file")


def _pairs(values: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        side, sep, rest = value.partition("=")
        if not sep or not side or not rest:
            typer.echo(f"pbem: {what} must be SIDE=VALUE, got {value!r}", err=True)
            raise typer.Exit(2)
        out[side] = rest
    return out


def _signature_for(path: Path, sig: Optional[Path]) -> str | None:
    sig_path = sig or path.with_name(path.name + ".sig")
    if sig is not None and not sig_path.is_file():
        fail(f"{sig_path}: no such signature file")
    return sig_path.read_text(encoding="utf-8", errors="replace") if sig_path.is_file() else None


def _with_progress(what: str, items: list[str], run: Callable[[Callable[[], None]], Any], quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty() or len(items) < 2:
        return run(lambda: None)
    from rich.progress import Progress

    with Progress(transient=True) as progress:
        task = progress.add_task(what, total=len(items))
        return run(lambda: progress.advance(task))


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        typer.echo(f"pbem: --smtp must be HOST:PORT, got {value!r}", err=True)
        raise typer.Exit(2)
    return host, int(port)


def _log_line(line: str) -> None:
    from pbem import store

    typer.echo(f"{store.utcnow():%Y-%m-%d %H:%M:%S} {line}")


def _ruleset_or_usage(rules: str, scenario: str | None) -> Any:
    from pbem.rules import find_ruleset

    try:
        ruleset = find_ruleset(rules)
        ruleset.scenario(scenario)
    except ValueError as exc:
        typer.echo(f"pbem: {exc}", err=True)
        raise typer.Exit(2) from None
    return ruleset


def civil_disorder_words(value: str) -> str:
    """A game's civil-disorder setting in words (``pbem new``, ``pbem game set``)."""
    from pbem.referee import disorder

    n = disorder.parse_threshold(value)
    if n is None:
        return "no civil disorder (a side missing its deadlines takes no action)"
    return f"civil disorder after {n} missed deadline(s) in a row: the {disorder.BOT} bot plays the side"


REFEREE_KEY = typer.Option(
    "--referee-key",
    metavar="KEY",
    envvar="PBEM_REFEREE_KEY",
    help="The referee's private SSH key that signs the game's ledger (default $PBEM_REFEREE_KEY);"
    " needed by a game created with one.",
)


def referee_key(path: Optional[Path]) -> Any:
    """The referee's key read from ``--referee-key`` / ``$PBEM_REFEREE_KEY`` (None when not given)."""
    if path is None or not str(path):
        return None
    from pbem.referee.ledger import RefereeKey

    return RefereeKey.load(path)
