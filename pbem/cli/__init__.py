"""The ``pbem`` command line: thin.  Each command parses its arguments, calls one
library function, prints, and turns domain errors into one line per problem on
stderr with exit status 1 (usage errors exit 2, from Typer).

- :mod:`pbem.cli.application`: the application, its global options, building only the named command;
- :mod:`pbem.cli.catalog`: every command's name, module and help, for the list of commands;
- :mod:`pbem.cli.common`: errors to one line, the database, reading an input;
- :mod:`pbem.cli.options`: option sets written once;
- :mod:`pbem.cli.player`, :mod:`pbem.cli.referee`, :mod:`pbem.cli.records`, :mod:`pbem.cli.absence`: the
  commands, grouped by who runs them;
- :mod:`pbem.cli.values`, :mod:`pbem.cli.progress`: values without pydantic; progress bars.

A command line imports only the module of the command it names (``main``);
``app``, the whole application, imports every command module on first use.

Start-up makes a few hundred thousand objects that live until the process ends
and no garbage: the cyclic garbage collector, which would walk them all again and
again, is off while this package is imported, and ``main`` moves what is there by
then out of its reach (``gc.freeze``) before the command runs.
"""

import gc

_collecting = gc.isenabled()
gc.disable()  # no collection while importing: every object made is kept (modules, classes, Typer's tables)
try:
    import typer

    from pbem.cli.application import app_for, main, whole
finally:
    if _collecting:
        gc.enable()

__all__ = ["app", "app_for", "main"]


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        return whole()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
