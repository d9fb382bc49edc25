"""Fast start (the speed work): what each command imports, not how long it takes.

Every registered command runs as a real process (``python -X importtime -m pbem``)
on a real database, and the modules it imported are checked against what it may
use.  A command that needs no database imports neither SQLAlchemy nor SQLModel
(nor pydantic, which SQLModel and Typer's own value conversion pull in) nor the
report stack; the hot commands open an SQLite file without SQLAlchemy.  A command
added to ``pbem/cli/`` without an entry in ``RUNS`` fails
``test_every_command_has_an_import_check``: say what it may import.

docs/performance.md ("Start-up") gives the CPU these imports cost.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main

from pbem import store
from pbem.audit import archive
from pbem.cli.application import app
from pbem.cli.catalog import COMMANDS as COMMAND_TABLE
from pbem.cli.catalog import MODULES
from pbem.referee import intake, lifecycle, resolve
from pbem.turnfiles import keys, sshsig
from tests.support.imports import imports_of, offending

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]

COMMAND_MODULES = set(MODULES.values())
"""The modules of pbem.cli that define commands: a command line imports the one of
the command it names, and no other (a command line naming none, none of them)."""
ORM = ("sqlalchemy", "sqlmodel", "pydantic", "pbem.store.orm")
REPORTS = ("jinja2", "pbem.reports.render", "pbem.reports.assemble", "cairosvg")
HEAVY = (*ORM, *REPORTS, "rich")
NO_DATABASE = HEAVY
"""What a command that needs no database must not import."""
PLAIN_SQL = HEAVY
"""What the hot commands (a player's, a referee's cron) must not import either:
they open an SQLite file with the standard library."""
ASYMMETRIC = "cryptography.hazmat.primitives.asymmetric"
SSH_MODULE = (
    "cryptography.hazmat.primitives.serialization",
    "bcrypt",
    f"{ASYMMETRIC}.rsa",
    f"{ASYMMETRIC}.ec",
    f"{ASYMMETRIC}.padding",
    f"{ASYMMETRIC}.dsa",
)
"""cryptography's SSH key module and the other key types' modules: an Ed25519 key
(``pbem keygen``'s) is read, written, signed and checked without them (pbem/turnfiles/keys.py,
pbem/turnfiles/sshsig.py)."""


@dataclass(frozen=True)
class Run:
    """One run of a command: its arguments (built in the world's folder), the
    modules it must not import (a name covers its submodules), its exit status."""

    args: Callable[[Path], list[str]]
    forbidden: tuple[str, ...]
    exit_code: int = 0
    prepare: Callable[[Path], None] | None = None


def _submit_turn(world: Path) -> None:
    engine = store.open_engine(world / "referee.db", create=False)
    try:
        intake.submit(engine, (world / "turn.txt").read_bytes(), (world / "turn.txt.sig").read_text(encoding="utf-8"))
    finally:
        engine.dispose()


def _give_an_address(world: Path) -> None:
    con = sqlite3.connect(world / "referee.db")
    con.execute("UPDATE player SET email = 'rep@example.org' WHERE game_id = 'g1' AND side = 'republic'")
    con.commit()
    con.close()


RUNS: dict[str, list[Run] | str] = {
    "keygen": [
        Run(lambda w: ["keygen", "k3", "--dir", str(w / "more-keys")], (*NO_DATABASE, "pbem.rules", *SSH_MODULE))
    ],
    "sign": [
        Run(
            lambda w: ["sign", str(w / "turn.txt"), "--key", str(w / "keys" / "empire")],
            (*NO_DATABASE, "pbem.rules", *SSH_MODULE),
        )
    ],
    "case": [
        Run(
            lambda w: ["case", str(ROOT / "rules" / "farrapos" / "cases" / "actions-invade-empty-city.toml")],
            NO_DATABASE,
        )
    ],
    "audit": [
        Run(lambda w: ["audit", "--archive", str(w / "g1.json")], NO_DATABASE),
        Run(lambda w: ["audit", "g1"], PLAIN_SQL),
    ],
    "dice": [
        Run(lambda w: ["dice", "--archive", str(w / "g1.json"), "--stats"], (*NO_DATABASE, "cryptography")),
        Run(lambda w: ["dice", "g1", "--json"], (*PLAIN_SQL, "cryptography")),
    ],
    "status": [Run(lambda w: ["status", "g1"], (*PLAIN_SQL, *SSH_MODULE))],
    "orders": [
        Run(lambda w: ["orders", "g1", "--side", "empire", "-o", str(w / "orders.txt")], PLAIN_SQL),
        Run(
            lambda w: [
                "orders",
                "--position",
                str(next((w / "reports-1").glob("*.position.json"))),
                "--side",
                "empire",
                "-o",
                str(w / "orders-offline.txt"),
            ],
            NO_DATABASE,
        ),
    ],
    "check": [
        Run(lambda w: ["check", str(w / "turn.txt")], (*PLAIN_SQL, *SSH_MODULE)),
        Run(
            lambda w: [
                "check",
                str(w / "turn.txt"),
                "--position",
                str(next((w / "reports-1").glob("*.position.json"))),
            ],
            # the rulesets found without importlib.metadata (and email, zipfile, csv with it); the verdict's
            # light half (pbem.referee.judging): neither the store nor the dice; of Farrapos, neither the turn's
            # resolution (its battles), the score's breakdown nor the rule cases' form
            (
                *NO_DATABASE,
                *SSH_MODULE,
                "importlib.metadata",
                "pbem.store",
                "pbem.dice",
                "pbem.referee.verdict",
                "pbem.rules.farrapos.turn",
                "pbem.rules.farrapos.battle",
                "pbem.rules.farrapos.victory_points",
                "pbem.rules.farrapos.case_form",
            ),
        ),
    ],
    "submit": [Run(lambda w: ["submit", str(w / "turn.txt")], (*PLAIN_SQL, *SSH_MODULE))],
    "process": [
        Run(lambda w: ["process", "--all", "-q"], PLAIN_SQL, prepare=_submit_turn),
        Run(lambda w: ["process", "--all", "-q", "--jobs", "2"], PLAIN_SQL, prepare=_submit_turn),
        # --reports writes each side's report: read in plain SQL, rendered from the Jinja templates
        # (compiled ones from the cache)
        Run(
            lambda w: ["process", "--all", "-q", "--reports", str(w / "reports")], (*ORM, "rich"), prepare=_submit_turn
        ),
    ],
    "export": [Run(lambda w: ["export", "g1", "-o", str(w / "out.json")], PLAIN_SQL)],
    "new": [
        Run(
            lambda w: [
                "new",
                "g2",
                "--rules",
                "farrapos",
                "--player",
                f"republic={w / 'keys' / 'republic.pub'}",
                "--player",
                f"empire={w / 'keys' / 'empire.pub'}",
            ],
            (*PLAIN_SQL, *SSH_MODULE),
        ),
        Run(
            lambda w: [
                "--db",
                str(w / "new.db"),
                "new",
                "g1",
                "--rules",
                "farrapos",
                "--player",
                f"republic={w / 'keys' / 'republic.pub'}",
                "--player",
                f"empire={w / 'keys' / 'empire.pub'}",
            ],
            (*PLAIN_SQL, *SSH_MODULE),
        ),
    ],
    "rollback": [Run(lambda w: ["rollback", "g1", "--to", "0"], PLAIN_SQL)],
    "extend": [Run(lambda w: ["extend", "g1", "--chain-length", "16"], PLAIN_SQL)],
    "report": [
        Run(lambda w: ["report", "g1", "-o", str(w / "r.html")], (*ORM, "rich")),
        Run(lambda w: ["report", "g1", "--format", "audit", "-o", str(w / "audit.html")], (*ORM, "rich")),
    ],
    # the mail room answers a turn file with a receipt, written by a Jinja template
    "ingest": [Run(lambda w: ["ingest", "--dir", str(w / "inbox"), "-q"], ORM)],
    "tables": [Run(lambda w: ["tables", "furor-barbarus", "--scenario", "soissons"], (*NO_DATABASE, "cryptography"))],
    "table": [Run(lambda w: ["table", "farrapos", "battle-table"], (*NO_DATABASE, "cryptography"))],
    "rules": [Run(lambda w: ["rules", "--json"], (*NO_DATABASE, "cryptography"))],
    "conformance": [
        Run(lambda w: ["conformance", "furor-barbarus", "--scenario", "soissons", "--games", "1"], NO_DATABASE)
    ],
    "games": [Run(lambda w: ["games", "--json"], PLAIN_SQL)],
    "player": [Run(lambda w: ["player", "g1", "republic", "--email", "rep@example.org"], PLAIN_SQL)],
    "tick": [Run(lambda w: ["tick", "--dir", str(w / "inbox")], PLAIN_SQL)],
    "serve": "runs until SIGTERM: the same steps as tick, whose run is checked (its --help is checked below)",
    "outbox": [Run(lambda w: ["outbox", "--json"], PLAIN_SQL), Run(lambda w: ["outbox", "retry"], PLAIN_SQL)],
    "game": [Run(lambda w: ["game", "set", "g1", "deadline=48h"], PLAIN_SQL)],
    "observer": [Run(lambda w: ["observer", "add", "g1", "carol@example.org"], PLAIN_SQL)],
    "pause": [Run(lambda w: ["pause", "g1", "--until", "2d"], PLAIN_SQL)],
    "resume": [Run(lambda w: ["resume", "g1"], PLAIN_SQL, exit_code=1)],  # not paused: refused
    "vacation": [Run(lambda w: ["vacation", "g1", "empire", "1"], PLAIN_SQL, exit_code=1)],  # no allowance
    "site": [
        Run(lambda w: ["site", "g1", "-o", str(w / "site"), "--site-url", "https://example.org/g1/"], (*ORM, "rich"))
    ],
    # renders the report of the side with an address, then finds no SMTP server there (exit 1):
    # the report stack and the mail builder
    "send": [
        Run(
            lambda w: ["send", "g1", "--smtp", "127.0.0.1:1", "--sender", "referee@example.org"],
            (*ORM, "rich"),
            exit_code=1,
            prepare=_give_an_address,
        )
    ],
    # the configuration file's settings need neither the ORM nor the reports; check opens the database in plain SQL
    "config": [Run(lambda w: ["config", "show"], NO_DATABASE), Run(lambda w: ["config", "check"], PLAIN_SQL)],
    "hook": [
        Run(lambda w: ["hook", "add", "g1", "https://example.org/hook", "--format", "slack"], PLAIN_SQL),
        Run(lambda w: ["hook", "list", "g1"], PLAIN_SQL),
    ],
    "demo": "plays whole games and writes every report: the whole stack, by design (its --help is checked below)",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Game g1 on a real SQLite file: resolution 1 made, the empire's next turn
    written and signed (``turn.txt`` + ``.sig``), the archive exported."""
    w = tmp_path_factory.mktemp("world")
    signers = {}
    public = {}
    for side in ("republic", "empire"):
        private, pub = keys.generate_ed25519(side, w / "keys")
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    engine = store.open_engine(w / "referee.db")
    lifecycle.new_game(engine, "g1", "farrapos", None, [], public)
    first = lifecycle.next_turn_file(engine, "g1", "republic", bot="random").encode("utf-8")
    intake.submit(engine, first, sshsig.sign(first, signers["republic"]))
    assert resolve.process(engine, ["g1"])[0].resolved == 1
    turn = lifecycle.next_turn_file(engine, "g1", "empire", bot="random").encode("utf-8")
    (w / "turn.txt").write_bytes(turn)
    (w / "turn.txt.sig").write_text(sshsig.sign(turn, signers["empire"]), encoding="utf-8")
    archive.export(engine, "g1", w / "g1.json")
    from pbem.reports import assemble as reporting

    reporting.write_resolution_reports(engine, "g1", 1, w / "reports-1")  # with g1-r1.position.json beside them
    engine.dispose()
    con = sqlite3.connect(w / "referee.db")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    (w / "inbox").mkdir()
    return w


def test_every_command_has_an_import_check() -> None:
    assert set(RUNS) >= set(COMMANDS), (
        f"add to RUNS what these commands may import: {sorted(set(COMMANDS) - set(RUNS))}"
    )


CASES = [(name, i) for name in COMMANDS if isinstance(RUNS.get(name), list) for i in range(len(RUNS[name]))]  # type: ignore[arg-type]


@pytest.mark.parametrize(("command", "index"), CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_each_command_imports_only_what_it_uses(world: Path, tmp_path: Path, command: str, index: int) -> None:
    run = RUNS[command][index]  # type: ignore[index]
    here = tmp_path / "w"
    shutil.copytree(world, here)
    if run.prepare is not None:
        run.prepare(here)
    result, modules = imports_of(run.args(here), here, here / "referee.db")
    errors = "\n".join(line for line in result.stderr.splitlines() if not line.startswith("import time:"))
    assert result.returncode == run.exit_code, errors
    assert "pbem.cli" in modules
    assert offending(modules, run.forbidden) == [], f"pbem {' '.join(run.args(here))} imported what it does not use"
    assert modules & COMMAND_MODULES == {MODULES[command]}  # its own command module, no other


HELP_DRIVER = """
import sys
import typer.main
from pbem.cli import app

group = typer.main.get_command(app)
for args in [["--help"], ["--version"], *[[name, "--help"] for name in group.commands]]:
    try:
        group.main(args, prog_name="pbem", standalone_mode=False)
    except SystemExit:
        pass
print("--- modules ---")
print("\\n".join(sorted(sys.modules)))
"""


def test_help_and_version_import_nothing_heavy(tmp_path: Path) -> None:
    """``pbem --help``, ``--version`` and every command's ``--help``, in one
    process: none imports the database, the reports, pydantic, cryptography or
    the rules."""
    result = subprocess.run(
        [sys.executable, "-c", HELP_DRIVER], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules = set(result.stdout.split("--- modules ---", 1)[1].split())
    assert "pbem.cli" in modules
    assert offending(modules, (*HEAVY, "cryptography", "pbem.rules")) == []


def test_version_is_the_package_version() -> None:
    import tomllib

    result, _ = imports_of(["--version"], ROOT)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert result.stdout == f"pbem {version}\n"


def test_the_light_store_knows_every_table() -> None:
    """``store.open_database`` checks the schema without SQLAlchemy: its list of
    tables is the SQLModel metadata's."""
    from sqlmodel import SQLModel

    import pbem.store.orm  # noqa: F401  (the tables)

    assert store.TABLES == set(SQLModel.metadata.tables)


def test_the_light_store_refuses_what_the_orm_refuses(tmp_path: Path) -> None:
    con = sqlite3.connect(tmp_path / "other.db")
    con.execute("CREATE TABLE other (x)")
    con.commit()
    con.close()
    with pytest.raises(store.StoreError, match="not a pbem database"):
        store.open_database(tmp_path / "other.db")
    (tmp_path / "junk.db").write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(store.StoreError, match="cannot open database"):
        store.open_database(tmp_path / "junk.db")
    with pytest.raises(store.StoreError, match="no database at"):
        store.open_database(tmp_path / "missing.db")


def test_a_command_line_builds_only_its_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Typer builds each registered command before it runs one; ``pbem`` builds
    the one the command line names (the whole application for ``--help`` and for a
    name it does not know, whose error lists the others)."""
    from pbem.cli import application as cli_app

    built: list[str] = []
    real = typer.main.get_command_from_info

    def counting(command_info: typer.models.CommandInfo, **kwargs: object) -> object:
        built.append(cli_app._name(command_info) or "")
        return real(command_info, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(typer.main, "get_command_from_info", counting)
    for argv, expected in [
        (["sign", "--help"], ["sign"]),
        (["--db", "sign", "game", "set", "--help"], ["set"]),
        (["status", "--db", "x.db", "--help"], ["status"]),
    ]:
        built.clear()
        monkeypatch.setattr(sys, "argv", ["pbem", *argv])
        with pytest.raises(SystemExit):
            cli_app.main()
        assert built == expected, argv
    built.clear()
    monkeypatch.setattr(sys, "argv", ["pbem", "sgin"])
    with pytest.raises(SystemExit):
        cli_app.main()
    assert built == []  # the list of commands, made from the table without Typer reading any callback
    assert "Did you mean 'sign'?" in capsys.readouterr().err


def test_the_list_of_commands_reads_no_signature_and_makes_no_help_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``pbem --help`` lists each command from the table: Typer reads no callback's
    signature for it (it read 35 empty ones, with a callback each) and no command gets
    the help option the list never shows (35 options made): about 12 M instructions."""
    from pbem.cli import application as cli_app

    signatures: list[object] = []
    options: list[object] = []
    real_params = typer.main.get_params_from_function
    real_help = typer.core.TyperCommand.get_help_option

    def reading(callback: Callable[..., object]) -> object:
        signatures.append(callback)
        return real_params(callback)

    def helping(command: typer.core.TyperCommand, ctx: object) -> object:
        options.append(command.name)
        return real_help(command, ctx)  # type: ignore[arg-type]

    monkeypatch.setattr(typer.main, "get_params_from_function", reading)
    monkeypatch.setattr(typer.core.TyperCommand, "get_help_option", helping)
    monkeypatch.setenv("COLUMNS", "80")
    group = typer.main.get_command(cli_app.listing())
    with pytest.raises(SystemExit), contextlib.redirect_stdout(io.StringIO()) as out:
        group.main(["--help"], prog_name="pbem")
    assert "keygen" in out.getvalue() and "hook" in out.getvalue()
    assert {getattr(f, "__name__", "") for f in signatures} == {"_main", "_print_version"}  # pbem's own
    assert options == []


def test_a_float_option_is_converted_and_refused_without_pydantic(tmp_path: Path) -> None:
    """``tick --backoff`` is a float: converted by pbem.cli.values too (Typer's own
    conversion imported pydantic), and a bad value refused the way Typer words it."""
    (tmp_path / "inbox").mkdir()
    result, modules = imports_of(
        ["tick", "--dir", str(tmp_path / "inbox"), "--backoff", "abc"], tmp_path, tmp_path / "none.db"
    )
    assert result.returncode == 2 and "Invalid value for '--backoff': 'abc' is not a valid float." in result.stderr
    assert offending(modules, ("pydantic",)) == []


def test_the_list_of_commands_builds_no_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pbem --help`` (and a command line naming no command) builds each command
    without its parameters: only its name and help are listed.  The text is the
    whole application's, to the byte (at two widths)."""
    from pbem.cli import application as cli_app

    def help_of(application: typer.Typer, width: int) -> str:
        group = typer.main.get_command(application)
        monkeypatch.setenv("COLUMNS", str(width))
        with pytest.raises(SystemExit), contextlib.redirect_stdout(io.StringIO()) as out:
            group.main(["--help"], prog_name="pbem")
        return out.getvalue()

    built: list[int] = []
    real = typer.main.get_params_from_function

    def counting(callback: Callable[..., object]) -> dict[str, object]:
        result = real(callback)
        built.append(len(result))
        return result  # type: ignore[return-value]

    listed = cli_app.app_for(["--help"])
    monkeypatch.setattr(typer.main, "get_params_from_function", counting)
    for width in (80, 120):
        assert help_of(listed, width) == help_of(cli_app.app, width)
    built.clear()
    typer.main.get_command(cli_app.app)
    every = sum(built)
    built.clear()
    typer.main.get_command(listed)
    assert every > 200 and sum(built) < 20  # the callbacks' own (--db, --config, --version, a group's) only
    assert cli_app.app_for(["--", "status"]) is cli_app.app


def test_a_warm_rules_data_cache_parses_no_toml(world: Path, tmp_path: Path) -> None:
    """``check --position`` reads the rules data from the user's cache once it is
    warm: the second run imports no ``tomllib``."""
    import os

    position = str(next((world / "reports-1").glob("*.position.json")))
    env = {**os.environ, "PBEM_CACHE_DIR": str(tmp_path / "cache")}
    runs = []
    for _ in range(2):
        result = subprocess.run(
            [
                sys.executable,
                "-X",
                "importtime",
                "-m",
                "pbem",
                "check",
                str(world / "turn.txt"),
                "--position",
                position,
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        runs.append({line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "import time:" in line})
    assert "tomllib" in runs[0] and "tomllib" not in runs[1]


def test_the_table_of_commands_is_the_commands() -> None:
    """pbem/cli/catalog.py, which the list of commands is made from without importing
    any command module, says what the modules define: each command's name, its
    module, the first paragraph of its help (all the list shows of it), in the
    order the whole application lists them."""
    group = typer.main.get_command(app)
    modules: dict[str, str] = {}
    for info in app.registered_commands:
        assert info.callback is not None
        modules[typer.main.get_command_name(info.callback.__name__) if info.name is None else info.name] = (
            info.callback.__module__
        )
    for group_info in app.registered_groups:
        assert group_info.typer_instance is not None and group_info.name is not None
        callbacks = [c.callback for c in group_info.typer_instance.registered_commands if c.callback is not None]
        modules[group_info.name] = callbacks[0].__module__
    listed = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        first = (command.help or "").split("\n\n", 1)[0]
        assert command.short_help is None and not command.hidden and not command.deprecated, name
        listed.append((name, modules[name], " ".join(first.split())))
    assert [tuple(c) for c in COMMAND_TABLE] == listed


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--version"], [], ["sgin"], ["--db", "x.db", "--help"]],
    ids=["help", "version", "none", "unknown", "db"],
)
def test_a_command_line_naming_no_command_imports_no_command_module(tmp_path: Path, args: list[str]) -> None:
    result, modules = imports_of(args, tmp_path)
    assert "Usage:" in result.stdout + result.stderr or result.stdout.startswith("pbem ")
    assert "pbem.cli" in modules
    assert modules & COMMAND_MODULES == set()


@pytest.mark.parametrize("name", [c.name for c in COMMAND_TABLE])
def test_a_commands_help_imports_its_module_alone(tmp_path: Path, name: str) -> None:
    result, modules = imports_of([name, "--help"], tmp_path)
    assert result.returncode == 0 and "Usage:" in result.stdout, result.stderr[-2000:]
    assert modules & COMMAND_MODULES == {MODULES[name]}
