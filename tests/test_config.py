"""The referee's configuration file (``--config``, ``$PBEM_CONFIG``, ``./pbem.toml``),
the mail options with one name across ``send``/``tick``/``serve``/``ingest``,
``pbem config check`` against real servers (aiosmtpd, dovecot), the side without an
address named at every ``tick``, and ``-o -`` as standard output."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from tests.conftest import Table
from tests.support.imap_server import Dovecot, free_port, password
from tests.support.mailkit import Collector, SmtpServer

pytestmark = pytest.mark.usefixtures("maps_drawn_once")


def _write(table: Table, text: str, name: str = "referee.toml") -> Path:
    path = table.tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def _run(table: Table, config: Path, *args: str) -> tuple[int, str, str]:
    """``pbem --config FILE ARGS`` without ``--db``: the database is the file's."""
    from typer.testing import CliRunner

    from pbem.cli import app

    result = CliRunner().invoke(app, ["--config", str(config), *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _game(new_farrapos: Callable[..., Table], *emails: str) -> Table:
    extra = [x for e in emails for x in ("--email", e)]
    return new_farrapos("g1", *extra)


@pytest.fixture
def auth_smtp() -> Iterator[tuple[Controller, Collector]]:
    """An SMTP server on loopback that wants user ``referee``, password ``s3cret``."""
    collector = Collector()

    def authenticator(server, session, envelope, mechanism, auth_data):  # type: ignore[no-untyped-def]
        return AuthResult(success=auth_data.login == b"referee" and auth_data.password == b"s3cret", handled=False)

    controller = Controller(
        collector,
        hostname="127.0.0.1",
        port=free_port(),
        authenticator=authenticator,
        auth_required=True,
        auth_require_tls=False,
    )
    controller.start()
    try:
        yield controller, collector
    finally:
        controller.stop()


# ------------------------------------------------------------------ the file


def test_tick_takes_the_database_smtp_and_sender_from_the_file(
    new_farrapos: Callable[..., Table],
    smtp: SmtpServer,
) -> None:
    table = _game(new_farrapos, "republic=rep@example.org", "empire=emp@example.org")
    config = _write(
        table,
        f'db = "{table.db.name}"\n\n[smtp]\nhost = "127.0.0.1"\nport = {smtp.port}\nsender = "ref@example.org"\n',
    )
    code, out, err = _run(table, config, "tick")
    assert code == 0, err
    assert "4 sent" in out  # each side its report of the game as created, and the ledger entry of its creation
    senders = {str(m["From"]) for m in smtp.handler.parsed()}
    assert senders == {"ref@example.org"}


def test_the_command_line_overrides_the_file(new_farrapos: Callable[..., Table], smtp: SmtpServer) -> None:
    table = _game(new_farrapos, "republic=rep@example.org")
    config = _write(
        table,
        f'db = "{table.db}"\n[smtp]\nhost = "127.0.0.1"\nport = 1\nsender = "ref@example.org"\n',
    )
    code, out, err = _run(table, config, "tick", "--smtp", smtp.address, "--sender", "other@example.org")
    assert code == 0, err
    assert "2 sent" in out  # the republic's report of the game as created, and the ledger entry of its creation
    assert {str(m["From"]) for m in smtp.handler.parsed()} == {"other@example.org"}


def test_a_relative_db_is_read_beside_the_file_and_pbem_config_names_it(
    new_farrapos: Callable[..., Table], tmp_path: Path
) -> None:
    table = _game(new_farrapos)
    config = _write(table, f'db = "{table.db.name}"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "pbem", "games"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env={**_env(), "PBEM_CONFIG": str(config)},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "g1" in run.stdout
    (elsewhere / "pbem.toml").write_text(f'db = "{table.db}"\n', encoding="utf-8")
    found = subprocess.run(
        [sys.executable, "-m", "pbem", "games"], capture_output=True, text=True, cwd=elsewhere, env=_env(), timeout=120
    )
    assert found.returncode == 0, found.stderr
    assert "g1" in found.stdout


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k not in ("PBEM_DB", "PBEM_CONFIG")}


@pytest.mark.parametrize(
    "text, problem",
    [
        ('db = "x.db"\n\n[smtp]\nhost = "h"\nprot = 25\n', "line 5: unknown key 'prot' in [smtp]"),
        ('db = "x.db"\nsmtp_host = "h"\n', "line 2: unknown key 'smtp_host'"),
        ('[imap]\nurl = "imaps://r@h/INBOX"\n[pop]\nhost = "h"\n', "line 3: unknown key 'pop'"),
        ('[smtp]\nhost = "h"\nport = "587"\n', "line 3: [smtp] port must be a port number"),
        ('[smtp]\nstarttls = "yes"\n', "line 2: [smtp] starttls must be true or false"),
        ('[defaults]\ndeadline = "three days"\n', "line 2: [defaults] deadline: 'three days' is not a duration"),
        ('[defaults]\ntz = "Mars/Olympus"\n', "line 2: [defaults] tz: 'Mars/Olympus' is not an IANA time zone"),
        ('[smtp]\nhost = "h"\nstarttls = true\nssl = true\n', "sets both starttls and ssl"),
        ("db = \n", "not TOML"),
    ],
)
def test_a_file_that_cannot_be_used_is_refused_naming_the_key_and_line(
    new_farrapos: Callable[..., Table], text: str, problem: str
) -> None:
    table = _game(new_farrapos)
    config = _write(table, text)
    before = table.dump()
    code, _out, err = _run(table, config, "--db", str(table.db), "tick")
    assert code == 1
    assert problem in err and err.startswith(f"pbem: {config}")
    assert len(err.strip().splitlines()) == 1
    assert table.dump() == before


def test_a_missing_config_file_is_named(table: Table) -> None:
    code, _out, err = _run(table, table.tmp / "nope.toml", "games")
    assert code == 1
    assert f"configuration file {table.tmp / 'nope.toml'}: no such file" in err


def test_a_missing_password_file_is_named(new_farrapos: Callable[..., Table], smtp: SmtpServer) -> None:
    table = _game(new_farrapos, "republic=rep@example.org")
    config = _write(
        table,
        f'db = "{table.db}"\n[smtp]\nhost = "127.0.0.1"\nport = {smtp.port}\nuser = "referee"\n'
        'password_file = "secrets/smtp.pass"\n',
    )
    code, _out, err = _run(table, config, "tick")
    assert code == 1
    assert f"cannot read the password file {table.tmp / 'secrets' / 'smtp.pass'}" in err
    assert smtp.handler.messages == []


def test_defaults_give_pbem_new_its_clock(table: Table) -> None:
    _, rep = table.key("republic")
    _, emp = table.key("empire")
    config = _write(table, f'db = "{table.db}"\n[defaults]\ndeadline = "3d"\nremind = "1d"\n')
    code, out, err = _run(
        table, config, "new", "g1", "--rules", "farrapos", "--player", f"republic={rep}", "--player", f"empire={emp}"
    )
    assert code == 0, err
    assert "clock: deadline 3d, remind 1d before" in out
    code, out, err = _run(
        table,
        config,
        "new",
        "g2",
        "--rules",
        "farrapos",
        "--player",
        f"republic={rep}",
        "--player",
        f"empire={emp}",
        "--deadline",
        "2d",
    )
    assert code == 0, err
    assert "clock: deadline 2d, remind 1d before" in out


def test_config_show_prints_the_settings_without_secrets(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    (table.tmp / "smtp.pass").write_text("hunter2\n", encoding="utf-8")
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", "hunter3")
    config = _write(
        table,
        f'db = "{table.db}"\n[smtp]\nhost = "mail.example.org"\nport = 587\nstarttls = true\nuser = "ref"\n'
        'password_file = "smtp.pass"\nsender = "ref@example.org"\n',
    )
    code, out, err = _run(table, config, "config", "show", "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["smtp_host"] == "mail.example.org" and shown["smtp_password_file"] == str(table.tmp / "smtp.pass")
    assert shown["starttls"] == "True" and shown["sender"] == "ref@example.org"
    assert "hunter" not in out


# ------------------------------------------------------------------ one name for each option


def test_send_takes_its_server_sender_and_password_file_from_the_file(
    new_farrapos: Callable[..., Table], auth_smtp: tuple[Controller, Collector]
) -> None:
    controller, collector = auth_smtp
    table = _game(new_farrapos, "republic=rep@example.org")
    (table.tmp / "smtp.pass").write_text("s3cret\n", encoding="utf-8")
    config = _write(
        table,
        f'db = "{table.db}"\n[smtp]\nhost = "127.0.0.1"\nport = {controller.port}\nuser = "referee"\n'
        'password_file = "smtp.pass"\nsender = "ref@example.org"\n',
    )
    code, out, err = _run(table, config, "send", "g1")
    assert code == 0, err
    assert "sent to rep@example.org" in out
    assert [str(m["From"]) for m in collector.parsed()] == ["ref@example.org"]


def test_send_user_stays_a_hidden_alias_of_smtp_user(
    new_farrapos: Callable[..., Table], auth_smtp: tuple[Controller, Collector]
) -> None:
    controller, collector = auth_smtp
    table = _game(new_farrapos, "republic=rep@example.org")
    pw = table.tmp / "pw"
    pw.write_text("s3cret\n", encoding="utf-8")
    smtp_at = f"127.0.0.1:{controller.port}"
    r = table.run(
        "send",
        "g1",
        "--smtp",
        smtp_at,
        "--sender",
        "r@example.org",
        "--user",
        "referee",
        "--smtp-password-file",
        str(pw),
    )
    assert r.exit_code == 0, r.stderr
    r = table.run(
        "send",
        "g1",
        "--smtp",
        smtp_at,
        "--sender",
        "r@example.org",
        "--smtp-user",
        "referee",
        "--smtp-password-file",
        str(pw),
    )
    assert r.exit_code == 0, r.stderr
    assert len(collector.messages) == 2
    assert "--user" not in table.run("send", "--help").stdout
    for command in ("send", "tick", "serve", "ingest"):
        text = table.run(command, "--help").stdout
        for option in ("--smtp ", "--sender", "--starttls", "--ssl", "--smtp-user", "--smtp-password-file"):
            assert option in text, (command, option)


def test_send_without_a_sender_anywhere_is_a_usage_error(new_farrapos: Callable[..., Table]) -> None:
    table = _game(new_farrapos, "republic=rep@example.org")
    r = table.run("send", "g1", "--smtp", "127.0.0.1:1")
    assert r.exit_code == 2
    assert "send needs --sender ADDRESS (or [smtp] sender in the configuration file)" in r.stderr


# ------------------------------------------------------------------ config check


def test_config_check_says_what_works(
    table: Table,
    auth_smtp: tuple[Controller, Collector],
    dovecot_plain: Dovecot,
) -> None:
    controller, collector = auth_smtp
    table.key("republic")
    store_db = table.tmp / "referee.db"
    from pbem import store

    store.create_database(store_db).dispose()
    (table.tmp / "smtp.pass").write_text("s3cret\n", encoding="utf-8")
    (table.tmp / "imap.pass").write_text(password("referee") + "\n", encoding="utf-8")
    config = _write(
        table,
        f'db = "referee.db"\n[smtp]\nhost = "127.0.0.1"\nport = {controller.port}\nuser = "referee"\n'
        f'password_file = "smtp.pass"\n[imap]\nurl = "{dovecot_plain.url("referee")}"\npassword_file = "imap.pass"\n',
    )
    code, out, err = _run(table, config, "config", "check")
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[0] == f"config {config}: read"
    assert lines[1].startswith(f"database {table.tmp / 'referee.db'}: ok (schema ")
    assert lines[2] == f"smtp 127.0.0.1:{controller.port}: ok: connected (no TLS, logged in as referee)"
    assert lines[3].startswith(f"imap referee@127.0.0.1:{dovecot_plain.port}/INBOX: ok: logged in as referee")
    assert collector.messages == []  # nothing was sent


def test_config_check_names_a_wrong_password_and_an_unreachable_port(
    table: Table,
    auth_smtp: tuple[Controller, Collector],
    dovecot_plain: Dovecot,
) -> None:
    controller, _collector = auth_smtp
    (table.tmp / "smtp.pass").write_text("wrong\n", encoding="utf-8")
    (table.tmp / "imap.pass").write_text("wrong\n", encoding="utf-8")
    config = _write(
        table,
        f'db = "missing.db"\n[smtp]\nhost = "127.0.0.1"\nport = {controller.port}\nuser = "referee"\n'
        f'password_file = "smtp.pass"\n[imap]\nurl = "{dovecot_plain.url("referee")}"\npassword_file = "imap.pass"\n',
    )
    code, out, _err = _run(table, config, "config", "check")
    assert code == 1
    lines = out.splitlines()
    assert lines[1].startswith(f"database {table.tmp / 'missing.db'}: FAILED:")
    assert "FAILED" in lines[2] and "refused the login of 'referee'" in lines[2]
    assert "FAILED" in lines[3] and "refused the login of 'referee'" in lines[3]
    closed = free_port()
    (table.tmp / "smtp.pass").write_text("s3cret\n", encoding="utf-8")
    config = _write(table, f'[smtp]\nhost = "127.0.0.1"\nport = {closed}\n', "closed.toml")
    code, out, _err = _run(table, config, "--db", str(table.tmp / "missing.db"), "config", "check")
    assert code == 1
    assert f"smtp 127.0.0.1:{closed}: FAILED: cannot connect to SMTP server 127.0.0.1:{closed}" in out
    assert "imap: not configured" in out


# ------------------------------------------------------------------ sides without an address


def test_tick_names_every_side_without_an_address(new_farrapos: Callable[..., Table], smtp: SmtpServer) -> None:
    table = _game(new_farrapos, "republic=rep@example.org")
    for _ in range(2):
        r = table.run("tick", "--smtp", smtp.address)
        assert r.exit_code == 0, r.stderr
        assert "g1: empire has no address: its reports are kept, not mailed" in r.stdout
        assert "republic has no address" not in r.stdout


# ------------------------------------------------------------------ -o -


def test_dash_is_standard_output(new_farrapos: Callable[..., Table]) -> None:
    table = _game(new_farrapos)
    r = table.run("report", "g1", "--format", "text", "-o", "-")
    assert r.exit_code == 0, r.stderr
    assert "g1" in r.stdout and "wrote -" in r.stderr
    r = table.run("export", "g1", "-o", "-")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["format"] == "pbem-archive/1"
    r = table.run("orders", "g1", "--side", "republic", "-o", "-")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("game: g1")
    r = table.run("site", "g1", "-o", "-")
    assert r.exit_code == 1
    assert "site writes a folder" in r.stderr
    assert not (Path.cwd() / "-").exists() and not (table.tmp / "-").exists()
