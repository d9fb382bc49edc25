"""Every command of ``pbem``: its name, the module of pbem.cli that defines it, and
the first paragraph of its help, in the order ``pbem --help`` lists them.

A command line imports only the module of the command it names, and one that
names none (``--help``, ``--version``, no arguments, an unknown name) imports none
of them: the list of commands needs nothing but what is written here.  Importing
every command module and building their parameters was about 40 M instructions of
each command's start.  tests/test_startup.py compares this table with the commands
the modules define (names, modules, help, order), so it cannot drift from them."""

from collections.abc import Iterator


class Listed:
    """One command as the list of commands shows it (a plain class: a ``NamedTuple``
    compiles its constructor from source when this module is imported, the start of
    every command)."""

    __slots__ = ("name", "module", "help")

    name: str
    module: str
    """The module of pbem.cli that defines it (and registers it when imported)."""
    help: str
    """The first paragraph of its help, its words separated by one space: all Click
    reads of it to list it (``make_default_short_help``)."""

    def __init__(self, name: str, module: str, help: str) -> None:
        self.name = name
        self.module = module
        self.help = help

    def __iter__(self) -> Iterator[str]:
        return iter((self.name, self.module, self.help))

    def __repr__(self) -> str:
        return f"Listed(name={self.name!r}, module={self.module!r}, help={self.help!r})"


def _listed(module: str, *commands: tuple[str, str]) -> tuple[Listed, ...]:
    return tuple(Listed(name, f"pbem.cli.{module}", help) for name, help in commands)


COMMANDS: tuple[Listed, ...] = (
    *_listed("player", ("keygen", "Make a new Ed25519 key pair in OpenSSH format.")),
    *_listed("new_game", ("new", "Create a game and commit its dice; prints the commitment (anchor).")),
    *_listed(
        "player",
        ("status", "The resolution awaited and the game's own time, sides awaited, score, and the result once over."),
        ("orders", "Write the next turn file for a side (template, or a bot's orders)."),
        ("check", "Parse and validate a turn file against the game's current position; stores nothing."),
        ("sign", "Sign a turn file (SSHSIG, namespace pbem): writes FILE.sig, or appends inline."),
        ("submit", "Verify and queue a turn file (a vacation request is granted)."),
    ),
    *_listed("referee", ("process", "Resolve every game whose due sides have all submitted.")),
    *_listed(
        "records",
        ("dice", "The dice history: resolution, index, die, value, purpose."),
        ("export", "Write the game archive (pbem-archive/1 JSON; -o - writes it to standard output)."),
        ("audit", "Re-verify signatures, headers, the dice chain, every roll and every position."),
    ),
    *_listed(
        "referee",
        ("extend", "Commit a new dice chain that takes over where the game's chain ends; prints its anchor."),
        ("rollback", "Set aside the resolutions after K (kept, and shown by export and audit)."),
    ),
    *_listed("rulesets", ("case", "Run rule cases; exit 0 only if all pass.")),
    *_listed(
        "records",
        ("report", "Write one report (or the game's audit page)."),
        ("demo", "Whole bot-vs-bot games through signed files, the database and reports."),
    ),
    *_listed(
        "service",
        (
            "ingest",
            "Batch submit every turn file or message found; each refusal recorded with its reason, each reply queued"
            " in the outbox.",
        ),
        ("send", "Email each side its report (now, not through the outbox)."),
        (
            "tick",
            "One pass: intake, deadlines and reminders, resolution, delivery of the outbox (exit 0 even when"
            " deliveries stay queued).",
        ),
        (
            "serve",
            "Passes (as pbem tick) every --every seconds until SIGTERM or SIGINT, finishing the current step.",
        ),
    ),
    *_listed(
        "referee",
        ("games", "Every game: ruleset, resolution, whose file is awaited, deadline, last activity, outcome."),
        (
            "player",
            "Change a player's address, key or time zone; address and key changes are archived, both sides told.",
        ),
    ),
    *_listed(
        "records",
        (
            "site",
            "Write the game's site: index, every report, audit page, dice, archive, Atom feed; every link resolves.",
        ),
    ),
    *_listed(
        "rulesets",
        ("tables", "List the tables a game may replace: name, printed or designed, where documented."),
        ("table", "Print one shipped table as TOML, in the form 'pbem new ... --table NAME=FILE' takes."),
        ("rules", "The installed rulesets: id, title, version, sides, scenarios, where from."),
        (
            "conformance",
            "Check what the referee relies on a ruleset for: determinism, JSON round trips, order templates, legal"
            " bots, refusals by line, games that end, the SVG map, its rule cases; exit 0 only if all hold.",
        ),
    ),
    *_listed(
        "absence",
        ("pause", "Pause the game's clock: no deadline, reminder or NMR until it is resumed; announced."),
        ("resume", "End the game's pause; its deadline moves on by the pause's length; announced."),
        ("vacation", "Grant a side a vacation: the current deadline moves by its days; announced."),
    ),
    # the groups (Typer lists them after the commands)
    *_listed(
        "referee",
        ("observer", "People who follow a game: each is mailed every resolution's public report; never a player."),
    ),
    *_listed("service", ("outbox", "What the referee owes and has sent.")),
    *_listed("referee", ("game", "Change a game's settings.")),
    *_listed("config", ("config", "The referee's configuration file (--config FILE, $PBEM_CONFIG or ./pbem.toml).")),
    *_listed(
        "hooks",
        (
            "hook",
            "A game's webhooks: your move, reminders, late notices and results posted to a chat or an HTTP endpoint.",
        ),
    ),
)

MODULES: dict[str, str] = {c.name: c.module for c in COMMANDS}
"""Each command's module, by the command's name."""
