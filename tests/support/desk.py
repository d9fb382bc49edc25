"""A referee's desk with many games between two players, queued through the library, and the
checks made after every kill or concurrent run (the crash, concurrency and PostgreSQL tests)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import store
from pbem.audit import archive
from pbem.audit import verify as audit
from pbem.referee import intake, lifecycle, resolve
from pbem.turnfiles import keys, sshsig

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Desk:
    """A referee's database with games between the same two players, and the
    digests of every turn file queued (the files that must never be lost)."""

    tmp: Path
    db: Path | str  # a SQLite file, or an SQLAlchemy URL
    engine: Engine
    signers: dict[str, keys.PrivateKey]
    public: dict[str, str]
    queued: set[str] = field(default_factory=set)
    """Digests of every turn file accepted so far (queued, then resolved)."""

    def pbem(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pbem", "--db", str(self.db), *args],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=timeout,
            cwd=ROOT,
        )

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "pbem", "--db", str(self.db), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=ROOT,
        )

    def reopen(self) -> None:
        self.engine.dispose()
        self.engine = store.open_engine(self.db, create=False)


def open_desk(tmp: Path, url: str | None = None) -> Desk:
    """Keys for both sides and a database: a SQLite file in ``tmp``, or ``url``."""
    keydir = tmp / "keys"
    signers: dict[str, keys.PrivateKey] = {}
    public: dict[str, str] = {}
    for side in ("republic", "empire"):
        private, pub = keys.generate_ed25519(side, keydir)
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    db = tmp / "referee.db" if url is None else url
    return Desk(tmp, db, store.open_engine(db), signers, public)


def new_games(desk: Desk, count: int, prefix: str = "g") -> list[str]:
    ids = [f"{prefix}{i:04d}" for i in range(count)]
    for game_id in ids:
        lifecycle.new_game(desk.engine, game_id, "farrapos", None, [], desk.public)
    return ids


def signed_next_turns(desk: Desk, game_ids: list[str], seed: int = 0) -> list[tuple[str, bytes, str]]:
    """(game, signed message, armored signature) for every side awaited in each game."""
    out = []
    for game_id in game_ids:
        st = lifecycle.status(desk.engine, game_id)
        for side in [] if st.over else st.awaiting:
            message = lifecycle.next_turn_file(desk.engine, game_id, side, bot="random", seed=seed).encode("utf-8")
            out.append((game_id, message, sshsig.sign(message, desk.signers[side])))
    return out


def queue_next_turns(desk: Desk, game_ids: list[str], seed: int = 0) -> int:
    """Submit (through the library) a bot's signed turn file for every awaited side."""
    files = signed_next_turns(desk, game_ids, seed)
    for _game, message, signature in files:
        intake.submit(desk.engine, message, signature, source="test")
        desk.queued.add(hashlib.sha256(message).hexdigest())
    return len(files)


def play_resolutions(desk: Desk, game_id: str, count: int) -> None:
    """Resolutions 1 to ``count`` of one game, each side's orders written by the seeded
    bot (seed 0, 1, ...) and queued through the library."""
    for n in range(count):
        queue_next_turns(desk, [game_id], seed=n)
        assert resolve.process(desk.engine, [game_id])[0].resolved == n + 1


def reported_farrapos_game(tmp: Path, resolutions: int = 3) -> tuple[Any, str]:
    """A database opened as ``pbem`` opens it, holding one Farrapos game played to
    ``resolutions``, whose last reports were written once (templates compiled,
    tables loaded: what a counting test of the reports must not count), and the game."""
    from pbem.reports import assemble

    desk = open_desk(tmp)
    [game] = new_games(desk, 1)
    play_resolutions(desk, game, resolutions)
    desk.engine.dispose()
    db = store.open_database(desk.db)
    assemble.write_resolution_reports(db, game, resolutions, tmp / "warm")
    return db, game


def write_next_turns(desk: Desk, game_ids: list[str], folder: Path, seed: int = 0) -> list[Path]:
    """Write signed turn files (inline signatures) for ``pbem ingest --dir``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for game_id, message, signature in signed_next_turns(desk, game_ids, seed):
        tf_side = message.split(b"\nside: ", 1)[1].split(b"\n", 1)[0].decode()
        path = folder / f"{game_id}-{tf_side}-{hashlib.sha256(message).hexdigest()[:8]}.txt"
        path.write_bytes(message + signature.encode("ascii"))
        paths.append(path)
    return paths


def games_in_play(desk: Desk) -> list[str]:
    return resolve.pending_games(desk.engine)


def assert_sound(desk: Desk, moment: str = "") -> dict[str, int]:
    """After a kill: the database opens; every game audits; no accepted file is
    lost; each was resolved at most once; the positions chain holds.  Returns
    the number of resolutions per game."""
    where = f" (after {moment})" if moment else ""
    desk.reopen()
    with Session(desk.engine) as session:
        subs = list(session.exec(select(store.Submission)).all())
        games = list(session.exec(select(store.Game)).all())
        resolutions = list(session.exec(select(store.Resolution)).all())
    live = [s for s in subs if s.status in (store.SubmissionStatus.QUEUED, store.SubmissionStatus.RESOLVED)]
    counts = Counter(s.digest for s in live)
    lost = desk.queued - set(counts)
    assert not lost, f"{len(lost)} accepted turn file(s) lost{where}; refused because: {refusal_reasons(desk, lost)}"
    twice = [d for d, n in counts.items() if n > 1]
    assert not twice, f"{len(twice)} turn file(s) stored twice{where}"
    per_game = Counter(r.game_id for r in resolutions)
    for game in games:
        ks = sorted(r.k for r in resolutions if r.game_id == game.id)
        assert ks == list(range(1, game.current_k + 1)), (
            f"{game.id}: resolutions {ks} but current_k {game.current_k}{where}"
        )
        for s in live:
            if s.game_id != game.id:
                continue
            if s.status == store.SubmissionStatus.RESOLVED:
                assert s.turn <= game.current_k, (
                    f"{game.id}: file for turn {s.turn} marked resolved at k={game.current_k}{where}"
                )
            else:
                assert s.turn == game.next_k, (
                    f"{game.id}: file queued for turn {s.turn} but the game waits for {game.next_k}{where}"
                )
        try:
            audit.audit_archive(archive.build_archive(desk.engine, game.id))
        except audit.AuditFailure as exc:
            pytest.fail(f"{game.id}: audit failed{where}: {exc}")
    return {g.id: per_game[g.id] for g in games}


def refusal_reasons(desk: Desk, digests: set[str]) -> list[str]:
    """Why the files with these digests were refused, if they were."""
    with Session(desk.engine) as session:
        refusals = list(session.exec(select(store.Refusal)).all())
    return [r.reason for r in refusals if hashlib.sha256(sshsig.split_inline(r.data)[0]).hexdigest() in digests][:3]


def queued_count(desk: Desk) -> int:
    with Session(desk.engine) as session:
        stmt = select(store.Submission.id).where(store.Submission.status == store.SubmissionStatus.QUEUED)
        return len(session.exec(stmt).all())


def _ingest_available() -> bool:
    try:
        import pbem.mail.readers  # noqa: F401
    except ImportError:
        return False
    from pbem.cli.application import app

    return any((c.name or c.callback.__name__) == "ingest" for c in app.registered_commands if c.callback)


needs_ingest = pytest.mark.skipif(not _ingest_available(), reason="pbem ingest is not wired into the CLI yet")
