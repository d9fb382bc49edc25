"""The ``pbem`` application: the Typer app, its global options (before or after the
command), and building only the command that was named.

The ``pbem`` command line: thin.  Each command parses its arguments, calls one
library function, prints, and turns domain errors into one line per problem on
stderr with exit status 1 (usage errors exit 2, from Typer).

Start-up is part of every command's cost (a player runs ``orders``, ``check`` and
``sign`` several times a turn; a referee's cron runs a command a minute), so this
module imports only Typer: each command imports what it uses when it runs.  A
command that needs no database never imports SQLAlchemy, SQLModel or the report
stack, and the hot commands open an SQLite file without SQLAlchemy
(``store.open_database``).  tests/test_startup.py checks the imports of every
registered command.  (No ``from __future__ import annotations`` here: Typer would
``eval`` every parameter's annotation string each time it builds the commands.)"""

import copy
import gc
import sys
from collections.abc import Container
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
import typer.core
import typer.main
import typer.models

from pbem import __version__
from pbem.cli.catalog import COMMANDS, MODULES
from pbem.cli.values import conventional_help, convert_plainly

if TYPE_CHECKING:
    # Typer vendors Click as typer._click since 0.26 (no click package is installed) and
    # TyperGroup's methods are typed with its classes
    from typer import _click as click


GLOBAL_OPTIONS = ("--db", "--config")
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
    and every parameter's value is converted without pydantic (pbem.cli.values)."""

    def parse_args(self, ctx: "click.Context", args: list[str]) -> list[str]:
        convert_plainly(self.get_params(ctx))
        return super().parse_args(ctx, hoist_global_options(args, self.commands))

    def get_command(self, ctx: "click.Context", cmd_name: str) -> "click.Command | None":
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            convert_plainly(command.get_params(ctx))
            conventional_help(command.params)
        return command


registry = typer.Typer(
    name="pbem",
    cls=_Pbem,
    help="A play-by-email referee for board wargames: signed turn files, auditable dice, reports.",
    epilog="Global options (--db, --config) may come before or after the command."
    "  Each command's --help shows an example.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
"""What the command modules register their commands on (``from pbem.cli.application import
registry as app``); ``app`` is the whole application, every command module imported."""


_state: dict[str, Any] = {"db": None, "config": None, "settings": None}


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"pbem {__version__}")
        raise typer.Exit()


@registry.callback()
def _main(
    db: Annotated[
        Optional[str],
        typer.Option(
            "--db",
            metavar="PATH|URL",
            help="Database: a file path or an SQLAlchemy URL (default $PBEM_DB, else ./pbem.db).",
            envvar="PBEM_DB",
        ),
    ] = None,
    config: Annotated[
        Optional[str],
        typer.Option(
            "--config",
            metavar="FILE",
            help="The referee's TOML configuration (default $PBEM_CONFIG, else ./pbem.toml if present).",
            envvar="PBEM_CONFIG",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print pbem's version and exit.")
    ] = False,
) -> None:
    _state["db"] = db
    _state["config"] = config
    _state["settings"] = None


def _name(command: "typer.models.CommandInfo | typer.models.TyperInfo") -> str | None:
    if isinstance(command, typer.models.TyperInfo) or command.name:
        return command.name
    return typer.main.get_command_name(command.callback.__name__) if command.callback else None


def _register(module: str) -> None:
    """Import ``module`` (a command module registers its commands when imported).
    ``__import__`` rather than ``importlib.import_module``: the import statement's
    path, the one ``python -X importtime`` reports (tests/test_startup.py reads it)."""
    __import__(module)


def whole() -> typer.Typer:
    """The whole application: every command module imported (each registers its
    commands), the commands in the order ``pbem --help`` lists them."""
    for module in dict.fromkeys(MODULES.values()):
        _register(module)
    in_help_order()
    return registry


def __getattr__(name: str) -> typer.Typer:
    """``app``, the whole application, on first use: a command line imports only the
    module of the command it names (:func:`app_for`)."""
    if name == "app":
        return whole()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def app_for(args: list[str]) -> typer.Typer:
    """The application that runs ``pbem ARGS``: when they name a command, one with
    that command alone, only its module imported.  Typer builds every registered
    command (its signature, help and parameters) before it runs one, about a fifth
    of ``pbem sign``'s start-up; ``--help`` and a command line that names no known
    command get the list of commands (:func:`listing`, Click's "did you mean"), and
    one with ``--`` before any command the whole application."""
    at = command_index(args, MODULES)
    if at is None:
        return whole() if "--" in args else listing()
    _register(MODULES[args[at]])
    one = copy.copy(registry)
    one.registered_commands = [c for c in registry.registered_commands if _name(c) == args[at]]
    one.registered_groups = [g for g in registry.registered_groups if _name(g) == args[at]]
    return one


class _Listing(_Pbem):
    """The group of the list of commands: each command of :data:`pbem.cli.catalog.COMMANDS`
    by its name and help alone, made here rather than by Typer, which would read each
    callback's signature for the parameters the list never shows (about 9 M instructions
    of ``pbem --help``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for listed in COMMANDS:
            self.commands[listed.name] = typer.core.TyperCommand(listed.name, help=listed.help, rich_markup_mode=None)

    def get_command(self, ctx: "click.Context", cmd_name: str) -> "click.Command | None":
        """The command, without the help option :class:`_Pbem` would make for each (the
        list shows none of its parameters, and none of these commands runs)."""
        return self.commands.get(cmd_name)


def listing() -> typer.Typer:
    """The application for a command line that names none of its commands
    (``--help``, ``--version``, no arguments, an unknown name): each command by its
    name and help from :data:`pbem.cli.catalog.COMMANDS` (:class:`_Listing`), without
    its parameters and without importing its module, which only its own run or
    ``--help`` needs.  Its text is the whole application's (tests/test_startup.py
    compares them)."""
    listed = copy.copy(registry)
    listed.info = copy.copy(registry.info)
    listed.info.cls = _Listing
    listed.registered_commands = []
    listed.registered_groups = []
    return listed


def main() -> None:
    """Run ``pbem ARGS``.  What start-up made (modules, classes, the command) lives to
    the end and holds no garbage: the cyclic collector, off while the command is built,
    is then kept from walking it again (``gc.freeze``), at each collection and at exit.
    As the command ends, its databases are closed and what is alive is frozen too
    (:func:`ended`)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        app = app_for(sys.argv[1:])
    finally:
        gc.freeze()
        if collecting:
            gc.enable()
    try:
        app()
    finally:
        ended()


def ended() -> None:
    """What ``pbem`` does as a command ends, however it ends (Typer ends every command
    with ``SystemExit``): every database the command opened is closed
    (``store.sql.close_opened``: an SQLite connection left to the collector
    kept its write-ahead log beside the database), then what is alive is frozen, so
    that the interpreter's collections at exit do not walk it (some 20 M
    instructions for an ``ingest`` of five Campus Mauriacus games' files)."""
    opened = sys.modules.get("pbem.store.sql")  # imported by every command that opened a database
    if opened is not None:
        opened.close_opened()
    gc.freeze()


def in_help_order() -> None:
    """Order the registered commands as :data:`pbem.cli.catalog.COMMANDS` lists them
    (a command not there comes after these)."""
    order = {c.name: i for i, c in enumerate(COMMANDS)}

    def key(command: typer.models.CommandInfo | typer.models.TyperInfo) -> int:
        return order.get(_name(command) or "", len(order))

    registry.registered_commands.sort(key=key)
    registry.registered_groups.sort(key=key)
