"""The ``pbem`` command line: thin.  Each command parses its arguments, calls one
library function, prints, and turns domain errors into one line per problem on
stderr with exit status 1 (usage errors exit 2, from Typer).

- :mod:`pbem.cli.application`: the application, its global options, building only the named command;
- :mod:`pbem.cli.common`: errors to one line, the database, reading an input;
- :mod:`pbem.cli.options`: option sets written once;
- :mod:`pbem.cli.player`, :mod:`pbem.cli.referee`, :mod:`pbem.cli.records`, :mod:`pbem.cli.absence`: the
  commands, grouped by who runs them;
- :mod:`pbem.cli.values`, :mod:`pbem.cli.progress`: values without pydantic; progress bars.
"""

from pbem.cli import (  # noqa: F401  (each registers its commands)
    absence,
    config,
    hooks,
    new_game,
    player,
    records,
    referee,
    rulesets,
    service,
)
from pbem.cli.application import app, app_for, in_help_order, main

in_help_order()

__all__ = ["app", "app_for", "main"]
