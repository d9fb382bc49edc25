"""Crash anywhere: a ``pbem process`` killed with SIGKILL
leaves the last good state, every queued turn file, and a database that the next
run completes from.

The short tests run by default: the fault hook (``PBEM_TEST_FAULT=kill-mid-resolution``
kills ``process`` after it wrote a resolution, before the commit) and a few kills
from outside at random moments.  ``make test-slow`` runs the 50-kill versions for
``process --all`` and for ``ingest`` (a folder of turn files, and a Maildir with its
seen-file).  The slow ones must run on a tree nobody is editing: the test process
and the ``pbem`` processes it starts must import the same rules.

The referee's desk with many games, queued through the library, and the checks
made after every kill are in ``tests/support/desk.py``.
"""

from __future__ import annotations

import hashlib
import mailbox
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session

from pbem import store
from pbem.referee import lifecycle, resolve
from pbem.turnfiles import sshsig
from tests.support.desk import (
    ROOT,
    Desk,
    assert_sound,
    games_in_play,
    needs_ingest,
    new_games,
    open_desk,
    queue_next_turns,
    queued_count,
    write_next_turns,
)

FAULT = {resolve.FAULT_ENV: "kill-mid-resolution"}
KILLED = -signal.SIGKILL


# ------------------------------------------------------------------ kills


def kill_after(proc: subprocess.Popen[str], delay: float) -> int:
    """SIGKILL ``proc`` after ``delay`` seconds (unless it ended first); its return code."""
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.kill()
    proc.communicate()
    return proc.returncode


