"""A throwaway PostgreSQL server for the tests that run pbem on PostgreSQL.

``--db`` takes any SQLAlchemy URL, and the hot paths have a second runner for
databases other than SQLite (pbem/transaction.py), so some tests run on a real
PostgreSQL too.  The server is, in order of preference:

- the one named by ``PBEM_TEST_POSTGRES`` (an SQLAlchemy URL of a database the
  tests may create databases from, e.g.
  ``postgresql+psycopg://postgres@/postgres?host=/run/postgresql``);
- a fresh cluster made with the machine's ``initdb`` in a temporary folder,
  listening only on a Unix socket there, stopped at the end of the session (run
  as the ``postgres`` user when the tests run as root, since PostgreSQL refuses
  to run as root).

With neither (no PostgreSQL installed, or no psycopg), those tests are skipped
and say why.  `.ci/run` installs Debian's postgresql so that CI runs them.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ENV = "PBEM_TEST_POSTGRES"


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return versions[-1] if versions else None


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


class NoPostgres(RuntimeError):
    """No PostgreSQL server can be started here (the message says why)."""


@contextmanager
def throwaway_server() -> Iterator[str]:
    """A fresh PostgreSQL cluster in a temporary folder, listening only on a Unix
    socket there, stopped and removed at the end; its SQLAlchemy URL (without
    database name).  The benchmark (bench/bench.py) uses it too."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if not (initdb and pg_ctl):
        raise NoPostgres(f"no PostgreSQL here: install it (Debian: apt-get install postgresql) or set {ENV}")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise NoPostgres("running as root and there is no 'postgres' user to run the server as") from None
    folder = Path(tempfile.mkdtemp(prefix="pbem-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data = folder / "data"
    subprocess.run(
        _as_server_user([initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]),
        check=True,
        capture_output=True,
    )
    options = f"-k {folder} -c listen_addresses='' -c fsync=off"
    subprocess.run(
        _as_server_user([pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]),
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql+psycopg://postgres@/postgres?host={folder}"
    finally:
        subprocess.run(_as_server_user([pg_ctl, "-D", str(data), "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """An SQLAlchemy URL (without database name) of a running PostgreSQL server."""
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    given = os.environ.get(ENV)
    if given:
        yield given
        return
    try:
        with throwaway_server() as url:
            yield url
    except NoPostgres as exc:
        pytest.skip(str(exc))


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A new, empty database on the server for one test (dropped afterwards)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin = create_engine(postgres_server, isolation_level="AUTOCOMMIT")
    name = f"pbem_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(postgres_server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
