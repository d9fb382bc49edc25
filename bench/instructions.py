"""Instructions per piece of the referee's work: the benchmark's first figures.

Each figure is the difference of two runs of one small script under valgrind's
callgrind: the same set-up in both (imports, the databases opened, every piece of
work done once to warm the caches a referee's process warms), then the piece
measured done K more times in one run and not at all in the other; the difference
over K is one piece's instructions, start-up and warm-up cancelled.  Instruction
counts do not move with the machine's load, as CPU seconds do; the CPU seconds of
the same K pieces, from one run without valgrind, stand beside them with the load
average of that moment.

The pieces (docs/performance.md names each):

- per resolution, on Farrapos games played by the seeded random bot to the middle
  of the game: ``submit`` of a signed turn file (``intake.submit``), ``resolve``
  (``resolve.resolve_next``), and both sides' reports of the resolution
  (``write_resolution_reports``: HTML, text, map, position file);
- the floor: one SSHSIG Ed25519 verify (``sshsig.verify``), one dice key
  (``dice.dice_key``) and one link of the dice chain (``dice.H``), one state hash
  of a mid-game position (canonical JSON and SHA-256), one SQLite commit of a
  position-sized row (WAL, ``synchronous=NORMAL``), one render of a side's HTML
  report and of its text report.

Usage: ``python bench/instructions.py [--quick]`` prints the figures as JSON;
``bench/bench.py`` calls :func:`measure` and keeps them in ``results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

PER_RESOLUTION = ("submit", "resolve", "reports")
FLOOR = ("sshsig_verify", "dice_key", "dice_link", "state_hash", "sqlite_commit", "render_html", "render_text")
NAMES = {
    "submit": "a submitted turn file (`intake.submit`), per resolution",
    "resolve": "a resolution (`resolve.resolve_next`)",
    "reports": "both sides' reports of a resolution (`write_resolution_reports`)",
    "sshsig_verify": "one SSHSIG Ed25519 verify (`sshsig.verify`)",
    "dice_key": "one dice key (`dice.dice_key`)",
    "dice_link": "one link of the dice chain (`dice.H`)",
    "state_hash": "one state hash of a mid-game position (canonical JSON + SHA-256)",
    "sqlite_commit": "one SQLite commit of a position-sized row",
    "render_html": "one render of a side's HTML report (`render_html`)",
    "render_text": "one render of a side's text report (`render_text`)",
}
TIMES = {"sshsig_verify": 50, "dice_key": 200, "dice_link": 500, "state_hash": 100, "sqlite_commit": 100}
TIMES.update(render_html=10, render_text=10)


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PBEM_DB", "PBEM_TEST_FAULT")}
    env["PYTHONHASHSEED"] = "0"
    return env


# ------------------------------------------------------------------ prepared data


def prepare(work: Path, games: int, at: int) -> None:
    """``games`` Farrapos games played by the seeded random bot to resolution ``at``,
    then each game's next turn file signed: ``ready.db`` (not submitted),
    ``queued.db`` (submitted), ``resolved.db`` (resolved), ``files.json``."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    import workload

    from pbem import store

    players = workload.make_players(work / "keys")
    engine = store.open_engine(work / "ready.db")
    try:
        ids, _ = workload.create_games(engine, games, players)
        for round_ in range(at):
            files, _w, _s = workload.write_turns(engine, ids, players, seed=round_)
            workload.submit_all(engine, files)
            workload.process_all(engine)
        files, _w, _s = workload.write_turns(engine, ids, players, seed=at)
        saved = [{"game": f.game_id, "message": f.message.decode("utf-8"), "signature": f.signature} for f in files]
        (work / "files.json").write_text(json.dumps(saved), encoding="utf-8")
        _copy(work / "ready.db", work / "queued.db")
        queued = store.open_engine(work / "queued.db")
        workload.submit_all(queued, files)
        queued.dispose()
        _copy(work / "queued.db", work / "resolved.db")
        resolved = store.open_engine(work / "resolved.db")
        workload.process_all(resolved)
        resolved.dispose()
    finally:
        engine.dispose()


def _copy(source: Path, target: Path) -> None:
    con = sqlite3.connect(source)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copy(source, target)


# ------------------------------------------------------------------ the child run