def calibrate(desk: Desk, *args: str) -> float:
    """How long ``pbem ARGS`` runs on a copy of the database as it is now."""
    copy = desk.tmp / "calibrate.db"
    con = sqlite3.connect(desk.db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copy(desk.db, copy)
    start = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "pbem", "--db", str(copy), *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r.stderr
    for p in (copy, copy.with_name(copy.name + "-wal"), copy.with_name(copy.name + "-shm")):
        p.unlink(missing_ok=True)
    return elapsed


# ------------------------------------------------------------------ the tests


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    d = open_desk(tmp_path)
    yield d
    d.engine.dispose()


def test_process_killed_mid_resolution_keeps_the_last_good_state(desk: Desk) -> None:
    """The fault hook kills ``pbem process`` after it wrote resolution 1
    and before the commit.  Reopened: the game is at its set-up position, the
    turn file is still queued, and the next ``process`` makes resolution 1."""
    [game] = new_games(desk, 1)
    queue_next_turns(desk, [game])
    before = lifecycle.status(desk.engine, game)
    r = desk.pbem("process", game, env=FAULT)
    assert r.returncode == KILLED, (r.returncode, r.stdout, r.stderr)
    assert assert_sound(desk, "the fault hook") == {game: 0}
    after = lifecycle.status(desk.engine, game)
    assert (
        (after.turn, after.queued, after.awaiting)
        == (before.turn, before.queued, before.awaiting)
        == (1, ["republic"], [])
    )
    with Session(desk.engine) as session:
        assert store.get_game(session, game).state_hash == store.get_game(session, game).initial_state_hash
    r = desk.pbem("process", game)
    assert r.returncode == 0, r.stderr
    assert f"{game}: resolution 1" in r.stdout
    assert assert_sound(desk, "the next run") == {game: 1}
    assert queued_count(desk) == 0


def test_process_all_killed_by_the_fault_hook_loses_nothing(desk: Desk) -> None:
    """The hook kills ``process --all`` at its first resolution, three times over:
    nothing is half-written, and the run after that resolves every game."""
    games = new_games(desk, 4)
    queue_next_turns(desk, games)
    for attempt in range(3):
        r = desk.pbem("process", "--all", "-q", env=FAULT)
        assert r.returncode == KILLED, (attempt, r.stdout, r.stderr)
        assert set(assert_sound(desk, f"kill {attempt + 1}").values()) == {0}
        assert queued_count(desk) == len(games)
    r = desk.pbem("process", "--all", "-q")
    assert r.returncode == 0, r.stderr
    assert f"{len(games)} resolution(s) made" in r.stdout
    assert set(assert_sound(desk, "the next run").values()) == {1}


def kill_at_resolution(proc: subprocess.Popen[str], db: Path | str, before: int, target: int) -> int:
    """SIGKILL ``proc`` as soon as the database holds ``target`` more resolutions
    than ``before`` (a reader polls it; WAL lets it read beside the writer), or
    let it end first; its return code."""
    con = sqlite3.connect(db, timeout=30)
    try:
        while proc.poll() is None:
            (count,) = con.execute("SELECT COUNT(*) FROM resolution").fetchone()
            if count - before >= target:
                proc.kill()
                break
            time.sleep(0.0005)
    finally:
        con.close()
    proc.communicate()
    return proc.returncode


def kill_rounds(
    desk: Desk, games: list[str], kills: int, seed: int, command: tuple[str, ...] = ("process", "--all", "-q")
) -> list[tuple[int, int]]:
    """``kills`` times: queue a turn for every game in play, start ``pbem
    process --all`` and SIGKILL it; check the database; then let the next run
    complete.  Even kills come at a random moment within how long a whole run
    takes (start-up, opening the database, the batch); since the batch itself is
    a small part of a run (about 1 ms a game), odd kills come inside it: as soon
    as a random number of its resolutions are committed.  Returns, for each
    kill, (games the killed run had resolved, games in play)."""
    rng = random.Random(seed)
    size = len(games)
    resolved_before_kill: list[tuple[int, int]] = []
    for n in range(kills):
        in_play = games_in_play(desk)
        if not in_play:
            games += new_games(desk, size, prefix=f"r{n}-")
            in_play = games_in_play(desk)
        queue_next_turns(desk, in_play, seed=n)
        before = assert_sound(desk, "queueing")
        if n % 2 == 0:
            span = calibrate(desk, *command)
            moment = rng.uniform(0.0, span)
            code = kill_after(desk.popen(*command), moment)
            label = f"kill {n + 1} at {moment:.3f}s of {span:.3f}s"
        else:
            target = rng.randint(1, max(1, len(in_play) - 1))
            code = kill_at_resolution(desk.popen(*command), desk.db, sum(before.values()), target)
            label = f"kill {n + 1} after {target} of {len(in_play)} resolutions"
        assert code in (KILLED, 0), f"{label}: exit {code}"
        during = assert_sound(desk, label)
        assert all(during[g] - before.get(g, 0) in (0, 1) for g in during), label
        resolved_before_kill.append((sum(during[g] - before.get(g, 0) for g in during), len(in_play)))
        r = desk.pbem(*command)
        assert r.returncode == 0, f"the run after {label}: {r.stderr}"
        after = assert_sound(desk, f"the run after {label}")
        assert queued_count(desk) == 0, f"the run after {label} left files queued"
        assert all(after[g] - before.get(g, 0) == 1 for g in in_play), (
            f"the run after {label}: not every queued turn was resolved once"
        )
    return resolved_before_kill


def test_process_all_killed_at_random_moments(desk: Desk) -> None:
    """Two kills from outside at random moments of a ``process --all`` over a
    dozen games (the slow suite does fifty)."""
    games = new_games(desk, 12)
    kill_rounds(desk, games, kills=2, seed=20261129)


@pytest.mark.slow
def test_process_all_killed_fifty_times(desk: Desk) -> None:
    """``pbem process --all`` over sixty games killed with SIGKILL at
    fifty random moments; after each kill the database opens, every game audits,
    no queued file is lost, and the next run completes.  Some kills must land in
    the middle of the batch (not all in the interpreter's start-up): the odd
    kills are aimed there, since the whole batch takes about 60 ms."""
    games = new_games(desk, 60)
    resolved = kill_rounds(desk, games, kills=50, seed=int(os.environ.get("PBEM_SOAK_SEED", "8")))
    mid_batch = [done for done, in_play in resolved if 0 < done < in_play]
    assert len(mid_batch) >= 5, f"games resolved by each killed run: {resolved}"


# ------------------------------------------------------------------ ingest


def write_mail(folder: Path, paths: list[Path]) -> None:
    """The same signed files as player mail in a Maildir: each inline in a message."""
    box = mailbox.Maildir(folder, create=True)
    for n, path in enumerate(paths):
        msg = EmailMessage()
        msg["From"] = "player@example.org"
        msg["To"] = "referee@example.org"
        msg["Subject"] = "orders"
        msg["Message-ID"] = f"<{path.stem}-{n}@example.org>"
        msg.set_content(path.read_text(encoding="utf-8"))
        box.add(msg.as_bytes())


def ingest_kill_rounds(desk: Desk, games: list[str], kills: int, seed: int, source: str = "--dir") -> None:
    """``kills`` times: write a signed file for each game in play (into a folder,
    or as mail into a Maildir), start ``pbem ingest`` on it and SIGKILL it at a
    random moment; check that every file ingested is queued exactly once; the
    next ingest queues the rest; a clean ``process --all`` then resolves them (so
    the next round has work).  A Maildir keeps a seen-file, so the calibration
    run works on a copy of it."""
    rng = random.Random(seed)
    size = len(games)
    for n in range(kills):
        in_play = games_in_play(desk)
        if not in_play:
            games += new_games(desk, size, prefix=f"i{n}-")
            in_play = games_in_play(desk)
        files = desk.tmp / f"files-{n}"
        paths = write_next_turns(desk, in_play, files, seed=n)
        digests = {hashlib.sha256(sshsig.split_inline(p.read_bytes())[0]).hexdigest() for p in paths}
        inbox = files
        if source == "--maildir":
            inbox = desk.tmp / f"maildir-{n}"
            write_mail(inbox, paths)
        rehearsal = desk.tmp / f"rehearsal-{n}"
        shutil.copytree(inbox, rehearsal)
        span = calibrate(desk, "ingest", source, str(rehearsal))
        moment = rng.uniform(0.0, span)
        label = f"ingest {source} kill {n + 1} at {moment:.3f}s of {span:.3f}s"
        code = kill_after(desk.popen("ingest", source, str(inbox)), moment)
        assert code in (KILLED, 0, 1), f"{label}: exit {code}"
        assert_sound(desk, label)
        r = desk.pbem("ingest", source, str(inbox))
        assert r.returncode in (0, 1), f"the ingest after {label}: {r.returncode} {r.stderr}"
        assert "Traceback" not in r.stderr
        desk.queued |= digests
        assert_sound(desk, f"the ingest after {label}")
        assert queued_count(desk) == len(digests), (
            f"the ingest after {label}: {queued_count(desk)} queued, {len(digests)} sent"
        )
        r = desk.pbem("process", "--all", "-q")
        assert r.returncode == 0, r.stderr
        assert queued_count(desk) == 0


@needs_ingest
@pytest.mark.parametrize("source", ["--dir", "--maildir"])
def test_ingest_killed_at_a_random_moment(desk: Desk, source: str) -> None:
    """One kill of ``pbem ingest`` (the slow suite does fifty)."""
    games = new_games(desk, 8)
    ingest_kill_rounds(desk, games, kills=1, seed=11, source=source)


@needs_ingest
@pytest.mark.slow
@pytest.mark.parametrize("source", ["--dir", "--maildir"])
def test_ingest_killed_fifty_times(desk: Desk, source: str) -> None:
    """The same for ``pbem ingest``: no file ingested twice or lost."""
    games = new_games(desk, 40)
    ingest_kill_rounds(desk, games, kills=50, seed=int(os.environ.get("PBEM_SOAK_SEED", "8")), source=source)


# ------------------------------------------------------------------ one bad game


def test_one_game_that_cannot_resolve_does_not_stop_the_batch(desk: Desk) -> None:
    """A queued file that no longer passes its checks (a damaged row, or a rules
    upgrade between submit and process) is reported for its game, with exit 1;
    every other game of the batch is still resolved."""
    games = new_games(desk, 3)
    queue_next_turns(desk, games)
    con = sqlite3.connect(desk.db)
    try:
        # The first game's queued file, damaged so that it no longer parses.
        con.execute(
            "UPDATE submission SET message = CAST(? AS BLOB) WHERE game_id = ?", (b"not a turn file\n", games[0])
        )
        con.commit()
    finally:
        con.close()
    r = desk.pbem("process", "--all", "-q")
    assert r.returncode == 1, r.stdout
    assert games[0] in r.stderr and "Traceback" not in r.stderr
    desk.reopen()
    assert [lifecycle.status(desk.engine, g).turn for g in games] == [1, 2, 2]
