"""What a transaction is to the plain-SQL paths: the :class:`Tx` protocol, its
parameters and rows, and the conflict a concurrent writer raises; the databases a
process opened, closed together as a command ends."""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

Params = Mapping[str, Any]


Row = Sequence[Any]

NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
"""A ``:name`` parameter of a statement (not a ``::type`` cast)."""


READ_ONLY = "pbem_read_only"
"""Engine execution option: a read-only transaction (a plain ``BEGIN`` on SQLite,
see ``store._sqlite_pragmas``)."""


FORCE_GENERIC = "pbem_generic_sql"
"""Engine execution option: run :class:`Tx` through SQLAlchemy even on SQLite
(the tests use it to run the other databases' path on a real file)."""


OPENED: weakref.WeakSet[Any] = weakref.WeakSet()
"""Every database this process opened (an ``SqliteFile``, a ``PgDatabase``, an
SQLAlchemy engine), held weakly, so that a command closes those still held as it
ends (:func:`close_opened`); a handle let go closes its connection itself."""


def opened(handle: Any) -> None:
    """Hold ``handle`` (a database just opened) among :data:`OPENED`."""
    OPENED.add(handle)


def close_opened() -> None:
    """Close every database the process opened and holds still (``dispose``): its
    connections are closed now, not left to the collector at exit.  ``pbem`` does
    this as a command ends, then freezes what is alive (``gc.freeze``), which the
    collector then never walks again, at exit either: an SQLite connection left
    open kept its write-ahead log beside the database."""
    for handle in list(OPENED):
        handle.dispose()


class Conflict(RuntimeError):
    """A uniqueness constraint refused a write: another process wrote it first."""


class Busy(RuntimeError):
    """A deferred writer (``transaction(..., deferred=True)``) could not take SQLite's
    write lock at its first write: another process holds it, or wrote since this
    transaction's snapshot.  Nothing was written; the caller runs it again as an
    ordinary writer."""


class Tx(Protocol):
    """The statements of one transaction; rows are plain tuples."""

    locking_reads: bool
    """True when a writer must lock the rows it reads before changing them
    (``SELECT ... FOR UPDATE``): on any database but SQLite, whose writer holds the
    whole database from ``BEGIN IMMEDIATE`` on."""

    def one(self, sql: str, params: Params) -> Row | None: ...

    def all(self, sql: str, params: Params) -> list[Row]: ...

    def run(self, sql: str, params: Params) -> int:
        """Run one write; the number of rows it changed."""
        ...

    def run_many(self, sql: str, rows: Sequence[Params]) -> None: ...

    def send(self, sql: str, params: Params) -> None:
        """Run one write whose count of rows is not needed: where the database is
        across a network it goes to the server with the next round trip (an error
        in it is raised there, or at the commit)."""
        ...

    def prefetch(self, statements: Sequence[tuple[str, Params]]) -> None:
        """Reads the transaction will ask for, with these very parameters, in this
        order: where a round trip costs, they go to the server together with the
        next one, and each is answered once from what came back, unless a write
        to a table it names came in between.  Elsewhere nothing is done."""
        ...