def child(work: Path, measured: str, times: int) -> dict[str, float]:
    """Set everything up and do every piece once (the same in every run), then
    ``measured`` ``times`` more times (``all``: each piece, timed apart); CPU
    seconds per piece of the timed runs."""
    sys.path.insert(0, str(ROOT))
    from cryptography.hazmat.primitives.asymmetric import ed25519

    from pbem import dice, store
    from pbem.referee import intake, resolve
    from pbem.reports import assemble, render
    from pbem.store.transaction import transaction
    from pbem.turnfiles import canonical, sshsig

    run = Path(tempfile.mkdtemp(prefix="run-", dir=work))
    for name in ("ready", "queued", "resolved"):
        shutil.copy(work / f"{name}.db", run / f"{name}.db")
    files = json.loads((work / "files.json").read_text(encoding="utf-8"))
    ready, queued, resolved = (store.open_database(run / f"{n}.db") for n in ("ready", "queued", "resolved"))
    games = [f["game"] for f in files]
    with transaction(resolved, write=False) as tx:
        k = store.known_game(tx, games[0]).next_k - 1
        position = store.known_game(tx, games[0]).position
        views = assemble.report_views(tx, games[0], k, ["republic"])
    key = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    message = files[0]["message"].encode("utf-8")
    signature = sshsig.sign(message, key)
    row = "x" * len(canonical.canonical_json(position))
    con = sqlite3.connect(run / "floor.db", isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, position TEXT)")

    def commit() -> None:
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO t (position) VALUES (?)", (row,))
        con.execute("COMMIT")

    game_pieces: dict[str, Callable[[int], Any]] = {
        "submit": lambda i: intake.submit(
            ready, files[i]["message"].encode("utf-8"), files[i]["signature"], source="bench"
        ),
        "resolve": lambda i: resolve.resolve_next(queued, games[i]),
        "reports": lambda i: assemble.write_resolution_reports(resolved, games[i], k, run / "reports" / games[i]),
    }
    floor: dict[str, Callable[[], Any]] = {
        "sshsig_verify": lambda: sshsig.verify(message, signature),
        "dice_key": lambda: dice.dice_key(bytes(32), games[0], k, [message]),
        "dice_link": lambda: dice.H(bytes(32)),
        "state_hash": lambda: canonical.position_hash(position),
        "sqlite_commit": commit,
        "render_html": lambda: render.render_html(views[0]),
        "render_text": lambda: render.render_text(views[0]),
    }
    for piece in game_pieces.values():  # the warm-up, in every run alike
        piece(0)
    for call in floor.values():
        call()
    cpu: dict[str, float] = {}
    for name in (PER_RESOLUTION + FLOOR) if measured == "all" else (measured,) if times else ():
        count = times if measured != "all" else (len(games) - 1 if name in game_pieces else TIMES[name])
        start = time.process_time()
        if name in game_pieces:
            for i in range(1, count + 1):
                game_pieces[name](i)
        else:
            call = floor[name]
            for _ in range(count):
                call()
        cpu[name] = (time.process_time() - start) / count
    con.close()
    for db in (ready, queued, resolved):
        db.dispose()
    shutil.rmtree(run, ignore_errors=True)
    return cpu


# ------------------------------------------------------------------ the parent


def _collected(stderr: str) -> int:
    found = [line.rsplit(":", 1)[1].strip() for line in stderr.splitlines() if "Collected :" in line]
    if not found:
        raise RuntimeError(f"callgrind printed no count: {stderr[-800:]}")
    return int(found[-1])


def _child_argv(work: Path, measured: str, times: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", str(work), measured, str(times)]


def counted(work: Path, measured: str, times: int) -> int:
    """Instructions of one child run under callgrind."""
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *_child_argv(work, measured, times)],
        capture_output=True,
        text=True,
        env=environment(),
        timeout=3600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{measured} under callgrind exited {result.returncode}: {result.stderr[-800:]}")
    return _collected(result.stderr)


def measure(workdir: Path, quick: bool = False) -> dict[str, Any]:
    """Every piece: its instructions (where valgrind is installed) and CPU seconds,
    with the load average at each measurement."""
    games, at = (3, 4) if quick else (9, 13)
    work = Path(tempfile.mkdtemp(prefix="instructions-", dir=workdir))
    try:
        prepare(work, games, at)
        native = subprocess.run(
            _child_argv(work, "all", 1), capture_output=True, text=True, env=environment(), timeout=3600
        )
        if native.returncode != 0:
            raise RuntimeError(f"the timed run exited {native.returncode}: {native.stderr[-800:]}")
        cpu = json.loads(native.stdout)
        cpu_load = round(os.getloadavg()[0], 2)
        out: dict[str, Any] = {"games": games, "at": at, "pieces": {}}
        base = counted(work, "none", 0) if shutil.which("valgrind") else None
        out["baseline_instructions"] = base
        for name in PER_RESOLUTION + FLOOR:
            times = games - 1 if name in PER_RESOLUTION else TIMES[name]
            row: dict[str, Any] = {
                "name": NAMES[name],
                "times": times,
                "cpu_ms": round(cpu[name] * 1000, 4),
                "cpu_load": cpu_load,
            }
            if base is not None:
                row["instructions"] = round((counted(work, name, times) - base) / times)
            out["pieces"][name] = row
            print(f"  {name}: {row}", flush=True)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--child", nargs=3, metavar=("WORK", "PIECE", "TIMES"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer and shorter games, to check the script runs")
    parser.add_argument("--workdir", type=Path, default=HERE / "work")
    args = parser.parse_args(argv)
    if args.child:
        work, piece, times = args.child
        print(json.dumps(child(Path(work), piece, int(times))))
        return 0
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(json.dumps(measure(args.workdir, args.quick), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
